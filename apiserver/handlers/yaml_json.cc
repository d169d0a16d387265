#include "apiserver/handlers/yaml_json.h"

#include <simdjson.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>

namespace troupe::apiserver {

namespace {

using json = nlohmann::json;

// A refusal raised inside the parser's callbacks, caught where the parse began.
struct Refused {
  std::string message;
};

bool isDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

std::string_view withoutSign(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  return s;
}

// [-+]? ( digits . digits? | . digits | digits . ) ( [eE] [-+]? digits )?
bool looksFloating(std::string_view s) {
  s = withoutSign(s);
  auto exponent = s.find_first_of("eE");
  std::string_view mantissa = s.substr(0, exponent);
  if (exponent != std::string_view::npos && !isDigits(withoutSign(s.substr(exponent + 1))))
    return false;
  auto dot = mantissa.find('.');
  if (dot == std::string_view::npos) return false;
  std::string_view whole = mantissa.substr(0, dot), fraction = mantissa.substr(dot + 1);
  if (whole.empty() && fraction.empty()) return false;
  return (whole.empty() || isDigits(whole)) && (fraction.empty() || isDigits(fraction));
}

// A plain scalar typed as YAML 1.1 types it. A number beyond the range of its type is
// read as the YAML decoder of kube-apiserver reads it: an integer too large for 64 bits as
// a float, a float too large for a double as the string it is.
json resolvePlain(const std::string& text) {
  if (text == "null" || text == "~" || text == "Null" || text == "NULL") return nullptr;
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  if (isDigits(withoutSign(text))) {
    errno = 0;
    char* end = nullptr;
    long long value = std::strtoll(text.c_str(), &end, 10);
    if (errno == 0) return value;
    if (text[0] != '-') {
      errno = 0;
      unsigned long long big = std::strtoull(text.c_str(), &end, 10);
      if (errno == 0) return big;
    }
    double approximate = std::strtod(text.c_str(), &end);
    return std::isfinite(approximate) ? json(approximate) : json(text);
  }
  if (looksFloating(text)) {
    double value = std::strtod(text.c_str(), nullptr);
    return std::isfinite(value) ? json(value) : json(text);
  }
  return text;
}

// go-yaml's allowedAliasRatio: the share of decoded nodes that may come from aliases.
double allowedAliasRatio(std::size_t decoded) {
  constexpr double kLow = 400000, kHigh = 4000000;
  if (decoded <= kLow) return 0.99;
  if (decoded >= kHigh) return 0.10;
  return 0.99 - 0.89 * ((static_cast<double>(decoded) - kLow) / (kHigh - kLow));
}

// The parser's events to one JSON tree per document, with an explicit stack (no recursion
// here; the parser's own is bounded by yaml-cpp's depth guard) and the limits counted as
// the events arrive.
class TreeBuilder final : public YAML::EventHandler {
 public:
  explicit TreeBuilder(const YamlLimits& limits) : limits_(limits) {}

  std::vector<json> documents;

