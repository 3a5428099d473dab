// The language model on one sentence, for the page and the CLI: next-word probabilities at every
// position, every layer × head's attention weights, the residual stream's norm after each block,
// the logit lens, head ablation, and generation (greedy or sampled) through a KV cache of past keys
// and values. Float, single-threaded, deterministic: the same model and arguments give the same
// numbers. Shapes: n words, V vocabulary, d = d_model, L layers, h heads, p cached positions.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "attn/status.h"
#include "attn/train/lm_model.h"

namespace attn::train {

// A model's weight matrices packed once for config.kernel's GEMM (PrepareLm): every block's [Wq | Wk |
// Wv], Wo and the MLP's two, and the unembedding (wte, read transposed) — for GPT-2 small 124 M
// parameters, which every forward would otherwise pack again (a pass over 500 MB).
struct LmPackedWeights {
  struct Block {
    PackedMatrix qkv;  // [Wq | Wk | Wv]: (d, 3d)
    Matrix qkv_bias;   // [bq | bk | bv]: (1, 3d)
    std::array<const float*, 6> qkv_sources{};  // wq, wk, wv, bq, bk, bv's data: what qkv was packed from
    PackedMatrix wo, fc, proj;  // (d, d), (d, 4d), (4d, d)
  };
  KernelId kernel = KernelId::kEigen;
  std::vector<Block> blocks;  // L
  PackedMatrix wte;           // wteᵀ: (d, V)
  int64_t bytes() const;
};

// A trained model with its words (what the asset holds; lm_asset.h).
struct LmModel {
  LmConfig config;
  ModelParameters params;               // LmShapes(config)
  std::vector<std::string> vocabulary;  // (V) lower-case words, most frequent first; the last is the unknown word
  // PrepareLm's packed weights, or null: every product packs its weights itself. The same numbers
  // either way. A packed matrix is used only for the matrix it was packed from (its data pointer):
  // a copy of the model packs again; a model whose weights change in place must be prepared again.
  std::shared_ptr<const LmPackedWeights> packed;
};

// Packs the model's weight matrices for config.kernel when it is a SIMD kernel (nothing for Eigen:
// its products read the weights in place). Costs their size again in memory. Fails as
// PackMatrix does (kResourceExhausted when memory runs out), leaving the model as it was.
Status PrepareLm(LmModel* model);

// "<unk>": the name of the unknown word's class (the vocabulary's last entry).
extern const char* const kLmUnknownWord;

// Word ids of lower-cased page tokens (attn::NormalizeToken(Tokenize(text))); a word outside the
// vocabulary is the unknown word, vocab − 1.
class LmWordIndex {
 public:
  explicit LmWordIndex(const std::vector<std::string>& vocabulary);
  int Id(const std::string& word) const;

 private:
  std::unordered_map<std::string, int> ids_;
  int unknown_ = 0;
};

// How a knocked-out head's output is replaced.
enum class LmAblationMode {
  kZero,  // set to zero
  kMean,  // set to the head's mean output on held-out text (means[layer][head]), whatever the input
};

// Heads to knock out: their output (the head's slice of the concatenation, before W_o) set to zero,
// or to a given mean vector (mean ablation: what the rest of the model sees from the head when it
// carries no information about this input, without the shift zeroing adds).
struct LmAblation {
  std::vector<std::pair<int, int>> heads;      // (layer, head), 0-based
  LmAblationMode mode = LmAblationMode::kZero;
  std::vector<std::vector<std::vector<float>>> means;  // kMean: L × h × (d_k), finite; unused with kZero
};

// The keys and values of the positions a sequence has seen, per layer and head, already projected
// (and rotated, for RoPE): each new word then costs one row of attention, not a recomputation.
struct LmCache {
  std::vector<std::vector<Matrix>> key, value;  // L × h × (p, d_k)
  int length() const { return key.empty() || key[0].empty() ? 0 : static_cast<int>(key[0][0].rows()); }
  int64_t bytes() const;                          // 4·2·L·h·p·d_k: the floats held
};

// What the views draw about one pass over n new words (positions p … p + n − 1), or about its last
// t = n − f of them (LmAdvance's `traced_from` f; t = n by default), so that a long text's view holds
// t rows, not L·h·n² weights and (L + 1)·n·V lens logits (GPT-2 small at 1024: 0.6 GB and 2.7 GB).
struct LmTrace {
  Matrix logits;                             // (t, V) the next word's scores at each traced position
  // L × h attention weights: (n, p + n) when every position is traced (rows sum to 1); else (t, t),
  // among the traced positions (a row's weight on the earlier positions is 1 − its sum).
  std::vector<std::vector<Matrix>> weights;
  std::vector<std::vector<float>> residual_norms;  // (L + 1) × t: ‖x‖₂ after the embedding, then after each block
  std::vector<Matrix> lens_logits;           // logit lens (when asked): (L + 1) × (t, V), LNf(x_ℓ) wteᵀ + b; the last is logits
};

// Runs the model over `ids` (each in [0, vocab)) after what `cache` holds, appending their keys and
// values to it: with an empty cache, the whole sentence; then one word at a time to generate. Fills
// `trace` (when given; lens_logits only with `logit_lens`) for ids[traced_from …] (0 ≤ traced_from <
// n: every position by default; the readout runs on those rows only, so n − 1 reads one). Fails when p + n > seq_len (learned
// positions stop there), on an id or an ablated head out of range, mean ablation whose means are
// not L × h × d_k finite floats ("lm: ablation: means[1][2]: expected 32 floats, got 31"), or a model
// whose shapes are not LmShapes's; on error the cache is unchanged.
Status LmAdvance(const LmModel& model, const std::vector<int>& ids, const LmAblation& ablation, bool logit_lens,
                 LmCache* cache, LmTrace* trace, int traced_from = 0);

// softmax(logits / temperature) of one row (temperature > 0), in double for the sums.   (1, V) -> (1, V)
Matrix LmSoftmax(const Matrix& logits_row, float temperature = 1.0f);

struct LmGenerateConfig {
  int tokens = 20;           // words to add (1 – seq_len − prompt)
  float temperature = 0.8f;  // 0: greedy (the most probable word, lowest id on ties); > 0: sampled from softmax(logits / T)
  uint32_t seed = 1;         // the sampler's: one uniform draw per word, inverse CDF in double
  // true: the last id (attnlab's <unk> class) is never chosen. A checkpoint's last id is a real token
  // (GPT-2's 50256 is <|endoftext|>): false lets every id be chosen.
  bool exclude_unknown = true;
};

struct LmGenerated {
  int id = 0;
  float p = 0;          // the model's probability of the word (temperature 1), where it was chosen
  int cache_length = 0;  // positions in the cache after the word was chosen (the prompt's n, then n + 1, …)
};

// Continues `prompt` (1 or more ids) through the KV cache: one LmAdvance over the prompt, then one
// per word. The unknown word is never chosen (its class is not a word a reader can read; unless
// config.exclude_unknown is false); the others keep their probabilities' ratios. The same model, prompt and config give the same words.
Status LmGenerate(const LmModel& model, const std::vector<int>& prompt, const LmGenerateConfig& config,
                  std::vector<LmGenerated>* out);

}  // namespace attn::train
