#pragma once

#include <string>
#include <vector>

namespace troupe::cli {

// Columns padded to their widest cell, two spaces apart, as kubectl prints them. Widths
// count characters, not bytes, and skip colour codes, so bars and tree lines align.
class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header);
  void add(std::vector<std::string> row);
  std::string render() const;

 private:
  std::vector<std::vector<std::string>> rows_;  // the header first
};

// Characters on screen: UTF-8 code points, ANSI colour sequences not counted.
std::size_t displayWidth(const std::string& text);

}  // namespace troupe::cli
