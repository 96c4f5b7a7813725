// (being written)
#include <QTest>

class ProjectFilesTest : public QObject {
    Q_OBJECT
};

QTEST_MAIN(ProjectFilesTest)
#include "test_project_files.moc"
