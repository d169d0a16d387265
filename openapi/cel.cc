#include "openapi/cel.h"

#include <fmt/format.h>

#include <cctype>

namespace troupe::openapi {

using nlohmann::json;

struct CelProgram::Node {
  enum class Kind {
    Literal,  // value
    Ident,    // name: self | oldSelf
    Select,   // args[0].name
    Index,    // args[0][args[1]]
    Has,      // has(args[0]) where args[0] is a Select
    Size,     // size(args[0])
    Not,      // !args[0]
    Negate,   // -args[0]
    Binary,   // args[0] op args[1]
    Ternary,  // args[0] ? args[1] : args[2]
    List,     // [args...]
  };
  Kind kind = Kind::Literal;
  json value;
  std::string name;  // identifier, field or operator
  std::vector<std::shared_ptr<const Node>> args;
};

namespace {

using NodePtr = std::shared_ptr<const CelProgram::Node>;
using Node = CelProgram::Node;
using Kind = CelProgram::Node::Kind;

Error compileError(std::string_view rule, size_t column, std::string_view what) {
  return Error{ErrorCode::Invalid, "",
               fmt::format("compilation failed: ERROR: <input>:1:{}: {} (rule: {})", column + 1,
                           what, rule)};
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Result<NodePtr> parseAll() {
    auto e = expr();
    if (!e) return e;
    skipSpace();
    if (pos_ < text_.size()) return fail(fmt::format("unexpected '{}'", text_.substr(pos_, 8)));
    return e;
  }

  bool usesOldSelf() const { return uses_old_self_; }
  std::vector<std::vector<std::string>> chains;

 private:
  Error fail(std::string_view what) const { return compileError(text_, pos_, what); }

  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool peek(std::string_view token) {
    skipSpace();
    return text_.substr(pos_, token.size()) == token;
  }
  bool accept(std::string_view token) {
    if (!peek(token)) return false;
    // `in` must not be the prefix of a longer identifier.
    if (std::isalpha(static_cast<unsigned char>(token[0]))) {
      size_t end = pos_ + token.size();
      if (end < text_.size() &&
          (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_'))
        return false;
    }
    pos_ += token.size();
    return true;
  }

  static NodePtr make(Kind kind, std::vector<NodePtr> args, std::string name = "",
                      json value = nullptr) {
    auto n = std::make_shared<Node>();
    n->kind = kind;
    n->args = std::move(args);
    n->name = std::move(name);
    n->value = std::move(value);
    return n;
  }

  Result<NodePtr> expr() {
    auto cond = orExpr();
    if (!cond) return cond;
    if (!accept("?")) return cond;
    auto a = expr();
    if (!a) return a;
    if (!accept(":")) return fail("expected ':' in conditional");
    auto b = expr();
    if (!b) return b;
    return make(Kind::Ternary, {*cond, *a, *b});
  }

  Result<NodePtr> orExpr() {
    auto left = andExpr();
    if (!left) return left;
    NodePtr n = *left;
    while (accept("||")) {
      auto right = andExpr();
      if (!right) return right;
      n = make(Kind::Binary, {n, *right}, "||");
    }
    return n;
  }

  Result<NodePtr> andExpr() {
    auto left = relExpr();
    if (!left) return left;
    NodePtr n = *left;
    while (accept("&&")) {
      auto right = relExpr();
      if (!right) return right;
      n = make(Kind::Binary, {n, *right}, "&&");
    }
    return n;
  }

  Result<NodePtr> relExpr() {
    auto left = addExpr();
    if (!left) return left;
    NodePtr n = *left;
    for (;;) {
      std::string op;
      for (std::string_view candidate : {"==", "!=", "<=", ">=", "<", ">"}) {
        if (peek(candidate)) {
          op = candidate;
          break;
        }
      }
      if (op.empty() && accept("in"))
        op = "in";
      else if (!op.empty())
        pos_ += op.size();
      if (op.empty()) return n;
      auto right = addExpr();
      if (!right) return right;
      n = make(Kind::Binary, {n, *right}, op);
    }
  }

  Result<NodePtr> addExpr() {
    auto left = mulExpr();
    if (!left) return left;
    NodePtr n = *left;
    for (;;) {
      std::string op;
      if (accept("+"))
        op = "+";
      else if (accept("-"))
        op = "-";
      else
        return n;
      auto right = mulExpr();
      if (!right) return right;
      n = make(Kind::Binary, {n, *right}, op);
    }
  }

  Result<NodePtr> mulExpr() {
    auto left = unary();
    if (!left) return left;
    NodePtr n = *left;
    for (;;) {
      std::string op;
      if (accept("*"))
        op = "*";
      else if (accept("/"))
        op = "/";
      else if (accept("%"))
        op = "%";
      else
        return n;
      auto right = unary();
      if (!right) return right;
      n = make(Kind::Binary, {n, *right}, op);
    }
  }

  Result<NodePtr> unary() {
    if (peek("!=")) return fail("unexpected '!='");
    if (accept("!")) {
      auto operand = unary();
      if (!operand) return operand;
      return make(Kind::Not, {*operand});
    }
    if (accept("-")) {
      auto operand = unary();
      if (!operand) return operand;
      // Fold negative literals so that -9223372036854775808 is representable.
      if ((*operand)->kind == Kind::Literal && (*operand)->value.is_number()) {
        const json& v = (*operand)->value;
        if (v.is_number_unsigned() && v.get<uint64_t>() == 9223372036854775808ULL)
          return make(Kind::Literal, {}, "", json(std::numeric_limits<int64_t>::min()));
        if (v.is_number_integer()) return make(Kind::Literal, {}, "", json(-v.get<int64_t>()));
        if (v.is_number_float()) return make(Kind::Literal, {}, "", json(-v.get<double>()));
      }
      return make(Kind::Negate, {*operand});
    }
    return member();
  }

  // Records a selection chain rooted at `self` for the schema check.
  void recordChain(const NodePtr& n) {
    std::vector<std::string> chain;
    const Node* cur = n.get();
    while (cur->kind == Kind::Select) {
      chain.insert(chain.begin(), cur->name);
      cur = cur->args[0].get();
    }
    if (cur->kind == Kind::Ident && cur->name == "self" && !chain.empty())
      chains.push_back(std::move(chain));
  }

  Result<NodePtr> member() {
    auto base = primary();
    if (!base) return base;
    NodePtr n = *base;
    for (;;) {
      if (accept(".")) {
        skipSpace();
        std::string name = identifier();
        if (name.empty()) return fail("expected a field name after '.'");
        if (accept("(")) {
          if (name != "size") {
            return fail(fmt::format(
                "function '{}' is outside Troupe's CEL subset (supported: has, size)", name));
          }
          if (!accept(")")) return fail("size() takes no arguments as a method");
          n = make(Kind::Size, {n});
          continue;
        }
        n = make(Kind::Select, {n}, name);
        recordChain(n);
      } else if (accept("[")) {
        auto index = expr();
        if (!index) return index;
        if (!accept("]")) return fail("expected ']'");
        n = make(Kind::Index, {n, *index});
      } else {
        return n;
      }
    }
  }

  std::string identifier() {
    skipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      ++pos_;
    if (start == pos_ || std::isdigit(static_cast<unsigned char>(text_[start]))) {
      pos_ = start;
      return "";
    }
    return std::string(text_.substr(start, pos_ - start));
  }

  Result<NodePtr> primary() {
    skipSpace();
    if (pos_ >= text_.size()) return fail("unexpected end of expression");
    char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      auto e = expr();
      if (!e) return e;
      if (!accept(")")) return fail("expected ')'");
      return e;
    }
    if (c == '[') {
      ++pos_;
      std::vector<NodePtr> items;
      if (!accept("]")) {
        for (;;) {
          auto item = expr();
          if (!item) return item;
          items.push_back(*item);
          if (accept("]")) break;
          if (!accept(",")) return fail("expected ',' or ']' in list");
        }
      }
      return make(Kind::List, std::move(items));
    }
    if (c == '{') return fail("map literals are outside Troupe's CEL subset");
    if (c == '"' || c == '\'') return stringLiteral();
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return numberLiteral();
    size_t start = pos_;
    std::string name = identifier();
    if (name.empty()) return fail(fmt::format("unexpected '{}'", c));
    if ((name == "r" || name == "R" || name == "b" || name == "B") && pos_ < text_.size() &&
        (text_[pos_] == '"' || text_[pos_] == '\'')) {
      pos_ = start;
      return fail("raw and bytes string literals are outside Troupe's CEL subset");
    }
    if (name == "true") return make(Kind::Literal, {}, "", json(true));
    if (name == "false") return make(Kind::Literal, {}, "", json(false));
    if (name == "null") return make(Kind::Literal, {}, "", json(nullptr));
    if (accept("(")) {
      if (name == "has") {
        auto arg = expr();
        if (!arg) return arg;
        if (!accept(")")) return fail("expected ')' after has() argument");
        if ((*arg)->kind != Kind::Select) {
          pos_ = start;
          return fail("invalid argument to has() macro: it takes a field selection");
        }
        return make(Kind::Has, {*arg});
      }
      if (name == "size") {
        auto arg = expr();
        if (!arg) return arg;
        if (!accept(")")) return fail("expected ')' after size() argument");
        return make(Kind::Size, {*arg});
      }
      pos_ = start;
      return fail(
          fmt::format("function '{}' is outside Troupe's CEL subset (supported: has, size)", name));
    }
    if (name == "self") return make(Kind::Ident, {}, name);
    if (name == "oldSelf") {
      uses_old_self_ = true;
      return make(Kind::Ident, {}, name);
    }
    pos_ = start;
    return fail(fmt::format("undeclared reference to '{}'", name));
  }

  Result<NodePtr> stringLiteral() {
    char quote = text_[pos_];
    if (text_.substr(pos_, 3) == std::string(3, quote))
      return fail("triple-quoted strings are outside Troupe's CEL subset");
    ++pos_;
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      char c = text_[pos_++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) break;
      char e = text_[pos_++];
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case '\\': out += '\\'; break;
        case '"': out += '"'; break;
        case '\'': out += '\''; break;
        default: return fail(fmt::format("string escape '\\{}' is outside Troupe's CEL subset", e));
      }
    }
    if (pos_ >= text_.size()) return fail("unterminated string literal");
    ++pos_;
    return make(Kind::Literal, {}, "", json(out));
  }

