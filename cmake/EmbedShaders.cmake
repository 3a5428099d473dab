# cmake -DOUT=embedded_shaders.cpp -DSHADER_DIR=shaders -P EmbedShaders.cmake
# Writes every shaders/*.vert|frag into a C++ table so the page needs no extra requests.
file(GLOB shaders "${SHADER_DIR}/*.vert" "${SHADER_DIR}/*.frag")
list(SORT shaders)
set(body "// Generated from shaders/ by cmake/EmbedShaders.cmake. Do not edit.\n#include \"gfx/embedded_shaders.h\"\n\n#include <cstring>\n\nnamespace attnlab::gfx {\nnamespace {\nstruct Entry { const char* name; const char* source; };\nconst Entry kShaders[] = {\n")
foreach(path ${shaders})
  get_filename_component(name "${path}" NAME)
  file(READ "${path}" src)
  # The comments stay in shaders/ for readers: the page carries code only (GLSL has no string
  # literals, so "//" always starts a comment), one statement or directive a line, unindented.
  string(REGEX REPLACE "//[^\n]*" "" src "${src}")
  string(REGEX REPLACE "[ \t]+\n" "\n" src "${src}")
  string(REGEX REPLACE "\n[ \t]+" "\n" src "${src}")
  string(REGEX REPLACE "\n\n+" "\n" src "${src}")
  string(REGEX REPLACE "^\n+" "" src "${src}")
  string(APPEND body "    {\"${name}\", R\"attnlab_glsl(${src})attnlab_glsl\"},\n")
endforeach()
string(APPEND body "};\n}  // namespace\n\nconst char* EmbeddedShader(const char* name) {\n  for (const Entry& e : kShaders)\n    if (!std::strcmp(e.name, name)) return e.source;\n  return nullptr;\n}\n\n}  // namespace attnlab::gfx\n")
file(WRITE "${OUT}.tmp" "${body}")
# Only touch the output when it changed, so unrelated builds do not recompile it.
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.tmp" "${OUT}")
