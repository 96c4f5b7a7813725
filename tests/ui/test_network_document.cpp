// The editor's model without a window: the edits the palette, the canvas and the inspector make,
// their undo and redo, and the report that follows every change.
#include <QSignalSpy>
#include <QTest>
#include <functional>
#include <random>

#include "engine/project/network_edits.h"
#include "engine/project/project.h"
#include "tests/ui/graph_json.h"
#include "tests/ui/qt_test_class.h"
#include "ui/document/network_document.h"

namespace {

std::string json_of(const bps::ui::NetworkDocument& document) {
    return bps::project::project_to_json(document.project());
}

// The editor's palette double-click: append `label` after `after` and return the new name.
std::string append(bps::ui::NetworkDocument& document, const std::string& label, const std::string& after) {
    std::string added;
    const auto refused = document.append_layer(label, after, &added);
    if (refused) qFatal("append %s refused: %s", label.c_str(), refused->c_str());
    return added;
}

void edit(bps::ui::NetworkDocument& document, const std::string& name,
          const std::function<void(bps::model::LayerSpec&)>& change) {
    bps::model::LayerSpec layer = *document.layer(name);
    change(layer);
    const auto refused = document.update_layer(name, layer);
    if (refused) qFatal("edit of %s refused: %s", name.c_str(), refused->c_str());
}

}  // namespace

class NetworkDocumentTest : public QObject {
    Q_OBJECT
private slots:
    void buildingTheCnnFromAnEmptyProjectGivesTheReferenceGraph() {
        bps::ui::NetworkDocument document;
        QVERIFY(document.network().layers.empty());
        std::string last;
        for (const char* label : {"Input", "Conv2D", "ReLU", "MaxPool2D", "Conv2D", "ReLU", "MaxPool2D", "Flatten",
                                  "Dense", "ReLU", "Dense"})
            last = append(document, label, last);
        QCOMPARE(last, std::string("fc2"));
        QVERIFY(!document.rename_layer("flatten1", "flatten"));
        edit(document, "conv2", [](auto& layer) { layer.units = 64; });
        edit(document, "fc2", [](auto& layer) {
            layer.units = 10;
            layer.initializer = bps::train::Initializer::glorot_uniform;
        });
        QVERIFY2(document.report().ok(), document.report().ok() ? "" : document.report().problems[0].message.c_str());

        // The graph (layers, parameters, edges, loss) must equal the shipped cnn's; positions,
        // texts, dataset and training settings are not part of it.
        const bps::project::Project reference = bps::project::example_project("cnn");
        QCOMPARE(document.project().network.layers.size(), reference.network.layers.size());
        QCOMPARE(bps::test::graph_json(document.project(), reference), bps::project::project_to_json(reference));
        // Appending goes left to right, one column per layer.
        QVERIFY(document.layer("fc2")->position->x > document.layer("fc1")->position->x);
        QCOMPARE(document.report().nodes.back().parameters, std::size_t{1290});
    }

    void anIllegalConnectionIsRefusedWithItsMessageAndChangesNothing() {
        bps::ui::NetworkDocument document;
        document.reset(bps::project::example_project("mlp"));
        const std::string before = json_of(document);
        QSignalSpy refusals(&document, &bps::ui::NetworkDocument::refused);
        const std::string first = document.network().layers[1].name;
        const std::string last = document.network().layers.back().name;
        const auto cycle = document.connect(last, first);
        QVERIFY(cycle.has_value());
        QCOMPARE(refusals.count(), 1);
        QCOMPARE(refusals.at(0).at(0).toString(), QString::fromStdString(*cycle));
        QVERIFY2(cycle->find("takes one input") != std::string::npos || cycle->find("cycle") != std::string::npos,
                 cycle->c_str());
        const auto into_input = document.connect(first, "input");
        QCOMPARE(QString::fromStdString(into_input.value_or("")),
                 QString("'input' is an Input layer and reads from no layer; the dataset feeds it"));
        QCOMPARE(json_of(document), before);
        QCOMPARE(document.undo_stack()->count(), 0);
        QVERIFY(!document.is_modified());
    }

    void fiftyRandomEditsUndoToTheOriginalAndRedoToTheEdited() {
        bps::ui::NetworkDocument document;
        document.reset(bps::project::example_project("cnn"));
        const std::string original = json_of(document);
        std::mt19937 random(20);
        auto pick = [&](std::size_t count) {
            return static_cast<std::size_t>(std::uniform_int_distribution<std::size_t>(0, count - 1)(random));
        };
        const std::vector<bps::project::PaletteEntry>& palette = bps::project::palette();
        int attempts = 0;
        while (document.undo_stack()->count() < 50) {
            QVERIFY2(++attempts < 2000, "the random edits keep being refused");
            const auto& layers = document.network().layers;
            const std::string some = layers.empty() ? std::string() : layers[pick(layers.size())].name;
            const std::string other = layers.empty() ? std::string() : layers[pick(layers.size())].name;
            switch (pick(8)) {
                case 0:
                    document.add_layer(palette[pick(palette.size())].label,
                                       {static_cast<double>(pick(900)), static_cast<double>(pick(600))});
                    break;
                case 1:
                    document.append_layer(palette[pick(palette.size())].label, some);
                    break;
                case 2:
                    document.connect(some, other);
                    break;
                case 3:
                    if (!some.empty() && !document.layer(some)->inputs.empty())
                        document.disconnect(document.layer(some)->inputs.front(), some);
                    break;
                case 4:
                    document.remove_layers({some});
                    break;
                case 5:
                    document.move_layers({{some, {static_cast<double>(pick(900)), 17.0}}});
                    break;
                case 6:
                    if (!some.empty())
                        edit(document, some, [&](auto& layer) { layer.units = 1 + static_cast<int>(pick(64)); });
                    break;
                default:
                    document.rename_layer(some, "renamed" + std::to_string(pick(1000)));
                    break;
            }
        }
        const std::string edited = json_of(document);
        QVERIFY(edited != original);
        for (int i = 0; i < 50; ++i) document.undo_stack()->undo();
        QCOMPARE(json_of(document), original);
        QVERIFY(!document.is_modified());
        for (int i = 0; i < 50; ++i) document.undo_stack()->redo();
        QCOMPARE(json_of(document), edited);
        QVERIFY(document.is_modified());
    }

