// Fixture: an app/gui file that uses the front door only.
#include "engine/session/training_job.h"
