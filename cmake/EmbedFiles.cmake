# troupe_embed_files(OUTPUT FILE.cc NAMESPACE NS FUNCTION NAME BASE DIR FILES F...)
# Generates FILE.cc at build time: `std::span<const troupe::EmbeddedFile> NS::NAME()` holding
# each of DIR/F... byte for byte, so the binary serves them from any directory and from the
# container image. The file is generated again whenever one of them changes.
set(TROUPE_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_files.cmake)

function(troupe_embed_files)
  cmake_parse_arguments(ARG "" "OUTPUT;NAMESPACE;FUNCTION;BASE" "FILES" ${ARGN})
  set(inputs "")
  foreach(f IN LISTS ARG_FILES)
    list(APPEND inputs ${ARG_BASE}/${f})
  endforeach()
  # A list cannot cross the command line as one -D value: "|" separates the names instead.
  string(REPLACE ";" "|" names "${ARG_FILES}")
  add_custom_command(
      OUTPUT ${ARG_OUTPUT}
      COMMAND ${CMAKE_COMMAND} -DOUTPUT=${ARG_OUTPUT} -DNAMESPACE=${ARG_NAMESPACE}
              -DFUNCTION=${ARG_FUNCTION} -DBASE=${ARG_BASE} -DFILES=${names}
              -P ${TROUPE_EMBED_SCRIPT}
      DEPENDS ${inputs} ${TROUPE_EMBED_SCRIPT}
      COMMENT "Embedding ${ARG_FILES}"
      VERBATIM)
endfunction()
