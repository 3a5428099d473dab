#include "gfx/gl_program.h"

#include <vector>

#include "gfx/embedded_shaders.h"

namespace attnlab::gfx {
namespace {

constexpr const char* kVersionLine = "#version 300 es\n";

// The info log of a shader or a program, read with the matching GL getters.
template <typename GetIv, typename GetLog>
std::string InfoLog(GLuint object, GetIv get_iv, GetLog get_log) {
  GLint len = 0;
  get_iv(object, GL_INFO_LOG_LENGTH, &len);
  std::vector<char> log(static_cast<size_t>(len > 1 ? len : 1), '\0');
  get_log(object, len, nullptr, log.data());
  return log.data();
}

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
  *error = std::string(name) + ": " + InfoLog(shader, glGetShaderiv, glGetShaderInfoLog);
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
  *error = std::string("link ") + vertex_name + " + " + fragment_name + ": " +
           InfoLog(program, glGetProgramiv, glGetProgramInfoLog);
  glDeleteProgram(program);
  return 0;
}

}  // namespace attnlab::gfx
