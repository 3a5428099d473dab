// Controls that flow: side by side on a desktop, one per line on a phone.
#pragma once

#include <string>

namespace attnlab {

// Call between two items: stays on the line if `next_width` more pixels fit after the last item.
void SameLineIfFits(float next_width);

// A button's text that fits a line `width` pixels wide (frame padding included): `text` itself, or
// its first whole words and "…" (show the full text on hover then).
std::string FitButtonLabel(const std::string& text, float width);

}  // namespace attnlab
