#pragma once

#include <nlohmann/json.hpp>

#include <string_view>

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

}  // namespace troupe
