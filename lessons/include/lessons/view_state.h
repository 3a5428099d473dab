// Every control of the page, and nothing else: plain data that round-trips through a short string
// (the URL will hold it). Each view's controls are one sub-struct with its own Visit().
#pragma once

#include <string>
#include <vector>

#include "attn/config.h"
#include "attn/kernels.h"
#include "lessons/common.h"
#include "lessons/fields.h"

namespace lessons {

// The views, in the order of the tabs (and of docs/concepts.md), and their names in links.
enum class ViewId { kWords, kOrder, kQkv, kRelevance, kHeads, kMasks, kCnn, kDataSize, kRnn, kRetrieval, kLearn, kLm, kPrices, kSpeed, kCount };
inline constexpr const char* kViewNames[] = {"words", "order", "qkv", "relevance", "heads", "masks", "cnn", "datasize", "rnn", "retrieval", "learn", "lm", "prices", "speed"};
static_assert(sizeof(kViewNames) / sizeof(kViewNames[0]) == static_cast<size_t>(ViewId::kCount));

// Where the word vectors come from.
enum class VectorSource {
  kGlove,  // the 20k-word GloVe asset (web/assets/word-vectors.bin), 100-d
  kHash,   // a deterministic N(0, 1) vector per word, of any width
  kCount
};
inline constexpr const char* kVectorSourceNames[] = {"glove", "hash"};

// The sentence every word view shares.
struct SentenceState {
  // The sentence box holds 8 KB: a text as long as GPT-2's context (1024 tokens, about 4–5 KB of
  // English) for the language model's view; the other views read up to kMaxTokens words of it.
  static constexpr TextField kText{"s", 8191};
  static constexpr ChoiceField kVectors{"vec", static_cast<int>(VectorSource::kCount), kVectorSourceNames};
  static constexpr IntField kHashDim{"d", "width d", 2, 64};
  static constexpr int kMaxTokens = 200;  // the explorer shows up to this many words

  std::string text = "The animal didn't cross the street because it was too tired";
  VectorSource vectors = VectorSource::kGlove;
  int hash_dim = 16;  // width d of the hashed vectors

  void Visit(FieldVisitor& v) {
    v.String(kText, text);
    v.Choice(kVectors, vectors);
    v.Int(kHashDim, hash_dim);
  }
};

// View 1: words -> vectors -> attention, no weights.
struct WordsState {
  static constexpr FloatField kTemperature{"w.t", "temperature τ", 0.05f, 5.0f, "%.2f", true};
  static constexpr IntField kSpotlight{"w.sp", "word", -1, SentenceState::kMaxTokens - 1};
  static constexpr IntField kStep{"w.st", "step", 0, 3};
  static constexpr BoolField kLines{"w.l", "lines view"};

  float temperature = 1.0f;  // τ in softmax(xᵢ·xⱼ / (√d τ))
  int spotlight = -1;        // the token followed step by step; -1: none
  int step = 3;              // 0 scores, 1 weights, 2 weighted vectors, 3 output
  bool lines = false;        // the lines view instead of the heatmap

  void Visit(FieldVisitor& v) {
    v.Float(kTemperature, temperature);
    v.Int(kSpotlight, spotlight);
    v.Int(kStep, step);
    v.Bool(kLines, lines);
  }
};

// View 2: order has no influence, until positions are added.
enum class OrderEncoding { kNone, kSinusoidal, kLearned, kCount };
inline constexpr const char* kOrderEncodingNames[] = {"none", "sinusoidal", "learned"};
struct OrderState {
  static constexpr IntField kShuffle{"o.sh", "shuffle", 0, 999};
  static constexpr ChoiceField kEncoding{"o.pe", static_cast<int>(OrderEncoding::kCount), kOrderEncodingNames};

  int shuffle = 0;  // 0: the sentence's order; k > 0: the k-th seeded shuffle
  OrderEncoding encoding = OrderEncoding::kNone;

