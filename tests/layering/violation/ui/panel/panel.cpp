// A fixture for the layering check: a widget that reaches into the device layer. The check must
// refuse it (the test that runs the check on this folder expects a failure).
#include "engine/cl/device.h"
#include "engine/session/training_job.h"
