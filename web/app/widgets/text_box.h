// HTML text areas laid over the canvas (web/public/sentence_box.js): they wrap, put the caret where a
// finger taps and raise a phone's keyboard, which ImGui's one-line field cannot. The app reserves each
// box's place in its layout and draws its frame; after the frame the page moves the box there, and
// answers with the height the wrapped text needs. Box 0 holds the shared sentence; boxes 1 and 2 view
// 10's sentence B and query word.
#pragma once

#include <string>

#include "published.h"

namespace attnlab {

enum class TextBoxId { kSentence, kSentenceB, kQuery, kCount };

struct TextBoxPlace {
  bool shown = false;
  float x = 0, y = 0, w = 0, h = 0;  // CSS pixels of the canvas
};

// Start of a frame: no box is shown until a view reserves it.
void HideTextBoxes();
// Reserves the box's place at the cursor: `width` wide (0: the column's width), as tall as its wrapped
// text (at least one line). Draws the frame and, in a capture frame (the picture has no HTML in it),
// `text` where the box shows it. Publishes the place as `name`.
void TextBoxSlot(TextBoxId id, const std::string& text, Published& published, const std::string& name, float width = 0.0f);
// Capture frames draw the text into the picture.
void SetTextBoxesCapturing(bool capturing);
// The height the text area needs at the width it was given (from the page; NaN or absurd: ignored).
void SetTextBoxHeight(TextBoxId id, float px);
const TextBoxPlace& TextBoxPlaceOf(TextBoxId id);
// What the page calls the box (its aria-label and placeholder).
const char* TextBoxLabel(TextBoxId id);

}  // namespace attnlab
