// Every figure can leave the page: a ⋯ button beside it (or a right click, or a long press, on it)
// opens a menu to save it as a PNG rendered at 2× (for print and retina screens) or to copy its
// numbers as CSV with their labels. The CSV is written at once; the PNG after the frame, when
// frame_loop.cpp renders the frame's draw data again into a 2× framebuffer and hands the pixels to the page.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "published.h"

namespace attnlab {

struct ExportRequest {
  enum class Kind { kPng, kCsv };
  Kind kind = Kind::kCsv;
  std::string name;  // file name stem, the figure's published name ("words.W")
  LayoutRect rect;   // kPng: the figure on the canvas (CSS px)
  std::string text;  // kCsv: the numbers
};

// Call right after the figure's hoverable item: a right click (a long press on a phone) on it opens
// the menu of `name`.
void OpenExportMenuOnRightClick(const std::string& name);
// Draws the menu, and the ⋯ button on the current line if `button` (else only a right click opens it).
// `csv` makes the figure's CSV when chosen. Publishes the button as "<name>.menu" and, while the menu
// is open, its items as "<name>.menu.png" and "<name>.menu.csv".
void DrawExportMenu(const std::string& name, const LayoutRect& figure, const std::function<std::string()>& csv,
                    Published& published, bool button = true);
// The menu's choices since the last call, oldest first (frame_loop.cpp serves them after each frame).
std::vector<ExportRequest> TakeExportRequests();
// Queues a PNG of `rect` (the whole view, say) without a menu.
void RequestPng(const std::string& name, const LayoutRect& rect);

}  // namespace attnlab