  void Visit(FieldVisitor& v) {
    v.Int(kShuffle, shuffle);
    v.Choice(kEncoding, encoding);
  }
};

// View 3: queries, keys and values from learnable projections Wq, Wk, Wv.
struct QkvState {
  static constexpr IntField kDk{"q.dk", "d_k (q, k)", 1, 64};
  static constexpr IntField kDv{"q.dv", "d_v (v)", 1, 64};
  static constexpr IntField kSeed{"q.s", "seed", 0, 9999};
  static constexpr FloatField kScale{"q.sc", "weight scale", 0.1f, 10.0f, "%.2f", true};
  static constexpr BoolField kIdentity{"q.id", "identity: Wq = Wk = Wv = I (back to view 1)"};
  static constexpr IntField kQuery{"q.i", "query i", 0, SentenceState::kMaxTokens - 1};
  static constexpr IntField kKey{"q.j", "key j", 0, SentenceState::kMaxTokens - 1};
  static constexpr BoolField kTrained{"q.tr", "trained on English (Brown corpus)"};
  static constexpr IntField kTrainedHead{"q.th", "trained head", 0, 7};

  // The projections of a head trained on the Brown corpus (heads-trained-brown.bin) instead of
  // seeded ones: needs the GloVe vectors it was trained on.
  bool trained = true;
  int trained_head = 2;   // which of its heads (0-based; head 3 looks at the previous word)
  int d_k = 8;            // width of queries and keys
  int d_v = 8;            // width of values
  int seed = 1;           // seeds Wq, Wk, Wv (through the engine)
  float scale = 3.0f;     // multiplies the seeded weights (larger: sharper weights)
  bool identity = false;  // Wq = Wk = Wv = I: back to view 1
  int query = 8;          // the spotlighted pair: query word i ...
  int key = 1;            // ... and key word j

  void Visit(FieldVisitor& v) {
    v.Int(kDk, d_k);
    v.Int(kDv, d_v);
    v.Int(kSeed, seed);
    v.Float(kScale, scale);
    v.Bool(kIdentity, identity);
    v.Int(kQuery, query);
    v.Int(kKey, key);
    v.Bool(kTrained, trained);
    v.Int(kTrainedHead, trained_head);
  }
};

// View 4: relevance functions and normalisers side by side, and the saturation plot.
struct RelevanceState {
  static constexpr int kShownScores = static_cast<int>(attn::ScoreFunction::kCount);  // every one
  static constexpr int kShownNormalizers = 4;  // softmax, sparsemax, ReLU-normalised, sigmoid
  static constexpr IntField kRow{"r.row", "row", -1, SentenceState::kMaxTokens - 1};
  static constexpr IntField kNormalizer{"r.n", "normaliser", 0, kShownNormalizers - 1};
  static constexpr IntField kScore{"r.sc", "relevance", 0, kShownScores - 1};
  static constexpr FloatField kTemperature{"r.t", "temperature τ", 0.05f, 20.0f, "%.2f", true};
  static constexpr IntField kSeed{"r.s", "seed of W, w", 0, 9999};

  int normalizer = 0;        // attn::Normalizer used by the grid of relevance functions
  int score = 1;             // attn::ScoreFunction used by the grid of normalisers
  float temperature = 1.0f;  // τ of every normaliser
  int seed = 1;              // seeds the bilinear and additive parameters
  int row = -1;              // the word whose row of weights is compared as bars; -1: none

  void Visit(FieldVisitor& v) {
    v.Int(kRow, row);
    v.Int(kNormalizer, normalizer);
    v.Int(kScore, score);
    v.Float(kTemperature, temperature);
    v.Int(kSeed, seed);
  }
};

// View 5: several heads, their concatenation and Wᵒ; grouped-query attention.
struct HeadsState {
  static constexpr int kMaxHeads = 16;
  static constexpr IntField kHeads{"h.n", "heads h", 1, kMaxHeads};
  static constexpr IntField kKvHeads{"h.kv", "key/value heads", 0, kMaxHeads};
  static constexpr IntField kSelected{"h.sel", "selected head", -1, kMaxHeads - 1};
  static constexpr IntField kSeed{"h.seed", "seed", 0, 9999};
  static constexpr FloatField kTemperature{"h.t", "temperature τ", 0.01f, 5.0f, "%.3f", true};
  static constexpr BoolField kLines{"h.l", "lines view"};
  static constexpr BoolField kTrained{"h.tr", "trained on English (Brown corpus)"};

