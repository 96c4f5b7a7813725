#pragma once
// A temporary BACKPROP_CACHE_DIR for one test function, the suite's own put back after it: what
// the test stores about a device there (a self-test result, a skipped device) no other test sees.
#include <QByteArray>
#include <QTemporaryDir>
#include <QtGlobal>

namespace bps::test {

class OwnCacheRoot : public QTemporaryDir {
public:
    // PoCL's cache goes beside it too (the crash guard empties the driver cache in use, and the
    // suite's POCL_CACHE_DIR is shared by the tests running beside this one).
    OwnCacheRoot() : suite_root_(qgetenv("BACKPROP_CACHE_DIR")), suite_pocl_(qgetenv("POCL_CACHE_DIR")) {
        qputenv("BACKPROP_CACHE_DIR", path().toUtf8());
        qunsetenv("POCL_CACHE_DIR");
    }
    ~OwnCacheRoot() {
        qputenv("BACKPROP_CACHE_DIR", suite_root_);
        if (!suite_pocl_.isNull()) qputenv("POCL_CACHE_DIR", suite_pocl_);
    }
    OwnCacheRoot(const OwnCacheRoot&) = delete;
    OwnCacheRoot& operator=(const OwnCacheRoot&) = delete;

private:
    QByteArray suite_root_;
    QByteArray suite_pocl_;
};

}  // namespace bps::test
