// The frame loop and the page's life cycle around it (start, pause, stop, PNG export), called from JS
// through the bindings.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace attnlab {

// Creates the WebGL2 context on the canvas `canvas_selector` names ("#attnlab-canvas-1"), ImGui and
// the app, then starts the frame loop. Returns an empty string on success, else what failed (shown
// by the page).
std::string Start(const std::string& font_ttf, const std::string& canvas_selector);
// Saves the view shown, whole (not only what is on screen), as a PNG at 2× (the page downloads it).
void SaveViewPng();
// Pauses (false) or resumes (true) the frame loop: an embed out of view or in a hidden tab draws nothing.
void SetRunning(bool running);
// Ends the frame loop and frees ImGui and the WebGL context (the module's memory goes with the module).
void Stop();
// CPU milliseconds the last frame took (engine re-runs + UI + GL submission).
double LastFrameMs();
// Frames drawn since the start (the tests count the frames an input costs).
int FramesDrawn();
// True when no input is waiting, no frame is due and no job is out in the worker: what the page
// shows is final.
bool Idle();
// True between the canvas's webglcontextlost and webglcontextrestored: nothing is drawn meanwhile
// (the page says "restoring graphics…"); on restoration every GL object is made again.
bool GraphicsLost();
// For the page's tests of a module that dies: "abort" calls abort() now; "trap" makes the next
// frame execute a wasm trap inside the frame loop. The page must then say so and offer a reload.
void CrashForTesting(const std::string& how);
// Draws one frame now (even if nothing changed).
void RenderNow();
// Draws a frame and reads the RGBA pixel under CSS point (x, y) in the same task, so the
// result does not depend on preserveDrawingBuffer.
std::array<int, 4> RenderAndReadPixel(float x, float y);
// The same for the CSS rectangle (x, y, w, h): one frame, every device pixel in it as RGBA, rows
// bottom first as GL reads them; *width, *height in device pixels (0 when the rectangle is off).
std::vector<uint8_t> RenderAndReadPixels(float x, float y, float w, float h, int* width, int* height);

}  // namespace attnlab
