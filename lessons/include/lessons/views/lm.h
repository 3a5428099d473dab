// View 12: the language model (attn::train, web/assets/lm-brown.bin) on the shared sentence. The
// next word after every word, every layer × head's weights, the residual stream's norms, the logit
// lens, heads knocked out and what that changes, and a continuation through the KV cache.
//
// The page runs this in the language model's own module (web/bindings/lm_js.cpp, in a Web Worker):
// the page's module holds only LmViewModel and its wire format (lessons/lm_wire.h), so views that
// do not use the model do not pay for its code. Shapes: n words read (n ≤ seq_len), L layers,
// h heads, V words in the vocabulary.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lessons/common.h"
#include "lessons/view_state.h"

namespace attn::train {
struct LmModel;
}

namespace lessons {

struct LmHeadTable;

// A word the model may say next, with its probability at temperature 1 and at the state's
// temperature (what the continuation samples from: <unk> excluded, so 0 for it; at T = 0, greedy, 1
// for the top word that is not <unk>).
struct LmNextWord {
  std::string word;
  float p = 0;
  float p_t = 0;
};

// A word of the continuation.
struct LmContinuationWord {
  std::string word;
  float p = 0;            // the model's probability of it (temperature 1) where it was chosen
  int cache_length = 0;   // positions in the KV cache after it was chosen
  int64_t cache_bytes = 0;  // the cache's floats then, in bytes: 4·2·L·h·positions·d_k
};

struct LmViewModel {
  // The model.
  int layers = 0, heads = 0, d_model = 0, seq_len = 0, vocab = 0;
  int64_t parameters = 0;
  // Where it came from (filled by the module that holds it; the view says it).
  std::string source;         // "" the built-in Brown model; else the file the reader opened
  std::string tokenizer;      // "words": the page's words, lower-cased; "gpt2": GPT-2's byte-level BPE;
                              // "ids": a checkpoint without words reads the token ids typed ("5 17 96")
  std::string layout, dtype;  // a checkpoint's naming and stored dtype (lm_checkpoint.h); "" built in
  int64_t bytes_in_memory = 0;  // its floats in memory (4 × parameters)
  int64_t packed_bytes = 0;     // its weights packed once more for the kernel's products (PrepareLm); 0 unpacked
  // The sentence as the model reads it: N words read, of which the view draws the last n (N ≤ seq_len,
  // n = N − first ≤ kLmViewMaxTokens). Every per-word list below is about those n.
  std::vector<std::string> words;     // (n) lower-cased page tokens; "<unk>" is shown as the word typed
  std::vector<uint8_t> known;         // (n) 1 when the word is in the vocabulary
  int first = 0;                      // words read before the drawn ones (a text longer than kLmViewMaxTokens)
  int dropped = 0;                    // words past the context (seq_len), not read
  std::vector<int> ids;               // (N) the ids read; for the module's own timing, not on the wire
  // The next word after each position, with the heads of `ablated` knocked out when any.
  std::vector<std::vector<LmNextWord>> top;  // n × 5, most probable first
  std::vector<float> p_next;          // (n − 1) the probability of the sentence's own next word (−1: it is <unk>)
  float perplexity = 0;               // exp(mean −log p_next) over the known next words (0: none)
  // L·h, layer-major: (n, n) causal attention weights among the drawn words; a row sums to 1 less
  // its weight on the `first` earlier words.
  std::vector<Matrix> weights;
  std::vector<std::vector<float>> residual_norms;  // (L + 1) × n: ‖x‖₂ after the embedding, then each block
  std::vector<std::vector<LmNextWord>> lens;       // (L + 1) × n: the top word of LNf(x_ℓ) wteᵀ + b (p_t = p)
  // Knocking heads out (state.ablated): what the unablated model said, and the change.
  std::vector<int> ablated;                   // layer · h + head, ascending
  int ablation = 0;                           // LmState::ablation: 0 zero, 1 mean
  std::vector<std::vector<LmNextWord>> base_top;  // n × 5 without ablation (empty when none is knocked out)
  std::vector<float> kl;                      // (n) KL(unablated ‖ ablated) in nats
  std::vector<float> delta_logp;              // (n) Δ log p of the unablated top word (ablated − unablated)
  // The continuation (state.generate): from the last words that leave room for it.
  int prompt_words = 0;                       // words of the sentence it continues (≤ seq_len − words)
  std::vector<LmContinuationWord> continuation;
  // What each head does on held-out Brown text (web/assets/lm-brown-heads.txt; empty when not loaded).
  std::vector<std::string> head_texts;        // (L·h) one measured sentence per head
  std::vector<float> zero_perplexity;         // (L·h) held-out perplexity with the head zeroed
  std::vector<float> mean_perplexity;         // (L·h) … with its held-out mean output in its place
  float held_out_perplexity = 0;              // the model's, on the same text
  int64_t held_out_tokens = 0;
  // Induction, shown: R random words (from state.seed), then the same R again, in one forward pass.
  std::vector<std::string> induction_words;   // (2R)
  std::vector<float> induction_loss;          // (2R − 1) −log p of the next word at each position, nats
  float induction_first = 0, induction_second = 0;  // mean loss in the first and the second half
  std::vector<float> induction_scores;        // (L·h) prefix-matching score of each head on it
  std::string induction_text;                 // what those numbers say
  // Timings of this model in the place it ran (filled by the caller that timed them; −1: not timed).
  double forward_ms = -1;       // one forward of the n words
  double cached_word_ms = -1;   // one more word through the KV cache
  double recompute_word_ms = -1;  // the same word by recomputing all n + 1 words
  int timed_runs = 0;             // each the best of this many runs
  std::string note;             // "" or what the model could not do with this sentence (said in the view)
};

// The words of `tokens` the model reads: the first seq_len (N) lower-cased tokens; the view draws the
// last min(N, kLmViewMaxTokens).
// kEmptyInput when there is none; ablated heads and the selected word are clamped into range.
// `heads` (the held-out table, lessons/lm_heads.h; null before it loads) gives each head's measured
// line and the means a head is replaced by in mean ablation (without it a mean ablation zeroes, and
// the note says so).
Status ComputeLm(const attn::train::LmModel& model, const LmHeadTable* heads, const std::vector<std::string>& tokens,
                 const LmState& state, LmViewModel* out);

// The same over token ids a tokenizer outside the model produced (GPT-2's BPE, in the model's
// worker): the first seq_len of `ids`, the last kLmViewMaxTokens of them drawn, each as model.vocabulary[id]
// (the tokenizer's display form). A vocabulary whose last word is not <unk> (a checkpoint's) has
// no unknown class: every id is a token, and the continuation may say any of them.
Status ComputeLmOnIds(const attn::train::LmModel& model, const LmHeadTable* heads, const std::vector<int>& ids,
                      const LmState& state, LmViewModel* out);

// The tokens the view draws of a long text (the model reads up to its context, GPT-2's 1024): every
// head's (n, n) map travels to the page, L·h·n² floats (9.4 MB for GPT-2 small's 144 heads at 128),
// and every drawn position's logit lens reads out (L + 1)·V scores.
inline constexpr int kLmViewMaxTokens = 128;

// Words of each half of the induction demo.
inline constexpr int kLmInductionWords = 16;

}  // namespace lessons