  // The heads of the model trained on the Brown corpus (heads-trained-brown.bin) instead of seeded
  // ones: its 4 heads, Wq Wk Wv Wᵒ and RoPE; needs the GloVe vectors it was trained on.
  bool trained = true;
  int heads = 4;       // query heads h
  int kv_heads = 0;    // key/value heads; 0: one per query head (no grouping); must divide h
  int selected = 0;    // the head drawn large; -1: none
  int seed = 1;        // seeds Wq, Wk, Wv, Wᵒ
  // τ in softmax(s/τ). At 1 the seeded (untrained) heads show what they are: nearly uniform weights.
  float temperature = 1.0f;
  bool lines = true;   // the heads' weights as coloured lines

  void Visit(FieldVisitor& v) {
    v.Int(kHeads, heads);
    v.Int(kKvHeads, kv_heads);
    v.Int(kSelected, selected);
    v.Int(kSeed, seed);
    v.Float(kTemperature, temperature);
    v.Bool(kLines, lines);
    v.Bool(kTrained, trained);
  }
};

// View 6: masks and windows.
struct MasksState {
  static constexpr BoolField kCausal{"m.c", "causal (no peeking ahead)"};
  static constexpr IntField kWindowLeft{"m.wl", "window: before", -1, SentenceState::kMaxTokens - 1};
  static constexpr IntField kWindowRight{"m.wr", "window: after", -1, SentenceState::kMaxTokens - 1};
  static constexpr TextField kPadding{"m.p", SentenceState::kMaxTokens};

  bool causal = true;
  int window_left = -1;   // keys at most this many positions before the query; -1: unbounded
  int window_right = -1;  // keys at most this many positions after it; -1: unbounded
  std::string padding;    // '1' at token k: key k is padding, never attended ("0010")

  void Visit(FieldVisitor& v) {
    v.Bool(kCausal, causal);
    v.Int(kWindowLeft, window_left);
    v.Int(kWindowRight, window_right);
    v.String(kPadding, padding);
  }
};

// View 7: a CNN's receptive field vs self-attention, and attention rebuilding a convolution.
struct CnnState {
  static constexpr int kLength = 24;  // tokens in the seeded sequence
  static constexpr IntField kRadius{"c.r", "kernel radius", 1, 4};  // the slider shows K = 2r + 1
  static constexpr IntField kLayers{"c.l", "layers L", 1, 6};
  static constexpr IntField kOutput{"c.i", "output i", 0, kLength - 1};
  static constexpr IntField kWindow{"c.w", "window r", 0, kLength - 1};
  static constexpr FloatField kAlpha{"c.a", "sharpness α", 0.01f, 100.0f, "%.3g", true};
  static constexpr IntField kSeed{"c.sd", "seed", 1, 999};
  static constexpr FloatField kTemperature{"c.t", "attention τ", 0.05f, 5.0f, "%.2f", true};

  int radius = 1;        // kernel size K = 2r + 1
  int layers = 2;        // L stacked convolutions
  int output = 11;       // the output whose receptive field is shown
  int window = 2;        // radius of the windowed attention
  float alpha = 1.0f;    // sharpness α of the quadratic relative score −α(δ − Δₕ)²
  int seed = 1;          // the sequence and the convolution's weights
  float temperature = 0.3f;  // τ of the two attention rows: lower sharpens the content weighting

  void Visit(FieldVisitor& v) {
    v.Int(kRadius, radius);
    v.Int(kLayers, layers);
    v.Int(kOutput, output);
    v.Int(kWindow, window);
    v.Float(kAlpha, alpha);
    v.Int(kSeed, seed);
    v.Float(kTemperature, temperature);
  }
};

// View 8: a CNN against self-attention as the training set grows (attn::train's data-size runner).
struct DataSizeState {
  static constexpr IntField kSeeds{"ds.s", "seeds", 1, 5};
  static constexpr IntField kSteps{"ds.n", "steps per run", 100, 2000};
  static constexpr IntField kLargest{"ds.max", "largest N", 6, 13};  // log2: the sizes are 16, 64, … up to 2^max

