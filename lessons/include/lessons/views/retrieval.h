// View 10: what it computes from RetrievalState (being built, issue 15).
#pragma once

#include "lessons/common.h"
#include "lessons/view_state.h"

namespace lessons {}  // namespace lessons
