# Run by troupe_embed_files (cmake/EmbedFiles.cmake) with -DOUTPUT -DNAMESPACE -DFUNCTION
# -DBASE -DFILES=a|b|c: writes OUTPUT, a C++ source holding the files' bytes.
string(REPLACE "|" ";" files "${FILES}")
set(arrays "")
set(entries "")
set(index 0)
foreach(f IN LISTS files)
  file(READ "${BASE}/${f}" hex HEX)
  string(LENGTH "${hex}" digits)
  math(EXPR size "${digits} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  # A trailing 0 keeps an empty file's array legal; `size` leaves it out.
  string(APPEND arrays "const unsigned char kFile${index}[] = {${bytes}0};\n")
  string(APPEND entries
         "    {\"${f}\", {reinterpret_cast<const char*>(kFile${index}), ${size}}},\n")
  math(EXPR index "${index} + 1")
endforeach()
set(text "// Generated at build time by cmake/embed_files.cmake from ${BASE}: do not edit.
#include <span>

#include \"common/embedded_file.h\"

namespace ${NAMESPACE} {
namespace {

${arrays}
const ::troupe::EmbeddedFile kFiles[] = {
${entries}};

}  // namespace

std::span<const ::troupe::EmbeddedFile> ${FUNCTION}() { return kFiles; }

}  // namespace ${NAMESPACE}
")
# Rewritten only when the text changes, so an unchanged asset rebuilds nothing.
set(staging "${OUTPUT}.new")
file(WRITE "${staging}" "${text}")
file(COPY_FILE "${staging}" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${staging}")
