// The page's hooks: start, the view state, what was drawn (matrices, layout, numbers, a pixel),
// and the assets the page fetches. The page shell (web/public/page.js) and the browser tests use
// them; messages for the reader are the app's, not written here.
#include <emscripten/bind.h>

#include <cstdio>
#include <string>
#include <vector>

#include "app.h"
#include "item_log.h"
#include "js_convert.h"
#include "js_guard.h"
#include "js_options.h"
#include "lessons/view_kernel.h"
#include "lm_client.h"
#include "module_views.h"
#include "offload.h"
#include "frame_loop.h"
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

// A problem with a part of the link the page reads itself (theme=…): the link's note says it too.
void NoteLinkProblem(const std::string& problem) {
  attnlab::TheApp().NoteLinkProblem(problem.substr(0, 200));
  attnlab::platform::MarkDirty();
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

// Text box `box`'s id, or false when there is no such box (a JS number may be anything).
bool BoxId(double box, attnlab::TextBoxId* id) {
  if (!(box >= 0 && box < static_cast<int>(attnlab::TextBoxId::kCount)) || box != static_cast<int>(box)) return false;  // NaN too
  *id = static_cast<attnlab::TextBoxId>(static_cast<int>(box));
  return true;
}

// Text box `box`'s text: 0 the shared sentence ("s"), 1 view 10's sentence B ("rt.b"), 2 its query
// word ("rt.q"). Like the state string, each holds at most its field's bytes (511, 511, 64): a longer
// text is cut at the last whole UTF-8 character that fits (so state() always reads back with
// setState), and the answer says so ("" otherwise).
std::string SetSentence(const std::string& sentence, double box) {
  attnlab::TextBoxId id;
  if (!BoxId(box, &id)) {
    char given[32];
    std::snprintf(given, sizeof(given), "%g", box);
    return std::string("out_of_range: box: expected 0, 1 or 2, got ") + given;
  }
  static const char* const kNames[] = {"sentence", "sentence B", "query"};
  const size_t kMaxBytes[] = {lessons::SentenceState::kText.max_bytes, lessons::RetrievalState::kSentenceB.max_bytes,
                              lessons::RetrievalState::kQuery.max_bytes};
  const size_t max_bytes = kMaxBytes[static_cast<int>(id)];
  std::string text = sentence;
  std::string note;
  if (text.size() > max_bytes) {
    size_t cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
    text.resize(cut);
    note = std::string("out_of_range: ") + kNames[static_cast<int>(id)] + ": longer than " + std::to_string(max_bytes) +
           " bytes (" + std::to_string(sentence.size()) + "): cut to " + std::to_string(cut);
  }
  attnlab::TheApp().TextBoxText(id) = std::move(text);
  attnlab::platform::MarkChanged();  // one frame per keystroke (the views re-run once, in it)
  return note;
}

// Text box `box`'s height for its wrapped text (CSS px): the layout makes room for it.
void SetSentenceBoxHeight(float px, double box) {
  attnlab::TextBoxId id;
  if (!BoxId(box, &id) || !(px >= 0.0f && px < 4096.0f)) return;  // NaN or absurd: keep the last height
  attnlab::SetTextBoxHeight(id, px);
  attnlab::platform::MarkChanged();
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
  out.set("viewKernel", std::string(attn::KernelName(lessons::ViewKernel())));  // what the views compute on
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
  const attnlab::Published& published = attnlab::TheApp().published();
  for (const auto& kv : published.rects()) out.set(kv.first, RectObject(kv.second));
  for (const auto& [name, rect] : attnlab::NamedControls()) out.set(name, RectObject(rect));  // every control
  // Every line of every sentence: "text.N.L", line L of the N-th sentence of texts() (from 0).
  for (size_t n = 0; n < published.texts().size(); ++n)
    for (size_t l = 0; l < published.texts()[n].lines.size(); ++l)
      out.set("text." + std::to_string(n) + "." + std::to_string(l), RectObject(published.texts()[n].lines[l]));
  return out;
}

// Every sentence the view shows this frame, in drawing order (widgets/prose.h).
val PageTexts() {
  val out = val::array();
  const auto& texts = attnlab::TheApp().published().texts();
  for (size_t n = 0; n < texts.size(); ++n) out.set(n, texts[n].text);
  return out;
}

// The same sentences as drawn: for each, its lines (where the wrap broke it).
val PageTextLines() {
  val out = val::array();
  const auto& texts = attnlab::TheApp().published().texts();
  for (size_t n = 0; n < texts.size(); ++n) {
    val lines = val::array();
    for (size_t l = 0; l < texts[n].line_texts.size(); ++l) lines.set(l, texts[n].line_texts[l]);
    out.set(n, lines);
  }
  return out;
}

// Published numbers ("words.lines.focus"): {name: value}.
val PageScalars() {
  val out = val::object();
  for (const auto& kv : attnlab::TheApp().published().scalars()) out.set(kv.first, kv.second);
  return out;
}

// {name: text} of the words drawn outside prose (Published::Label).
val PageLabels() {
  val out = val::object();
  for (const auto& kv : attnlab::TheApp().published().labels()) out.set(kv.first, kv.second);
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

// Parses prices.csv's text for view 13; returns "" or what is wrong (the view then says so).
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

// ---- jobs: what a Web Worker runs for the page (web/app/offload.h) ------------------------------

// In the worker (web/bindings/job_worker.mjs), on a module whose app never started: a job's unit
// {unit, settings: Int32Array, text, index} -> {ok, value, bytes?} | {ok: false, message}
// (lessons::RunJobUnit through module_views.h, the code the job runs itself on the page's thread without a
// worker; RunJobUnit checks the numbers).
val RunJob(val job) {
  lessons::JobUnit unit;
  int kind = 0;
  val out = val::object();
  attn::Status status = ReadInt(job["unit"], "unit", &kind, 1, lessons::kJobUnitKinds);
  if (status.ok()) status = ReadInt(job["index"], "index", &unit.index, 0, 1 << 20);
  const val settings = job["settings"];
  const int count = settings.instanceof(val::global("Int32Array")) ? settings["length"].as<int>() : -1;
  if (status.ok() && (count < 0 || count > 8))
    status = attn::Status(attn::StatusCode::kInvalidArgument, "settings: expected an Int32Array of at most 8 numbers");
  if (status.ok()) {
    unit.settings.resize(count);
    val(emscripten::typed_memory_view(unit.settings.size(), unit.settings.data())).call<void>("set", settings);
  }
  if (status.ok() && !job["text"].isUndefined()) {
    if (!job["text"].isString() || job["text"]["length"].as<int>() > 4096)
      status = attn::Status(attn::StatusCode::kInvalidArgument, "text: expected a string of at most 4096 characters");
    else
      unit.text = job["text"].as<std::string>();
  }
  lessons::JobAnswer answer;
  if (status.ok()) {
    unit.kind = static_cast<lessons::JobUnitKind>(kind);
    status = attnlab::RunModuleJobUnit(unit, &answer);
  }
  out.set("ok", status.ok());
  if (!status.ok()) {
    out.set("message", status.ToString());
    return out;
  }
  out.set("value", answer.value);
  if (!answer.bytes.empty())
    out.set("bytes", val(emscripten::typed_memory_view(answer.bytes.size(), reinterpret_cast<const uint8_t*>(answer.bytes.data())))
                         .call<val>("slice"));
  return out;
}

// On the page: the worker's answer for `ticket` (runJob's object), or {ok: false, message,
// workerFailed: true} when the worker itself stopped.
void JobDone(int ticket, val result) {
  attnlab::offload::Result r;
  r.ok = result["ok"].isTrue();
  r.worker_failed = result["workerFailed"].isTrue();
  if (!r.ok) r.error = result["message"].isString() ? result["message"].as<std::string>().substr(0, 300) : "the job failed";
  if (r.ok && result["value"].isNumber()) r.value = result["value"].as<double>();
  const val bytes = result["bytes"];
  if (r.ok && bytes.instanceof(val::global("Uint8Array"))) {
    r.bytes.resize(bytes["length"].as<size_t>());
    val(emscripten::typed_memory_view(r.bytes.size(), reinterpret_cast<uint8_t*>(r.bytes.data()))).call<void>("set", bytes);
  }
  attnlab::offload::Deliver(ticket, std::move(r));
}

// ---- view 12's language model (web/app/lm_client.h, web/bindings/lm_host.mjs) ------------------

// The model module's answer for `ticket` (lessons/lm_wire.h's bytes).
void LmDone(int ticket, const std::string& bytes) {
  attnlab::TheLmClient().Deliver(ticket, bytes);
  attnlab::platform::MarkDirty();
}

// The model could not load or run (`why`).
void LmFailed(int ticket, const std::string& why) {
  attnlab::TheLmClient().Failed(ticket, why);
  attnlab::platform::MarkDirty();
}

// View 12's model itself (lm_host.mjs): kind "opening" (`text`: the file's name and size), "changed"
// (a checkpoint opened, or the built-in model is back) or "failed" (`text`: why). One binding for
// the three: each costs the page's module bytes.
void LmModelEvent(const std::string& kind, const std::string& text) {
  attnlab::LmClient& client = attnlab::TheLmClient();
  if (kind == "opening")
    client.Opening(text);
  else if (kind == "changed")
    client.ModelChanged();
  else
    client.OpenFailed(text);
  attnlab::platform::MarkDirty();
}

val ReadPixel(float x, float y) {
  const auto rgba = attnlab::RenderAndReadPixel(x, y);
  val out = val::array();
  for (int i = 0; i < 4; ++i) out.set(i, rgba[i]);
  return out;
}

// {width, height, data: Uint8Array RGBA} of the CSS rectangle, drawn and read in one frame.
val ReadPixels(float x, float y, float w, float h) {
  int width = 0, height = 0;
  const std::vector<uint8_t> rgba = attnlab::RenderAndReadPixels(x, y, w, h, &width, &height);
  val out = val::object();
  out.set("width", width);
  out.set("height", height);
  out.set("data", val::global("Uint8Array").new_(emscripten::typed_memory_view(rgba.size(), rgba.data())));
  return out;
}

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_page) {
  ATTNJS_FUNCTION("start", Start);
  ATTNJS_FUNCTION("applyLink", ApplyLink);
  ATTNJS_FUNCTION("noteLinkProblem", NoteLinkProblem);
  ATTNJS_FUNCTION("setEmbedded", SetEmbedded);
  ATTNJS_FUNCTION("setLightTheme", SetLightTheme);
  ATTNJS_FUNCTION("needsWordVectors", NeedsWordVectors);
  ATTNJS_FUNCTION("needsPrices", NeedsPrices);
  ATTNJS_FUNCTION("needsTrainedHeads", NeedsTrainedHeads);
  ATTNJS_FUNCTION("loadTrainedHeads", LoadTrainedHeads);
  ATTNJS_FUNCTION("trainedHeadsFailed", TrainedHeadsFailed);
  ATTNJS_FUNCTION("setReducedMotion", SetReducedMotion);
  ATTNJS_FUNCTION("setRunning", attnlab::SetRunning);
  ATTNJS_FUNCTION("saveViewPng", attnlab::SaveViewPng);
  ATTNJS_FUNCTION("stop", attnlab::Stop);
  ATTNJS_FUNCTION("renderNow", attnlab::RenderNow);
  ATTNJS_FUNCTION("idle", attnlab::Idle);
  ATTNJS_FUNCTION("lastFrameMs", attnlab::LastFrameMs);
  ATTNJS_FUNCTION("framesDrawn", attnlab::FramesDrawn);
  ATTNJS_FUNCTION("pageState", PageState);
  ATTNJS_FUNCTION("setPageState", SetPageState);
  ATTNJS_FUNCTION("setSentence", SetSentence);
  ATTNJS_FUNCTION("setSentenceBoxHeight", SetSentenceBoxHeight);
  ATTNJS_FUNCTION("scrollBy", ScrollBy);
  ATTNJS_FUNCTION("pageView", PageView);
  ATTNJS_FUNCTION("pageMatrix", PageMatrix);
  ATTNJS_FUNCTION("pageMatrixNames", PageMatrixNames);
  ATTNJS_FUNCTION("pageLayout", PageLayout);
  ATTNJS_FUNCTION("pageScalars", PageScalars);
  ATTNJS_FUNCTION("pageLabels", PageLabels);
  ATTNJS_FUNCTION("pageTexts", PageTexts);
  ATTNJS_FUNCTION("pageTextLines", PageTextLines);
  ATTNJS_FUNCTION("runJob", RunJob);
  ATTNJS_FUNCTION("jobDone", JobDone);
  ATTNJS_FUNCTION("lmDone", LmDone);
  ATTNJS_FUNCTION("lmFailed", LmFailed);
  ATTNJS_FUNCTION("lmModelEvent", LmModelEvent);
  ATTNJS_FUNCTION("readPixel", ReadPixel);
  ATTNJS_FUNCTION("readPixels", ReadPixels);
  ATTNJS_FUNCTION("graphicsLost", attnlab::GraphicsLost);
  ATTNJS_FUNCTION("crashForTesting", attnlab::CrashForTesting);
  ATTNJS_FUNCTION("loadWordVectors", LoadWordVectors);
  ATTNJS_FUNCTION("wordVectorsFailed", WordVectorsFailed);
  ATTNJS_FUNCTION("wordVectorsProgress", WordVectorsProgress);
  ATTNJS_FUNCTION("loadPrices", LoadPrices);
  ATTNJS_FUNCTION("pricesFailed", PricesFailed);
}