  int seeds = 3;       // runs per (model, N), seeds 1…seeds
  int steps = 400;     // updates per run, the same for both models and every N (the CLI's 600 take too long here)
  int largest = 10;    // N = 16 · 4^k up to 2^largest (1024 at the default: the curves have crossed by 256)

  void Visit(FieldVisitor& v) {
    v.Int(kSeeds, seeds);
    v.Int(kSteps, steps);
    v.Int(kLargest, largest);
  }
};

// View 9: an RNN beside self-attention (path length, sequential steps, gradients over distance),
// then attention over an RNN's hidden states.
inline constexpr const char* kRnnLayerNames[] = {"rnn", "conv1d", "fully_connected"};  // lessons::SequenceLayerKind
struct RnnState {
  static constexpr IntField kTarget{"rn.i", "word i (reads)", -1, SentenceState::kMaxTokens - 1};
  static constexpr IntField kSource{"rn.j", "word j (is read)", 0, SentenceState::kMaxTokens - 1};
  static constexpr FloatField kRadius{"rn.rho", "spectral radius ρ of W_hh", 0.1f, 2.0f, "%.2f"};
  static constexpr BoolField kLinear{"rn.lin", "linear RNN (no tanh): pure ρᵏ"};
  static constexpr IntField kHidden{"rn.dh", "hidden width d_h", 2, 64};
  static constexpr IntField kSeed{"rn.s", "seed", 1, 9999};
  static constexpr ChoiceField kLayer{"rn.L", 3, kRnnLayerNames};

  int target = -1;       // word i, whose state reads the others; -1: the last word (h_n)
  int source = 1;        // word j, whose information travels to i
  float radius = 0.9f;   // W_hh is scaled to this spectral radius
  bool linear = false;   // h_t = a_t instead of tanh(a_t)
  int hidden = 16;       // d_h of the RNN, of attention's q, k, v and of every layer of the last part
  int seed = 1;          // W_xh, W_hh, Wq, Wk, Wv and the layers of the last part
  int layer = 0;         // the layer L of the last part: rnn, conv1d, fully_connected

  void Visit(FieldVisitor& v) {
    v.Int(kTarget, target);
    v.Int(kSource, source);
    v.Float(kRadius, radius);
    v.Bool(kLinear, linear);
    v.Int(kHidden, hidden);
    v.Int(kSeed, seed);
    v.ChoiceIndex(kLayer, layer);
  }
};

// View 10: attention as retrieval from a key-value store, and cross-attention between two sentences.
// The score functions the store compares with, in the order of the choice (attn::ScoreFunction below).
inline constexpr const char* kRetrievalScoreNames[] = {"dot", "scaled", "additive", "cosine"};
inline constexpr attn::ScoreFunction kRetrievalScores[] = {attn::ScoreFunction::kDot, attn::ScoreFunction::kScaledDot,
                                                           attn::ScoreFunction::kAdditive, attn::ScoreFunction::kCosine};
inline constexpr const char* kRetrievalTableNames[] = {"capitals", "plurals"};  // lessons::KeyValueTables()
struct RetrievalState {
  static constexpr ChoiceField kTable{"rt.tb", 2, kRetrievalTableNames};
  static constexpr TextField kQuery{"rt.q", 64};  // one word
  static constexpr ChoiceField kScore{"rt.sc", 4, kRetrievalScoreNames};
  static constexpr FloatField kTemperature{"rt.t", "temperature τ", 0.001f, 10.0f, "%.3g", true};
  static constexpr TextField kSentenceB{"rt.b", 511};  // the second sentence box
  static constexpr BoolField kSwap{"rt.sw", "swap A and B"};
  static constexpr FloatField kCrossTemperature{"rt.ct", "cross-attention τ", 0.05f, 5.0f, "%.2f", true};

  int table = 0;               // countries → capitals
  std::string query = "france";
  int score = 1;               // scaled dot product q·k/√d
  // τ of the store's softmax. At 0.5 with the scaled dot product, soft retrieval of a key's own value
  // is right for 24 of 24 capitals and 19 of 20 plurals (tests/lessons/retrieval_view_test.cpp).
  float temperature = 0.5f;
  // Keys and values of the cross-attention (the queries come from the shared sentence A): every word
  // in the GloVe asset ("a", "kitten" and "rug" are not).
  std::string sentence_b = "my dog was sitting on the carpet";
  bool swap = false;           // queries from B, keys and values from A
  float cross_temperature = 1.0f;

