// The C++ references in float and double, compiled here once, at the engine's optimisation; each
// header declares these instances extern. A test or the self-test that calls a reference so calls
// this optimised copy, even where the caller compiles at -O0 (the sanitizer build's tests), and no
// includer compiles the references again.
#include "engine/reference/activation.h"
#include "engine/reference/batch_norm.h"
#include "engine/reference/conv2d.h"
#include "engine/reference/dense.h"
#include "engine/reference/dropout.h"
#include "engine/reference/finite.h"
#include "engine/reference/loss.h"
#include "engine/reference/merge.h"
#include "engine/reference/optimizer.h"
#include "engine/reference/pool.h"

namespace bps::ref {
BPS_REF_ACTIVATION_INSTANCES(, float)
BPS_REF_ACTIVATION_INSTANCES(, double)
BPS_REF_BATCH_NORM_INSTANCES(, float)
BPS_REF_BATCH_NORM_INSTANCES(, double)
BPS_REF_CONV2D_INSTANCES(, float)
BPS_REF_CONV2D_INSTANCES(, double)
BPS_REF_DENSE_INSTANCES(, float)
BPS_REF_DENSE_INSTANCES(, double)
BPS_REF_DROPOUT_INSTANCES(, float)
BPS_REF_DROPOUT_INSTANCES(, double)
BPS_REF_FINITE_INSTANCES(, float)
BPS_REF_FINITE_INSTANCES(, double)
BPS_REF_LOSS_INSTANCES(, float)
BPS_REF_LOSS_INSTANCES(, double)
BPS_REF_MERGE_INSTANCES(, float)
BPS_REF_MERGE_INSTANCES(, double)
BPS_REF_OPTIMIZER_INSTANCES(, float)
BPS_REF_OPTIMIZER_INSTANCES(, double)
BPS_REF_POOL_INSTANCES(, float)
BPS_REF_POOL_INSTANCES(, double)
}  // namespace bps::ref
