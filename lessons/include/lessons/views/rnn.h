// View 9: what it computes from RnnState (being built, issue 15).
#pragma once

#include "lessons/common.h"
#include "lessons/view_state.h"

namespace lessons {}  // namespace lessons
