// When a reported training loss says that the run diverged (session/loss_watch.h): NaN and
// infinity always, and a finite loss above max(1000 x the first epoch's lowest, 1000).
#include <catch2/catch.hpp>
#include <limits>

#include "engine/session/loss_watch.h"

using namespace bps::session;

namespace {
BatchReport report(int epoch, double recent_loss, double loss = -1) {
    BatchReport r;
    r.epoch = epoch;
    r.recent_loss = recent_loss;
    r.loss = loss < 0 ? recent_loss : loss;
    return r;
}
}  // namespace

TEST_CASE("a loss that is not a number or infinite is a divergence from the first report on", "[loss-watch]") {
    LossWatch watch(0);
    CHECK(watch.check(report(0, std::numeric_limits<double>::quiet_NaN())) == LossVerdict::not_a_number);
    CHECK(watch.check(report(0, 1.0, std::numeric_limits<double>::infinity())) == LossVerdict::infinite);
    CHECK(watch.reference() < 0);  // neither counts as the first epoch's loss
    CHECK(watch.describe(LossVerdict::not_a_number, report(0, 0)) == "the loss became NaN (not a number)");
}

TEST_CASE("a finite loss far above the first epoch's lowest is an explosion", "[loss-watch]") {
    LossWatch watch(0);
    // The first report may already hold a growing loss: the epoch's lowest is the reference.
    CHECK(watch.check(report(0, 5.0)) == LossVerdict::fine);
    CHECK(watch.check(report(0, 2.3)) == LossVerdict::fine);
    CHECK(watch.check(report(0, 40.0)) == LossVerdict::fine);  // a spike, well within the limit
    CHECK(watch.reference() == 2.3);
    CHECK(watch.limit() == Approx(2300));
    CHECK(watch.check(report(1, 0.1)) == LossVerdict::fine);  // later epochs never lower it
    CHECK(watch.limit() == Approx(2300));
    CHECK(watch.check(report(1, 2299)) == LossVerdict::fine);
    const BatchReport exploded = report(2, 3.5e20);
    CHECK(watch.check(exploded) == LossVerdict::exploded);
    CHECK(watch.describe(LossVerdict::exploded, exploded) ==
          "the loss grew to 3.5e+20 an image, more than 1000 times the first epoch's 2.3");
}

TEST_CASE("a tiny first-epoch loss gives a limit of 1000, and a resumed run's own first epoch counts", "[loss-watch]") {
    LossWatch watch(4);
    CHECK(watch.check(report(4, 0.001)) == LossVerdict::fine);
    CHECK(watch.limit() == 1000);
    CHECK(watch.check(report(4, 12.0)) == LossVerdict::fine);  // a bump of a few units is no explosion
    const BatchReport exploded = report(5, 1500);
    CHECK(watch.check(exploded) == LossVerdict::exploded);
    CHECK(watch.describe(LossVerdict::exploded, exploded) ==
          "the loss grew to 1500 an image, more than 1000 times the first epoch's 0.001 (and above 1000)");
}

TEST_CASE("a loss on a large scale is judged against its own first epoch", "[loss-watch]") {
    // A mean squared error on raw targets: large from the start, and fine so.
    LossWatch watch(0);
    CHECK(watch.check(report(0, 4e8)) == LossVerdict::fine);
    CHECK(watch.check(report(0, 9e9)) == LossVerdict::fine);
    CHECK(watch.check(report(0, 5e11)) == LossVerdict::exploded);
}
