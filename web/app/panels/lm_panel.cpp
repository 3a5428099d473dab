// View 12. What the reader sees: the small GPT's next words after every word of the sentence, a
// continuation through the KV cache, every layer × head (one enlarged), heads knocked out and what
// that changes, the residual stream's norms and the logit lens. Every number is the model module's
// (lessons::ComputeLm in the worker); this file lays them out.
#include "panels/lm_panel.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "imgui.h"
#include "lessons/explain.h"
#include "lessons/format.h"
#include "lm_client.h"
#include "theme.h"
#include "widgets/field_widgets.h"
#include "widgets/flow_layout.h"
#include "widgets/heatmap_grid.h"
#include "widgets/matrix_view.h"
#include "widgets/prose.h"
#include "widgets/scroll_into_view.h"

namespace attnlab {
namespace {

// [SECTION] Text helpers

// "1.3": layer and head, 1-based, as every sentence of the view names a head.
std::string HeadName(int index, int heads) {
  return std::to_string(index / heads + 1) + "." + std::to_string(index % heads + 1);
}

// “that” 0.21, “the” 0.11, … (p at T = 1, or p_t).
std::string ListWords(const std::vector<lessons::LmNextWord>& words, bool at_t, size_t count) {
  std::string text;
  char buffer[96];
  for (size_t k = 0; k < std::min(count, words.size()); ++k) {
    if (at_t && words[k].word == "<unk>") continue;  // the continuation never says it (p_t is 0)
    std::snprintf(buffer, sizeof(buffer), "%s“%s” %.2f", text.empty() ? "" : ", ", words[k].word.c_str(),
                  at_t ? words[k].p_t : words[k].p);
    text += buffer;
  }
  return text;
}

std::string Thousands(int64_t v) {
  std::string digits = std::to_string(v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string KnockedOutList(const lessons::LmViewModel& m) {
  std::string names;
  for (size_t i = 0; i < m.ablated.size(); ++i)
    names += (i ? (i + 1 == m.ablated.size() ? " and " : ", ") : "") + HeadName(m.ablated[i], m.heads);
  return names;
}

}  // namespace

// [SECTION] The view

void LmPanel::Draw(PanelContext& ctx) {
  LmClient& client = TheLmClient();
  const bool opened = client.has_model() && !client.model().source.empty();
  if (opened)
    DrawExplanation(ctx,
        "A language model predicts the next token: the checkpoint you opened runs on your sentence in a Web Worker, "
        "each head by the engine's own attention.",
        "read the next tokens under the last one; press Generate; knock out a head.");
  else
    DrawExplanation(ctx,
        "A language model predicts the next word. This small GPT (embeddings, 4 blocks of causal multi-head "
        "attention, each by the engine's own forward pass, then an MLP) was trained by attnlab's engine on the Brown "
        "corpus, word by word with the page's tokenizer, and runs on your sentence in a Web Worker. Under each word: "
        "its five likeliest next words. Below: every head, what knocking heads out changes, and what each layer "
        "would already predict (the logit lens).",
        "type the start of a sentence and read the next words under its last word; press Generate and raise the "
        "temperature; knock out a head and see which words change.");
  lessons::LmState& s = ctx.state.lm;
  // What is only shown (the word detailed, the head enlarged) is not sent: a click on them redraws.
  lessons::LmState computed = s;
  computed.word = lessons::LmState().word;
  computed.head = lessons::LmState().head;
  // The text itself, not the shared sentence's words: the model reads a text longer than the other
  // views take (SentenceState::kMaxTokens words), so this view never waits on their sentence.
  const std::string key = lessons::FieldsKey(computed) + "#" + ctx.state.sentence.text + "#" +
                          std::to_string(client.generation());
  client.Want(key, {ctx.state.sentence.text, computed});
  DrawModelChoice(ctx);
  DrawStatusLine(client.error());
  ctx.published.Scalar("lm.error", client.error().empty() ? 0 : 1);
  ctx.published.Scalar("lm.answers", client.answers());
  ctx.published.Scalar("lm.version", client.version());
  if (!client.has_model()) {
    if (client.busy()) DrawNote("Loading the language model (1.4 MB of weights) into a Web Worker and running it…");
    DrawControls(ctx);
    return;
  }
  Refresh();
  const lessons::LmViewModel& m = client.model();
  const bool tokens = m.tokenizer != "words";
  const char* unit = tokens ? "token" : "word";
  ctx.published.Scalar("lm.current", client.shown_key() == key ? 1 : 0);
  if (client.shown_key() != key && m.forward_ms >= 1000)  // a long text: say what the wait is
    DrawNote("Computing the model for the new settings (its last forward took %.1f s here); below, the last result.",
             m.forward_ms / 1000);
  else if (client.shown_key() != key)
    DrawNote("Computing the model for the new settings; below, the last result.");
  const int n = static_cast<int>(m.words.size());  // drawn: the last n of the `read` the model reads
  const int read = m.first + n;
  ctx.published.Scalar("lm.n", n);
  ctx.published.Scalar("lm.first", m.first);
  char size[240];
  std::snprintf(size, sizeof(size), "%d layers × %d heads, d_model %d, a context of %d %ss, a vocabulary of %s, %s parameters",
                m.layers, m.heads, m.d_model, m.seq_len, unit, Thousands(m.vocab).c_str(), Thousands(m.parameters).c_str());
  if (m.dropped > 0)
    Prose("The model (%s) reads the first %d of your %d %ss: its context ends there.", size, read, read + m.dropped, unit);
  else
    Prose("The model: %s.", size);
  if (m.first > 0)
    Prose("It reads all %d %ss in one forward; the view draws the last %d (%ss %d–%d), each with what the model made "
          "of every %s before it.",
          read, unit, n, unit, m.first + 1, read, unit);
  if (tokens) {
    std::string list = m.first > 0 ? "… " : "";
    for (int i = 0; i < n; ++i) list += (i ? " | " : "") + m.words[static_cast<size_t>(i)];
    const char* drawn = m.first > 0 ? "; the drawn ones" : "";
    if (m.tokenizer == "gpt2")
      Prose("GPT-2's tokenizer (byte-level BPE) reads your text as %d tokens, a leading space shown as “·”%s: %s",
            read + m.dropped, drawn, list.c_str());
    else
      Prose("This checkpoint has no words of its own: the view reads the %d token ids in your text (each 0–%d)%s: %s",
            read + m.dropped, m.vocab - 1, drawn, list.c_str());
  }
  int known_next = 0;
  for (float p : m.p_next) known_next += p >= 0 ? 1 : 0;
  if (known_next > 0 && m.first > 0)
    Prose("On the last %d %ss of your text its perplexity is %.1f (over their %d next %ss among its %s %ss).", n, unit,
          m.perplexity, known_next, unit, Thousands(m.vocab).c_str(), unit);
  else if (known_next > 0)
    Prose("On your sentence its perplexity is %.1f (over the %d next %ss among its %s %ss).", m.perplexity, known_next,
          unit, Thousands(m.vocab).c_str(), unit);
  else if (n > 1)
    Prose("None of your sentence's next words is among its %s words, so it has no perplexity here.", Thousands(m.vocab).c_str());
  else
    Prose("Your sentence is one %s long: there is no next %s of it to score.", unit, unit);
  ctx.published.Scalar("lm.perplexity", m.perplexity);
  if (!m.note.empty()) DrawNote("%s", m.note.c_str());
  DrawNextWords(ctx);
  DrawControls(ctx);
  DrawContinuation(ctx);
  DrawHeads(ctx);
  DrawAblation(ctx);
  DrawResidualAndLens(ctx);
  DrawInduction(ctx);
}

// [SECTION] The model: built in, or a checkpoint the reader opens

void LmPanel::DrawModelChoice(PanelContext& ctx) {
  LmClient& client = TheLmClient();
  const lessons::LmViewModel& m = client.model();
  const bool opened = client.has_model() && !m.source.empty();
  if (opened) {
    const double mb = 1024.0 * 1024.0;
    const std::string packed = m.packed_bytes > 0 ? lessons::Format(" and %.0f MB more packed for the kernel's products",
                                                                    static_cast<double>(m.packed_bytes) / mb)
                                                  : "";
    Prose("Your checkpoint %s: %s, stored as %s, %s parameters, %.0f MB in memory as float32%s; read on this machine, "
          "never uploaded.",
          m.source.c_str(), m.layout.c_str(), m.dtype.c_str(), Thousands(m.parameters).c_str(),
          static_cast<double>(m.bytes_in_memory) / mb, packed.c_str());
  }
  if (ImGui::Button("Open a model…")) client.Control("pick");
  ctx.published.Rect("lm.open", LastItemRect());
  SameLineIfFits(ButtonWidth("Export weights"));
  if (ImGui::Button("Export weights")) client.Control("save");
  ctx.published.Rect("lm.export", LastItemRect());
  if (opened) {
    SameLineIfFits(ButtonWidth("Back to the Brown model"));
    if (ImGui::Button("Back to the Brown model")) client.Control("reset");
    ctx.published.Rect("lm.reset", LastItemRect());
  }
  ctx.published.Scalar("lm.opened", opened ? 1 : 0);
  if (!client.opening().empty())
    DrawNote("Opening %s…", client.opening().c_str());
  else if (!client.open_error().empty())
    DrawStatusLine(client.open_error());
  else if (!opened)
    DrawNote("Open or drop a GPT-2 or nanoGPT .safetensors and its config.json to run this view on it; Export "
             "weights saves this model for PyTorch.");
  ctx.published.Scalar("lm.open.error", client.open_error().empty() ? 0 : 1);
}

void LmPanel::Refresh() {
  const LmClient& client = TheLmClient();
  if (refreshed_ == client.version()) return;
  refreshed_ = client.version();
  const lessons::LmViewModel& m = client.model();
  const int n = static_cast<int>(m.words.size());
  known_.assign(m.known.begin(), m.known.end());
  norms_.resize(n, static_cast<int>(m.residual_norms.size()));
  for (size_t l = 0; l < m.residual_norms.size(); ++l)
    for (int i = 0; i < n; ++i) norms_(i, static_cast<int>(l)) = m.residual_norms[l][static_cast<size_t>(i)];
  induction_loss_.resize(1, static_cast<int>(m.induction_loss.size()));
  for (size_t t = 0; t < m.induction_loss.size(); ++t) induction_loss_(0, static_cast<int>(t)) = m.induction_loss[t];
  induction_predicted_.assign(m.induction_words.begin() + (m.induction_words.empty() ? 0 : 1), m.induction_words.end());
  norm_columns_.clear();
  for (size_t l = 0; l < m.residual_norms.size(); ++l)
    norm_columns_.push_back(l == 0 ? "embedding" : "block " + std::to_string(l));
}

void LmPanel::DrawControls(PanelContext& ctx) {
  lessons::LmState& s = ctx.state.lm;
  ImGui::SeparatorText("Continue the sentence");
  const float w = std::min(220.0f, ImGui::GetContentRegionAvail().x * 0.6f);
  ImGui::SetNextItemWidth(w);
  SliderField(s.kTemperature, &s.temperature);
  SameLineIfFits(w + 150.0f);
  ImGui::SetNextItemWidth(w);
  lessons::IntField count = s.kWords;  // a checkpoint's unit is the token
  if (TheLmClient().model().tokenizer != "words") count.label = "tokens to generate";
  SliderField(count, &s.words);
  ImGui::SetNextItemWidth(110.0f);
  StepperField(s.kSeed, &s.seed);
  SameLineIfFits(ButtonWidth("Generate"));
  if (ImGui::Button(s.generate ? "Generate another" : "Generate")) {
    if (s.generate) s.seed = s.seed % s.kSeed.max + 1;
    s.generate = true;
  }
  ctx.published.Rect("lm.generate", LastItemRect());
  if (s.generate) {
    SameLineIfFits(ButtonWidth("Hide"));
    if (ImGui::Button("Hide")) s.generate = false;
  }
}

// [SECTION] Next words

void LmPanel::DrawNextWords(PanelContext& ctx) {
  lessons::LmState& s = ctx.state.lm;
  const lessons::LmViewModel& m = TheLmClient().model();
  const int n = static_cast<int>(m.words.size());
  const bool knocked = !m.ablated.empty();
  const bool tokens = m.tokenizer != "words";
  const char* unit = tokens ? "token" : "word";
  ImGui::SeparatorText(tokens ? (knocked ? "The next token after each token, with heads knocked out" : "The next token after each token")
                              : (knocked ? "The next word after each word, with heads knocked out" : "The next word after each word"));
  const int shown = s.word < 0 ? n - 1 : std::min(s.word, n - 1);
  const Theme& theme = CurrentTheme();
  const float tile = 124.0f;
  const float line = ImGui::GetTextLineHeightWithSpacing();
  for (int i = 0; i < n; ++i) {
    if (i) SameLineIfFits(tile);
    ImGui::PushID(i);
    ImGui::BeginGroup();
    const std::string word = m.words[static_cast<size_t>(i)] + (m.known[static_cast<size_t>(i)] ? "" : "?");
    if (!m.known[static_cast<size_t>(i)]) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(theme.unknown_word));
    if (ImGui::Selectable(word.c_str(), i == shown, 0, ImVec2(tile - 8.0f, 0))) s.word = i == n - 1 ? -1 : i;
    if (!m.known[static_cast<size_t>(i)]) ImGui::PopStyleColor();
    const auto& top = m.top[static_cast<size_t>(i)];
    for (size_t k = 0; k < top.size(); ++k) {
      const ImVec2 at = ImGui::GetCursorScreenPos();
      ImGui::GetWindowDrawList()->AddRectFilled(at, ImVec2(at.x + (tile - 8.0f) * top[k].p, at.y + line - 2.0f),
                                                theme.highlight_faint);
      ImGui::Text("%s %.2f", top[k].word.c_str(), top[k].p);
      const std::string name = "lm.top." + std::to_string(i) + "." + std::to_string(k);
      ctx.published.Label(name, top[k].word);
      ctx.published.Scalar(name, top[k].p);
      ctx.published.Scalar(name + ".t", top[k].p_t);
    }
    ImGui::EndGroup();
    ctx.published.Rect("lm.word." + std::to_string(i), LastItemRect());
    ctx.published.Label("lm.word." + std::to_string(i), m.words[static_cast<size_t>(i)]);
    if (i + 1 < n) ctx.published.Scalar("lm.pnext." + std::to_string(i), m.p_next[static_cast<size_t>(i)]);
    ImGui::PopID();
  }
  ctx.published.Scalar("lm.word", shown);
  const auto& top = m.top[static_cast<size_t>(shown)];
  const std::string& after = m.words[static_cast<size_t>(shown)];
  Prose("After “%s” (%s %d) the model's likeliest next %ss%s: %s.", after.c_str(), unit, shown + 1, unit,
        knocked ? " with those heads knocked out" : "", ListWords(top, false, 5).c_str());
  if (shown + 1 < n) {
    const std::string& next = m.words[static_cast<size_t>(shown + 1)];
    const float p = m.p_next[static_cast<size_t>(shown)];
    if (p >= 0)
      Prose("Your sentence goes on with “%s”: the model gave it %.3f%s.", next.c_str(), p,
            knocked ? " (with every head in place)" : "");
    else
      Prose("Your sentence goes on with “%s”, which is not among its words (it would be <unk>).", next.c_str());
  }
  const float t = s.temperature;
  if (t > 0)
    Prose("A continuation samples from softmax(logits / %.2f) over every %s: here %s%s.", t,
          tokens ? "token" : "word but <unk>", ListWords(top, true, 5).c_str(),
          t < 1 ? " (sharper than at T = 1)" : t > 1 ? " (flatter than at T = 1)" : "");
  else if (tokens)
    Prose("At temperature 0 a continuation is greedy: it always takes the likeliest token.");
  else
    Prose("At temperature 0 a continuation is greedy: it always takes the likeliest word that is not <unk>.");
  ctx.summary = "next word after '" + after + "': " + ListWords(top, false, 3);
}

// [SECTION] The continuation, through the KV cache

void LmPanel::DrawContinuation(PanelContext& ctx) {
  const lessons::LmState& s = ctx.state.lm;
  const lessons::LmViewModel& m = TheLmClient().model();
  const int n = static_cast<int>(m.words.size()), read = m.first + n;
  const bool tokens = m.tokenizer != "words";
  const char* unit = tokens ? "token" : "word";
  // GPT-2's tokens carry their own spaces ("·" on screen): joined as they are, words with spaces.
  const char* gap = m.tokenizer == "gpt2" ? "" : " ";
  if (s.generate && !m.continuation.empty()) {
    std::string prompt, added;
    // The prompt's drawn words (a long text's first ones are not on the wire).
    for (int i = std::max(0, n - m.prompt_words); i < n; ++i) prompt += (prompt.empty() ? "" : gap) + m.words[static_cast<size_t>(i)];
    for (size_t k = 0; k < m.continuation.size(); ++k) added += (k ? gap : "") + m.continuation[k].word;
    if (m.prompt_words < read)
      Prose("From its last %d %ss (a continuation of %d %ss needs room in its %d-%s context): … %s → %s",
            m.prompt_words, unit, static_cast<int>(m.continuation.size()), unit, m.seq_len, unit, prompt.c_str(),
            added.c_str());
    else
      Prose("%s%s → %s", m.first > 0 ? "… " : "", prompt.c_str(), added.c_str());
    Prose("%s at temperature %.2f, seed %d (the link gives the same words); each word is one row of attention over "
          "the cached keys and values.",
          s.temperature > 0 ? "Sampled" : "Greedy", s.temperature, s.seed);
    if (ImGui::BeginTable("lm.continuation", 3, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) {
      ImGui::TableSetupColumn(unit);
      ImGui::TableSetupColumn("p (T = 1)");
      ImGui::TableSetupColumn("KV cache after it");
      ImGui::TableHeadersRow();
      for (size_t k = 0; k < m.continuation.size(); ++k) {
        const lessons::LmContinuationWord& c = m.continuation[k];
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(c.word.c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%.3f", c.p);
        ImGui::TableNextColumn();
        ImGui::Text("%d positions, %.1f KB", c.cache_length, static_cast<double>(c.cache_bytes) / 1024.0);
        const std::string name = "lm.gen." + std::to_string(k);
        ctx.published.Label(name, c.word);
        ctx.published.Scalar(name + ".p", c.p);
        ctx.published.Scalar(name + ".cache", static_cast<double>(c.cache_bytes));
      }
      ImGui::EndTable();
    }
  }
  ctx.published.Scalar("lm.generated", s.generate ? static_cast<double>(m.continuation.size()) : 0.0);
  if (m.forward_ms >= 0 && m.cached_word_ms > 0 && m.recompute_word_ms < 0) {  // a long forward: not recomputed
    const int timed = std::min(read, m.seq_len - 1);
    DrawNote("Timed in this browser (one run): a forward of %d %ss %.0f ms; one more %s through the KV cache "
             "%.2f ms, where recomputing all %d would take at least the forward's time: the cache makes it %.0f× faster "
             "or more.",
             timed, unit, m.forward_ms, unit, m.cached_word_ms, timed + 1, m.forward_ms / m.cached_word_ms);
  } else if (m.forward_ms >= 0 && m.cached_word_ms > 0) {
    const double ratio = m.recompute_word_ms / m.cached_word_ms;
    char saving[96];
    if (ratio >= 1.05)
      std::snprintf(saving, sizeof(saving), ": the cache makes a %s %.1f× faster", unit, ratio);
    else
      std::snprintf(saving, sizeof(saving), ": at this length the cache saves nothing measurable");
    const int timed = std::min(read, m.seq_len - 1);
    char runs[32] = "one run";
    if (m.timed_runs > 1) std::snprintf(runs, sizeof(runs), "best of %d", m.timed_runs);
    DrawNote("Timed in this browser (%s): a forward of %d %ss %.2f ms; one more %s through the KV cache "
             "%.2f ms, against %.2f ms recomputing all %d %ss%s.",
             runs, timed, unit, m.forward_ms, unit, m.cached_word_ms, m.recompute_word_ms, timed + 1, unit, saving);
  }
}

// [SECTION] Heads

void LmPanel::DrawHeads(PanelContext& ctx) {
  lessons::LmState& s = ctx.state.lm;
  const LmClient& client = TheLmClient();
  const lessons::LmViewModel& m = client.model();
  const int total = m.layers * m.heads;
  ImGui::SeparatorText("Every head on your sentence (layer.head)");
  std::vector<GridTile> tiles;
  for (int i = 0; i < total; ++i) {
    const bool out = std::find(m.ablated.begin(), m.ablated.end(), i) != m.ablated.end();
    const attn::Matrix& w = m.weights[static_cast<size_t>(i)];
    tiles.push_back({"lm.W" + std::to_string(i), HeadName(i, m.heads) + (out ? " (out)" : ""), &w, nullptr, &m.words,
                     client.version(), WeightsStyle(w), HeadColor(i % m.heads)});
  }
  const int clicked = DrawHeatmapGrid(tiles, s.head, 84.0f, ctx.published);
  if (clicked >= 0) {
    s.head = clicked;
    RequestScrollToSection("lm.head");
  }
  const int n = static_cast<int>(m.words.size());
  const int word = s.word < 0 ? n - 1 : std::min(s.word, n - 1);
  // Where each head sends the word detailed above: the key of its largest weight (the earlier on ties).
  std::string where;
  char item[96];
  for (int i = 0; i < total; ++i) {
    const attn::Matrix& w = m.weights[static_cast<size_t>(i)];
    Eigen::Index key = 0;
    w.row(word).maxCoeff(&key);
    std::snprintf(item, sizeof(item), "%s%s → “%s” %.2f", i ? "; " : "", HeadName(i, m.heads).c_str(),
                  m.words[static_cast<size_t>(key)].c_str(), w(word, key));
    where += item;
  }
  Prose("Where each head sends “%s” (its largest weight): %s.", m.words[static_cast<size_t>(word)].c_str(), where.c_str());
  if (m.head_texts.empty()) {
    if (m.source.empty())
      DrawNote("What each head does on held-out text is measured in lm-brown-heads.txt, which has not loaded.");
  } else {
    Prose("What each head does on held-out Brown text (%s predictions, where the model's perplexity is %.1f):",
          Thousands(m.held_out_tokens).c_str(), m.held_out_perplexity);
    for (int i = 0; i < total; ++i) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(HeadColor(i % m.heads)));
      ImGui::Bullet();
      ImGui::PopStyleColor();
      ImGui::SameLine();
      DrawNote("%s", m.head_texts[static_cast<size_t>(i)].c_str());
    }
  }
  if (s.head < 0 || s.head >= total) {
    DrawNote("Click a head to enlarge it and to knock it out.");
    return;
  }
  MarkSection("lm.head");
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(HeadColor(s.head % m.heads)));
  ImGui::SeparatorText(("Head " + HeadName(s.head, m.heads) + ", enlarged").c_str());
  ImGui::PopStyleColor();
  const attn::Matrix& w = m.weights[static_cast<size_t>(s.head)];
  MatrixViewOptions o = TokenGridOptions("w", WeightsStyle(w), MatrixLabels{&m.words, &known_});
  o.highlight_row = word;
  o.on_click = [&s, n](int i, int) { s.word = i == n - 1 ? -1 : i; };
  DrawMatrix("lm.big", w, client.version(), o, ctx.published);
  bool out = lessons::LmIsKnockedOut(s, s.head);
  if (ImGui::Checkbox(("knock head " + HeadName(s.head, m.heads) + " out").c_str(), &out))
    lessons::LmSetKnockedOut(&s, s.head, out);
}

// [SECTION] Knocking heads out

void LmPanel::DrawAblation(PanelContext& ctx) {
  lessons::LmState& s = ctx.state.lm;
  const lessons::LmViewModel& m = TheLmClient().model();
  ImGui::SeparatorText("Knock heads out");
  // A row a layer. Where the row would be wider than the view (GPT-2 small's 12 heads on a phone) it
  // scrolls sideways, in a box of exactly its rows and the scrollbar; otherwise it is laid out as is.
  const ImGuiStyle& style = ImGui::GetStyle();
  const float cell = ImGui::GetFrameHeight() + style.ItemInnerSpacing.x + ImGui::CalcTextSize("12.12").x + style.CellPadding.x * 2;
  const float avail = ImGui::GetContentRegionAvail().x;
  const bool scroll = cell * static_cast<float>(m.heads + 1) > avail;
  const ImVec2 box = scroll ? ImVec2(avail, (ImGui::GetFrameHeight() + style.CellPadding.y * 2.0f) * static_cast<float>(m.layers) +
                                                style.ScrollbarSize + 2.0f)
                            : ImVec2(0, 0);
  if (ImGui::BeginTable("lm.knock", m.heads + 1, ImGuiTableFlags_SizingFixedFit | (scroll ? ImGuiTableFlags_ScrollX : 0), box)) {
    for (int l = 0; l < m.layers; ++l) {
      ImGui::TableNextColumn();
      ImGui::Text("layer %d", l + 1);
      for (int h = 0; h < m.heads; ++h) {
        const int i = l * m.heads + h;
        ImGui::TableNextColumn();
        bool out = lessons::LmIsKnockedOut(s, i);
        if (ImGui::Checkbox(HeadName(i, m.heads).c_str(), &out)) lessons::LmSetKnockedOut(&s, i, out);
      }
    }
    ImGui::EndTable();
  }
  ChoiceCombo("a knocked-out head's output", lessons::kLmAblationNames, 2, &s.ablation);
  if (m.ablated.empty()) {
    DrawNote("Tick a head: its output (before Wᵒ) is replaced, and the words above change.");
    return;
  }
  // The position where the knocked-out heads changed the prediction most.
  const int n = static_cast<int>(m.words.size());
  int most = 0;
  double mean_kl = 0;
  for (int i = 0; i < n; ++i) {
    mean_kl += m.kl[static_cast<size_t>(i)] / n;
    if (m.kl[static_cast<size_t>(i)] > m.kl[static_cast<size_t>(most)]) most = i;
  }
  const std::string names = KnockedOutList(m);
  const char* unit = m.tokenizer != "words" ? "token" : "word";
  Prose("With head%s %s %s, the next-%s distribution moves by %.3f nats on average (KL divergence from the "
        "full model's), most after “%s”: %.3f nats, where the full model's top %s “%s” changes log-probability "
        "by %+.2f.",
        m.ablated.size() > 1 ? "s" : "", names.c_str(),
        m.ablation == 1 ? (m.ablated.size() > 1 ? "replaced by their held-out means" : "replaced by its held-out mean") : "zeroed",
        unit, mean_kl, m.words[static_cast<size_t>(most)].c_str(), m.kl[static_cast<size_t>(most)], unit,
        m.base_top[static_cast<size_t>(most)][0].word.c_str(), m.delta_logp[static_cast<size_t>(most)]);
  ctx.published.Scalar("lm.kl.mean", mean_kl);
  ctx.published.Scalar("lm.kl.most", most);
  if (ImGui::BeginTable("lm.effects", 4, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) {
    ImGui::TableSetupColumn("after");
    ImGui::TableSetupColumn("full model → knocked out");
    ImGui::TableSetupColumn("Δ log p");
    ImGui::TableSetupColumn("KL");
    ImGui::TableHeadersRow();
    for (int i = 0; i < n; ++i) {
      const auto& base = m.base_top[static_cast<size_t>(i)][0];
      const auto& now = m.top[static_cast<size_t>(i)][0];
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(m.words[static_cast<size_t>(i)].c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%s %.2f → %s %.2f", base.word.c_str(), base.p, now.word.c_str(), now.p);
      ImGui::TableNextColumn();
      ImGui::Text("%+.2f", m.delta_logp[static_cast<size_t>(i)]);
      ImGui::TableNextColumn();
      ImGui::Text("%.3f", m.kl[static_cast<size_t>(i)]);
      ctx.published.Scalar("lm.kl." + std::to_string(i), m.kl[static_cast<size_t>(i)]);
      ctx.published.Scalar("lm.dlogp." + std::to_string(i), m.delta_logp[static_cast<size_t>(i)]);
    }
    ImGui::EndTable();
  }
}

// [SECTION] Induction

void LmPanel::DrawInduction(PanelContext& ctx) {
  const LmClient& client = TheLmClient();
  const lessons::LmViewModel& m = client.model();
  if (m.induction_words.empty()) return;
  const int r = static_cast<int>(m.induction_words.size()) / 2;
  ImGui::SeparatorText(m.tokenizer != "words" ? "Induction: random tokens, then the same tokens again"
                                              : "Induction: random words, then the same words again");
  std::string first;
  for (int i = 0; i < r; ++i) first += (i ? " " : "") + m.induction_words[static_cast<size_t>(i)];
  Prose("Seed %d: “%s …”, twice. An induction head would copy the second time, and the loss would drop.",
        ctx.state.lm.seed, first.c_str());
  gfx::HeatmapStyle style;
  style.vmin = 0;
  style.vmax = std::max(1e-6f, induction_loss_.size() ? induction_loss_.maxCoeff() : 1.0f);
  MatrixViewOptions o;
  o.symbol = "−log p";
  o.style = style;
  o.cols = MatrixLabels{&induction_predicted_, nullptr};
  o.square = false;
  o.max_width = 640.0f;
  DrawMatrix("lm.induction", induction_loss_, client.version(), o, ctx.published);
  Prose("%s", m.induction_text.c_str());
  ctx.published.Scalar("lm.induction.first", m.induction_first);
  ctx.published.Scalar("lm.induction.second", m.induction_second);
}

// [SECTION] The residual stream and the logit lens

void LmPanel::DrawResidualAndLens(PanelContext& ctx) {
  const LmClient& client = TheLmClient();
  const lessons::LmViewModel& m = client.model();
  const int n = static_cast<int>(m.words.size());
  ImGui::SeparatorText("The residual stream's size ‖x‖ after each block");
  gfx::HeatmapStyle style;
  style.vmin = 0;
  style.vmax = std::max(1e-6f, norms_.size() ? norms_.maxCoeff() : 1.0f);
  MatrixViewOptions o = TokenRowsOptions("‖x‖", style, MatrixLabels{&m.words, &known_});
  o.cols = MatrixLabels{&norm_columns_, nullptr};
  o.square = false;
  o.max_width = 420.0f;
  o.max_height = ImGui::GetTextLineHeightWithSpacing() * static_cast<float>(n);
  DrawMatrix("lm.norms", norms_, client.version(), o, ctx.published);
  ImGui::SeparatorText("Logit lens: what each layer would already predict");
  Prose("Each column reads the stream after a block through the final LayerNorm and the output.");
  // Scrolls sideways on a phone. A scrolling table needs its height: exactly its rows (a text line
  // and the cell padding each, the header too) and room for the scrollbar (a frame's height a row
  // left an empty band under it).
  const float avail = ImGui::GetContentRegionAvail().x;
  const float height = (ImGui::GetTextLineHeight() + ImGui::GetStyle().CellPadding.y * 2.0f) * static_cast<float>(n + 1) +
                       ImGui::GetStyle().ScrollbarSize + 2.0f;
  if (ImGui::BeginTable("lm.lens", static_cast<int>(m.lens.size()) + 1,
                        ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollX,
                        ImVec2(avail, height))) {
    ImGui::TableSetupColumn("after");
    for (size_t l = 0; l < m.lens.size(); ++l) ImGui::TableSetupColumn(norm_columns_[l].c_str());
    ImGui::TableHeadersRow();
    for (int i = 0; i < n; ++i) {
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(m.words[static_cast<size_t>(i)].c_str());
      for (size_t l = 0; l < m.lens.size(); ++l) {
        const lessons::LmNextWord& w = m.lens[l][static_cast<size_t>(i)];
        ImGui::TableNextColumn();
        ImGui::Text("%s %.2f", w.word.c_str(), w.p);
        if (i == n - 1 && l == 0) {  // the last row's bottom: the tests check no band is left under it
          ctx.published.Rect("lm.lens.last", LastItemRect());
        }
        const std::string name = "lm.lens." + std::to_string(l) + "." + std::to_string(i);
        ctx.published.Label(name, w.word);
        ctx.published.Scalar(name, w.p);
      }
    }
    ImGui::EndTable();
    ctx.published.Rect("lm.lens", LastItemRect());
  }
}

}  // namespace attnlab
