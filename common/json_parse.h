#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string_view>

#include "common/result.h"

// JSON text to nlohmann::json, about twice as fast as nlohmann's own parser.
//
// Every object Troupe's server stores, sends on a watch or receives in a request is parsed
// at least once, and the in-process clients parse each watch event again: together that
// was a sixth of `troupe serve`'s CPU, most of it nlohmann's lexer reading byte by byte.
// simdjson (Debian's libsimdjson-dev) finds the structure and validates the text with SIMD
// instructions in well under a microsecond for an object of a few KB; the tree is then built
// as nlohmann would build it. What remains is the allocation of the tree's nodes, which any
// nlohmann::json costs.
namespace troupe {

// The value nlohmann::json::parse(text, nullptr, false) returns, with the same types:
// non-negative integers are number_unsigned, negative ones number_integer, integers beyond
// 64 bits and every number with a fraction or exponent number_float; a repeated key keeps
// its last value. One difference: "-0" is the unsigned 0 where nlohmann makes it a signed
// one (simdjson does not keep the sign of an integer zero); both equal 0 and dump as "0".
// Text that is not one JSON value gives the discarded value, as nlohmann does. Text
// simdjson refuses (invalid, deeper than 1,024 levels, integers beyond 64 bits) is left to
// nlohmann's parser, whose answer is the reference.
nlohmann::json parseJson(std::string_view text);

// The nesting depth an untrusted JSON text may reach. kube-apiserver's decoders stop at
// 10,000 nested arrays and objects (sigs.k8s.io/json, encoding/json); Go's stacks grow, and
// C++ threads' do not: Troupe walks trees recursively (dump, copy, compare, merge, schema
// checks) on threads of 8 MiB, and in the sanitizer build one level of nlohmann's dump alone
// takes about 4 KiB, so 2,000 levels already overflow there. 1,000 keeps every walk within
// half a stack in every build, and no Kubernetes object comes near it.
constexpr std::size_t kMaxJsonDepth = 1000;

// An untrusted JSON text (a request body) to a tree, with the limits checked while the
// text is read, before any tree is built: nesting deeper than `max_depth`, text that is not
// UTF-8, a number beyond a double's range (1e400) and text that is not one JSON value are
// a BadRequest Error saying which and where ("invalid character '[' exceeded max depth",
// as the real server words it). Values are typed as parseJson types them.
// Whether `value` nests arrays and objects more than `max_depth` deep (a scalar is depth 0).
// Walks with a stack of its own: any tree may be asked, however deep.
bool nestsDeeperThan(const nlohmann::json& value, std::size_t max_depth);

// The length of `value`'s compact JSON text (what dump() writes, escapes included), counting at
// most to `stop_at`: a count above it means "more". Walks with a stack of its own.
std::size_t compactJsonSize(const nlohmann::json& value, std::size_t stop_at);

Result<nlohmann::json> parseUntrustedJson(std::string_view text,
                                          std::size_t max_depth = kMaxJsonDepth);

}  // namespace troupe
