// The one platform seam: browser events (emscripten/html5.h) -> Dear ImGui's io, and canvas
// sizing at devicePixelRatio. The app and the panels never include a platform header.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::platform {

// Registers mouse, wheel, touch, keyboard and resize callbacks on `canvas_selector` ("#canvas").
void Init(const char* canvas_selector);
// Sizes the canvas backing store to CSS size × devicePixelRatio and fills io.DisplaySize,
// io.DisplayFramebufferScale and io.DeltaTime. Returns true if the size changed.
bool NewFrame();
// After each frame: the state string, the view's summary for screen readers and the content height
// go to the page (Module.afterFrame),
// and the scroll range decides where the next wheel goes (the app, or the page around it).
void AfterFrame(const std::string& state, const std::string& summary, float content_height, float scroll, float scroll_max);
// True in an embed: the page around the canvas scrolls, so vertical drags are left to the browser.
void SetHostScrolls(bool host_scrolls);
// An embed asks the page around it to bring `height` px from `top` (CSS px in the canvas) into view
// (Module.scrollHostTo): a click opened something below the fold of the host page.
void ScrollHostTo(float top, float height);
// A figure's numbers (CSV) and pictures (RGBA, rows top first) for the page to copy or download
// (Module.exportText / Module.exportImage; mount.js installs them).
void ExportText(const std::string& file_name, const std::string& text);
void ExportImage(const std::string& file_name, int width, int height, const std::vector<uint8_t>& rgba);
// Where HTML text box `box` (widgets/text_box.h) goes this frame, in CSS pixels of the canvas (hidden
// when !shown), the text it shows and its label; the page's handler (web/public/sentence_box.js) moves it there.
void PlaceTextBox(int box, bool shown, float x, float y, float w, float h, const std::string& text, const char* label);
// True when an event arrived since the last call; frames are only drawn then (saves battery).
bool TakeDirty();
// True while frames are still due.
bool HasDirty();
// Requests that the next few frames be drawn (after a state change made from JS, say).
void MarkDirty();
// Requests one frame: a change that is no ImGui input (the sentence box's text) has no hover or
// active state to settle, and a keystroke that drew three frames cost three times what it needs
// (a second frame still follows when the frame itself asks for one: a state or layout change).
void MarkChanged();
// Vertical finger travel of touch scrolls since the last call, in CSS pixels (down positive).
float TakeTouchScroll();
// Framebuffer size in device pixels.
// Which WebAssembly build runs and why (attnlab.js's choice, web/bindings/relaxed_simd.mjs);
// empty where the page's script did not say.
std::string WasmBuildReason();

int FramebufferWidth();
int FramebufferHeight();

}  // namespace attnlab::platform
