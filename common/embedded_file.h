#pragma once

#include <string_view>

namespace troupe {

// A file compiled into the binary at build time (cmake/EmbedFiles.cmake): its path relative
// to the folder it came from, and its bytes, which live as long as the program.
struct EmbeddedFile {
  std::string_view path;
  std::string_view content;
};

}  // namespace troupe
