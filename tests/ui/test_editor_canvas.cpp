// (being written)
#include <QTest>

class EditorCanvasTest : public QObject {
    Q_OBJECT
};

QTEST_MAIN(EditorCanvasTest)
#include "test_editor_canvas.moc"
