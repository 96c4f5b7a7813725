#pragma once
// Records the longest gap between the ticks of a 10 ms timer on the UI thread while it runs: a
// blocking call on the UI thread (a wait on the device) shows as a gap far above 10 ms.
#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <algorithm>

namespace bps::test {

class StallWatch {
public:
    StallWatch() {
        ticks_.setInterval(10);
        QObject::connect(&ticks_, &QTimer::timeout, [this] {
            const qint64 now = clock_.elapsed();
            longest_ = std::max(longest_, now - last_tick_);
            last_tick_ = now;
        });
        clock_.start();
        ticks_.start();
    }
    // Stops watching: what comes after does not count.
    void stop() { ticks_.stop(); }
    qint64 longest() const { return longest_; }

private:
    QElapsedTimer clock_;
    QTimer ticks_;
    qint64 last_tick_ = 0, longest_ = 0;
};

}  // namespace bps::test
