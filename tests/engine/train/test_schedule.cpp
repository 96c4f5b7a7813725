// Learning-rate schedules.
#include <catch2/catch.hpp>

#include "engine/train/schedule.h"

using namespace bps::train;

TEST_CASE("a constant schedule keeps the base rate", "[schedule]") {
    const Schedule schedule;
    for (const double epoch : {0.0, 0.5, 3.0, 100.0}) CHECK(learning_rate_at(schedule, 0.01f, epoch) == 0.01f);
}

TEST_CASE("a step schedule multiplies by gamma every step_size epochs", "[schedule]") {
    Schedule schedule;
    schedule.kind = ScheduleKind::step;
    schedule.step_size = 2;
    schedule.gamma = 0.5f;
    const float expected[] = {1.0f, 1.0f, 0.5f, 0.5f, 0.25f, 0.25f};
    for (int epoch = 0; epoch < 6; ++epoch) CHECK(learning_rate_at(schedule, 1.0f, epoch) == expected[epoch]);
    // Within an epoch the rate of that epoch holds.
    CHECK(learning_rate_at(schedule, 1.0f, 1.99) == 1.0f);
    CHECK(learning_rate_at(schedule, 1.0f, 2.5) == 0.5f);
    CHECK(learning_rate_at(schedule, 0.1f, 4.0) == Approx(0.025f));
}

TEST_CASE("a cosine schedule runs from the base rate to the minimum", "[schedule]") {
    Schedule schedule;
    schedule.kind = ScheduleKind::cosine;
    schedule.total_epochs = 10;
    schedule.min_rate = 0.001f;
    const float base = 0.1f;
    CHECK(learning_rate_at(schedule, base, 0.0) == Approx(base));
    CHECK(learning_rate_at(schedule, base, 5.0) == Approx((base + 0.001f) / 2));
    CHECK(learning_rate_at(schedule, base, 10.0) == Approx(0.001f));
    CHECK(learning_rate_at(schedule, base, 12.0) == Approx(0.001f));
    // cos(pi/4) at a quarter: a fractional epoch (per batch) is used as is.
    CHECK(learning_rate_at(schedule, base, 2.5) == Approx(0.001 + (base - 0.001) * 0.5 * (1 + 0.70710678118654752)));
    float previous = base;
    for (double epoch = 0.25; epoch <= 10.0; epoch += 0.25) {
        const float rate = learning_rate_at(schedule, base, epoch);
        REQUIRE(rate < previous);
        previous = rate;
    }
}

TEST_CASE("schedules with a step size or length below one are refused", "[schedule]") {
    Schedule step;
    step.kind = ScheduleKind::step;
    step.step_size = 0;
    REQUIRE_THROWS_WITH(learning_rate_at(step, 0.1f, 1.0), "step schedule: step_size 0 must be at least 1");
    Schedule cosine;
    cosine.kind = ScheduleKind::cosine;
    cosine.total_epochs = 0;
    REQUIRE_THROWS_WITH(learning_rate_at(cosine, 0.1f, 1.0), "cosine schedule: total_epochs 0 must be at least 1");
}
