#pragma once
// One function per `backprop` command; each returns the process exit status.
#include "app/cli/arguments.h"

namespace bps::cli {

// Exit statuses shared by every command.
constexpr int exit_ok = 0;
constexpr int exit_failure = 1;
constexpr int exit_usage = 2;
constexpr int exit_no_opencl = 3;
constexpr int exit_interrupted = 130;  // stopped with Ctrl-C, as shells report SIGINT

int run_devices(Arguments& arguments);
int run_cache(Arguments& arguments);
int run_bench(Arguments& arguments);
int run_datasets(Arguments& arguments);
int run_summary(Arguments& arguments);
int run_train(Arguments& arguments);
int run_evaluate(Arguments& arguments);
int run_predict(Arguments& arguments);
int run_inspect(Arguments& arguments);
int run_runs(Arguments& arguments);
int run_export(Arguments& arguments);
int run_resume(Arguments& arguments);
int run_course(Arguments& arguments);

extern const char* const devices_help;
extern const char* const cache_help;
extern const char* const bench_help;
extern const char* const datasets_help;
extern const char* const summary_help;
extern const char* const train_help;
extern const char* const evaluate_help;
extern const char* const predict_help;
extern const char* const inspect_help;
extern const char* const runs_help;
extern const char* const export_help;
extern const char* const resume_help;
extern const char* const course_help;

}  // namespace bps::cli