  void Visit(FieldVisitor& v) {
    v.ChoiceIndex(kTable, table);
    v.String(kQuery, query);
    v.ChoiceIndex(kScore, score);
    v.Float(kTemperature, temperature);
    v.String(kSentenceB, sentence_b);
    v.Bool(kSwap, swap);
    v.Float(kCrossTemperature, cross_temperature);
  }
};

// View 11: training a small transformer on a toy task in the page, and watching its heads form.
inline constexpr const char* kLearnTaskNames[] = {"previous", "copy", "reverse", "sort", "recall", "plusminus"};
inline constexpr const char* kLearnPositionNames[] = {"none", "learned", "sinusoidal", "rope"};
inline constexpr const char* kLearnOptimizerNames[] = {"adam", "sgd"};
inline constexpr const char* kLearnNormalizerNames[] = {"softmax", "sparsemax"};
// What run B changes of run A (LearnCompareState in lessons/views/learn_compare.h).
inline constexpr const char* kLearnCompareNames[] = {"off", "scale", "normalizer", "positions", "layers", "seed"};
struct LearnState {
  static constexpr ChoiceField kTask{"l.task", 6, kLearnTaskNames};               // attn::train::TaskKind
  static constexpr IntField kLayers{"l.l", "layers", 1, 3};
  static constexpr IntField kHeads{"l.h", "heads", 1, 4};
  static constexpr ChoiceField kPositions{"l.pe", 4, kLearnPositionNames};        // attn::train::Positions
  static constexpr ChoiceField kOptimizer{"l.opt", 2, kLearnOptimizerNames};      // attn::train::OptimizerKind
  static constexpr FloatField kLearningRate{"l.lr", "learning rate", 1e-4f, 1e-1f, "%.4f", true};
  static constexpr IntField kSeed{"l.s", "seed", 1, 9999};
  // The sequences' seed when not 0 (then the seed draws the initial weights alone): run B of a seed
  // comparison trains on run A's sequences.
  static constexpr IntField kDataSeed{"l.ds", "data seed", 0, 9999};
  static constexpr IntField kSteps{"l.n", "train to step", 0, 20000};
  static constexpr BoolField kMlp{"l.mlp", "feed-forward layer after each attention"};
  static constexpr BoolField kScaled{"l.sc", "scores divided by √d_k"};
  static constexpr ChoiceField kNormalizer{"l.nm", 2, kLearnNormalizerNames};
  // A second run beside this one, with one setting changed (0: none), and run B's value of it where
  // the setting has more than two (positions, layers, a seed).
  static constexpr ChoiceField kCompare{"l.b", 6, kLearnCompareNames};
  static constexpr IntField kCompareValue{"l.bv", "run B's value", 0, 9999};
  // The head whose circuits are drawn: layer·heads + head, from 0.
  static constexpr IntField kCircuitHead{"l.ch", "head", 0, 11};

  int task = 4;                // recall: two layers form an induction head
  int layers = 2;
  int heads = 2;
  int positions = 1;           // learned
  int optimizer = 0;           // Adam
  float learning_rate = 3e-3f;
  int seed = 1;
  int data_seed = 0;
  // A link trains to this step when opened (0: wait for Train); the training reruns from the seed.
  int steps = 0;
  bool mlp = false;            // attention only: what the heads do is all there is
  bool scaled = true;          // q·k/√d_k
  int normalizer = 0;          // softmax
  int compare = 0;             // no run B
  int compare_value = 0;
  int circuit_head = 0;

