// Compiles and links a GLSL ES 3.0 program from shaders/ (the loader prepends #version).
#pragma once

#include <GLES3/gl3.h>

#include <string>

namespace attnlab::gfx {

// Returns 0 and fills *error (with the GL info log) when compiling or linking fails.
GLuint BuildProgram(const char* vertex_name, const char* fragment_name, std::string* error);

}  // namespace attnlab::gfx