  void OnDocumentStart(const YAML::Mark&) override {
    anchors_.clear();
    root_ = json();
    has_root_ = false;
  }
  void OnDocumentEnd() override {
    if (has_root_ && !root_.is_null()) documents.push_back(std::move(root_));
  }

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (expectingKey()) return setKey(mark, "null");
    finish(mark, json(nullptr), 4, anchor);
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) refuse(mark, "unknown anchor");
    const Anchored& target = it->second;
    decoded_ += 1 + target.nodes;
    from_aliases_ += target.nodes;
    if (from_aliases_ > 100 && decoded_ > 1000 &&
        static_cast<double>(from_aliases_) / static_cast<double>(decoded_) >
            allowedAliasRatio(decoded_)) {
      refuse(mark, "document contains excessive aliasing");
    }
    if (expectingKey()) {
      if (!target.value.is_string()) refuse(mark, "a mapping key must be a string");
      return setKey(mark, target.value.get<std::string>());
    }
    charge(mark, target.bytes);
    place(json(target.value));
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    if (!simdjson::validate_utf8(value.data(), value.size()))
      refuse(mark, "invalid UTF-8 in a scalar");
    if (expectingKey()) return setKey(mark, value);
    // "!" is a quoted or block scalar: always a string, as is an explicit !!str.
    bool text = tag == "!" || tag == "tag:yaml.org,2002:str";
    finish(mark, text ? json(value) : resolvePlain(value), value.size() + 3, anchor);
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, json::array(), anchor);
  }
  void OnSequenceEnd() override { close(); }

  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, json::object(), anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  // A node being filled: the sequence or mapping, where its counts started, its anchor.
  struct Open {
    json value;
    std::size_t decoded_at = 0;
    std::size_t bytes_at = 0;
    YAML::anchor_t anchor = YAML::NullAnchor;
    YAML::Mark mark;
    std::optional<std::string> key;  // a mapping's key waiting for its value
  };
  // A completed anchored node, kept for the aliases that repeat it.
  struct Anchored {
    json value;
    std::size_t nodes = 0;
    std::size_t bytes = 0;
  };

  [[noreturn]] void refuse(const YAML::Mark& mark, const std::string& why) {
    throw Refused{"yaml: line " + std::to_string(mark.line + 1) + ": " + why};
  }

  bool expectingKey() const {
    return !open_.empty() && open_.back().value.is_object() && !open_.back().key;
  }
  void setKey(const YAML::Mark& mark, std::string key) {
    ++decoded_;
    charge(mark, key.size() + 4);
    open_.back().key = std::move(key);
  }

  // Counts `bytes` of decoded JSON text against the limit.
  void charge(const YAML::Mark& mark, std::size_t bytes) {
    bytes_ += bytes;
    if (bytes_ > limits_.max_bytes) {
      refuse(mark, "the decoded document exceeds " + std::to_string(limits_.max_bytes) +
                       " bytes as JSON");
    }
  }

  void open(const YAML::Mark& mark, json container, YAML::anchor_t anchor) {
    if (expectingKey()) refuse(mark, "a mapping key must be a string");
    if (open_.size() >= limits_.max_depth)
      refuse(mark, "exceeded max depth of " + std::to_string(limits_.max_depth));
    ++decoded_;
    charge(mark, 2);
    open_.push_back(
        Open{std::move(container), decoded_ - 1, bytes_ - 2, anchor, mark, std::nullopt});
  }

  void close() {
    Open done = std::move(open_.back());
    open_.pop_back();
    std::size_t nodes = decoded_ - done.decoded_at;
    std::size_t bytes = bytes_ - done.bytes_at;
    remember(done.mark, done.anchor, done.value, nodes, bytes);
    place(std::move(done.value));
  }

  // A scalar (one node of `bytes`) completed.
  void finish(const YAML::Mark& mark, json value, std::size_t bytes, YAML::anchor_t anchor) {
    ++decoded_;
    charge(mark, bytes);
    remember(mark, anchor, value, 1, bytes);
    place(std::move(value));
  }

  // Keeps a copy of an anchored node. The copies count against the size limit too: anchors
  // nested in anchors would otherwise copy the same nodes again and again.
  void remember(const YAML::Mark& mark, YAML::anchor_t anchor, const json& value, std::size_t nodes,
                std::size_t bytes) {
    if (anchor == YAML::NullAnchor) return;
    charge(mark, bytes);
    anchors_[anchor] = Anchored{value, nodes, bytes};
  }

  void place(json value) {
    if (open_.empty()) {
      root_ = std::move(value);
      has_root_ = true;
      return;
    }
    Open& parent = open_.back();
    if (parent.value.is_array()) {
      parent.value.push_back(std::move(value));
      return;
    }
    parent.value[*parent.key] = std::move(value);
    parent.key.reset();
  }

  YamlLimits limits_;
  std::vector<Open> open_;
  std::map<YAML::anchor_t, Anchored> anchors_;
  json root_;
  bool has_root_ = false;
  std::size_t decoded_ = 0;       // go-yaml's decodeCount
  std::size_t from_aliases_ = 0;  // go-yaml's aliasCount
  std::size_t bytes_ = 0;         // decoded JSON text so far, copies of anchors included
};

}  // namespace

Result<std::vector<json>> yamlDocumentsToJson(const std::string& text, const YamlLimits& limits) {
  auto refused = [](const std::string& why) {
    return makeError(ErrorCode::BadRequest, "", "error converting YAML to JSON: " + why);
  };
  if (!simdjson::validate_utf8(text.data(), text.size()))
    return refused("yaml: invalid UTF-8: the text must be UTF-8");
  std::istringstream in(text);
  TreeBuilder builder(limits);
  try {
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(builder)) {
    }
  } catch (const Refused& r) {
    return refused(r.message);
  } catch (const YAML::DeepRecursion& e) {
    return refused("yaml: line " + std::to_string(e.mark.line + 1) + ": exceeded max depth of " +
                   std::to_string(limits.max_depth));
  } catch (const YAML::Exception& e) {
    return refused(std::string("yaml: ") + e.what());
  }
  return std::move(builder.documents);
}

Result<json> parseJsonOrYaml(const std::string& text, const YamlLimits& limits) {
  auto parsed = parseUntrustedJson(text, kMaxJsonDepth);
  if (parsed) return parsed;
  auto docs = yamlDocumentsToJson(text, limits);
  if (!docs) return docs.error();
  if (docs->size() != 1)
    return makeError(ErrorCode::BadRequest, "",
                     "expected one YAML document, found " + std::to_string(docs->size()));
  return docs->front();
}

}  // namespace troupe::apiserver
