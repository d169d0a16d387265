#include "apiserver/handlers/selectors.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <optional>
#include <set>
#include <string_view>

#include "api/names.h"

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

// The label selector lexer's tokens; `in` and `notin` are identifiers where a value is
// expected ("x in (in)").
enum class Token {
  Error,
  End,
  ClosedPar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar
};

struct Scanned {
  Token token;
  std::string literal;
};

bool isSpecialSymbol(char c) {
  return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
}
bool isSelectorSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::optional<Token> symbolToken(std::string_view s) {
  if (s == ")") return Token::ClosedPar;
  if (s == ",") return Token::Comma;
  if (s == "!") return Token::DoesNotExist;
  if (s == "==") return Token::DoubleEquals;
  if (s == "=") return Token::Equals;
  if (s == ">") return Token::GreaterThan;
  if (s == "<") return Token::LessThan;
  if (s == "!=") return Token::NotEquals;
  if (s == "(") return Token::OpenPar;
  return std::nullopt;
}

// Every token of `text`, ending with Token::End (a NUL byte ends the text, as it does there).
std::vector<Scanned> scanSelector(const std::string& text) {
  std::vector<Scanned> out;
  std::size_t pos = 0;
  auto at = [&](std::size_t i) { return i < text.size() ? text[i] : '\0'; };
  while (true) {
    while (isSelectorSpace(at(pos))) ++pos;
    char c = at(pos);
    if (c == '\0') {
      out.push_back({Token::End, ""});
      return out;
    }
    if (isSpecialSymbol(c)) {
      // The longest run of symbols that still makes a token.
      std::string buffer;
      std::optional<Scanned> last;
      while (isSpecialSymbol(at(pos))) {
        buffer += at(pos);
        if (auto token = symbolToken(buffer)) {
          last = Scanned{*token, buffer};
        } else if (last) {
          break;
        }
        ++pos;
      }
      if (!last) {
        out.push_back({Token::Error, "error expected: keyword found '" + buffer + "'"});
        out.push_back({Token::End, ""});
        return out;
      }
      out.push_back(*last);
      continue;
    }
    std::string word;
    while (at(pos) != '\0' && !isSpecialSymbol(at(pos)) && !isSelectorSpace(at(pos)))
      word += text[pos++];
    Token token = word == "in" ? Token::In : word == "notin" ? Token::NotIn : Token::Identifier;
    out.push_back({token, word});
  }
}

class SelectorParser {
 public:
  explicit SelectorParser(const std::string& text) : items_(scanSelector(text)) {}

  Result<std::vector<Requirement>> parse() {
    std::vector<Requirement> out;
    while (true) {
      auto [token, literal] = lookahead(true);
      if (token == Token::End) return out;
      if (token != Token::Identifier && token != Token::DoesNotExist)
        return fail("found '" + literal + "', expected: !, identifier, or 'end of string'");
      auto requirement = parseRequirement();
      if (!requirement) return fail("unable to parse requirement: " + requirement.error().message);
      out.push_back(std::move(requirement.value()));
      auto [next, next_literal] = consume(true);
      if (next == Token::End) return out;
      if (next != Token::Comma)
        return fail("found '" + next_literal + "', expected: ',' or 'end of string'");
      auto [after, after_literal] = lookahead(true);
      if (after != Token::Identifier && after != Token::DoesNotExist)
        return fail("found '" + after_literal + "', expected: identifier after ','");
    }
  }

 private:
  static Error fail(std::string message) {
    return makeError(ErrorCode::BadRequest, "labelSelector", std::move(message));
  }
  static std::string invalidValue(const std::string& path, const std::string& value,
                                  const std::string& why) {
    return path + ": Invalid value: \"" + value + "\": " + why;
  }

  Scanned lookahead(bool values) const {
    Scanned item = items_[std::min(position_, items_.size() - 1)];
    if (values && (item.token == Token::In || item.token == Token::NotIn))
      item.token = Token::Identifier;
    return item;
  }
  Scanned consume(bool values) {
    Scanned item = lookahead(values);
    if (position_ < items_.size() - 1) ++position_;
    return item;
  }

