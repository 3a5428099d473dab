// The one platform seam: browser events (emscripten/html5.h) -> Dear ImGui's io, and canvas
// sizing at devicePixelRatio. The app and the panels never include a platform header.
#pragma once

#include <string>

namespace attnlab::platform {

// Registers mouse, wheel, touch, keyboard and resize callbacks on `canvas_selector` ("#canvas").
// `draw_now` draws a frame synchronously (used inside touch gestures).
void Init(const char* canvas_selector, void (*draw_now)());
// Sizes the canvas backing store to CSS size × devicePixelRatio and fills io.DisplaySize,
// io.DisplayFramebufferScale and io.DeltaTime. Returns true if the size changed.
bool NewFrame();
// After each frame: focuses the hidden #ime input while an ImGui text field is active.
void EndFrame();
// Text typed through the hidden #ime input (phones, IMEs).
void AddText(const std::string& utf8);
// True when an event arrived since the last call; frames are only drawn then (saves battery).
bool TakeDirty();
// True while frames are still due.
bool HasDirty();
// Requests that the next few frames be drawn (after a state change made from JS, say).
void MarkDirty();
// Vertical finger travel of touch scrolls since the last call, in CSS pixels (down positive).
float TakeTouchScroll();
// Framebuffer size in device pixels.
int FramebufferWidth();
int FramebufferHeight();

}  // namespace attnlab::platform
