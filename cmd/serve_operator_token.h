#pragma once

#include <string>

#include "common/result.h"

// The identity of `troupe serve`'s in-process operator: the user the Helm chart gives
// `troupe operator` (its ServiceAccount, kOperatorUser), with the admin scope, and a bearer
// token of its own in DATA_DIR/tokens. The server's authorization log
// (--authorization-log) then tells the operator's requests from kubectl's and the
// simulated kubelets' in standalone mode under the same name as on a real cluster, which is
// how the benchmarks count the writes the operator makes per pod.
namespace troupe::cmd {

inline constexpr const char* kOperatorUser = "system:serviceaccount:troupe-system:troupe";

// The operator's token in DATA_DIR/tokens, added (after the admin token the server makes
// first) when the file has none for kOperatorUser. Before the server starts.
Result<std::string> serveOperatorToken(const std::string& data_dir);

}  // namespace troupe::cmd
