#include "gfx/gl_program.h"

#include <vector>

#include "gfx/embedded_shaders.h"

namespace attnlab::gfx {
namespace {

constexpr const char* kVersionLine = "#version 300 es\n";

GLuint Compile(GLenum type, const char* name, std::string* error) {
  const char* body = EmbeddedShader(name);
  if (!body) {
    *error = std::string("no shader named ") + name;
    return 0;
  }
  const char* sources[] = {kVersionLine, body};
  GLuint shader = glCreateShader(type);
  glShaderSource(shader, 2, sources, nullptr);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (ok) return shader;
  GLint len = 0;
  glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &len);
  std::vector<char> log(static_cast<size_t>(len > 1 ? len : 1));
  glGetShaderInfoLog(shader, len, nullptr, log.data());
  *error = std::string(name) + ": " + log.data();
  glDeleteShader(shader);
  return 0;
}

}  // namespace

GLuint BuildProgram(const char* vertex_name, const char* fragment_name, std::string* error) {
  GLuint vs = Compile(GL_VERTEX_SHADER, vertex_name, error);
  if (!vs) return 0;
  GLuint fs = Compile(GL_FRAGMENT_SHADER, fragment_name, error);
  if (!fs) {
    glDeleteShader(vs);
    return 0;
  }
  GLuint program = glCreateProgram();
  glAttachShader(program, vs);
  glAttachShader(program, fs);
  glLinkProgram(program);
  glDeleteShader(vs);  // flagged; freed with the program
  glDeleteShader(fs);
  GLint ok = GL_FALSE;
  glGetProgramiv(program, GL_LINK_STATUS, &ok);
  if (ok) return program;
  GLint len = 0;
  glGetProgramiv(program, GL_INFO_LOG_LENGTH, &len);
  std::vector<char> log(static_cast<size_t>(len > 1 ? len : 1));
  glGetProgramInfoLog(program, len, nullptr, log.data());
  *error = std::string("link ") + vertex_name + " + " + fragment_name + ": " + log.data();
  glDeleteProgram(program);
  return 0;
}

}  // namespace attnlab::gfx
