// (being written)
#include <QTest>

class NetworkDocumentTest : public QObject {
    Q_OBJECT
};

QTEST_MAIN(NetworkDocumentTest)
#include "test_network_document.moc"
