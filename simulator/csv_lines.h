#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace troupe::simulator {

// One non-blank line of a CSV input (a trace, a node list): its number in the file (from
// 1) and its comma-separated fields, trimmed of blanks. The inputs use no quoting.
struct CsvLine {
  size_t number = 0;
  std::vector<std::string_view> fields;
};

// The non-blank lines of `text`, the header first; views into `text`. A line with another
// number of fields than the header is an error naming it: "pods.csv:7:*: has 3 fields,
// the header has 10". No line at all gives an empty list.
Result<std::vector<CsvLine>> csvLines(std::string_view text, std::string_view source_name);

// The index of the header's column named `name`, or -1.
int csvColumn(const CsvLine& header, std::string_view name);

// Where a field is, for errors: "pods.csv:7:gpu_milli".
std::string csvWhere(std::string_view source_name, size_t line, std::string_view column);

// A whole number; "12.0" is read as 12 because some exports write floats.
bool parseWholeNumber(std::string_view text, int64_t& out);

}  // namespace troupe::simulator
