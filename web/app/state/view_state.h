// Every control of the page, and nothing else: plain data that round-trips through a short string
// (the URL will hold it). Each view's controls are one sub-struct with its own Visit().
#pragma once

#include <string>

#include "attn/status.h"
#include "state/fields.h"

namespace attnlab {

// The views, in the order of the tabs (and of ../shared/CONCEPTS.md).
enum class ViewId { kWords, kOrder, kQkv, kRelevance, kHeads, kMasks, kCnn, kPrices, kCount };

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
    v.String("s", text, 400);
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

struct ViewState {
  ViewId view = ViewId::kWords;
  SentenceState sentence;
  WordsState words;
  OrderState order;
  QkvState qkv;
  RelevanceState relevance;

  void Visit(FieldVisitor& v) {
    v.Choice("v", view, static_cast<int>(ViewId::kCount));
    sentence.Visit(v);
    words.Visit(v);
    order.Visit(v);
    qkv.Visit(v);
    relevance.Visit(v);
  }
};

// "v=1&s=Sky%20is%20clear&w.t=0.5": only the fields that differ from the defaults, URL-safe.
std::string SerializeState(const ViewState& state);
// Applies every valid field of `text` to *state. Unknown keys, bad numbers and out-of-range values
// are skipped and reported in the returned status (kParseError / kOutOfRange); the rest applies.
attn::Status ParseState(const std::string& text, ViewState* state);

}  // namespace attnlab
