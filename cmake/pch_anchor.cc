// The one source of the targets that own Troupe's shared precompiled headers
// (cmake/PrecompiledHeaders.cmake); it is compiled only so the headers are.