  Result<Requirement> parseRequirement() {
    Requirement r;
    Scanned first = consume(true);
    bool negated = first.token == Token::DoesNotExist;
    if (negated) first = consume(true);
    const auto& [token, literal] = first;
    if (token != Token::Identifier) return fail("found '" + literal + "', expected: identifier");
    if (auto why = api::checkQualifiedName(literal))
      return fail(invalidValue("key", literal, *why));
    r.key = literal;
    auto next = lookahead(true).token;
    if (negated || next == Token::End || next == Token::Comma) {
      // `!key` stands alone; a bare key is an existence test.
      r.op = negated ? Requirement::Op::DoesNotExist : Requirement::Op::Exists;
      return r;
    }
    auto [op_token, op_literal] = consume(false);
    switch (op_token) {
      case Token::In: r.op = Requirement::Op::In; break;
      case Token::NotIn: r.op = Requirement::Op::NotIn; break;
      case Token::Equals:
      case Token::DoubleEquals: r.op = Requirement::Op::Equals; break;
      case Token::NotEquals: r.op = Requirement::Op::NotEquals; break;
      case Token::GreaterThan: r.op = Requirement::Op::GreaterThan; break;
      case Token::LessThan: r.op = Requirement::Op::LessThan; break;
      default: return fail("found '" + op_literal + "', expected: in, notin, =, ==, !=, gt, lt");
    }
    auto values = r.op == Requirement::Op::In || r.op == Requirement::Op::NotIn ? parseValueSet()
                                                                                : parseExactValue();
    if (!values) return values.error();
    r.values = std::move(values.value());
    for (std::size_t i = 0; i < r.values.size(); ++i) {
      const std::string path = "values[" + std::to_string(i) + "]";
      if (auto why = api::checkLabelValue(r.values[i]))
        return fail(invalidValue(path, r.values[i], *why));
      if (r.op == Requirement::Op::GreaterThan || r.op == Requirement::Op::LessThan) {
        errno = 0;
        char* end = nullptr;
        (void)std::strtoll(r.values[i].c_str(), &end, 10);
        if (r.values[i].empty() || errno != 0 || *end != '\0')
          return fail(invalidValue(path, r.values[i],
                                   "for 'Gt', 'Lt' operators, the value must be an integer"));
      }
    }
    return r;
  }

  Result<std::vector<std::string>> parseValueSet() {
    auto [open, open_literal] = consume(true);
    if (open != Token::OpenPar) return fail("found '" + open_literal + "' expected: '('");
    auto [first, first_literal] = lookahead(true);
    if (first == Token::ClosedPar) {
      consume(true);
      return std::vector<std::string>{""};
    }
    if (first != Token::Identifier && first != Token::Comma)
      return fail("found '" + first_literal + "', expected: ',', ')' or identifier");
    // A set: empty values between commas count once, duplicates once.
    std::set<std::string> values;
    while (true) {
      auto [token, literal] = consume(true);
      if (token == Token::Identifier) {
        values.insert(literal);
        auto [next, next_literal] = lookahead(true);
        if (next == Token::Comma) continue;
        if (next == Token::ClosedPar) break;
        return fail("found '" + next_literal + "', expected: ',' or ')'");
      }
      if (token != Token::Comma)
        return fail("found '" + literal + "', expected: ',', or identifier");
      if (values.empty()) values.insert("");
      auto next = lookahead(true).token;
      if (next == Token::ClosedPar) {
        values.insert("");
        break;
      }
      if (next == Token::Comma) {
        consume(true);
        values.insert("");
      }
    }
    if (consume(true).token != Token::ClosedPar)
      return fail("found '" + first_literal + "', expected: ')'");
    return std::vector<std::string>(values.begin(), values.end());
  }

  Result<std::vector<std::string>> parseExactValue() {
    auto next = lookahead(true).token;
    if (next == Token::End || next == Token::Comma) return std::vector<std::string>{""};
    auto [token, literal] = consume(true);
    if (token == Token::Identifier) return std::vector<std::string>{literal};
    return fail("found '" + literal + "', expected: identifier");
  }

  std::vector<Scanned> items_;
  std::size_t position_ = 0;
};

}  // namespace

Result<LabelSelector> LabelSelector::parse(const std::string& text) {
  auto requirements = SelectorParser(text).parse();
  if (!requirements) return requirements.error();
  LabelSelector selector;
  selector.requirements_ = std::move(requirements.value());
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
      case Requirement::Op::GreaterThan:
      case Requirement::Op::LessThan: {
        // Labels that are not integers match neither, as on the real server.
        errno = 0;
        char* end = nullptr;
        long long label = std::strtoll(value.c_str(), &end, 10);
        if (!has || value.empty() || errno != 0 || *end != '\0') return false;
        long long bound = std::strtoll(r.values.front().c_str(), nullptr, 10);
        if (r.op == Requirement::Op::GreaterThan ? label <= bound : label >= bound) return false;
        break;
      }
    }
  }
  return true;
}

Result<FieldSelector> FieldSelector::parse(const std::string& text) {
  FieldSelector selector;
  for (const auto& term : splitTerms(text)) {
    if (term.empty()) continue;  // "a=b," and "," select as the real server's parser does
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
