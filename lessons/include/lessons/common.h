// The engine's vocabulary, as the lessons use it: row-major float matrices and statuses. Lessons
// compute what the views show from the engine's results; they depend on the engine, never the
// other way round, and know nothing of ImGui, GL or Emscripten.
#pragma once

#include "attn/matrix.h"
#include "attn/status.h"

namespace lessons {

using attn::Matrix;
using attn::MatrixD;
using attn::MatrixT;
using attn::Status;
using attn::StatusCode;

}  // namespace lessons
