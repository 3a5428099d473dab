// Every control of the page, and nothing else: plain data that round-trips through a short string
// (the URL will hold it). Each view's controls are one sub-struct with its own Visit().
#pragma once

#include <string>

#include "lessons/common.h"
#include "lessons/fields.h"

namespace lessons {

// The views, in the order of the tabs (and of ../shared/CONCEPTS.md).
enum class ViewId { kWords, kOrder, kQkv, kRelevance, kHeads, kMasks, kCnn, kPrices, kSpeed, kCount };

// Where the word vectors come from.
enum class VectorSource {
  kGlove,  // the 20k-word GloVe asset (web/assets/word-vectors.bin), 100-d
  kHash,   // a deterministic N(0, 1) vector per word, of any width
};

// The sentence every word view shares.
struct SentenceState {
  std::string text = "The animal didn't cross the street because it was too tired";
  VectorSource vectors = VectorSource::kGlove;
  int hash_dim = 16;  // width d of the hashed vectors

  void Visit(FieldVisitor& v) {
    v.String("s", text, 511);  // the sentence box holds 511 bytes
    v.Choice("vec", vectors, 2);
    v.Int("d", hash_dim, 2, 64);
  }
};

// View 1: words -> vectors -> attention, no weights.
struct WordsState {
  float temperature = 1.0f;  // τ in softmax(xᵢ·xⱼ / (√d τ))
  int spotlight = -1;        // the token followed step by step; -1: none
  int step = 3;              // 0 scores, 1 weights, 2 weighted vectors, 3 output
  bool lines = false;        // the lines view instead of the heatmap

  void Visit(FieldVisitor& v) {
    v.Float("w.t", temperature, 0.05f, 5.0f);
    v.Int("w.sp", spotlight, -1, 199);
    v.Int("w.st", step, 0, 3);
    v.Bool("w.l", lines);
  }
};

// View 2: order has no influence, until positions are added.
enum class OrderEncoding { kNone, kSinusoidal, kLearned, kCount };
struct OrderState {
  int shuffle = 0;  // 0: the sentence's order; k > 0: the k-th seeded shuffle
  OrderEncoding encoding = OrderEncoding::kNone;

  void Visit(FieldVisitor& v) {
    v.Int("o.sh", shuffle, 0, 999);
    v.Choice("o.pe", encoding, static_cast<int>(OrderEncoding::kCount));
  }
};

// View 3: queries, keys and values from learnable projections Wq, Wk, Wv.
struct QkvState {
  int d_k = 8;            // width of queries and keys
  int d_v = 8;            // width of values
  int seed = 1;           // seeds Wq, Wk, Wv (through the engine)
  float scale = 3.0f;     // multiplies the seeded weights (larger: sharper weights)
  bool identity = false;  // Wq = Wk = Wv = I: back to view 1
  int query = 8;          // the spotlighted pair: query word i ...
  int key = 1;            // ... and key word j

  void Visit(FieldVisitor& v) {
    v.Int("q.dk", d_k, 1, 64);
    v.Int("q.dv", d_v, 1, 64);
    v.Int("q.s", seed, 0, 9999);
    v.Float("q.sc", scale, 0.1f, 10.0f);
    v.Bool("q.id", identity);
    v.Int("q.i", query, 0, 199);
    v.Int("q.j", key, 0, 199);
  }
};

// View 4: relevance functions and normalisers side by side, and the saturation plot.
struct RelevanceState {
  int normalizer = 0;        // attn::Normalizer used by the grid of relevance functions (0..3)
  int score = 1;             // attn::ScoreFunction used by the grid of normalisers (0..5)
  float temperature = 1.0f;  // τ of every normaliser
  int seed = 1;              // seeds the bilinear and additive parameters
  int row = -1;              // the word whose row of weights is compared as bars; -1: none

  void Visit(FieldVisitor& v) {
    v.Int("r.row", row, -1, 199);
    v.Int("r.n", normalizer, 0, 3);
    v.Int("r.sc", score, 0, 5);
    v.Float("r.t", temperature, 0.05f, 20.0f);
    v.Int("r.s", seed, 0, 9999);
  }
};

// View 5: several heads, their concatenation and Wᵒ; grouped-query attention.
struct HeadsState {
  int heads = 4;       // query heads h
  int kv_heads = 0;    // key/value heads; 0: one per query head (no grouping); must divide h
  int selected = 0;    // the head drawn large; -1: none
  int seed = 1;        // seeds Wq, Wk, Wv, Wᵒ
  // τ in softmax(s/τ): the seeded (untrained) projections give nearly equal scores, a low τ shows them.
  float temperature = 0.05f;
  bool lines = true;   // the heads' weights as coloured lines

