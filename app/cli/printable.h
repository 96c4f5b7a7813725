#pragma once
// Text that came from a file (a class name, a layer name, a project's name) made safe to print:
// a name holding an escape sequence once turned the terminal red, and one holding a newline broke
// `datasets show`'s list. Control characters become visible escapes ("\n", "\x1b", "\u009b");
// everything else, accents included, is printed as it is.
#include <string>
#include <string_view>

namespace bps::cli {

// With `keep_lines`, newlines stay (for a message that has several lines, such as a build log).
std::string printable(std::string_view text, bool keep_lines = false);

}  // namespace bps::cli
