#pragma once
// The pieces of CSV that the run history and the results tables share (RFC 4180).
#include <string>

namespace bps::session {

// A field with a comma, a quote or a line break is quoted, its quotes doubled; others as they are.
std::string csv_field(const std::string& text);

// `value` with `decimals` digits after a '.', whatever the locale (a Qt program sets the
// system's, where printf may write "0,5").
std::string csv_fixed(double value, int decimals);

}  // namespace bps::session
