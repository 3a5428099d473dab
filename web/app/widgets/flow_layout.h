// Controls that flow: side by side on a desktop, one per line on a phone.
#pragma once

namespace attnlab {

// Call between two items: stays on the line if `next_width` more pixels fit after the last item.
void SameLineIfFits(float next_width);

}  // namespace attnlab
