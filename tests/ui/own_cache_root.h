#pragma once
// A temporary BACKPROP_CACHE_DIR for one test function, the suite's own put back after it: what
// the test stores about a device there (a self-test result, a skipped device) no other test sees.
#include <QByteArray>
#include <QTemporaryDir>
#include <QtGlobal>

namespace bps::test {

class OwnCacheRoot : public QTemporaryDir {
public:
    OwnCacheRoot() : suite_root_(qgetenv("BACKPROP_CACHE_DIR")) { qputenv("BACKPROP_CACHE_DIR", path().toUtf8()); }
    ~OwnCacheRoot() { qputenv("BACKPROP_CACHE_DIR", suite_root_); }
    OwnCacheRoot(const OwnCacheRoot&) = delete;
    OwnCacheRoot& operator=(const OwnCacheRoot&) = delete;

private:
    QByteArray suite_root_;
};

}  // namespace bps::test