  Result<NodePtr> numberLiteral() {
    size_t start = pos_;
    bool is_double = false;
    if (text_.substr(pos_, 2) == "0x" || text_.substr(pos_, 2) == "0X")
      return fail("hexadecimal literals are outside Troupe's CEL subset");
    while (pos_ < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[pos_])) ||
                                   text_[pos_] == '.' || text_[pos_] == 'e' || text_[pos_] == 'E' ||
                                   ((text_[pos_] == '+' || text_[pos_] == '-') &&
                                    (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E')))) {
      if (text_[pos_] == '.' || text_[pos_] == 'e' || text_[pos_] == 'E') is_double = true;
      ++pos_;
    }
    std::string digits(text_.substr(start, pos_ - start));
    if (pos_ < text_.size() && (text_[pos_] == 'u' || text_[pos_] == 'U'))
      return fail("unsigned literals are outside Troupe's CEL subset");
    try {
      if (is_double) return make(Kind::Literal, {}, "", json(std::stod(digits)));
      unsigned long long v = std::stoull(digits);
      if (v > 9223372036854775808ULL) return fail("integer literal out of range");
      if (v == 9223372036854775808ULL) return make(Kind::Literal, {}, "", json(uint64_t(v)));
      return make(Kind::Literal, {}, "", json(static_cast<int64_t>(v)));
    } catch (const std::exception&) {
      pos_ = start;
      return fail(fmt::format("bad number '{}'", digits));
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
  bool uses_old_self_ = false;
};

Error runtimeError(std::string what) { return Error{ErrorCode::Invalid, "", std::move(what)}; }

const char* celType(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null_type";
    case json::value_t::boolean: return "bool";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "int";
    case json::value_t::number_float: return "double";
    case json::value_t::string: return "string";
    case json::value_t::array: return "list";
    case json::value_t::object: return "map";
    default: return "unknown";
  }
}

bool isInt(const json& v) { return v.is_number_integer(); }

size_t utf8Length(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

// CEL equality: numbers compare by value across int and double; other types must match.
bool celEquals(const json& a, const json& b) {
  if (a.is_number() && b.is_number()) {
    if (isInt(a) && isInt(b)) return a.get<int64_t>() == b.get<int64_t>();
    return a.get<double>() == b.get<double>();
  }
  if (a.type() != b.type()) return false;
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!celEquals(a[i], b[i])) return false;
    return true;
  }
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (const auto& [k, v] : a.items()) {
      auto it = b.find(k);
      if (it == b.end() || !celEquals(v, *it)) return false;
    }
    return true;
  }
  return a == b;
}

