#pragma once
// The device comparison panel's handle on one comparison: bench::compare_devices forwarded
// through the WorkerBridge, like training. Progress arrives at most ~30 times a second (the
// latest wins), every device's result in order, then exactly one finished() or failed(). Every
// signal comes on the UI thread, and nothing here waits for a device: cancel() only asks, and the
// comparison ends at its next step (a cold or warm start in progress runs to its end).
#include <QObject>
#include <QString>
#include <vector>

#include "engine/compare/device_comparison.h"

Q_DECLARE_METATYPE(bps::bench::ComparisonProgress)
Q_DECLARE_METATYPE(bps::bench::DeviceComparison)
Q_DECLARE_METATYPE(std::vector<bps::bench::DeviceComparison>)

namespace bps::app {

class WorkerBridge;

class ComparisonRunner : public QObject {
    Q_OBJECT
public:
    explicit ComparisonRunner(QObject* parent = nullptr);
    // Asks a comparison still going to stop and returns at once; it ends on its own.
    ~ComparisonRunner() override;

    // False (and nothing happens) while a comparison runs.
    bool start(bench::ComparisonSetup setup);
    bool running() const;
    void cancel();

signals:
    void progressed(const bps::bench::ComparisonProgress& progress);
    void deviceCompared(const bps::bench::DeviceComparison& result);
    // Every device's result, in the order compared (a cancelled one last, those after it left out).
    void finished(const std::vector<bps::bench::DeviceComparison>& results);
    void failed(const QString& message);  // the setup could not run (no device chosen, a network that cannot be built)

private:
    WorkerBridge* bridge_;
};

}  // namespace bps::app
