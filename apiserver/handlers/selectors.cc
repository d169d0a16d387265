#include "apiserver/handlers/selectors.h"

#include <algorithm>

namespace troupe::apiserver {

namespace {

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

// Splits on commas that are not inside parentheses.
std::vector<std::string> splitTerms(const std::string& text) {
  std::vector<std::string> out;
  int depth = 0;
  std::string current;
  for (char c : text) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(trim(current));
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  if (!trim(current).empty() || !out.empty()) out.push_back(trim(current));
  return out;
}

Error selectorError(const std::string& param, const std::string& text, const std::string& why) {
  return makeError(ErrorCode::BadRequest, param,
                   "unable to parse requirement: " + why + " in \"" + text + "\"");
}

}  // namespace

Result<LabelSelector> LabelSelector::parse(const std::string& text) {
  LabelSelector selector;
  for (const auto& term : splitTerms(text)) {
    if (term.empty()) return selectorError("labelSelector", text, "empty requirement");
    Requirement r;
    auto set_op = [&](const std::string& word, Requirement::Op op) -> bool {
      auto pos = term.find(" " + word + " ");
      if (pos == std::string::npos) {
        pos = term.find(" " + word + "(");
        if (pos == std::string::npos) return false;
      }
      r.key = trim(term.substr(0, pos));
      std::string rest = trim(term.substr(pos + word.size() + 1));
      if (rest.size() < 2 || rest.front() != '(' || rest.back() != ')') return false;
      std::string inner = rest.substr(1, rest.size() - 2);
      std::size_t start = 0;
      while (start <= inner.size()) {
        auto comma = inner.find(',', start);
        r.values.push_back(trim(
            inner.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      r.op = op;
      return true;
    };
    if (set_op("notin", Requirement::Op::NotIn) || set_op("in", Requirement::Op::In)) {
      // parsed
    } else if (auto p = term.find("!="); p != std::string::npos) {
      r.key = trim(term.substr(0, p));
      r.op = Requirement::Op::NotEquals;
      r.values = {trim(term.substr(p + 2))};
    } else if (auto p2 = term.find("=="); p2 != std::string::npos) {
      r.key = trim(term.substr(0, p2));
      r.values = {trim(term.substr(p2 + 2))};
    } else if (auto p3 = term.find('='); p3 != std::string::npos) {
      r.key = trim(term.substr(0, p3));
      r.values = {trim(term.substr(p3 + 1))};
    } else if (term.front() == '!') {
      r.key = trim(term.substr(1));
      r.op = Requirement::Op::DoesNotExist;
    } else {
      r.key = term;
      r.op = Requirement::Op::Exists;
    }
    if (r.key.empty() || r.key.find(' ') != std::string::npos)
      return selectorError("labelSelector", text, "invalid label key");
    selector.requirements_.push_back(std::move(r));
  }
  return selector;
}

bool LabelSelector::matches(const nlohmann::json& object) const {
  nlohmann::json labels = nlohmann::json::object();
  if (object.contains("metadata") && object["metadata"].contains("labels") &&
      object["metadata"]["labels"].is_object())
    labels = object["metadata"]["labels"];
  for (const auto& r : requirements_) {
    bool has = labels.contains(r.key) && labels[r.key].is_string();
    std::string value = has ? labels[r.key].get<std::string>() : "";
    bool in_values = std::find(r.values.begin(), r.values.end(), value) != r.values.end();
    switch (r.op) {
      case Requirement::Op::Equals:
      case Requirement::Op::In:
        if (!has || !in_values) return false;
        break;
      case Requirement::Op::NotEquals:
      case Requirement::Op::NotIn:
        if (has && in_values) return false;
        break;
      case Requirement::Op::Exists:
        if (!has) return false;
        break;
      case Requirement::Op::DoesNotExist:
        if (has) return false;
        break;
    }
  }
  return true;
}

Result<FieldSelector> FieldSelector::parse(const std::string& text) {
  FieldSelector selector;
  for (const auto& term : splitTerms(text)) {
    if (term.empty()) return selectorError("fieldSelector", text, "empty requirement");
    Requirement r;
    if (auto p = term.find("!="); p != std::string::npos) {
      r.key = trim(term.substr(0, p));
      r.op = Requirement::Op::NotEquals;
      r.values = {trim(term.substr(p + 2))};
    } else if (auto p2 = term.find("=="); p2 != std::string::npos) {
      r.key = trim(term.substr(0, p2));
      r.values = {trim(term.substr(p2 + 2))};
    } else if (auto p3 = term.find('='); p3 != std::string::npos) {
      r.key = trim(term.substr(0, p3));
      r.values = {trim(term.substr(p3 + 1))};
    } else {
      return makeError(ErrorCode::BadRequest, "fieldSelector",
                       "invalid selector: '" + text + "'; can't understand '" + term + "'");
    }
    selector.requirements_.push_back(std::move(r));
  }
  return selector;
}

bool FieldSelector::matches(const nlohmann::json& object) const {
  for (const auto& r : requirements_) {
    bool equal = fieldValue(object, r.key) == r.values.front();
    if ((r.op == Requirement::Op::Equals) != equal) return false;
  }
  return true;
}

std::string fieldValue(const nlohmann::json& object, const std::string& path) {
  const nlohmann::json* node = &object;
  std::size_t start = 0;
  while (start <= path.size()) {
    auto dot = path.find('.', start);
    std::string part =
        path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!node->is_object()) return "";
    auto it = node->find(part);
    if (it == node->end()) return "";
    node = &*it;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (node->is_string()) return node->get<std::string>();
  if (node->is_null()) return "";
  return node->dump();
}

}  // namespace troupe::apiserver
