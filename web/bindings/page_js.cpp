// The page's hooks: start, the view state, what was drawn (matrices, layout, numbers, a pixel),
// and the assets the page fetches. The page shell (web/public/page.js) and the browser tests use
// them; messages for the reader are the app's, not written here.
#include <emscripten/bind.h>

#include <string>
#include <vector>

#include "app.h"
#include "js_convert.h"
#include "main.h"
#include "platform_html5.h"
#include "published.h"
#include "theme.h"
#include "widgets/scroll_into_view.h"

using emscripten::val;
using namespace attnjs;

namespace {

val RectObject(const attnlab::LayoutRect& r) {
  val out = val::object();
  out.set("x", r.x);
  out.set("y", r.y);
  out.set("width", r.w);
  out.set("height", r.h);
  return out;
}

std::string Start(const std::string& font_ttf, const std::string& canvas_selector) {
  return attnlab::Start(font_ttf, canvas_selector);
}

// A link's state (the URL hash without '#', 'embed' and 'theme'): from the defaults; returns ""
// or what was ignored or clamped (the page says so too).
std::string ApplyLink(const std::string& text) {
  const attn::Status status = attnlab::TheApp().ApplyLink(text);
  attnlab::platform::MarkDirty();
  return status.ok() ? "" : status.ToString();
}

void SetEmbedded(bool embedded) {
  attnlab::TheApp().SetEmbedded(embedded);
  attnlab::platform::SetHostScrolls(embedded);
  attnlab::SetHostScrollsSections(embedded);
  attnlab::platform::MarkDirty();
}

void SetLightTheme(bool light) {
  attnlab::ApplyTheme(light);
  attnlab::platform::MarkDirty();
}

// True when the view shown draws GloVe vectors, which are then worth fetching (1.5 MB).
bool NeedsWordVectors() { return attnlab::TheApp().NeedsWordVectors(); }
bool NeedsPrices() { return attnlab::TheApp().NeedsPrices(); }
// prefers-reduced-motion: nothing glides (a click's scroll jumps); nothing animates by itself anyway.
void SetReducedMotion(bool reduced) { attnlab::SetReducedMotion(reduced); }

// The whole view state as its short string ("v=1&s=Sky%20is%20clear").
std::string PageState() { return attnlab::TheApp().StateString(); }

// Applies a state string; returns "" or what was wrong (the valid fields still apply).
std::string SetPageState(const std::string& text) {
  const attn::Status status = attnlab::TheApp().SetStateString(text);
  attnlab::platform::MarkDirty();
  return status.ok() ? "" : status.ToString();
}

void SetSentence(const std::string& sentence) {
  attnlab::TheApp().state().sentence.text = sentence;
  attnlab::platform::MarkDirty();
}

// The HTML sentence box's height for its wrapped text (CSS px): the layout makes room for it.
void SetSentenceBoxHeight(float px) {
  if (!(px >= 0.0f && px < 4096.0f)) return;  // NaN or absurd: keep the last height
  attnlab::TheApp().SetSentenceBoxHeight(px);
  attnlab::platform::MarkDirty();
}

// Scrolls the page by `px` CSS pixels (down positive): drags and wheels over the sentence box.
void ScrollBy(float px) {
  if (!(px > -1e5f && px < 1e5f)) return;
  attnlab::TheApp().ScrollBy(px);
  attnlab::platform::MarkDirty();
}

// The shared sentence and the page's bookkeeping.
val PageView() {
  const attnlab::App& app = attnlab::TheApp();
  const lessons::Sentence& s = app.sentence();
  val out = val::object();
  out.set("view", static_cast<int>(attnlab::TheApp().state().view));
  out.set("tokens", ToJsStrings(s.tokens));
  val known = val::array();
  for (size_t i = 0; i < s.known.size(); ++i) known.set(i, static_cast<bool>(s.known[i]));
  out.set("known", known);
  out.set("embeddings", ToJsMatrix(s.x));
  out.set("glove", s.glove);
  out.set("unknownNote", s.unknown_note);  // what the page says about the words marked ?, or ""
  out.set("wordVectorsLoaded", app.word_vectors_loaded());
  out.set("error", app.sentence_error());
  out.set("engineRuns", app.engine_runs());
  const attnlab::HoveredCell& hover = app.published().hovered();
  if (hover.map.empty()) {
    out.set("hovered", val::null());
  } else {
    val h = val::object();
    h.set("map", hover.map);
    h.set("row", hover.row);
    h.set("col", hover.col);
    h.set("value", hover.value);
    out.set("hovered", h);
  }
  return out;
}

// A matrix the page drew this frame, by its published name ("words.W"), or null.
val PageMatrix(const std::string& name) {
  const attn::Matrix* m = attnlab::TheApp().published().FindMatrix(name);
  return m ? ToJsMatrix(*m) : val::null();
}

// Names of the matrices drawn this frame.
val PageMatrixNames() {
  std::vector<std::string> names;
  for (const auto& kv : attnlab::TheApp().published().matrices()) names.push_back(kv.first);
  return ToJsStrings(names);
}

// Where each published thing sits, in CSS pixels: {name: {x, y, width, height}}.
val PageLayout() {
  val out = val::object();
  for (const auto& kv : attnlab::TheApp().published().rects()) out.set(kv.first, RectObject(kv.second));
  return out;
}

// Published numbers ("words.lines.focus"): {name: value}.
val PageScalars() {
  val out = val::object();
  for (const auto& kv : attnlab::TheApp().published().scalars()) out.set(kv.first, kv.second);
  return out;
}

// Parses the GloVe asset's bytes and gives them to the page; returns "" or what is wrong.
std::string LoadWordVectors(const std::string& bytes) {
  const attn::Status status =
      attnlab::TheApp().LoadWordVectors(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  attnlab::platform::MarkDirty();
  return status.ok() ? "" : status.ToString();
}

// Parses heads-trained-brown.bin's bytes for views 3 and 5; returns "" or what is wrong (the views
// then say so and draw seeded heads).
std::string LoadTrainedHeads(const std::string& bytes) {
  const attn::Status status =
      attnlab::TheApp().LoadTrainedHeads(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  attnlab::platform::MarkDirty();
  return status.ok() ? "" : status.ToString();
}

void TrainedHeadsFailed(const std::string& why) {
  attnlab::TheApp().TrainedHeadsFailed(why);
  attnlab::platform::MarkDirty();
}

bool NeedsTrainedHeads() { return attnlab::TheApp().NeedsTrainedHeads(); }

// Parses prices.csv's text for view 10; returns "" or what is wrong (the view then says so).
std::string LoadPrices(const std::string& text) {
  const attn::Status status = attnlab::TheApp().LoadPrices(text);
  attnlab::platform::MarkDirty();
  return status.ok() ? "" : status.ToString();
}

// The page could not fetch an asset: `why` is the reason ("HTTP 404"); the app says what it does.
void PricesFailed(const std::string& why) {
  attnlab::TheApp().PricesFailed(why);
  attnlab::platform::MarkDirty();
}

// The share of the asset received so far (0..1), shown while the hashed stand-ins are drawn.
void WordVectorsProgress(double fraction) {
  attnlab::TheApp().WordVectorsProgress(static_cast<float>(fraction));
  attnlab::platform::MarkDirty();
}

void WordVectorsFailed(const std::string& why) {
  attnlab::TheApp().WordVectorsFailed(why);
  attnlab::platform::MarkDirty();
}

val ReadPixel(float x, float y) {
  const auto rgba = attnlab::RenderAndReadPixel(x, y);
  val out = val::array();
  for (int i = 0; i < 4; ++i) out.set(i, rgba[i]);
  return out;
}

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_page) {
  emscripten::function("start", &Start);
  emscripten::function("applyLink", &ApplyLink);
  emscripten::function("setEmbedded", &SetEmbedded);
  emscripten::function("setLightTheme", &SetLightTheme);
  emscripten::function("needsWordVectors", &NeedsWordVectors);
  emscripten::function("needsPrices", &NeedsPrices);
  emscripten::function("needsTrainedHeads", &NeedsTrainedHeads);
  emscripten::function("loadTrainedHeads", &LoadTrainedHeads);
  emscripten::function("trainedHeadsFailed", &TrainedHeadsFailed);
  emscripten::function("setReducedMotion", &SetReducedMotion);
  emscripten::function("setRunning", &attnlab::SetRunning);
  emscripten::function("saveViewPng", &attnlab::SaveViewPng);
  emscripten::function("stop", &attnlab::Stop);
  emscripten::function("renderNow", &attnlab::RenderNow);
  emscripten::function("idle", &attnlab::Idle);
  emscripten::function("lastFrameMs", &attnlab::LastFrameMs);
  emscripten::function("pageState", &PageState);
  emscripten::function("setPageState", &SetPageState);
  emscripten::function("setSentence", &SetSentence);
  emscripten::function("setSentenceBoxHeight", &SetSentenceBoxHeight);
  emscripten::function("scrollBy", &ScrollBy);
  emscripten::function("pageView", &PageView);
  emscripten::function("pageMatrix", &PageMatrix);
  emscripten::function("pageMatrixNames", &PageMatrixNames);
  emscripten::function("pageLayout", &PageLayout);
  emscripten::function("pageScalars", &PageScalars);
  emscripten::function("readPixel", &ReadPixel);
  emscripten::function("loadWordVectors", &LoadWordVectors);
  emscripten::function("wordVectorsFailed", &WordVectorsFailed);
  emscripten::function("wordVectorsProgress", &WordVectorsProgress);
  emscripten::function("loadPrices", &LoadPrices);
  emscripten::function("pricesFailed", &PricesFailed);
}
