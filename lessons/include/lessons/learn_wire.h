// View 11's training between a Web Worker and the page (lessons::LearnJob): what the worker's lab
// sends after a slice — the steps after the page's and the snapshots taken since (LearnDelta) — as
// bytes, written and read by this one file in both places. The
// reader trusts nothing: a short or corrupt message is a kParseError naming the field, never a crash
// or an allocation beyond the bytes given.
#pragma once

#include <string>
#include <string_view>

#include "lessons/common.h"
#include "lessons/views/learn.h"

namespace lessons {

// The steps of `lab` after from_step (clamped to 0…steps) and the snapshots taken after it.
std::string WriteLearnDelta(const LearnLab& lab, int from_step);
Status ReadLearnDelta(std::string_view bytes, LearnDelta* delta);

}  // namespace lessons
