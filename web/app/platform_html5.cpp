// Browser events -> ImGui io. Replaces emscripten's GLFW, which ignores devicePixelRatio,
// misses touch drags and swallows Backspace/Tab page-wide.
#include "platform_html5.h"

#include <algorithm>

#include <emscripten.h>
#include <emscripten/html5.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "imgui.h"

// The text boxes are HTML <textarea>s laid over the canvas (web/public/sentence_box.js): they wrap,
// puts the caret where a finger taps and raises phone keyboards, which ImGui's one-line field cannot.
// The app reserves their places; this hands each place to the page's handler, if one is installed.
// `scale`: the lecture mode's UI scale, which the box's text follows.
EM_JS(void, attnlab_place_text_box, (int box, int shown, float x, float y, float w, float h, const char* text, const char* label,
                                     float scale), {
  if (Module.sentenceBox) Module.sentenceBox(!!shown, x, y, w, h, UTF8ToString(text), box, UTF8ToString(label), scale);
});

EM_JS(char*, attnlab_wasm_build_reason, (), {
  return stringToNewUTF8(typeof Module.attnlabWasmBuild === 'string' ? Module.attnlabWasmBuild : '');
});

// After each frame: the state string (for the address bar and "open in attnlab"), the height of
// everything drawn (an embed's canvas grows to it), the scroll (the Share button on the title line
// moves with it) and the view's one-sentence summary (the aria-live region), to the page's handler.
EM_JS(void, attnlab_after_frame, (const char* state, const char* summary, float content_height, float scroll), {
  if (Module.afterFrame) Module.afterFrame(UTF8ToString(state), content_height, scroll, UTF8ToString(summary));
});

// An embed's request that its host page show part of it; a figure's CSV and PNG pixels (copied out
// of the wasm heap) for the page to copy or download.
EM_JS(void, attnlab_scroll_host, (float top, float height), {
  if (Module.scrollHostTo) Module.scrollHostTo(top, height);
});

EM_JS(void, attnlab_export_text, (const char* name, const char* text), {
  if (Module.exportText) Module.exportText(UTF8ToString(name), UTF8ToString(text));
});

EM_JS(void, attnlab_export_image, (const char* name, int width, int height, const uint8_t* rgba), {
  if (Module.exportImage) Module.exportImage(UTF8ToString(name), width, height, HEAPU8.slice(rgba, rgba + width * height * 4));
});

