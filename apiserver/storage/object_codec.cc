#include "apiserver/storage/object_codec.h"

#include <fmt/format.h>

#include <optional>

#include "common/check.h"
#include "common/json_parse.h"

namespace troupe::apiserver {

Result<std::string> encodeObject(nlohmann::json& object) {
  if (!object.is_object()) {
    return makeError(ErrorCode::BadRequest, "",
                     fmt::format("object: must be a JSON object, not {}", object.type_name()));
  }
  auto metadata = object.find("metadata");
  if (metadata != object.end()) {
    if (!metadata->is_object()) {
      return makeError(ErrorCode::BadRequest, "metadata",
                       fmt::format("must be a JSON object, not {}", metadata->type_name()));
    }
    metadata->erase("resourceVersion");
  }
  return object.dump();
}

nlohmann::json decodeObject(std::string_view text, Revision revision) {
  auto object = parseJson(text);
  TROUPE_CHECK(object.is_object(), "stored object at revision {} is not a JSON object: {:.80}",
               revision, text);
  stampRevision(object, revision);
  return object;
}

void stampRevision(nlohmann::json& object, Revision revision) {
  object["metadata"]["resourceVersion"] = std::to_string(revision);
}

namespace {

constexpr std::size_t kNone = std::string_view::npos;

// The index just past the JSON string opening at t[i] == '"', or kNone. Sets *escaped
// when the string holds a backslash escape.
std::size_t skipString(std::string_view t, std::size_t i, bool* escaped) {
  for (++i; i < t.size(); ++i) {
    if (t[i] == '"') return i + 1;
    if (t[i] == '\\') {
      if (escaped) *escaped = true;
      ++i;
    }
  }
  return kNone;
}

// The index just past the compact JSON value starting at t[i], or kNone.
std::size_t skipValue(std::string_view t, std::size_t i) {
  if (i >= t.size()) return kNone;
  if (t[i] == '"') return skipString(t, i, nullptr);
  if (t[i] == '{' || t[i] == '[') {
    int depth = 0;
    while (i < t.size()) {
      const char c = t[i];
      if (c == '"') {
        i = skipString(t, i, nullptr);
        if (i == kNone) return kNone;
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      if ((c == '}' || c == ']') && --depth == 0) return i + 1;
      ++i;
    }
    return kNone;
  }
  while (i < t.size() && t[i] != ',' && t[i] != '}' && t[i] != ']') ++i;  // a number or literal
  return i;
}

// The characters of a key dump() escaped: it escapes only '"', '\\' and control
// characters (\b \f \n \r \t, else \u00XX). Nothing for any other escape.
std::optional<std::string> unescapeKey(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '\\') {
      out.push_back(raw[i]);
      continue;
    }
    if (++i >= raw.size()) return std::nullopt;
    switch (raw[i]) {
      case '"': out.push_back('"'); break;
      case '\\': out.push_back('\\'); break;
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      case 'u': {
        if (i + 4 >= raw.size() || raw.substr(i + 1, 2) != "00") return std::nullopt;
        int code = 0;
        for (std::size_t k = i + 3; k <= i + 4; ++k) {
          const char c = raw[k];
          const int digit = c >= '0' && c <= '9'   ? c - '0'
                            : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                                   : -1;
          if (digit < 0) return std::nullopt;
          code = code * 16 + digit;
        }
        if (code >= 0x20) return std::nullopt;
        out.push_back(static_cast<char>(code));
        i += 4;
        break;
      }
      default: return std::nullopt;
    }
  }
  return out;
}

// Where `key` sits among the members of the compact object opening at t[open] == '{',
// whose keys are sorted: the member it is (value_at: its value) or the place a new
// member goes (insert_at: a member's first quote, or the closing brace).
struct KeySlot {
  std::size_t insert_at = kNone;
  std::size_t value_at = kNone;
  bool at_close = false;  // insert_at is the closing brace
  bool empty = false;     // the object has no members
};

std::optional<KeySlot> findKey(std::string_view t, std::size_t open, std::string_view key) {
  std::size_t i = open + 1;
  if (i < t.size() && t[i] == '}') return KeySlot{i, kNone, true, true};
  while (i < t.size() && t[i] == '"') {
    bool escaped = false;
    const std::size_t key_end = skipString(t, i, &escaped);
    if (key_end == kNone || key_end >= t.size() || t[key_end] != ':') return std::nullopt;
    const std::string_view raw = t.substr(i + 1, key_end - i - 2);
    // An escaped key sorts by its characters, not by the bytes that spell it.
    std::optional<std::string> unescaped;
    if (escaped) {
      unescaped = unescapeKey(raw);
      if (!unescaped) return std::nullopt;
    }
    const int order = (unescaped ? std::string_view(*unescaped) : raw).compare(key);
    if (order == 0) return KeySlot{kNone, key_end + 1, false, false};
    if (order > 0) return KeySlot{i, kNone, false, false};
    const std::size_t value_end = skipValue(t, key_end + 1);
    if (value_end == kNone || value_end >= t.size()) return std::nullopt;
    if (t[value_end] == '}') return KeySlot{value_end, kNone, true, false};
    if (t[value_end] != ',') return std::nullopt;
    i = value_end + 1;
  }
  return std::nullopt;
}

// `t` with `member` ("key":value) put in at `slot`.
std::string insertMember(std::string_view t, const KeySlot& slot, std::string_view member) {
  std::string out;
  out.reserve(t.size() + member.size() + 1);
  out.append(t.substr(0, slot.insert_at));
  if (slot.at_close && !slot.empty) out.push_back(',');
  out.append(member);
  if (!slot.at_close) out.push_back(',');
  out.append(t.substr(slot.insert_at));
  return out;
}

}  // namespace

std::string stampRevisionText(std::string_view text, Revision revision) {
  if (text.empty() || text.front() != '{') return {};
  const auto metadata = findKey(text, 0, "metadata");
  if (!metadata) return {};
  const std::string version = fmt::format(R"("resourceVersion":"{}")", revision);
  if (metadata->value_at == kNone)
    return insertMember(text, *metadata, R"("metadata":{)" + version + "}");
  if (metadata->value_at >= text.size() || text[metadata->value_at] != '{') return {};
  const auto slot = findKey(text, metadata->value_at, "resourceVersion");
  if (!slot || slot->value_at != kNone) return {};  // encodeObject removed it: not its text
  return insertMember(text, *slot, version);
}

std::string revisionText(std::string_view text, Revision revision) {
  auto spliced = stampRevisionText(text, revision);
  return spliced.empty() ? decodeObject(text, revision).dump() : spliced;
}

}  // namespace troupe::apiserver
