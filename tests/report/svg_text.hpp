// For the chart tests: an SVG file parsed as XML (expat), its well-formedness checked and the
// text of its <text> elements collected, as a reader of the chart sees the words.
#pragma once

#include <string>
#include <vector>

#include "core/error.hpp"

namespace fa4::report::testing {

// Each <text> element's character data, in document order; an error names the file, the line and
// expat's message when the file is not well-formed XML.
Result<std::vector<std::string>> svg_texts(const std::string& path);

}  // namespace fa4::report::testing
