#!/usr/bin/env bash
# Calibrates the Fashion-MNIST thresholds of the course (docs/course.md, "Calibration").
#
# For every exercise whose dataset is fashion-mnist and that has a validation_accuracy check, it
# trains the exercise's solution.json with `backprop train` for each seed, reads the validation
# accuracy printed after every epoch, and keeps the best one within the check's epoch budget.
# The threshold is the worst seed's figure minus one point (0.01), rounded down to 0.001.
#
# Usage:  tutorials/course/calibrate.sh [EXERCISE_ID...]
# Environment:
#   BACKPROP   the backprop binary (default: build/app/backprop)
#   DEVICE     an OpenCL device as `backprop devices` lists it (default: the best one)
#   SEEDS      the seeds (default: "1 2 3 4 5")
#   COURSE     the course folder (default: this script's folder)
#   LOG_DIR    where each training's output is kept (default: a new temporary folder)
# Output: one CSV line per training (exercise,seed,epochs,best_validation_accuracy), then one
# summary line per exercise (summary,exercise,epochs,worst,best,current_threshold,calibrated_threshold).
# Exit status: 0 when every training ran, 1 when one failed (its log is named), 2 for a usage error.
set -u -o pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BACKPROP="${BACKPROP:-build/app/backprop}"
COURSE="${COURSE:-$here}"
SEEDS="${SEEDS:-1 2 3 4 5}"
DEVICE="${DEVICE:-}"
PYTHON="${PYTHON:-/usr/bin/python3}"
LOG_DIR="${LOG_DIR:-$(mktemp -d)}"

if [[ ! -x "$BACKPROP" ]]; then
    echo "calibrate.sh: BACKPROP=$BACKPROP is not an executable; build it with --target backprop" >&2
    exit 2
fi
if [[ ! -d "$COURSE" ]]; then
    echo "calibrate.sh: COURSE=$COURSE is not a folder" >&2
    exit 2
fi
mkdir -p "$LOG_DIR"

# Prints "EPOCHS VALUE" for the exercise's first required validation_accuracy check, or nothing
# when the exercise is not a Fashion-MNIST one with such a check.
outcome_of() {
    "$PYTHON" - "$1" <<'PY'
import json, sys
exercise = json.load(open(sys.argv[1]))
if exercise.get("dataset") != "fashion-mnist":
    sys.exit(0)
for step in exercise["steps"]:
    for check in step["checks"]:
        if check["type"] == "validation_accuracy" and not check.get("optional", False):
            print(check["epochs"], check["value"])
            sys.exit(0)
PY
}

# The best "validation loss L, accuracy A" figure among the first EPOCHS epoch lines of a log.
best_of() {
    "$PYTHON" - "$1" "$2" <<'PY'
import re, sys
text = open(sys.argv[1], errors="replace").read().replace("\r", "\n")
budget = int(sys.argv[2])
best = None
for match in re.finditer(r"^epoch (\d+)/\d+: .*\| validation loss [^,]+, accuracy ([0-9.]+)", text, re.M):
    if int(match.group(1)) <= budget:
        value = float(match.group(2))
        best = value if best is None else max(best, value)
print("" if best is None else f"{best:.4f}")
PY
}

if [[ $# -gt 0 ]]; then
    exercises=("$@")
else
    exercises=()
    for folder in "$COURSE"/*/; do
        [[ -f "$folder/exercise.json" ]] && exercises+=("$(basename "$folder")")
    done
fi

failed=0
summaries=()
echo "exercise,seed,epochs,best_validation_accuracy"
for id in "${exercises[@]}"; do
    folder="$COURSE/$id"
    if [[ ! -f "$folder/exercise.json" ]]; then
        echo "calibrate.sh: $folder/exercise.json does not exist" >&2
        exit 2
    fi
    read -r epochs current < <(outcome_of "$folder/exercise.json") || true
    [[ -z "${epochs:-}" ]] && continue
    figures=()
    for seed in $SEEDS; do
        log="$LOG_DIR/$id-seed$seed.log"
        device_option=()
        [[ -n "$DEVICE" ]] && device_option=(--device "$DEVICE")
        if ! "$BACKPROP" train "$folder/solution.json" --seed "$seed" --epochs "$epochs" --no-run-folder \
            "${device_option[@]}" >"$log" 2>&1; then
            echo "calibrate.sh: training $id with seed $seed failed; see $log" >&2
            failed=1
            continue
        fi
        best="$(best_of "$log" "$epochs")"
        if [[ -z "$best" ]]; then
            echo "calibrate.sh: $log shows no validation accuracy (is validation_fraction 0?)" >&2
            failed=1
            continue
        fi
        echo "$id,$seed,$epochs,$best"
        figures+=("$best")
    done
    if [[ ${#figures[@]} -gt 0 ]]; then
        summaries+=("$("$PYTHON" - "$id" "$epochs" "$current" "${figures[@]}" <<'PY'
import math, sys
exercise, epochs, current = sys.argv[1], sys.argv[2], float(sys.argv[3])
figures = [float(x) for x in sys.argv[4:]]
worst = min(figures)
threshold = math.floor((worst - 0.01) * 1000 + 1e-9) / 1000
print(f"summary,{exercise},{epochs},{worst:.4f},{max(figures):.4f},{current:.3f},{threshold:.3f}")
PY
)")
    fi
done
echo
echo "summary,exercise,epochs,worst,best,current_threshold,calibrated_threshold"
for line in "${summaries[@]}"; do echo "$line"; done
echo "logs: $LOG_DIR" >&2
exit "$failed"
