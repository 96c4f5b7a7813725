#pragma once
// Numbers as a learner reads them, the same in the CLI and the studio (the editor's summary and
// nodes, `backprop summary`, the progress line): "225,034", "5.35 MFLOPs", "12.3 KiB".
#include <cstddef>
#include <cstdint>
#include <string>

namespace bps::session {

std::string format_bytes(std::uint64_t bytes);                         // "512 B", "48 KiB", "7.7 GiB"
std::string format_milliseconds(double milliseconds);                  // "3.2 ms", "1.84 s"
std::string format_count(std::size_t count, const std::string& noun);  // "1 program", "3 programs"
std::string format_thousands(std::uint64_t value);                     // "225,034"
std::string format_flops(double flops);                                // "5.35 MFLOPs", "820 FLOPs"
std::string format_duration(double seconds);                           // "42 s", "3 min 05 s", "1 h 02 min"
std::string format_rate(double rate);                                  // "0.01", "0.0005", "1e+20"
std::string format_fixed(double value, int decimals);                  // (1.25, 2): "1.25"; (4.0, 1): "4.0"
// Every digit the number needs to read back the same ("10.0000001", not format_rate's "10"): for
// a value that a message refuses, which must not look like one it accepts.
std::string format_exact(double value);
std::string format_exact(float value);  // the float's own shortest digits ("0.3", not "0.30000001192...")
std::string format_utc_now();           // "2026-11-25 20:14 UTC"
std::string format_local_iso_now();     // "2026-11-25T21:14:05", local time

}  // namespace bps::session
