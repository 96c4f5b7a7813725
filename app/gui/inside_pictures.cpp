#include "app/gui/inside_pictures.h"

#include <QObject>
#include <algorithm>

#include "engine/model/network_spec.h"
#include "engine/runs/epoch_replay.h"
#include "ui/qt_text.h"

namespace bps::app {

namespace {

using ui::text_of;

const model::LayerSpec* spec_of(const project::Project& project, const std::string& layer) {
    for (const model::LayerSpec& spec : project.network.layers)
        if (spec.name == layer) return &spec;
    return nullptr;
}

const io::NamedArray* array_named(const std::vector<io::NamedArray>& arrays, const std::string& name) {
    for (const io::NamedArray& array : arrays)
        if (array.name == name) return &array;
    return nullptr;
}

// Whether the layer reads the image itself (its input is the input layer).
bool reads_image(const project::Project& project, const model::LayerSpec& spec) {
    for (const std::string& input : spec.inputs) {
        const model::LayerSpec* from = spec_of(project, input);
        if (from && from->type == model::LayerType::input) return true;
    }
    return false;
}

// A ReLU's zeros say how much of the layer is off for the image; other activations are never zero.
bool is_relu(const project::Project& project, const std::string& layer) {
    const model::LayerSpec* spec = spec_of(project, layer);
    return spec && spec->type == model::LayerType::activation && spec->activation == model::Activation::relu;
}

QString shape_text(const session::LayerOutput& layer) {
    if (layer.height == 1 && layer.width == 1) return QString::number(layer.channels);
    return QStringLiteral("%1x%2x%3").arg(layer.channels).arg(layer.height).arg(layer.width);
}

}  // namespace

FilterPicture filters_of(const InsideAnswer& answer, const QString& layer_name) {
    const std::string layer = layer_name.toStdString();
    const model::LayerSpec* spec = spec_of(answer.project, layer);
    if (!spec || !answer.weights) return {std::nullopt, QObject::tr("Choose a layer in the table below.")};
    const io::NamedArray* weight = array_named(*answer.weights, layer + ".weight");
    if (spec->type == model::LayerType::conv2d && weight && weight->dims.size() == 4) {
        ui::FilterSet set;
        set.layer = layer_name;
        set.count = weight->dims[0];
        set.channels = weight->dims[1];
        set.height = weight->dims[2];
        set.width = weight->dims[3];
        set.kind = set.channels == 3 && reads_image(answer.project, *spec) ? ui::FilterSet::Kind::colour_kernels
                                                                           : ui::FilterSet::Kind::kernels;
        set.values = weight->values;
        return {std::move(set), {}};
    }
    if (spec->type == model::LayerType::dense && weight && weight->dims.size() == 2 &&
        session::replay_keeps(answer.project, answer.card, layer) &&
        static_cast<std::size_t>(weight->dims[1]) == answer.card.shape.per_sample()) {
        ui::FilterSet set;
        set.layer = layer_name;
        set.kind = ui::FilterSet::Kind::dense_images;
        set.count = weight->dims[0];
        set.channels = answer.card.shape.channels;
        set.height = answer.card.shape.height;
        set.width = answer.card.shape.width;
        set.values = weight->values;
        return {std::move(set), {}};
    }
    switch (spec->type) {
        case model::LayerType::dense:
            return {std::nullopt,
                    QObject::tr("%1 reads the outputs of other layers, not the image: its weights are not "
                                "pictures. Its figures are in the table, its histograms beside.")
                        .arg(layer_name)};
        case model::LayerType::batch_norm:
            return {std::nullopt, QObject::tr("%1 holds one scale and one shift per channel, not filters: see its "
                                              "figures in the table.")
                                      .arg(layer_name)};
        default:
            return {std::nullopt, QObject::tr("%1 (%2) has no weights. Choose a Conv2D layer to see its filters, or a "
                                              "first Dense layer to see its weights as images.")
                                      .arg(layer_name, QString::fromLatin1(model::layer_type_name(spec->type)))};
    }
}

std::vector<ui::LayerFiguresRow> figure_rows(const InsideAnswer& answer) {
    std::vector<ui::LayerFiguresRow> rows;
    for (std::size_t i = 0; i < answer.layers.size(); ++i) {
        const session::LayerOutput& layer = answer.layers[i];
        ui::LayerFiguresRow row;
        row.layer = text_of(layer.name);
        row.type = QString::fromLatin1(model::layer_type_name(layer.type));
        row.output_shape = shape_text(layer);
        const std::vector<io::NamedArray> arrays =
            answer.weights ? session::arrays_of_layer(*answer.weights, layer.name) : std::vector<io::NamedArray>{};
        row.formula = text_of(session::parameter_formula(arrays));
        const std::string weight = layer.name + ".weight";
        if (const auto found = answer.weight_figures.find(weight); found != answer.weight_figures.end())
            row.weights = found->second;
        if (const auto found = answer.gradient_figures.find(weight); found != answer.gradient_figures.end())
            row.gradients = found->second;
        if (!answer.images.empty() && is_relu(answer.project, layer.name) && i < answer.images[0].outputs.size())
            row.zero_fraction = session::zero_fraction(answer.images[0].outputs[i].values);
        rows.push_back(std::move(row));
    }
    return rows;
}

ui::InsideImageActivations image_activations(const InsideAnswer& answer, std::size_t image) {
    ui::InsideImageActivations shown;
    if (image >= answer.images.size()) return shown;
    const InsideAnswer::Image& source = answer.images[image];
    shown.image_title = source.title;
    for (const session::LayerOutput& output : source.outputs) {
        ui::ActivationSet set;
        set.layer = text_of(output.name);
        set.channels = output.channels;
        set.height = output.height;
        set.width = output.width;
        const bool exact =
            std::find(answer.exact_layers.begin(), answer.exact_layers.end(), output.name) != answer.exact_layers.end();
        if (exact) {
            set.title = QStringLiteral("%1 — %2 (%3)").arg(source.title, set.layer, shape_text(output));
            set.values = output.values;
            if (is_relu(answer.project, output.name)) set.zero_fraction = session::zero_fraction(output.values);
        } else {
            set.title = QObject::tr(
                            "%1: a replay keeps the filters and the first Dense layer, not the layers after "
                            "them, so this layer's output at this epoch is not known. Move the slider to the "
                            "end to see it.")
                            .arg(set.layer);
        }
        shown.layers.push_back(std::move(set));
    }
    return shown;
}

}  // namespace bps::app