    void aDragAndASlidersRunAreOneUndoStepEach() {
        bps::ui::NetworkDocument document;
        document.reset(bps::project::example_project("cnn"));
        const int drag = document.new_gesture();
        for (int step = 1; step <= 5; ++step)
            document.move_layers({{"conv1", {200.0 + 10 * step, 200.0}}, {"relu1", {360.0 + 10 * step, 200.0}}}, drag);
        QCOMPARE(document.undo_stack()->count(), 1);
        QCOMPARE(document.layer("conv1")->position->x, 250.0);
        const int slide = document.new_gesture();
        for (int units = 100; units <= 140; units += 10)
            edit(document, "fc1", [&](auto& layer) { layer.units = units; });
        QCOMPARE(document.undo_stack()->count(), 6);  // without a gesture, each value is a step
        for (int units = 150; units <= 190; units += 10) {
            bps::model::LayerSpec layer = *document.layer("fc1");
            layer.units = units;
            QVERIFY(!document.update_layer("fc1", layer, slide));
        }
        QCOMPARE(document.undo_stack()->count(), 7);
        document.undo_stack()->undo();
        QCOMPARE(document.layer("fc1")->units, 140);
        document.undo_stack()->undo();
        QCOMPARE(document.layer("fc1")->units, 130);
    }

    void theReportFollowsEveryEditAndItsUndo() {
        bps::ui::NetworkDocument document;
        document.reset(bps::project::example_project("cnn"));
        QSignalSpy changes(&document, &bps::ui::NetworkDocument::changed);
        QVERIFY(document.report().ok());
        QCOMPARE(document.node_report("fc1")->output->c, 128);
        QCOMPARE(document.classes(), std::optional<int>(10));

        // A layer dropped on the canvas reads nothing yet: that is its one problem, and the
        // network's output stays where it was.
        std::string loose;
        QVERIFY(!document.add_layer("Dropout", {100, 400}, &loose));
        QCOMPARE(int(document.report().problems.size()), 1);
        QCOMPARE(document.report().problems[0].message,
                 "Dropout '" + loose + "' has no input; connect the layer it should read to it");
        QCOMPARE(document.report().output, std::optional<int>(document.index_of("fc2")));
        // Three problems at once: that one, a Dense fed a 4-D tensor, a wrong class count.
        edit(document, "fc2", [](auto& layer) { layer.units = 7; });
        QCOMPARE(int(document.report().problems.size()), 2);
        QVERIFY(!document.remove_layers({"flatten"}));
        QVERIFY(!document.connect("pool2", "fc1"));
        QCOMPARE(int(document.report().problems.size()), 2);  // fc2 has no shape to check now
        QVERIFY(!document.add_layer("Dense", {300, 400}));
        QCOMPARE(int(document.report().problems.size()), 3);
        QCOMPARE(changes.count(), 5);
        QCOMPARE(document.node_report("fc1")->problems,
                 std::vector<std::string>{"Dense 'fc1' needs a flat input; add a Flatten before it"});

        bps::project::DatasetSettings cifar = document.project().dataset;
        cifar.name = "cifar10";
        QVERIFY(!document.set_dataset(cifar));
        QCOMPARE(document.input_shape().channels, 3);
        QCOMPARE(document.node_report("input")->output->h, 32);
        document.undo_stack()->undo();
        QCOMPARE(document.node_report("input")->output->h, 28);
        for (int i = 0; i < 5; ++i) document.undo_stack()->undo();
        QVERIFY(document.report().ok());
    }

    void aRecoveredProjectCountsAsUnsavedAndASaveMakesItClean() {
        bps::ui::NetworkDocument document;
        QSignalSpy file_state(&document, &bps::ui::NetworkDocument::fileStateChanged);
        document.reset(bps::project::example_project("mlp"), "/tmp/mine.json", true);
        QVERIFY(document.is_modified());
        QCOMPARE(document.file(), std::filesystem::path("/tmp/mine.json"));
        document.mark_saved("/tmp/other.json");
        QVERIFY(!document.is_modified());
        QCOMPARE(document.file(), std::filesystem::path("/tmp/other.json"));
        QVERIFY(file_state.count() >= 2);
        QVERIFY(!document.tidy());
        QVERIFY(document.is_modified());
        document.undo_stack()->undo();
        QVERIFY(!document.is_modified());
    }
};

BACKPROP_QT_TEST(NetworkDocumentTest)
#include "test_network_document.moc"
