#include "ui/document/network_document.h"

#include <QUndoCommand>
#include <algorithm>
#include <exception>

#include "engine/project/network_edits.h"
#include "engine/project/project_data.h"

namespace bps::ui {

namespace {

constexpr int move_command_id = 1;
constexpr int layer_edit_command_id = 2;
constexpr int dataset_command_id = 3;
constexpr int training_command_id = 4;

bool same_dataset_source(const project::DatasetSettings& a, const project::DatasetSettings& b) {
    return a.name == b.name && a.folder == b.folder && a.height == b.height && a.width == b.width &&
           a.channels == b.channels;
}

}  // namespace

// One edit: the state before and after it. Whole snapshots keep undo exact whatever the edit
// touched (a rename changes edges, a delete several layers), and a course-size network is a few
// kilobytes.
class ProjectEditCommand : public QUndoCommand {
public:
    ProjectEditCommand(NetworkDocument* document, const QString& text, NetworkDocument::State before,
                       NetworkDocument::State after, int merge_id, int gesture)
        : QUndoCommand(text),
          document_(document),
          before_(std::move(before)),
          after_(std::move(after)),
          merge_id_(merge_id),
          gesture_(gesture) {}

    void undo() override { document_->apply(before_); }
    void redo() override { document_->apply(after_); }
    int id() const override { return merge_id_ == 0 ? -1 : merge_id_; }
    bool mergeWith(const QUndoCommand* other) override {
        const auto* next = static_cast<const ProjectEditCommand*>(other);
        if (gesture_ == 0 || next->gesture_ != gesture_) return false;
        after_ = next->after_;
        return true;
    }

private:
    NetworkDocument* document_;
    NetworkDocument::State before_;
    NetworkDocument::State after_;
    int merge_id_;
    int gesture_;
};

NetworkDocument::NetworkDocument(QObject* parent) : QObject(parent) {
    QObject::connect(&undo_stack_, &QUndoStack::cleanChanged, this, &NetworkDocument::fileStateChanged);
    project::Project blank;
    blank.network.explicit_inputs = true;
    reset(std::move(blank));
}

void NetworkDocument::reset(project::Project project, std::filesystem::path file, bool modified) {
    model::NetworkSpec& network = project.network;
    // A spec built in code may leave a layer's input implicit (the previous layer); the editor
    // shows every connection as an edge, so make them explicit.
    if (!network.explicit_inputs) {
        for (std::size_t i = 1; i < network.layers.size(); ++i)
            if (network.layers[i].type != model::LayerType::input && network.layers[i].inputs.empty())
                network.layers[i].inputs = {network.layers[i - 1].name};
        network.explicit_inputs = true;
    }
    bool placed = true;
    for (const model::LayerSpec& layer : network.layers) placed = placed && layer.position.has_value();
    if (!placed) project::tidy_layout(network);

    project_ = std::move(project);
    file_ = std::move(file);
    undo_stack_.clear();
    if (modified) undo_stack_.resetClean();
    recompute();
    emit fileStateChanged();
    emit replaced();
    emit changed();
}

void NetworkDocument::mark_saved(std::filesystem::path file) {
    file_ = std::move(file);
    undo_stack_.setClean();
    emit fileStateChanged();
}

int NetworkDocument::index_of(const std::string& name) const {
    return project::layer_index(project_.network, name);
}

const model::LayerSpec* NetworkDocument::layer(const std::string& name) const {
    const int index = index_of(name);
    return index < 0 ? nullptr : &project_.network.layers[static_cast<std::size_t>(index)];
}

const model::NodeReport* NetworkDocument::node_report(const std::string& name) const {
    const int index = index_of(name);
    if (index < 0 || static_cast<std::size_t>(index) >= report_.nodes.size()) return nullptr;
    return &report_.nodes[static_cast<std::size_t>(index)];
}

std::optional<std::string> NetworkDocument::add_layer(const std::string& label, model::CanvasPosition at,
                                                      std::string* added) {
    if (locked()) return refuse(lock_reason_.toStdString());
    const project::PaletteEntry* entry = project::palette_entry(label);
    if (!entry) return refuse("'" + label + "' is not a layer type");
    State after = state();
    model::LayerSpec layer = entry->layer;
    const bool input = layer.type == model::LayerType::input;
    layer.name = project::unique_layer_name(after.network, layer.name, input ? layer.name : std::string());
    layer.position = at;
    if (added) *added = layer.name;
    const QString text = tr("Add %1").arg(QString::fromStdString(layer.name));
    after.network.layers.push_back(std::move(layer));
    push(text, std::move(after));
    return std::nullopt;
}

std::optional<std::string> NetworkDocument::append_layer(const std::string& label, const std::string& after_layer,
                                                         std::string* added) {
    if (locked()) return refuse(lock_reason_.toStdString());
    const project::PaletteEntry* entry = project::palette_entry(label);
    if (!entry) return refuse("'" + label + "' is not a layer type");
    if (!after_layer.empty() && !layer(after_layer))
        return refuse("'" + after_layer + "' is not a layer of this network");
    State after = state();
    // The layer, its edges and the layers moved to make room: one undo step.
    const project::Insertion insertion = project::insert_layer(after.network, entry->layer, after_layer, classes_);
    if (added) *added = insertion.name;
    push(tr("Add %1").arg(QString::fromStdString(insertion.name)), std::move(after));
    return std::nullopt;
}

std::optional<std::string> NetworkDocument::connect(const std::string& from, const std::string& to) {
    if (locked()) return refuse(lock_reason_.toStdString());
    if (auto why = project::connection_refusal(project_.network, from, to)) return refuse(*why);
    State after = state();
    after.network.layers[static_cast<std::size_t>(project::layer_index(after.network, to))].inputs.push_back(from);
    push(tr("Connect %1 to %2").arg(QString::fromStdString(from), QString::fromStdString(to)), std::move(after));
    return std::nullopt;
}

std::optional<std::string> NetworkDocument::disconnect(const std::string& from, const std::string& to) {
    if (locked()) return refuse(lock_reason_.toStdString());
    return remove({}, {{from, to}});
}

std::optional<std::string> NetworkDocument::remove_layers(const std::vector<std::string>& names) {
    if (locked()) return refuse(lock_reason_.toStdString());
    return remove(names, {});
}

std::optional<std::string> NetworkDocument::remove(
    const std::vector<std::string>& layers, const std::vector<std::pair<std::string, std::string>>& connections) {
    if (locked()) return refuse(lock_reason_.toStdString());
    std::vector<std::string> present;
    for (const std::string& name : layers)
        if (layer(name)) present.push_back(name);
    const auto removed = [&](const std::string& name) {
        return std::find(present.begin(), present.end(), name) != present.end();
    };
    State after = state();
    std::size_t disconnected = 0;
    for (const auto& [from, to] : connections) {
        const model::LayerSpec* reader = layer(to);
        if (!reader || std::find(reader->inputs.begin(), reader->inputs.end(), from) == reader->inputs.end())
            return refuse("'" + from + "' does not feed '" + to + "'");
        if (removed(from) || removed(to)) continue;  // goes with its layer
        std::erase(after.network.layers[static_cast<std::size_t>(index_of(to))].inputs, from);
        ++disconnected;
    }
    if (present.empty() && disconnected == 0) return refuse("nothing to delete: select the layers first");
    project::remove_layers(after.network, present);
    QString text = tr("Delete");
    if (disconnected == 0)
        text = present.size() == 1 ? tr("Delete %1").arg(QString::fromStdString(present.front()))
                                   : tr("Delete %1 layers").arg(present.size());
    else if (present.empty() && disconnected == 1)
        text = tr("Disconnect %1 from %2")
                   .arg(QString::fromStdString(connections.front().first),
                        QString::fromStdString(connections.front().second));
    push(text, std::move(after));
    return std::nullopt;
}

std::optional<std::string> NetworkDocument::move_layers(
    const std::vector<std::pair<std::string, model::CanvasPosition>>& moves, int gesture) {
    if (locked()) return refuse(lock_reason_.toStdString());
    State after = state();
    for (const auto& [name, position] : moves) {
        const int index = project::layer_index(after.network, name);
        if (index < 0) return refuse("'" + name + "' is not a layer of this network");
        after.network.layers[static_cast<std::size_t>(index)].position = position;
    }
    const QString text = moves.size() == 1 ? tr("Move %1").arg(QString::fromStdString(moves.front().first))
                                           : tr("Move %1 layers").arg(moves.size());
    push(text, std::move(after), move_command_id, gesture);
    return std::nullopt;
}

std::optional<std::string> NetworkDocument::update_layer(const std::string& name, const model::LayerSpec& changed,
                                                         int gesture) {
    if (locked()) return refuse(lock_reason_.toStdString());
    const int index = index_of(name);
    if (index < 0) return refuse("'" + name + "' is not a layer of this network");
    State after = state();
    if (changed.name != name)
        if (auto why = project::rename_layer(after.network, name, changed.name)) return refuse(*why);
    model::LayerSpec& target = after.network.layers[static_cast<std::size_t>(index)];
    const std::vector<std::string> inputs = target.inputs;  // a rename may have changed other edges
    const std::optional<model::CanvasPosition> position = target.position;
    target = changed;
    target.inputs = inputs;
    target.position = position;
    push(tr("Edit %1").arg(QString::fromStdString(changed.name)), std::move(after), layer_edit_command_id, gesture);
    return std::nullopt;
}

std::optional<std::string> NetworkDocument::rename_layer(const std::string& name, const std::string& new_name) {
    if (locked()) return refuse(lock_reason_.toStdString());
    State after = state();
    if (auto why = project::rename_layer(after.network, name, new_name)) return refuse(*why);
    push(tr("Rename %1 to %2").arg(QString::fromStdString(name), QString::fromStdString(new_name)), std::move(after));
    return std::nullopt;
}

std::optional<std::string> NetworkDocument::paste(const std::string& clipboard, double dx, double dy,
                                                  std::vector<std::string>* pasted) {
    if (locked()) return refuse(lock_reason_.toStdString());
    State after = state();
    std::vector<std::string> names;
    try {
        names = project::paste_layers(after.network, clipboard, dx, dy);
    } catch (const std::exception& error) {
        return refuse(std::string("the clipboard holds no layers to paste (") + error.what() + ")");
    }
    if (names.empty()) return refuse("the clipboard holds no layers to paste");
    if (pasted) *pasted = names;
    push(tr("Paste %1 layers").arg(names.size()), std::move(after));
    return std::nullopt;
}

std::optional<std::string> NetworkDocument::tidy() {
    if (locked()) return refuse(lock_reason_.toStdString());
    State after = state();
    project::tidy_layout(after.network);
    push(tr("Tidy the layout"), std::move(after));
    return std::nullopt;
}

std::optional<std::string> NetworkDocument::set_dataset(const project::DatasetSettings& dataset, int gesture) {
    if (locked()) return refuse(lock_reason_.toStdString());
    State after = state();
    after.dataset = dataset;
    push(tr("Change the dataset"), std::move(after), dataset_command_id, gesture);
    return std::nullopt;
}

std::optional<std::string> NetworkDocument::set_training(const project::TrainingSettings& training, int gesture) {
    State after = state();
    after.training = training;
    push(tr("Change the training settings"), std::move(after), training_command_id, gesture);
    return std::nullopt;
}

std::optional<std::string> NetworkDocument::set_device(const std::string& device) {
    State after = state();
    after.device = device;
    push(tr("Change the device"), std::move(after));
    return std::nullopt;
}

void NetworkDocument::set_locked(const QString& reason) {
    if (reason == lock_reason_) return;
    const bool was_locked = locked();
    lock_reason_ = reason;
    if (was_locked != locked()) emit lockChanged(locked());
}

NetworkDocument::State NetworkDocument::state() const {
    return State{project_.network, project_.dataset, project_.training, project_.device};
}

void NetworkDocument::apply(const State& state) {
    project_.network = state.network;
    project_.dataset = state.dataset;
    project_.training = state.training;
    project_.device = state.device;
    recompute();
    emit changed();
}

void NetworkDocument::push(const QString& text, State after, int merge_id, int gesture) {
    // An edit that changes nothing (the same value again, a tidy of a tidy graph) is no undo step.
    project::Project candidate = project_;
    candidate.network = after.network;
    candidate.dataset = after.dataset;
    candidate.training = after.training;
    candidate.device = after.device;
    if (project::project_to_json(candidate) == project::project_to_json(project_)) return;
    undo_stack_.push(new ProjectEditCommand(this, text, state(), std::move(after), merge_id, gesture));
}

std::optional<std::string> NetworkDocument::refuse(std::string reason) {
    emit refused(QString::fromStdString(reason));
    return reason;
}

void NetworkDocument::recompute() {
    // The dataset's facts need the disk for an image folder: look again only when it changed.
    if (!facts_known_ || !same_dataset_source(facts_for_, project_.dataset)) {
        facts_for_ = project_.dataset;
        facts_known_ = true;
        dataset_problem_.clear();
        classes_.reset();
        try {
            const session::DataFacts facts = session::project_data_facts(project_.dataset);
            input_shape_ = facts.shape;
            if (facts.class_count > 0) classes_ = static_cast<int>(facts.class_count);
        } catch (const std::exception& error) {
            dataset_problem_ = error.what();
            input_shape_ =
                datasets::ImageShape{project_.dataset.channels, project_.dataset.height, project_.dataset.width};
        }
    }
    report_ = project::project_report(project_, input_shape_, classes_);
}

}  // namespace bps::ui
