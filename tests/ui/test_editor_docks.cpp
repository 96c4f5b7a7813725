// (being written)
#include <QTest>

class EditorDocksTest : public QObject {
    Q_OBJECT
};

QTEST_MAIN(EditorDocksTest)
#include "test_editor_docks.moc"
