// Controls that flow: side by side on a desktop, one per line on a phone.
#pragma once

#include <string>

#include "published.h"

namespace attnlab {

// Call between two items: stays on the line if `next_width` more pixels fit after the last item.
void SameLineIfFits(float next_width);

// The widths a radio button and a button with `label` take (for SameLineIfFits).
float RadioButtonWidth(const char* label);
float ButtonWidth(const char* label);

// The last item's rectangle (a button, say), to publish where it sits for the tests.
LayoutRect LastItemRect();

// A button's text that fits a line `width` pixels wide (frame padding included): `text` itself, or
// its first whole words and "…" (show the full text on hover then).
std::string FitButtonLabel(const std::string& text, float width);

}  // namespace attnlab
