#include "test/helm/template_text.h"

#include <cctype>
#include <regex>

#include <fmt/format.h>

namespace troupe::helm_test {
namespace {

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string trimmed(std::string_view s) {
  size_t begin = 0, end = s.size();
  while (begin < end && isBlank(s[begin])) ++begin;
  while (end > begin && isBlank(s[end - 1])) --end;
  return std::string(s.substr(begin, end - begin));
}

// The first word of an action's body: "if", "end", "include", ".Values.x", ...
std::string keyword(const std::string& body) {
  size_t end = 0;
  while (end < body.size() && !isBlank(body[end]) && body[end] != '(') ++end;
  return body.substr(0, end);
}

bool opensBlock(const std::string& word) {
  return word == "if" || word == "with" || word == "range" || word == "define" || word == "block";
}

// One open if/with/range/define: the branch being read (0 until the first `else`) and the
// branch whose lines are kept.
struct Frame {
  std::string word;
  int line = 0;
  int branch = 0;
  int kept_branch = 0;
};

// Applies a control action to the stack of open blocks; other actions leave it alone.
// `kept_branch` is the branch to keep of a block that opens here.
Status applyControl(const TemplateAction& action, std::vector<Frame>& open, int kept_branch = 0) {
  std::string word = keyword(action.body);
  if (opensBlock(word)) {
    open.push_back(Frame{word, action.line, 0, kept_branch});
  } else if (word == "else") {
    if (open.empty() || open.back().word == "define")
      return makeError(ErrorCode::Invalid, fmt::format("line {}", action.line),
                       "`else` outside an if, with or range");
    ++open.back().branch;
  } else if (word == "end") {
    if (open.empty())
      return makeError(ErrorCode::Invalid, fmt::format("line {}", action.line),
                       "`end` closes no block");
    open.pop_back();
  }
  return {};
}

bool skipping(const std::vector<Frame>& open) {
  for (const auto& frame : open)
    if (frame.branch != frame.kept_branch) return true;
  return false;
}

// The number of branches of each block, in the order the blocks open.
Result<std::vector<int>> branchCounts(std::string_view text) {
  auto actions = findActions(text);
  if (!actions.ok()) return actions.error();
  std::vector<int> counts;
  std::vector<size_t> open;  // indices into counts
  for (const auto& action : *actions) {
    std::string word = keyword(action.body);
    if (opensBlock(word)) {
      open.push_back(counts.size());
      counts.push_back(1);
    } else if (word == "else" && !open.empty()) {
      ++counts[open.back()];
    } else if (word == "end" && !open.empty()) {
      open.pop_back();
    }
  }
  return counts;
}

}  // namespace

Result<std::vector<TemplateAction>> findActions(std::string_view text) {
  std::vector<TemplateAction> actions;
  int line = 1;
  size_t i = 0;
  while (i < text.size()) {
    if (text.compare(i, 2, "{{") != 0) {
      if (text[i] == '\n') ++line;
      ++i;
      continue;
    }
    size_t close = text.find("}}", i + 2);
    if (close == std::string_view::npos)
      return makeError(ErrorCode::Invalid, fmt::format("line {}", line),
                       "`{{` without a closing `}}`");
    std::string_view inner = text.substr(i + 2, close - i - 2);
    if (!inner.empty() && inner.front() == '-') inner.remove_prefix(1);
    if (!inner.empty() && inner.back() == '-') inner.remove_suffix(1);
    actions.push_back(TemplateAction{trimmed(inner), line});
    for (size_t k = i; k < close; ++k)
      if (text[k] == '\n') ++line;
    i = close + 2;
  }
  return actions;
}

std::string placeholderFor(std::string_view body) {
  std::string out = "TPL_";
  for (char c : body) {
    bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '$';
    out += keep ? c : '_';
  }
  return out;
}

Result<std::string> stripActions(std::string_view text, Branch keep) {
  std::vector<int> counts;
  if (keep == Branch::Last) {
    auto counted = branchCounts(text);
    if (!counted.ok()) return counted.error();
    counts = std::move(*counted);
  }
  size_t blocks_opened = 0;
  std::vector<Frame> open;
  std::string out;
  int line_number = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    std::string_view line =
        text.substr(pos, eol == std::string_view::npos ? text.size() - pos : eol - pos);
    pos = eol == std::string_view::npos ? text.size() : eol + 1;
    ++line_number;

    // Split the line into literal text and actions. Comments may run over several lines
    // (only in helper files); they are read as one action.
    std::string literal;
    bool only_actions = true;
    size_t i = 0;
    while (i < line.size()) {
      if (line.compare(i, 2, "{{") != 0) {
        if (!isBlank(line[i])) only_actions = false;
        literal += line[i++];
        continue;
      }
      size_t close = line.find("}}", i + 2);
      if (close == std::string_view::npos) {
        // A comment spanning lines: consume through its end.
        std::string_view rest = text.substr(pos);
        size_t end = rest.find("*/}}");
        if (line.substr(i).find("/*") == std::string_view::npos || end == std::string_view::npos)
          return makeError(ErrorCode::Invalid, fmt::format("line {}", line_number),
                           "`{{` without a closing `}}` on the same line");
        for (char c : rest.substr(0, end))
          if (c == '\n') ++line_number;
        pos += end + 4;
        size_t next = text.find('\n', pos);
        pos = next == std::string_view::npos ? text.size() : next + 1;
        ++line_number;
        i = line.size();
        continue;
      }
      std::string_view inner = line.substr(i + 2, close - i - 2);
      if (!inner.empty() && inner.front() == '-') inner.remove_prefix(1);
      if (!inner.empty() && inner.back() == '-') inner.remove_suffix(1);
      TemplateAction action{trimmed(inner), line_number};
      std::string word = keyword(action.body);
      bool control =
          opensBlock(word) || word == "else" || word == "end" || action.body.rfind("/*", 0) == 0;
      bool was_skipping = skipping(open);
      int kept_branch = 0;
      if (opensBlock(word)) {
        if (blocks_opened < counts.size()) kept_branch = counts[blocks_opened] - 1;
        ++blocks_opened;
      }
      if (auto applied = applyControl(action, open, kept_branch); !applied.ok())
        return applied.error();
      if (!control && !was_skipping) literal += placeholderFor(action.body);
      i = close + 2;
    }
    if (only_actions || skipping(open)) continue;
    out += literal;
    out += '\n';
  }
  if (!open.empty())
    return makeError(ErrorCode::Invalid, fmt::format("line {}", open.back().line),
                     fmt::format("`{}` is never closed by `end`", open.back().word));
  return out;
}

std::set<std::string> valueReferences(std::string_view text) {
  static const std::regex kValues(
      R"((?:^|[^A-Za-z0-9_])\$?\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+))");
  std::set<std::string> paths;
  std::string s(text);
  for (auto it = std::sregex_iterator(s.begin(), s.end(), kValues); it != std::sregex_iterator();
       ++it)
    paths.insert((*it)[1].str().substr(1));
  return paths;
}

namespace {

std::set<std::string> namesAfter(std::string_view text, const char* pattern) {
  std::regex re(pattern);
  std::set<std::string> names;
  std::string s(text);
  for (auto it = std::sregex_iterator(s.begin(), s.end(), re); it != std::sregex_iterator(); ++it)
    names.insert((*it)[1].str());
  return names;
}

}  // namespace

std::set<std::string> includedTemplates(std::string_view text) {
  return namesAfter(text, R"re(\b(?:include|template)\s+"([^"]+)")re");
}

std::set<std::string> definedTemplates(std::string_view text) {
  return namesAfter(text, R"re(\{\{-?\s*define\s+"([^"]+)")re");
}

}  // namespace troupe::helm_test
