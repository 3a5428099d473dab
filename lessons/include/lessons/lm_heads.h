// What each of the language model's heads does, measured: on held-out Brown text (the share of its
// weight on the previous word, the first word, itself, the word after an earlier copy of the
// current one, the part-of-speech pair it favours, its mean output, and what knocking it out costs
// in held-out loss), and live on a repeated random sequence (the induction demo). The held-out
// table is measured at build time (lessons/tools/lm_heads.cpp → web/assets/lm-brown-heads.txt) and
// read back by ReadLmHeads; the induction demo is one forward pass, cheap enough for the page's
// worker. Shapes: L layers, h heads, d_k = d_model / h, W windows of seq_len (64) words.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "attn/train/lm_inference.h"
#include "attn/train/corpus.h"
#include "lessons/common.h"

namespace lessons {

// One layer × head over the held-out windows. Shares are mean attention weights over queries t ≥ 1
// (position 0 has only itself to look at).
struct LmHeadStats {
  int layer = 0, head = 0;  // 1-based, as the page prints them ("head 2.3")
  float previous = 0;       // mean weight on key t − 1
  float first = 0;          // on key 0, the window's first word
  float itself = 0;         // on key t
  float induction = -1;     // on the keys j ≤ t with x_{j−1} = x_t (x_t not <unk>), over the queries that have one; −1: none did
  std::string query_tag, key_tag;  // the tag pair with the largest lift (query tag → key tag), e.g. "NOUN" → "DET"
  float tag_share = 0;      // the mean weight queries of query_tag put on the other words (keys j < t) of key_tag, in [0, 1]
  float tag_lift = 0;       // tag_share over what uniform causal attention would put there (1: chance)
  std::vector<float> mean_output;  // (d_k) the head's mean output (its slice of the concatenation) over every position
  double zero_delta_nll = 0;  // held-out mean NLL (nats) with the head's output set to zero, minus the model's
  double mean_delta_nll = 0;  // … with it set to mean_output (attn::train::LmAblationMode::kMean)
  std::string text;           // "head 2.3 puts 0.61 of its weight on the previous word; knocking it out raises …"
};

struct LmHeadTable {
  int layers = 0, heads = 0, d_k = 0;
  int windows = 0;      // held-out windows of seq_len words (the split's first, consecutive)
  int64_t tokens = 0;   // predictions scored: windows · seq_len
  double nll = 0;       // the model's held-out mean NLL (nats) over them; perplexity exp(nll)
  bool ablated = false; // the Δ NLLs were measured (always, in the asset)
  std::vector<LmHeadStats> stats;  // (L·h) layer-major: stats[l·h + k] is head l+1.k+1
};

struct LmHeadsConfig {
  int windows = 64;     // 1 – the held-out windows available
  bool ablate = true;   // false: the attention statistics and mean outputs only (no Δ NLL; one forward a window)
};

// Measures every head over the held-out split's first `config.windows` windows (LmWindowStarts's,
// full ones only): words mapped through LmWordIndex, tags from the corpus. Two passes: the model as
// it is (shares, tags, mean outputs, the base NLL), then with each head ablated, zero and mean
// (2·L·h forwards a window). Fills every head's text. kOutOfRange when the split has fewer full
// windows than asked.
Status MeasureLmHeads(const attn::train::LmModel& model, const attn::train::Corpus& corpus, const LmHeadsConfig& config,
                      LmHeadTable* table);

// One measured sentence: the head's largest share of previous / first / itself / induction (or
// "spreads its weight" below 0.3), its tag pair, and what knocking it out does to held-out perplexity:
// "head 2.2 puts 0.50 of its weight on the previous word; from DET words it looks most at ADP words
// (0.41 of their weight, 3.4× chance); knocking it out raises held-out perplexity 72.7 → 78.0 (77.8
// with its mean output in its place)".
std::string LmHeadText(const LmHeadTable& table, const LmHeadStats& head);

// The table's mean outputs as mean ablation takes them: L × h × (d_k).
std::vector<std::vector<std::vector<float>>> LmHeadMeans(const LmHeadTable& table);

// The asset's text (web/assets/lm-brown-heads.txt), one line per record, fields separated by one space,
// numbers in fixed notation (the same table gives the same bytes):
//   attnlab-lm-heads 1
//   shape <L> <h> <d_k>
//   held-out <windows> <tokens> <nll>
//   L·h times, layer-major:
//   head <layer> <head> <previous> <first> <itself> <induction> <query_tag> <key_tag> <tag_share> <tag_lift> <zero_delta_nll> <mean_delta_nll>
//   mean <layer> <head> <d_k floats>
Status WriteLmHeads(const LmHeadTable& table, std::string* text);

// Parses the asset; trusts nothing: kParseError naming the line and the field ("lm heads: line 5:
// previous: expected a number in [0, 1], got 1.7") on any malformed, missing, extra, out-of-range
// or non-finite value. Fills the texts (LmHeadText).
Status ReadLmHeads(std::string_view text, LmHeadTable* table);

// The induction demo: R random words (distinct, never <unk>; from `seed`), then the same R again,
// through the model in one forward pass.
struct LmInduction {
  std::vector<int> ids;            // (2R)
  std::vector<float> loss;         // (2R − 1) −log p(ids[t + 1]) at position t, nats
  float first_half = 0;            // mean loss predicting the words 1 … R − 1 (nothing to copy yet)
  float second_half = 0;           // predicting R + 1 … 2R − 1 (each is in the first half, after the same word)
  std::vector<float> scores;       // (L·h) layer-major: mean weight from t ≥ R on key t − R + 1 (prefix matching)
  std::vector<int> ranked;         // (L·h) indices into scores, highest first (lower index on ties)
  std::string text;                // what the numbers say, measured
};

// words_per_half: 2 – seq_len / 2. Deterministic: the same model, R and seed give the same numbers.
Status ComputeLmInduction(const attn::train::LmModel& model, int words_per_half, uint32_t seed, LmInduction* out);

}  // namespace lessons
