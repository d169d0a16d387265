#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

// Base64 (RFC 4648) as Kubernetes uses it: the standard alphabet with padding for bytes
// carried in JSON (a Secret's data, a kubeconfig's certificate data, a protobuf body's bytes
// fields), and the URL-safe alphabet without padding for a list's continue tokens.
namespace troupe {

// Standard alphabet, padded to a multiple of four characters.
std::string encodeBase64(std::string_view bytes);
// URL-safe alphabet ('-' and '_'), unpadded (Go's base64.RawURLEncoding).
std::string encodeBase64Url(std::string_view bytes);

// Standard alphabet, with or without padding, whitespace ignored. An Invalid error naming
// `field_path` for a character outside the alphabet or text that stops mid-byte.
Result<std::string> decodeBase64(std::string_view text, const std::string& field_path);
// URL-safe alphabet, the standard one's '+' and '/' taken as '-' and '_'; the text ends at
// the first '=', and bits short of a whole byte at its end are dropped. nullopt for any
// other character.
std::optional<std::string> decodeBase64Url(std::string_view text);

}  // namespace troupe