class Evaluator {
 public:
  Evaluator(const json& self, const json* old_self) : self_(self), old_self_(old_self) {}

  Result<json> eval(const Node& n) const {
    switch (n.kind) {
      case Kind::Literal: return n.value;
      case Kind::Ident:
        if (n.name == "self") return self_;
        if (old_self_ == nullptr) return runtimeError("oldSelf is not available on create");
        return *old_self_;
      case Kind::List: {
        json out = json::array();
        for (const auto& a : n.args) {
          auto v = eval(*a);
          if (!v) return v;
          out.push_back(std::move(*v));
        }
        return out;
      }
      case Kind::Select: {
        auto base = eval(*n.args[0]);
        if (!base) return base;
        if (!base->is_object())
          return runtimeError(fmt::format("no such key: {} (on a {})", n.name, celType(*base)));
        auto it = base->find(n.name);
        if (it == base->end()) return runtimeError(fmt::format("no such key: {}", n.name));
        return *it;
      }
      case Kind::Index: return index(n);
      case Kind::Has: {
        const Node& sel = *n.args[0];
        auto base = eval(*sel.args[0]);
        if (!base) return base;
        if (!base->is_object())
          return runtimeError(fmt::format("has() on a {}, not a map", celType(*base)));
        return json(base->contains(sel.name));
      }
      case Kind::Size: {
        auto v = eval(*n.args[0]);
        if (!v) return v;
        if (v->is_string()) return json(static_cast<int64_t>(utf8Length(v->get<std::string>())));
        if (v->is_array() || v->is_object()) return json(static_cast<int64_t>(v->size()));
        return runtimeError(
            fmt::format("found no matching overload for 'size' applied to '{}'", celType(*v)));
      }
      case Kind::Not: {
        auto v = eval(*n.args[0]);
        if (!v) return v;
        if (!v->is_boolean())
          return runtimeError(
              fmt::format("found no matching overload for '!_' applied to '{}'", celType(*v)));
        return json(!v->get<bool>());
      }
      case Kind::Negate: {
        auto v = eval(*n.args[0]);
        if (!v) return v;
        if (isInt(*v)) {
          int64_t x = v->get<int64_t>();
          if (x == std::numeric_limits<int64_t>::min()) return runtimeError("integer overflow");
          return json(-x);
        }
        if (v->is_number_float()) return json(-v->get<double>());
        return runtimeError(
            fmt::format("found no matching overload for '-_' applied to '{}'", celType(*v)));
      }
      case Kind::Ternary: {
        auto c = eval(*n.args[0]);
        if (!c) return c;
        if (!c->is_boolean()) return runtimeError("conditional on a non-bool");
        return eval(*n.args[c->get<bool>() ? 1 : 2]);
      }
      case Kind::Binary: return binary(n);
    }
    return runtimeError("unknown expression");
  }