  void Visit(FieldVisitor& v) {
    v.Int("h.n", heads, 1, 16);
    v.Int("h.kv", kv_heads, 0, 16);
    v.Int("h.sel", selected, -1, 15);
    v.Int("h.seed", seed, 0, 9999);
    v.Float("h.t", temperature, 0.01f, 5.0f);
    v.Bool("h.l", lines);
  }
};

// View 6: masks and windows.
struct MasksState {
  bool causal = true;
  int window_left = -1;   // keys at most this many positions before the query; -1: unbounded
  int window_right = -1;  // keys at most this many positions after it; -1: unbounded
  std::string padding;    // '1' at token k: key k is padding, never attended ("0010")

  void Visit(FieldVisitor& v) {
    v.Bool("m.c", causal);
    v.Int("m.wl", window_left, -1, 199);
    v.Int("m.wr", window_right, -1, 199);
    v.String("m.p", padding, 200);
  }
};

// View 7: a CNN's receptive field vs self-attention, and attention rebuilding a convolution.
struct CnnState {
  int radius = 1;        // kernel size K = 2r + 1
  int layers = 2;        // L stacked convolutions
  int output = 11;       // the output whose receptive field is shown
  int window = 2;        // radius of the windowed attention
  float alpha = 1.0f;    // sharpness α of the quadratic relative score −α(δ − Δₕ)²
  int seed = 1;          // the sequence and the convolution's weights
  float temperature = 0.3f;  // τ of the two attention rows: lower sharpens the content weighting

  void Visit(FieldVisitor& v) {
    v.Int("c.r", radius, 1, 4);
    v.Int("c.l", layers, 1, 6);
    v.Int("c.i", output, 0, 23);
    v.Int("c.w", window, 0, 23);
    v.Float("c.a", alpha, 0.01f, 100.0f);
    v.Int("c.sd", seed, 1, 999);
    v.Float("c.t", temperature, 0.05f, 5.0f);
  }
};

// View 8: smoothing a noisy price series, attention re-weighting vs a moving average.
struct PricesState {
  int stock = 0;              // series index in prices.csv order
  float noise = 0.1f;         // noise σ as a fraction of each price
  int noise_seed = 1;
  int window = 2;             // moving average over 2r + 1 months
  float value_weight = 0.5f;  // how much similar prices attract
  float time_weight = 3.0f;   // how much nearby months attract
  float temperature = 1.0f;   // τ of the softmax
  int focus = -1;             // the point whose weights are shown when nothing is hovered

  void Visit(FieldVisitor& v) {
    v.Int("p.s", stock, 0, 15);
    v.Float("p.n", noise, 0.0f, 0.5f);
    v.Int("p.sd", noise_seed, 1, 999);
    v.Int("p.w", window, 0, 12);
    v.Float("p.vw", value_weight, 0.0f, 4.0f);
    v.Float("p.tw", time_weight, 0.0f, 8.0f);
    v.Float("p.t", temperature, 0.02f, 10.0f);
    v.Int("p.i", focus, -1, 499);
  }
};

// View 9: the engine's speed in this browser.
struct SpeedState {
  int log2_n = 8;    // sequence length n = 2^log2_n
  int kernel = -1;   // attn::KernelId; -1: the fastest this page has
  bool live = true;  // keep timing, one forward a frame, while the view is open

  void Visit(FieldVisitor& v) {
    v.Int("sp.n", log2_n, 4, 13);
    v.Int("sp.k", kernel, -1, 4);
    v.Bool("sp.l", live);
  }
};

struct ViewState {
  ViewId view = ViewId::kWords;
  SentenceState sentence;
  WordsState words;
  OrderState order;
  QkvState qkv;
  RelevanceState relevance;
  HeadsState heads;
  MasksState masks;
  CnnState cnn;
  PricesState prices;
  SpeedState speed;

  void Visit(FieldVisitor& v) {
    v.Choice("v", view, static_cast<int>(ViewId::kCount));
    sentence.Visit(v);
    words.Visit(v);
    order.Visit(v);
    qkv.Visit(v);
    relevance.Visit(v);
    heads.Visit(v);
    masks.Visit(v);
    cnn.Visit(v);
    prices.Visit(v);
    speed.Visit(v);
  }
};

// "v=1&s=Sky%20is%20clear&w.t=0.5": only the fields that differ from the defaults, URL-safe.
std::string SerializeState(const ViewState& state);
// Applies every valid field of `text` to *state. Unknown keys, bad numbers and out-of-range values
// are skipped and reported in the returned status (kParseError / kOutOfRange); the rest applies.
attn::Status ParseState(const std::string& text, ViewState* state);

}  // namespace lessons
