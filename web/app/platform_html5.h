// The one platform seam: browser events (emscripten/html5.h) -> Dear ImGui's io, and canvas
// sizing at devicePixelRatio. The app and the panels never include a platform header.
#pragma once

namespace attnlab::platform {

// Registers mouse, wheel, touch, keyboard and resize callbacks on `canvas_selector` ("#canvas").
void Init(const char* canvas_selector);
// Sizes the canvas backing store to CSS size × devicePixelRatio and fills io.DisplaySize,
// io.DisplayFramebufferScale and io.DeltaTime. Returns true if the size changed.
bool NewFrame();
// True when an event arrived since the last call; frames are only drawn then (saves battery).
bool TakeDirty();
// Requests that the next few frames be drawn (after a state change made from JS, say).
void MarkDirty();
// Framebuffer size in device pixels.
int FramebufferWidth();
int FramebufferHeight();

}  // namespace attnlab::platform
