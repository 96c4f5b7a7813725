#pragma once
// The sanity checks' training on a real device, through the one training door
// (session/training_job.h): the first batch's loss before any update, and a few epochs on a small
// subset of the training split. Blocking and bounded: call it on a worker (the studio's job
// queue, the command line's main thread). Each call reads the project's dataset, unless data
// was given.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "engine/course/checker.h"
#include "engine/session/training_data.h"

namespace bps::course {

class DeviceSanityRunner : public SanityRunner {
public:
    // `device_request` as JobSetup's ("" for the best device); `data`: the project's data
    // already prepared (null: read it). A training that takes longer than `limit` fails with a
    // message naming it.
    explicit DeviceSanityRunner(std::string device_request, std::shared_ptr<const session::TrainingData> data = nullptr,
                                std::chrono::seconds limit = std::chrono::seconds(600));
    FirstLoss first_batch_loss(const project::Project& project) override;
    Overfit overfit_subset(const project::Project& project, int images, int epochs, int batch_size) override;

private:
    std::string device_request_;
    std::shared_ptr<const session::TrainingData> data_;
    std::chrono::seconds limit_;
    // The data read for the last project when none was given, kept for the next check of the
    // same dataset (Fashion-MNIST takes seconds to read).
    std::shared_ptr<const session::TrainingData> loaded_;
    project::DatasetSettings loaded_settings_;
    std::uint64_t loaded_seed_ = 0;
    std::shared_ptr<const session::TrainingData> data_for(const project::Project& project);
};

}  // namespace bps::course
