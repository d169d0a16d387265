#pragma once

#include <CLI/CLI.hpp>

// `troupe bench server` and `troupe bench scheduler`, registered on `troupe bench`.
namespace troupe::bench {

void addApiBenchCommands(CLI::App& bench);

}  // namespace troupe::bench
