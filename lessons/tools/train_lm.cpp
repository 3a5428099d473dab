// attnlab_train_lm: trains the page's language model (web/assets/lm-brown.bin) on the Brown corpus as
// scripts/prepare-brown.mjs prepared it, and writes tests/data/lm-brown-held-out-sample.txt.
// Usage (scripts/build-lm.mjs runs it with the shipped settings):
//   attnlab_train_lm --corpus .cache/brown/brown-upos.bin --out web/assets/lm-brown.bin
//                    [--sample tests/data/lm-brown-held-out-sample.txt] [--vocab 4096] [--layers 4]
//                    [--heads 4] [--dim 128] [--seq 64] [--positions learned|rope] [--steps 3000]
//                    [--warmup 200] [--batch 16] [--lr 0.003] [--seed 1] [--log-every 100] [--eval-every 0]
//
// The model and its training: attn/train/lm_model.h, lm_trainer.h. The data: the training split as
// one stream of ids over a vocabulary of its most frequent words (attn::train::MakeLmStreams); the
// held-out split scored over LmWindowStarts, the same predictions for the model and the baselines.
//
// What it prints: the baselines, the loss every --log-every steps with tokens/s, the held-out
// perplexity every --eval-every steps (0: only at the end; the curve, never a choice), the time, the
// held-out perplexity of the float model and of the stored (int8) one read back through
// ReadLmAsset, and the quantisation's largest |Δ logit| over the held-out predictions.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "attn/train/lm_asset.h"
#include "attn/train/lm_trainer.h"
#include "attn/train/ngram_baselines.h"
#include "attn/train/corpus.h"

namespace {

namespace train = attn::train;
using attn::Status;

constexpr int kSampleTokens = 4097;  // 64 windows of 64 predictions
constexpr int kEvalBatch = 16;

struct Options {
  std::string corpus = ".cache/brown/brown-upos.bin";
  std::string out = "web/assets/lm-brown.bin";
  std::string sample;  // when set: the held-out split's first kSampleTokens words, for the tests
  int vocab = 4096, layers = 4, heads = 4, dim = 128, seq = 64, steps = 3000, warmup = 200, batch = 16, log_every = 100,
      eval_every = 0;
  std::string positions = "learned";
  float lr = 3e-3f;
  uint32_t seed = 1;
};

int Fail(const Status& s) {
  std::fprintf(stderr, "attnlab_train_lm: %s\n", s.ToString().c_str());
  return 1;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

bool ParseOptions(int argc, char** argv, Options* o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    int* ints[] = {&o->vocab, &o->layers, &o->heads, &o->dim, &o->seq,
                   &o->steps, &o->warmup, &o->batch, &o->log_every, &o->eval_every};
    const char* names[] = {"--vocab", "--layers", "--heads", "--dim", "--seq",
                           "--steps", "--warmup", "--batch", "--log-every", "--eval-every"};
    bool found = false;
    for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); ++k)
      if (key == names[k]) *ints[k] = std::stoi(value), found = true;
    if (found) continue;
    if (key == "--corpus") o->corpus = value;
    else if (key == "--out") o->out = value;
    else if (key == "--sample") o->sample = value;
    else if (key == "--positions") o->positions = value;
    else if (key == "--lr") o->lr = std::stof(value);
    else if (key == "--seed") o->seed = static_cast<uint32_t>(std::stoul(value));
    else return false;
  }
  return argc % 2 == 1 && (o->positions == "learned" || o->positions == "rope");
}

