#pragma once
// Numbers as the editor's docks show them to a learner, in the same forms as the CLI's summary
// (app/cli/format.h, which ui/ may not include): "225,034", "5.35 MFLOPs", "12.3 KiB". Kept beside
// the docks so the studio and `backprop summary` read alike.
#include <QString>
#include <cstdint>

namespace bps::ui {

QString thousands_text(std::uint64_t value);  // "225,034"
QString flops_text(double flops);             // "820 FLOPs", "5.35 MFLOPs"
QString bytes_text(std::uint64_t bytes);      // "512 B", "12.3 KiB", "7.7 GiB"

}  // namespace bps::ui
