#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string_view>

#include "common/result.h"

namespace troupe {

// Replaces the file at `path` with `contents`, or leaves it exactly as it was: the text is
// written to a temporary file beside it, flushed to the disk (fsync), and renamed over
// `path`, and the directory is synced so that the rename outlives a power loss. A reader
// sees the old file or the new one, never a truncated one. On a failure (a full disk, a
// read-only directory) the temporary file is removed and the Internal Error names the
// step and the system's reason ("write /d/kubeconfig: No space left on device").
Status writeFileAtomically(const std::filesystem::path& path, std::string_view contents,
                           mode_t mode);

}  // namespace troupe