  void Visit(FieldVisitor& v) {
    v.ChoiceIndex(kTask, task);
    v.Int(kLayers, layers);
    v.Int(kHeads, heads);
    v.ChoiceIndex(kPositions, positions);
    v.ChoiceIndex(kOptimizer, optimizer);
    v.Float(kLearningRate, learning_rate);
    v.Int(kSeed, seed);
    v.Int(kDataSeed, data_seed);
    v.Int(kSteps, steps);
    v.Bool(kMlp, mlp);
    v.Bool(kScaled, scaled);
    v.ChoiceIndex(kNormalizer, normalizer);
    v.ChoiceIndex(kCompare, compare);
    v.Int(kCompareValue, compare_value);
    v.Int(kCircuitHead, circuit_head);
  }
};

// View 12: the language model (web/assets/lm-brown.bin) on the shared sentence: the next word after
// each word, every layer × head, the logit lens, knocking heads out, and a continuation.
inline constexpr const char* kLmAblationNames[] = {"zero", "mean"};
struct LmState {
  static constexpr FloatField kTemperature{"lm.t", "temperature", 0.0f, 2.0f, "%.2f"};
  static constexpr IntField kWords{"lm.n", "words to generate", 1, 30};
  static constexpr BoolField kGenerate{"lm.g", "continue the sentence"};
  static constexpr IntField kSeed{"lm.sd", "seed", 1, 9999};
  static constexpr IntField kWord{"lm.w", "word", -1, 127};  // a checkpoint's view reads up to 128 tokens
  static constexpr IntField kHead{"lm.e", "head", -1, 255};
  // The heads knocked out, layer · heads + head (0-based), comma-separated: "0,6,17" (GPT-2 small's
  // 144 heads fit; LmKnockedOut reads it in order).
  static constexpr TextField kAblated{"lm.x", 600};
  static constexpr ChoiceField kAblation{"lm.am", 2, kLmAblationNames};

  float temperature = 0.8f;  // the continuation's sampling: softmax(logits / T); 0: greedy
  int words = 20;            // how many words the continuation adds
  bool generate = false;     // the continuation is shown (a link reproduces it from the seed)
  int seed = 1;
  int word = -1;             // the word whose next-word distribution is detailed; -1: the last
  int head = -1;             // the head enlarged (layer · heads + head); -1: none
  std::string ablated;       // the heads knocked out ("0,17,6"); "" none
  int ablation = 0;          // 0: its output set to zero; 1: to its mean over held-out text

  void Visit(FieldVisitor& v) {
    v.Float(kTemperature, temperature);
    v.Int(kWords, words);
    v.Bool(kGenerate, generate);
    v.Int(kSeed, seed);
    v.Int(kWord, word);
    v.Int(kHead, head);
    v.String(kAblated, ablated);
    v.ChoiceIndex(kAblation, ablation);
  }
};

// The heads of state.ablated in [0, total), ascending, each once; anything else in it is ignored.
std::vector<int> LmKnockedOut(const LmState& state, int total);
// Whether `head` is in state.ablated.
bool LmIsKnockedOut(const LmState& state, int head);
// Knocks `head` out (appended to the list) or puts it back.
void LmSetKnockedOut(LmState* state, int head, bool out);

// View 13: smoothing a noisy price series, attention re-weighting vs a moving average.
struct PricesState {
  static constexpr IntField kStock{"p.s", "stock", 0, 15};
  static constexpr FloatField kNoise{"p.n", "noise × price", 0.0f, 0.5f};
  static constexpr IntField kNoiseSeed{"p.sd", "noise seed", 1, 999};
  static constexpr IntField kWindow{"p.w", "average radius", 0, 12};  // the slider shows 2r + 1 months
  static constexpr FloatField kValueWeight{"p.vw", "value weight", 0.0f, 4.0f};
  static constexpr FloatField kTimeWeight{"p.tw", "time weight", 0.0f, 8.0f};
  static constexpr FloatField kTemperature{"p.t", "temperature τ", 0.02f, 10.0f, "%.2f", true};
  static constexpr IntField kFocus{"p.i", "month", -1, 499};
  static constexpr BoolField kSmoothQuery{"p.sq", "query: the 5-month average"};

  int stock = 0;              // series index in prices.csv order
  float noise = 0.1f;         // noise σ as a fraction of each price
  int noise_seed = 1;
  int window = 2;             // moving average over 2r + 1 months
  float value_weight = 0.5f;  // how much similar prices attract
  float time_weight = 3.0f;   // how much nearby months attract
  float temperature = 1.0f;   // τ of the softmax
  int focus = -1;             // the point whose weights are shown when nothing is hovered
  bool smooth_query = true;   // the query's value is the 5-month average: a noisy month is not its own best match

