// View 11's training between a Web Worker and the page (lessons::LearnJob): what the worker's lab
// sends after a slice (LearnDelta), as bytes, written and read by this one file in both places. The
// reader trusts nothing: a short or corrupt message is a kParseError naming the field, never a crash
// or an allocation beyond the bytes given.
#pragma once

#include <string>
#include <string_view>

#include "lessons/common.h"
#include "lessons/views/learn.h"

namespace lessons {

std::string WriteLearnDelta(const LearnDelta& delta);
Status ReadLearnDelta(std::string_view bytes, LearnDelta* delta);

}  // namespace lessons