 private:
  Result<json> index(const Node& n) const {
    auto base = eval(*n.args[0]);
    if (!base) return base;
    auto key = eval(*n.args[1]);
    if (!key) return key;
    if (base->is_object()) {
      if (!key->is_string()) return runtimeError("map index must be a string");
      auto it = base->find(key->get<std::string>());
      if (it == base->end())
        return runtimeError(fmt::format("no such key: {}", key->get<std::string>()));
      return *it;
    }
    if (base->is_array()) {
      if (!isInt(*key)) return runtimeError("list index must be an int");
      int64_t i = key->get<int64_t>();
      if (i < 0 || static_cast<size_t>(i) >= base->size())
        return runtimeError(fmt::format("index out of bounds: {}", i));
      return (*base)[static_cast<size_t>(i)];
    }
    return runtimeError(fmt::format("cannot index a {}", celType(*base)));
  }

  Result<json> logical(const Node& n, bool is_and) const {
    auto a = eval(*n.args[0]);
    // CEL's && and || absorb errors when the other side decides the result.
    if (a && a->is_boolean() && a->get<bool>() != is_and) return json(!is_and);
    auto b = eval(*n.args[1]);
    if (b && b->is_boolean() && b->get<bool>() != is_and) return json(!is_and);
    if (!a) return a;
    if (!b) return b;
    if (!a->is_boolean() || !b->is_boolean())
      return runtimeError(fmt::format("found no matching overload for '{}' applied to '({}, {})'",
                                      n.name, celType(*a), celType(*b)));
    return json(is_and);
  }

