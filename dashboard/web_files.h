#pragma once

#include <span>

#include "common/embedded_file.h"

namespace troupe::dashboard {

// The files of dashboard/web/, compiled in at build time (dashboard/CMakeLists.txt).
std::span<const EmbeddedFile> webFiles();

}  // namespace troupe::dashboard
