#pragma once
// Field-by-field comparison of projects for the round-trip tests (the structs have no operator==).
#include <catch2/catch.hpp>

#include "engine/project/project.h"

namespace bps::test {

inline void check_same_layer(const model::LayerSpec& a, const model::LayerSpec& b) {
    INFO("layer " << a.name);
    CHECK(a.name == b.name);
    CHECK(a.type == b.type);
    CHECK(a.inputs == b.inputs);
    CHECK(a.units == b.units);
    CHECK(a.initializer == b.initializer);
    CHECK(a.conv.kernel_h == b.conv.kernel_h);
    CHECK(a.conv.kernel_w == b.conv.kernel_w);
    CHECK(a.conv.stride_h == b.conv.stride_h);
    CHECK(a.conv.stride_w == b.conv.stride_w);
    CHECK(a.conv.padding == b.conv.padding);
    CHECK(a.pool.size_h == b.pool.size_h);
    CHECK(a.pool.size_w == b.pool.size_w);
    CHECK(a.pool.stride_h == b.pool.stride_h);
    CHECK(a.pool.stride_w == b.pool.stride_w);
    CHECK(a.activation == b.activation);
    CHECK(a.slope == b.slope);
    CHECK(a.rate == b.rate);
    CHECK(a.momentum == b.momentum);
    CHECK(a.epsilon == b.epsilon);
    REQUIRE(a.position.has_value() == b.position.has_value());
    if (a.position) {
        CHECK(a.position->x == b.position->x);
        CHECK(a.position->y == b.position->y);
    }
}

// Everything but `document`.
inline void check_same_project(const project::Project& a, const project::Project& b) {
    CHECK(a.name == b.name);
    CHECK(a.description == b.description);
    CHECK(a.device == b.device);
    CHECK(a.network.input == b.network.input);
    CHECK(a.network.loss == b.network.loss);
    REQUIRE(a.network.layers.size() == b.network.layers.size());
    for (std::size_t i = 0; i < a.network.layers.size(); ++i)
        check_same_layer(a.network.layers[i], b.network.layers[i]);
    const project::DatasetSettings &da = a.dataset, &db = b.dataset;
    CHECK(da.name == db.name);
    CHECK(da.folder == db.folder);
    CHECK(da.height == db.height);
    CHECK(da.width == db.width);
    CHECK(da.channels == db.channels);
    CHECK(da.validation_fraction == db.validation_fraction);
    CHECK(da.normalize == db.normalize);
    CHECK(da.shuffle == db.shuffle);
    CHECK(da.augmentation.random_crop == db.augmentation.random_crop);
    CHECK(da.augmentation.crop_padding == db.augmentation.crop_padding);
    CHECK(da.augmentation.horizontal_flip == db.augmentation.horizontal_flip);
    const project::TrainingSettings &ta = a.training, &tb = b.training;
    CHECK(ta.epochs == tb.epochs);
    CHECK(ta.batch_size == tb.batch_size);
    CHECK(ta.seed == tb.seed);
    CHECK(ta.optimizer.kind == tb.optimizer.kind);
    CHECK(ta.optimizer.learning_rate == tb.optimizer.learning_rate);
    CHECK(ta.optimizer.momentum == tb.optimizer.momentum);
    CHECK(ta.optimizer.nesterov == tb.optimizer.nesterov);
    CHECK(ta.optimizer.weight_decay == tb.optimizer.weight_decay);
    CHECK(ta.optimizer.beta1 == tb.optimizer.beta1);
    CHECK(ta.optimizer.beta2 == tb.optimizer.beta2);
    CHECK(ta.optimizer.epsilon == tb.optimizer.epsilon);
    CHECK(ta.schedule.kind == tb.schedule.kind);
    CHECK(ta.schedule.step_size == tb.schedule.step_size);
    CHECK(ta.schedule.gamma == tb.schedule.gamma);
    CHECK(ta.schedule.total_epochs == tb.schedule.total_epochs);
    CHECK(ta.schedule.min_rate == tb.schedule.min_rate);
}

}  // namespace bps::test
