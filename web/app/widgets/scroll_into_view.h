// Clicks show their effect where the reader is looking: when a click fills a section further down
// (the spotlight, the followed pair, an enlarged head), the page scrolls to that section, smoothly,
// unless it is already on screen.
#pragma once

namespace attnlab {

// Call when a click chose something whose section is drawn later in this frame or the next.
void RequestScrollToSection(const char* section);
// Call where `section` starts (before drawing it): starts the scroll if that section was requested
// and its top is not comfortably on screen. Must be inside the scrolling window.
void MarkSection(const char* section);
// Once a frame, inside the scrolling window after everything is drawn: moves the scroll a step
// towards its target; returns true while it is still moving (draw another frame).
bool StepScroll();
// In an embed the app never scrolls: the page around it must bring a requested section into view.
void SetHostScrollsSections(bool host_scrolls);
// Returns true once per request, with the section's top (CSS px in the canvas) and a height to show.
bool TakeHostScrollRequest(float* top, float* height);
// prefers-reduced-motion: the page jumps to the section instead of gliding there.
void SetReducedMotion(bool reduced);

}  // namespace attnlab
