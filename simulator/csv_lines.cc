#include "simulator/csv_lines.h"

#include <fmt/format.h>

#include <charconv>

namespace troupe::simulator {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace

Result<std::vector<CsvLine>> csvLines(std::string_view text, std::string_view source_name) {
  std::vector<CsvLine> lines;
  size_t number = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++number;
    if (trim(line).empty()) continue;
    CsvLine out{number, {}};
    for (size_t start = 0;;) {
      const size_t comma = line.find(',', start);
      out.fields.push_back(trim(line.substr(
          start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    if (!lines.empty() && out.fields.size() != lines.front().fields.size()) {
      return makeError(ErrorCode::Invalid, csvWhere(source_name, number, "*"),
                       fmt::format("has {} fields, the header has {}", out.fields.size(),
                                   lines.front().fields.size()));
    }
    lines.push_back(std::move(out));
  }
  return lines;
}

int csvColumn(const CsvLine& header, std::string_view name) {
  for (size_t i = 0; i < header.fields.size(); ++i)
    if (header.fields[i] == name) return static_cast<int>(i);
  return -1;
}

std::string csvWhere(std::string_view source_name, size_t line, std::string_view column) {
  return fmt::format("{}:{}:{}", source_name, line, column);
}

bool parseWholeNumber(std::string_view text, int64_t& out) {
  text = trim(text);
  if (text.size() > 2 && text.substr(text.size() - 2) == ".0") text.remove_suffix(2);
  if (text.empty()) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && ptr == text.data() + text.size();
}

}  // namespace troupe::simulator
