// Prose: every sentence the reader reads, drawn wrapped at the column's edge and published with
// the rectangle of each line (window.attnlab.texts() and layout()'s "text.N.L"), so tests check
// what each sentence says against the numbers and where it sits on a phone.
//
// Lines break at spaces only. ImGui's own wrap also breaks after '.', ',' and ';', which split
// numbers across lines on a phone ("0." / "17"); a word wider than the whole line is the one thing
// broken inside (at a character, never inside a UTF-8 sequence).
#pragma once

#include <string>
#include <string_view>

#include "imgui.h"
#include "published.h"

namespace attnlab {

// Where Prose publishes this frame (App sets it before the views draw; null: draw only).
void SetProseSink(Published* published);

void Prose(const char* fmt, ...) IM_FMTARGS(1);
void ProseColored(const ImVec4& color, const char* fmt, ...) IM_FMTARGS(2);
void ProseV(const char* fmt, va_list args) IM_FMTLIST(1);
void ProseText(std::string_view text);

// `text` with '\n' where it breaks to fit `width` pixels of the current font: at spaces, never
// inside a number or a word that fits on a line.
std::string WrapAtSpaces(std::string_view text, float width);

}  // namespace attnlab
