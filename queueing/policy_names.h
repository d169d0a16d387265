#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "queueing/policy.h"

namespace troupe::queueing {

// The name a user gives each scheduling policy (`troupe sim --policy NAME`): fifo,
// troupe, yarn-cs, kueue, tiresias, srtf.
const char* policyKindName(PolicyKind kind);
// The kind a name gives, none for an unknown name.
std::optional<PolicyKind> policyKindNamed(std::string_view name);
// Every name, comma-separated, in the order of PolicyKind: for help texts and errors.
std::string policyKindNames();

}  // namespace troupe::queueing