  Result<json> binary(const Node& n) const {
    if (n.name == "&&") return logical(n, true);
    if (n.name == "||") return logical(n, false);
    auto a = eval(*n.args[0]);
    if (!a) return a;
    auto b = eval(*n.args[1]);
    if (!b) return b;
    const std::string& op = n.name;
    auto noOverload = [&] {
      return runtimeError(fmt::format("found no matching overload for '_{}_' applied to '({}, {})'",
                                      op, celType(*a), celType(*b)));
    };
    if (op == "==") return json(celEquals(*a, *b));
    if (op == "!=") return json(!celEquals(*a, *b));
    if (op == "in") {
      if (b->is_array()) {
        for (const auto& item : *b)
          if (celEquals(*a, item)) return json(true);
        return json(false);
      }
      if (b->is_object() && a->is_string()) return json(b->contains(a->get<std::string>()));
      return noOverload();
    }
    if (op == "<" || op == "<=" || op == ">" || op == ">=") {
      int cmp = 0;
      if (isInt(*a) && isInt(*b)) {
        int64_t x = a->get<int64_t>(), y = b->get<int64_t>();
        cmp = x < y ? -1 : (x > y ? 1 : 0);
      } else if (a->is_number() && b->is_number()) {
        double x = a->get<double>(), y = b->get<double>();
        cmp = x < y ? -1 : (x > y ? 1 : 0);
      } else if (a->is_string() && b->is_string()) {
        int c = a->get<std::string>().compare(b->get<std::string>());
        cmp = c < 0 ? -1 : (c > 0 ? 1 : 0);
      } else if (a->is_boolean() && b->is_boolean()) {
        cmp = static_cast<int>(a->get<bool>()) - static_cast<int>(b->get<bool>());
      } else {
        return noOverload();
      }
      if (op == "<") return json(cmp < 0);
      if (op == "<=") return json(cmp <= 0);
      if (op == ">") return json(cmp > 0);
      return json(cmp >= 0);
    }
    if (op == "+" && a->is_string() && b->is_string())
      return json(a->get<std::string>() + b->get<std::string>());
    if (op == "+" && a->is_array() && b->is_array()) {
      json out = *a;
      for (const auto& item : *b) out.push_back(item);
      return out;
    }
    if (isInt(*a) && isInt(*b)) {
      int64_t x = a->get<int64_t>(), y = b->get<int64_t>(), r = 0;
      bool overflow = false;
      if (op == "+")
        overflow = __builtin_add_overflow(x, y, &r);
      else if (op == "-")
        overflow = __builtin_sub_overflow(x, y, &r);
      else if (op == "*")
        overflow = __builtin_mul_overflow(x, y, &r);
      else if (op == "/" || op == "%") {
        if (y == 0) return runtimeError(op == "/" ? "division by zero" : "modulus by zero");
        if (x == std::numeric_limits<int64_t>::min() && y == -1)
          return runtimeError("integer overflow");
        r = op == "/" ? x / y : x % y;
      }
      if (overflow) return runtimeError("integer overflow");
      return json(r);
    }
    if (a->is_number_float() && b->is_number_float()) {
      double x = a->get<double>(), y = b->get<double>();
      if (op == "+") return json(x + y);
      if (op == "-") return json(x - y);
      if (op == "*") return json(x * y);
      if (op == "/") return json(x / y);
    }
    return noOverload();
  }

  const json& self_;
  const json* old_self_;
};

}  // namespace

Result<CelProgram> CelProgram::compile(std::string_view rule) {
  Parser parser(rule);
  auto root = parser.parseAll();
  if (!root) return root.error();
  CelProgram program;
  program.root_ = *root;
  program.uses_old_self_ = parser.usesOldSelf();
  program.chains_ = std::move(parser.chains);
  return program;
}

Result<bool> CelProgram::evaluate(const json& self, const json* old_self) const {
  Evaluator evaluator(self, old_self);
  auto v = evaluator.eval(*root_);
  if (!v) return v.error();
  if (!v->is_boolean())
    return runtimeError(fmt::format("rule evaluated to a {}, not a bool", celType(*v)));
  return v->get<bool>();
}

}  // namespace troupe::openapi
