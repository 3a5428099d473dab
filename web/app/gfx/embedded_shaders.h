// Shader sources from shaders/, embedded at build time (cmake/EmbedShaders.cmake).
#pragma once

namespace attnlab::gfx {

// Source of "heatmap.frag" etc. without a #version line, or nullptr if there is none.
const char* EmbeddedShader(const char* name);

}  // namespace attnlab::gfx