namespace attnlab::platform {
namespace {

std::string g_canvas;
int g_fb_width = 0, g_fb_height = 0;
int g_dirty_frames = 3;  // a few frames after each event: ImGui settles hover/active state
double g_last_time = 0;
// The app's scroll range after the last frame: a wheel it cannot use goes on to the page around.
float g_scroll = 0, g_scroll_max = 0;
bool g_host_scrolls = false;  // an embed: vertical finger drags scroll the host page, natively

void Dirty() { g_dirty_frames = 3; }

// A finger is classified before ImGui sees a press: a vertical drag scrolls the page wherever it
// starts (on a slider too), a horizontal drag presses and drags (sliders move), a tap clicks.
enum class Gesture { kNone, kUndecided, kScroll, kPress };
Gesture g_gesture = Gesture::kNone;
float g_touch_x = 0, g_touch_y = 0;  // where the finger went down
float g_last_y = 0;
float g_scroll_px = 0;               // vertical finger travel not yet applied to the page
double g_touch_ms = 0;               // when the finger went down
constexpr double kLongPressMs = 500;  // a finger held still this long: a right click (a figure's menu)
constexpr float kDecidePx = 8.0f;     // travel before a touch counts as a drag

ImGuiKey KeyFromDom(const char* key, const char* code) {
  struct Named { const char* name; ImGuiKey key; };
  static const Named kNamed[] = {
      {"Backspace", ImGuiKey_Backspace}, {"Tab", ImGuiKey_Tab}, {"Enter", ImGuiKey_Enter},
      {"Escape", ImGuiKey_Escape}, {"Delete", ImGuiKey_Delete}, {"Insert", ImGuiKey_Insert},
      {"Home", ImGuiKey_Home}, {"End", ImGuiKey_End}, {"PageUp", ImGuiKey_PageUp},
      {"PageDown", ImGuiKey_PageDown}, {"ArrowLeft", ImGuiKey_LeftArrow},
      {"ArrowRight", ImGuiKey_RightArrow}, {"ArrowUp", ImGuiKey_UpArrow},
      {"ArrowDown", ImGuiKey_DownArrow}, {" ", ImGuiKey_Space},
  };
  for (const Named& n : kNamed)
    if (!std::strcmp(key, n.name)) return n.key;
  // Shortcuts (Ctrl+A/C/V/X/Z/Y) by physical key, so they work on any layout.
  if (!std::strncmp(code, "Key", 3) && code[3] >= 'A' && code[3] <= 'Z' && code[4] == '\0')
    return static_cast<ImGuiKey>(ImGuiKey_A + (code[3] - 'A'));
  if (!std::strcmp(code, "ShiftLeft") || !std::strcmp(code, "ShiftRight")) return ImGuiKey_LeftShift;
  if (!std::strcmp(code, "ControlLeft") || !std::strcmp(code, "ControlRight")) return ImGuiKey_LeftCtrl;
  if (!std::strcmp(code, "AltLeft") || !std::strcmp(code, "AltRight")) return ImGuiKey_LeftAlt;
  if (!std::strcmp(code, "MetaLeft") || !std::strcmp(code, "MetaRight")) return ImGuiKey_LeftSuper;
  return ImGuiKey_None;
}

void UpdateModifiers(ImGuiIO& io, const EmscriptenKeyboardEvent* e) {
  io.AddKeyEvent(ImGuiMod_Ctrl, e->ctrlKey);
  io.AddKeyEvent(ImGuiMod_Shift, e->shiftKey);
  io.AddKeyEvent(ImGuiMod_Alt, e->altKey);
  io.AddKeyEvent(ImGuiMod_Super, e->metaKey);
}

EM_BOOL OnKey(int type, const EmscriptenKeyboardEvent* e, void*) {
  ImGuiIO& io = ImGui::GetIO();
  Dirty();
  UpdateModifiers(io, e);
  const bool down = type == EMSCRIPTEN_EVENT_KEYDOWN;
  if (e->keyCode == 229 || !std::strcmp(e->key, "Unidentified")) return false;  // IME composition
  const ImGuiKey key = KeyFromDom(e->key, e->code);
  if (key != ImGuiKey_None) io.AddKeyEvent(key, down);
  // A printable key is one UTF-8 character; DOM names of other keys are longer words.
  const size_t len = std::strlen(e->key);
  const bool printable = len > 0 && len <= 4 && ((unsigned char)e->key[0] >= 0x80 || len == 1);
  if (down && printable && !e->ctrlKey && !e->metaKey) io.AddInputCharactersUTF8(e->key);
  // Only take the key from the page while an ImGui widget wants it (HTML inputs beside keep theirs).
  return io.WantCaptureKeyboard || io.WantTextInput;
}

EM_BOOL OnMouse(int type, const EmscriptenMouseEvent* e, void*) {
  ImGuiIO& io = ImGui::GetIO();
  Dirty();
  io.AddMouseSourceEvent(ImGuiMouseSource_Mouse);
  // A release is heard on the window (a drag may end outside the canvas), where targetX/Y are the
  // window's, not the canvas's: an <attn-lab> away from the page's corner would see the pointer jump
  // off the button it was released on, and no button would ever be pressed (ImGui presses on a
  // release over the item). The pointer stays where the canvas last saw it.
  if (type != EMSCRIPTEN_EVENT_MOUSEUP) io.AddMousePosEvent(static_cast<float>(e->targetX), static_cast<float>(e->targetY));
  const int button = e->button == 2 ? 1 : e->button == 1 ? 2 : e->button;  // DOM: 0 L, 1 M, 2 R
  if (type == EMSCRIPTEN_EVENT_MOUSEDOWN) io.AddMouseButtonEvent(button, true);
  if (type == EMSCRIPTEN_EVENT_MOUSEUP) io.AddMouseButtonEvent(button, false);
  return type != EMSCRIPTEN_EVENT_MOUSEMOVE;
}

EM_BOOL OnMouseLeave(int, const EmscriptenMouseEvent*, void*) {
  Dirty();
  ImGui::GetIO().AddMousePosEvent(-FLT_MAX, -FLT_MAX);
  return false;
}

EM_BOOL OnWheel(int, const EmscriptenWheelEvent* e, void*) {
  ImGuiIO& io = ImGui::GetIO();
  Dirty();
  // DOM deltas are in pixels (mode 0), lines (1) or pages (2); ImGui wants lines, up positive.
  const float unit = e->deltaMode == DOM_DELTA_PIXEL ? 1.0f / 100.0f : e->deltaMode == DOM_DELTA_LINE ? 1.0f / 3.0f : 1.0f;
  // Scrolling belongs to whoever can: the app while it has room in that direction, else the page
  // around it (the event is left alone, so the browser scrolls the host or the iframe's parent).
  const bool app_can = (e->deltaY > 0 && g_scroll < g_scroll_max - 0.5f) || (e->deltaY < 0 && g_scroll > 0.5f);
  if (!app_can) return false;
  io.AddMouseWheelEvent(0.0f, static_cast<float>(-e->deltaY) * unit);
  return true;
}

EM_BOOL OnTouch(int type, const EmscriptenTouchEvent* e, void*) {
  ImGuiIO& io = ImGui::GetIO();
  Dirty();
  const EmscriptenTouchPoint* t = nullptr;
  for (int i = 0; i < e->numTouches && !t; ++i)
    if (e->touches[i].isChanged) t = &e->touches[i];
  if (!t) return true;
  const float x = static_cast<float>(t->targetX), y = static_cast<float>(t->targetY);
  io.AddMouseSourceEvent(ImGuiMouseSource_TouchScreen);
  if (type == EMSCRIPTEN_EVENT_TOUCHSTART) {
    g_gesture = Gesture::kUndecided;
    g_touch_x = x;
    g_touch_y = g_last_y = y;
    g_touch_ms = emscripten_get_now();
    io.AddMousePosEvent(x, y);  // a touch shows what is under it (a tap = hover)
    // In an embed the browser must stay free to pan the host page (the canvas has touch-action:
    // pan-y), so the start of a touch is not claimed; a horizontal drag still reaches the sliders.
    return !g_host_scrolls;
  }
  if (type == EMSCRIPTEN_EVENT_TOUCHMOVE) {
    if (g_gesture == Gesture::kUndecided && std::hypot(x - g_touch_x, y - g_touch_y) > kDecidePx) {
      if (std::fabs(y - g_touch_y) > std::fabs(x - g_touch_x)) {
        g_gesture = Gesture::kScroll;
        g_last_y = g_touch_y;
        io.AddMousePosEvent(-FLT_MAX, -FLT_MAX);  // nothing is hovered while the page moves
      } else {
        g_gesture = Gesture::kPress;
        io.AddMouseButtonEvent(0, true);  // pressed where the finger went down
      }
    }
    if (g_gesture == Gesture::kScroll) {
      if (g_host_scrolls) return false;  // the browser pans the host page
      g_scroll_px += y - g_last_y;
      g_last_y = y;
    } else if (g_gesture == Gesture::kPress) {
      io.AddMousePosEvent(x, y);
    }
    return g_gesture != Gesture::kUndecided || !g_host_scrolls;
  }
  // Lifted (or cancelled): a press ends; a tap is a click where the finger was, a long press a right
  // click (it opens a figure's menu).
  if (g_gesture == Gesture::kUndecided && type == EMSCRIPTEN_EVENT_TOUCHEND) {
    const int button = emscripten_get_now() - g_touch_ms >= kLongPressMs ? 1 : 0;  // long press: right
    io.AddMousePosEvent(g_touch_x, g_touch_y);
    io.AddMouseButtonEvent(button, true);
    io.AddMouseButtonEvent(button, false);
  } else if (g_gesture == Gesture::kPress) {
    io.AddMouseButtonEvent(0, false);
  }
  // The end of a scroll the browser ran (an embed's host page) cannot be cancelled: leave it be.
  const bool browser_scrolled = g_host_scrolls && g_gesture == Gesture::kScroll;
  g_gesture = Gesture::kNone;
  // The pointer stays where the finger lifted: a tap on a cell keeps its value shown (a phone's only
  // way to read one) until the next touch lands elsewhere.
  return !browser_scrolled;  // else no emulated mouse events, no page scroll: the app scrolls itself
}

EM_BOOL OnFocus(int type, const EmscriptenFocusEvent*, void*) {
  Dirty();
  ImGui::GetIO().AddFocusEvent(type == EMSCRIPTEN_EVENT_FOCUS);
  return false;
}

EM_BOOL OnResize(int, const EmscriptenUiEvent*, void*) {
  Dirty();
  return false;
}

}  // namespace

void Init(const char* canvas_selector) {
  g_canvas = canvas_selector;
  const char* c = g_canvas.c_str();
  ImGuiIO& io = ImGui::GetIO();
  io.BackendPlatformName = "attnlab_html5";
  emscripten_set_mousedown_callback(c, nullptr, true, OnMouse);
  emscripten_set_mousemove_callback(c, nullptr, true, OnMouse);
  emscripten_set_mouseleave_callback(c, nullptr, true, OnMouseLeave);
  // Releases outside the canvas still end a drag.
  emscripten_set_mouseup_callback(EMSCRIPTEN_EVENT_TARGET_WINDOW, nullptr, true, OnMouse);
  emscripten_set_wheel_callback(c, nullptr, true, OnWheel);
  emscripten_set_touchstart_callback(c, nullptr, true, OnTouch);
  emscripten_set_touchmove_callback(c, nullptr, true, OnTouch);
  emscripten_set_touchend_callback(c, nullptr, true, OnTouch);
  emscripten_set_touchcancel_callback(c, nullptr, true, OnTouch);
  // Keys go to the canvas that has the focus (the page focuses it on a press): with several
  // attnlabs on a page, only that one takes them, and the host page keeps its own.
  emscripten_set_keydown_callback(c, nullptr, true, OnKey);
  emscripten_set_keyup_callback(c, nullptr, true, OnKey);
  emscripten_set_focus_callback(c, nullptr, true, OnFocus);
  emscripten_set_blur_callback(c, nullptr, true, OnFocus);
  emscripten_set_resize_callback(EMSCRIPTEN_EVENT_TARGET_WINDOW, nullptr, true, OnResize);
  g_last_time = emscripten_get_now();
}

bool NewFrame() {
  ImGuiIO& io = ImGui::GetIO();
  double css_w = 0, css_h = 0;
  emscripten_get_element_css_size(g_canvas.c_str(), &css_w, &css_h);
  const double dpr = emscripten_get_device_pixel_ratio();
  const int fb_w = static_cast<int>(css_w * dpr + 0.5), fb_h = static_cast<int>(css_h * dpr + 0.5);
  const bool resized = fb_w != g_fb_width || fb_h != g_fb_height;
  if (resized) {
    emscripten_set_canvas_element_size(g_canvas.c_str(), fb_w, fb_h);
    g_fb_width = fb_w;
    g_fb_height = fb_h;
  }
  io.DisplaySize = ImVec2(static_cast<float>(css_w), static_cast<float>(css_h));
  io.DisplayFramebufferScale = ImVec2(static_cast<float>(dpr), static_cast<float>(dpr));
  const double now = emscripten_get_now();
  io.DeltaTime = static_cast<float>(now > g_last_time ? (now - g_last_time) / 1000.0 : 1.0 / 60.0);
  if (io.DeltaTime <= 0.0f) io.DeltaTime = 1.0f / 60.0f;
  g_last_time = now;
  return resized;
}

bool TakeDirty() {
  if (g_dirty_frames <= 0) return false;
  --g_dirty_frames;
  return true;
}

void AfterFrame(const std::string& state, const std::string& summary, float content_height, float scroll, float scroll_max) {
  g_scroll = scroll;
  g_scroll_max = scroll_max;
  attnlab_after_frame(state.c_str(), summary.c_str(), content_height, scroll);
}

void SetHostScrolls(bool host_scrolls) { g_host_scrolls = host_scrolls; }

void ScrollHostTo(float top, float height) { attnlab_scroll_host(top, height); }

void ExportText(const std::string& file_name, const std::string& text) { attnlab_export_text(file_name.c_str(), text.c_str()); }

void ExportImage(const std::string& file_name, int width, int height, const std::vector<uint8_t>& rgba) {
  attnlab_export_image(file_name.c_str(), width, height, rgba.data());
}

void PlaceTextBox(int box, bool shown, float x, float y, float w, float h, const std::string& text, const char* label) {
  // The UI's font is 15 px at scale 1 (frame_loop.cpp), so its size now says the lecture mode's scale.
  attnlab_place_text_box(box, shown ? 1 : 0, x, y, w, h, text.c_str(), label, ImGui::GetFontSize() / 15.0f);
}

bool HasDirty() { return g_dirty_frames > 0; }

float TakeTouchScroll() {
  const float px = g_scroll_px;
  g_scroll_px = 0;
  return px;
}
void MarkDirty() { Dirty(); }
void MarkChanged() { g_dirty_frames = std::max(g_dirty_frames, 1); }
std::string WasmBuildReason() {
  char* text = attnlab_wasm_build_reason();
  std::string reason = text ? text : "";
  free(text);
  return reason;
}

int FramebufferWidth() { return g_fb_width; }
int FramebufferHeight() { return g_fb_height; }

}  // namespace attnlab::platform