// The largest |Δ logit| between two parameter sets over the held-out windows (the full ones, 16 to a
// forward pass; the stream's last, shorter window is left out).
Status MaxLogitDifference(const train::LmConfig& c, const train::ModelParameters& a, const train::ModelParameters& b,
                          const std::vector<int>& tokens, float* out) {
  float worst = 0;
  train::LmActivations x, y;
  train::Batch batch;
  const std::vector<int64_t> starts = train::LmWindowStarts(static_cast<int64_t>(tokens.size()), c.seq_len);
  for (size_t i = 0; i < starts.size();) {
    batch = train::Batch();
    batch.seq_len = c.seq_len;
    for (; i < starts.size() && batch.size < kEvalBatch; ++i) {
      const int64_t s = starts[i];
      if (s + c.seq_len >= static_cast<int64_t>(tokens.size())) continue;
      batch.ids.insert(batch.ids.end(), tokens.begin() + s, tokens.begin() + s + c.seq_len);
      batch.targets.insert(batch.targets.end(), tokens.begin() + s + 1, tokens.begin() + s + c.seq_len + 1);
      ++batch.size;
    }
    if (batch.size == 0) break;
    batch.weights.assign(batch.ids.size(), 1.0f);
    ATTN_RETURN_IF_ERROR(train::LmForward(c, a, batch, &x));
    ATTN_RETURN_IF_ERROR(train::LmForward(c, b, batch, &y));
    worst = std::max(worst, (x.logits - y.logits).cwiseAbs().maxCoeff());
  }
  *out = worst;
  return Status::Ok();
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress shows when piped
  Options opt;
  if (!ParseOptions(argc, argv, &opt)) {
    std::fprintf(stderr, "usage: attnlab_train_lm [--corpus F] [--out F] [--sample F] [--vocab N] [--layers N] [--heads N] "
                         "[--dim N] [--seq N] [--positions learned|rope] [--steps N] [--warmup N] [--batch N] [--lr X] "
                         "[--seed N] [--log-every N] [--eval-every N]\n");
    return 2;
  }
  attn::train::Corpus corpus;
  if (Status s = attn::train::ReadCorpus(attn::train::ReadFile(opt.corpus), &corpus); !s.ok()) return Fail(s);
  attn::train::LmStreams streams;
  if (Status s = attn::train::MakeLmStreams(corpus, opt.vocab, &streams); !s.ok()) return Fail(s);
  const auto unknown_share = [&](const std::vector<int>& ids) {
    return 100.0 * static_cast<double>(std::count(ids.begin(), ids.end(), opt.vocab - 1)) / static_cast<double>(ids.size());
  };
  std::printf("corpus: train %zu tokens, held-out %zu; vocabulary %d (the training split's %d most frequent words and "
              "<unk>): unknown %.2f%% of training tokens, %.2f%% of held-out\n",
              streams.train.size(), streams.held_out.size(), opt.vocab, opt.vocab - 1, unknown_share(streams.train),
              unknown_share(streams.held_out));

  train::NgramBaselines baselines;
  train::LmScore unigram, bigram;
  if (Status s = baselines.Fit(streams.train, opt.vocab); !s.ok()) return Fail(s);
  if (Status s = baselines.Score(streams.held_out, &unigram, &bigram); !s.ok()) return Fail(s);
  std::printf("held-out baselines (%lld predictions): unigram perplexity %.2f, Kneser-Ney bigram %.2f (D = %.4f)\n",
              static_cast<long long>(bigram.tokens), unigram.perplexity(), bigram.perplexity(), baselines.discount());

  train::LmTrainConfig config;
  config.model.vocab = opt.vocab;
  config.model.seq_len = opt.seq;
  config.model.d_model = opt.dim;
  config.model.layers = opt.layers;
  config.model.heads = opt.heads;
  config.model.positions = opt.positions == "rope" ? train::Positions::kRope : train::Positions::kLearned;
  config.optimizer.learning_rate = opt.lr;
  config.optimizer.weight_decay = 0.1f;
  config.optimizer.beta2 = 0.99f;
  config.batch_size = opt.batch;
  config.steps = opt.steps;
  config.warmup_steps = opt.warmup;
  config.seed = opt.seed;
  train::LmTrainer trainer;
  if (Status s = trainer.Init(config, &streams.train); !s.ok()) return Fail(s);
  int64_t parameters = 0;
  train::ForEachParameter(trainer.parameters(), [&](const std::string&, const attn::Matrix& m) { parameters += m.size(); });
  std::printf("model: %d layers x %d heads, d_model %d, context %d, %s positions, %lld parameters; %d steps of %d "
              "windows, Adam peak lr %g (warm-up %d, cosine to 10%%), weight decay 0.1, seed %u\n",
              opt.layers, opt.heads, opt.dim, opt.seq, opt.positions.c_str(), static_cast<long long>(parameters),
              opt.steps, opt.batch, opt.lr, opt.warmup, opt.seed);

  const auto started = std::chrono::steady_clock::now();
  auto window = started;
  double eval_seconds = 0;  // the held-out curve's, taken out of the training time
  double loss_sum = 0;
  int in_window = 0;
  for (int step = 0; step < opt.steps; ++step) {
    train::LmStepStats stats;
    if (Status s = trainer.Step(&stats); !s.ok()) return Fail(s);
    loss_sum += stats.loss;
    ++in_window;
    if (stats.step % opt.log_every == 0 || stats.step == opt.steps) {
      const double tokens = static_cast<double>(in_window) * opt.batch * opt.seq;
      std::printf("step %d: loss %.4f (perplexity %.1f), lr %.2e, grad norm %.2f, %.0f tokens/s, %.0f s\n", stats.step,
                  loss_sum / in_window, std::exp(loss_sum / in_window), stats.learning_rate, stats.grad_norm,
                  tokens / Seconds(window), Seconds(started) - eval_seconds);
      loss_sum = 0;
      in_window = 0;
      window = std::chrono::steady_clock::now();
    }
    if (opt.eval_every > 0 && stats.step % opt.eval_every == 0 && stats.step < opt.steps) {
      const auto eval_started = std::chrono::steady_clock::now();
      train::LmScore score;
      if (Status s = train::LmEvaluate(trainer.config().model, trainer.parameters(), streams.held_out, kEvalBatch, &score);
          !s.ok())
        return Fail(s);
      std::printf("step %d: held-out perplexity %.3f (float)\n", stats.step, score.perplexity());
      eval_seconds += Seconds(eval_started);
      window = std::chrono::steady_clock::now();  // the evaluation is not training time
    }
  }
  const double train_seconds = Seconds(started) - eval_seconds;
  std::printf("trained in %.0f s, not counting %.0f s of held-out evaluation (%.0f tokens/s on one thread)\n",
              train_seconds, eval_seconds,
              static_cast<double>(opt.steps) * opt.batch * opt.seq / train_seconds);

  train::LmModel model;
  model.config = trainer.config().model;
  model.params = trainer.parameters();
  model.vocabulary = streams.vocabulary;
  std::string bytes;
  if (Status s = train::WriteLmAsset(model, &bytes); !s.ok()) return Fail(s);
  std::ofstream(opt.out, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  train::LmModel stored;
  if (Status s = train::ReadLmAsset(bytes, &stored); !s.ok()) return Fail(s);

  train::LmScore float_score, stored_score;
  if (Status s = train::LmEvaluate(model.config, model.params, streams.held_out, kEvalBatch, &float_score); !s.ok()) return Fail(s);
  if (Status s = train::LmEvaluate(stored.config, stored.params, streams.held_out, kEvalBatch, &stored_score); !s.ok()) return Fail(s);
  float max_delta = 0;
  if (Status s = MaxLogitDifference(model.config, model.params, stored.params, streams.held_out, &max_delta); !s.ok())
    return Fail(s);
  std::printf("held-out perplexity (%lld predictions): float %.3f, stored int8 %.3f; largest |delta logit| %.4f "
              "(full windows)\n",
              static_cast<long long>(stored_score.tokens), float_score.perplexity(), stored_score.perplexity(), max_delta);
  std::printf("against the bigram: %.1f%% lower perplexity; against the unigram: %.1f%% lower\n",
              100.0 * (1 - stored_score.perplexity() / bigram.perplexity()),
              100.0 * (1 - stored_score.perplexity() / unigram.perplexity()));
  std::printf("wrote %s: %zu bytes\n", opt.out.c_str(), bytes.size());

  if (!opt.sample.empty()) {
    std::ofstream sample(opt.sample);
    sample << "# The first " << kSampleTokens << " words of the Brown corpus's held-out split as the language model "
           << "reads them (lower-cased page tokens; <unk> for words outside its vocabulary), one window of "
           << opt.seq << " predictions a line (consecutive lines share a word). Written by scripts/build-lm.mjs.\n";
    const std::vector<int> head(streams.held_out.begin(), streams.held_out.begin() + kSampleTokens);
    for (const int64_t s : train::LmWindowStarts(kSampleTokens, opt.seq)) {
      for (int64_t i = s; i <= std::min<int64_t>(s + opt.seq, kSampleTokens - 1); ++i)
        sample << (i > s ? " " : "") << streams.vocabulary[static_cast<size_t>(head[static_cast<size_t>(i)])];
      sample << "\n";
    }
    train::LmScore score;
    if (Status s = train::LmEvaluate(stored.config, stored.params, head, kEvalBatch, &score); !s.ok()) return Fail(s);
    train::LmScore u, b;
    if (Status s = baselines.Score(head, &u, &b); !s.ok()) return Fail(s);
    std::printf("sample %s: %lld predictions, stored model perplexity %.4f (unigram %.2f, bigram %.2f)\n",
                opt.sample.c_str(), static_cast<long long>(score.tokens), score.perplexity(), u.perplexity(), b.perplexity());
  }
  return 0;
}