  void Visit(FieldVisitor& v) {
    v.Int(kStock, stock);
    v.Float(kNoise, noise);
    v.Int(kNoiseSeed, noise_seed);
    v.Int(kWindow, window);
    v.Float(kValueWeight, value_weight);
    v.Float(kTimeWeight, time_weight);
    v.Float(kTemperature, temperature);
    v.Int(kFocus, focus);
    v.Bool(kSmoothQuery, smooth_query);
  }
};

// View 14: the engine's speed in this browser.
struct SpeedState {
  static constexpr IntField kLog2N{"sp.n", "sequence length", 4, 13};
  // attn::KernelId; -1: the fastest this page has
  static constexpr IntField kKernel{"sp.k", "kernel", -1, static_cast<int>(attn::KernelId::kCount) - 1};
  static constexpr BoolField kLive{"sp.l", "live"};

  int log2_n = 8;    // sequence length n = 2^log2_n
  int kernel = -1;
  bool live = false;  // keep timing, one batch a frame, while the view is open (off: one measurement)

  void Visit(FieldVisitor& v) {
    v.Int(kLog2N, log2_n);
    v.Int(kKernel, kernel);
    v.Bool(kLive, live);
  }
};

// Lecture mode, for a projector and for readers who need it: every view larger, and the lesson's
// prose ("what you see", "try this", the takeaway) hidden so the figures and controls fill the screen.
struct DisplayState {
  static constexpr FloatField kScale{"ui.s", "UI scale", 1.0f, 2.0f, "%.2f×"};
  static constexpr BoolField kProse{"ui.p", "explanations"};
  static constexpr BoolField kPageText{"ui.t", "the text as page text, under the figure"};

  float scale = 1.0f;  // text, controls and spacing × scale
  bool prose = true;   // false: only the figures, the controls and their numbers
  // Every sentence of the view also shown as HTML under the canvas (mount.js): selectable, found and
  // translated by the browser, at the reader's own text size. It is always in the page for screen
  // readers; this shows it.
  bool page_text = false;

  void Visit(FieldVisitor& v) {
    v.Float(kScale, scale);
    v.Bool(kProse, prose);
    v.Bool(kPageText, page_text);
  }
};

struct ViewState {
  // Links made before the views had names numbered the nine views of then from 0 ("v=7" is prices).
  static constexpr const char* kNumberedViews[] = {"words", "order", "qkv", "relevance", "heads", "masks", "cnn", "prices", "speed"};
  static constexpr ChoiceField kView{"v", static_cast<int>(ViewId::kCount), kViewNames, kNumberedViews, 9};

  ViewId view = ViewId::kWords;
  SentenceState sentence;
  WordsState words;
  OrderState order;
  QkvState qkv;
  RelevanceState relevance;
  HeadsState heads;
  MasksState masks;
  CnnState cnn;
  DataSizeState data_size;
  RnnState rnn;
  RetrievalState retrieval;
  LearnState learn;
  LmState lm;
  PricesState prices;
  SpeedState speed;
  DisplayState display;

  void Visit(FieldVisitor& v) {
    v.Choice(kView, view);
    sentence.Visit(v);
    words.Visit(v);
    order.Visit(v);
    qkv.Visit(v);
    relevance.Visit(v);
    heads.Visit(v);
    masks.Visit(v);
    cnn.Visit(v);
    data_size.Visit(v);
    rnn.Visit(v);
    retrieval.Visit(v);
    learn.Visit(v);
    lm.Visit(v);
    prices.Visit(v);
    speed.Visit(v);
    display.Visit(v);
  }
};

// "v=order&s=Sky%20is%20clear&w.t=0.5": only the fields that differ from the defaults, URL-safe.
std::string SerializeState(const ViewState& state);
// Applies every valid field of `text` to *state; a link can never break the page. Numbers out of
// range are clamped into it; unknown keys, malformed values and unknown names are skipped. Each
// of these is reported, all of them in one message ("…; …"), with the first problem's code
// (kOutOfRange, kParseError); the rest applies. A field of the seeded projections (h.n, q.dk, …)
// given without the view's `trained` field means seeded projections (h.tr=0): it takes effect.
attn::Status ParseState(const std::string& text, ViewState* state);

}  // namespace lessons
