// The language model's inference (attn/train/lm_inference.h) on small seeded models: the KV cache
// against a full recomputation, the logit lens, ablation, generation's determinism and its bad
// input; and its training (lm_trainer.h): determinism to the byte, the schedule, the windows, and
// the n-gram baselines (ngram_baselines.h).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "attn/seeded_random.h"
#include "attn/train/lm_asset.h"
#include "attn/train/lm_inference.h"
#include "attn/train/lm_trainer.h"
#include "attn/train/ngram_baselines.h"
#include "support/expect_close.h"
#include "train/lm_test_model.h"

namespace attn::train {
namespace {

using attn::testing::AllClose;

// A seeded model of the shipped shape but small, its parameters moved off the initial values so
// the heads are not near-uniform.
LmModel SmallModel(Positions positions) {
  LmConfig c;
  c.vocab = 40;
  c.seq_len = 16;
  c.d_model = 16;
  c.layers = 2;
  c.heads = 4;
  c.positions = positions;
  c.seed = 3;
  return testing::SeededLm(c, 5, 0.2f);
}

std::vector<int> Sentence(int n, int vocab, uint32_t seed = 9) {
  SeededRandom rng(seed);
  std::vector<int> ids;
  for (int i = 0; i < n; ++i) ids.push_back(static_cast<int>(rng.Below(static_cast<uint32_t>(vocab))));
  return ids;
}

class LmCacheTest : public ::testing::TestWithParam<Positions> {};

// Decoding through the cache — the prompt at once, then a word at a time — gives the logits of one
// pass over the whole sentence. The two differ only in float rounding: the same products, summed in
// other groupings (one row of attention against all of them), |Δ| ≲ (d + n)·ε·|terms| per layer,
// about 1e-5 at these sizes; 1e-4 absolute on logits of order 1 leaves room, and a wrong position,
// mask or cache entry moves logits by O(1).
TEST_P(LmCacheTest, CachedDecodeEqualsFullRecompute) {
  const LmModel m = SmallModel(GetParam());
  const std::vector<int> ids = Sentence(16, m.config.vocab);
  LmCache full_cache;
  LmTrace full;
  ASSERT_TRUE(LmAdvance(m, ids, LmAblation(), false, &full_cache, &full).ok());
  LmCache cache;
  LmTrace step;
  ASSERT_TRUE(LmAdvance(m, std::vector<int>(ids.begin(), ids.begin() + 5), LmAblation(), false, &cache, &step).ok());
  EXPECT_TRUE(AllClose(step.logits, Matrix(full.logits.topRows(5)), 0, 1e-4));
  for (int i = 5; i < 16; ++i) {
    ASSERT_TRUE(LmAdvance(m, {ids[i]}, LmAblation(), false, &cache, &step).ok());
    EXPECT_EQ(cache.length(), i + 1);
    EXPECT_TRUE(AllClose(step.logits, Matrix(full.logits.row(i)), 0, 1e-4)) << "position " << i;
    EXPECT_EQ(step.weights[1][2].rows(), 1);
    EXPECT_EQ(step.weights[1][2].cols(), i + 1);
  }
  EXPECT_EQ(cache.bytes(), 4 * 2 * 2 * 4 * 16 * 4);  // floats · (k, v) · L · h · p · d_k
  // Full: the cache holds the sentence; the context is full, so one more word is refused.
  const Status s = LmAdvance(m, {1}, LmAblation(), false, &full_cache, &step);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_NE(s.message().find("context"), std::string::npos) << s.message();
  EXPECT_EQ(full_cache.length(), 16) << "a refused call leaves the cache as it was";
}

INSTANTIATE_TEST_SUITE_P(Positions, LmCacheTest, ::testing::Values(Positions::kLearned, Positions::kRope),
                         [](const ::testing::TestParamInfo<Positions>& info) {
                           return std::string(info.param == Positions::kRope ? "rope" : "learned");
                         });

// PrepareLm's packed weights give the bits of packing per call (the same chains), prompt and decode;
// a copy of a prepared model whose weights then change never reads the original's packing.
TEST(LmPrepared, PackedWeightsGiveTheSameBitsAndACopyNeverReadsStalePacking) {
  LmModel m = SmallModel(Positions::kLearned);
  m.config.kernel = FastestKernel();
  if (m.config.kernel == KernelId::kEigen) GTEST_SKIP() << "no SIMD kernel: nothing is packed";
  LmModel prepared = m;
  ASSERT_TRUE(PrepareLm(&prepared).ok());
  ASSERT_TRUE(prepared.packed);
  EXPECT_GT(prepared.packed->bytes(), 0);
  const std::vector<int> ids = Sentence(9, m.config.vocab);
  const auto run = [&](const LmModel& model, LmTrace* prompt, LmTrace* step) {
    LmCache cache;
    ASSERT_TRUE(LmAdvance(model, std::vector<int>(ids.begin(), ids.end() - 1), LmAblation(), true, &cache, prompt).ok());
    ASSERT_TRUE(LmAdvance(model, {ids.back()}, LmAblation(), false, &cache, step).ok());
  };
  LmTrace plain_prompt, plain_step, packed_prompt, packed_step;
  run(m, &plain_prompt, &plain_step);
  run(prepared, &packed_prompt, &packed_step);
  EXPECT_EQ(packed_prompt.logits, plain_prompt.logits);
  EXPECT_EQ(packed_prompt.lens_logits, plain_prompt.lens_logits);
  EXPECT_EQ(packed_step.logits, plain_step.logits);
  // A copy shares the packing; its weights changed afterwards must be what it runs on.
  LmModel copy = prepared;
  copy.params.blocks[0].attention.wq *= 2.0f;
  copy.params.blocks[1].fc_w *= 2.0f;
  copy.params.wte *= 0.5f;
  LmModel fresh = copy;
  fresh.packed.reset();
  LmTrace copy_prompt, copy_step, fresh_prompt, fresh_step;
  run(copy, &copy_prompt, &copy_step);
  run(fresh, &fresh_prompt, &fresh_step);
  EXPECT_EQ(copy_prompt.logits, fresh_prompt.logits);
  EXPECT_EQ(copy_step.logits, fresh_step.logits);
  EXPECT_NE(copy_step.logits, plain_step.logits) << "the changed weights change the answer";
}

TEST(LmTrace, HoldsEveryHeadTheNormsAndTheLogitLens) {
  const LmModel m = SmallModel(Positions::kLearned);
  const std::vector<int> ids = Sentence(7, m.config.vocab);
  LmCache cache;
  LmTrace t;
  ASSERT_TRUE(LmAdvance(m, ids, LmAblation(), true, &cache, &t).ok());
  ASSERT_EQ(t.weights.size(), 2u);
  for (const auto& layer : t.weights) {
    ASSERT_EQ(layer.size(), 4u);
    for (const Matrix& w : layer) {
      ASSERT_EQ(w.rows(), 7);
      for (int i = 0; i < 7; ++i) {
        EXPECT_NEAR(w.row(i).sum(), 1.0f, 1e-5f);
        for (int j = i + 1; j < 7; ++j) EXPECT_EQ(w(i, j), 0.0f) << "causal: no weight on a later word";
      }
    }
  }
  ASSERT_EQ(t.residual_norms.size(), 3u);
  ASSERT_EQ(t.lens_logits.size(), 3u);
  EXPECT_EQ(t.lens_logits.back(), t.logits) << "the lens after the last block is the model's output";
  EXPECT_FALSE(AllClose(t.lens_logits[0], t.logits, 0, 1e-3)) << "earlier layers say something else";
  const Matrix p = LmSoftmax(t.logits.row(3), 0.5f);
  EXPECT_NEAR(p.sum(), 1.0f, 1e-5f);
}

// A trace of the last positions only (a long text's view): the same pass, so the weights among the
// traced positions and the norms are the full trace's bits; the logits and lens are read out on
// those rows alone (each row's products the same, summed in the same order: 1e-6 covers a kernel
// that blocks the rows differently). Both learned positions and RoPE; a position outside ids refused.
TEST(LmTrace, TracedFromGivesTheFullTracesLastRows) {
  for (Positions positions : {Positions::kLearned, Positions::kRope}) {
    const LmModel m = SmallModel(positions);
    const std::vector<int> ids = Sentence(13, m.config.vocab);
    LmCache cache, part_cache;
    LmTrace full, part;
    ASSERT_TRUE(LmAdvance(m, ids, LmAblation(), true, &cache, &full).ok());
    const int from = 9, t = 13 - from;
    ASSERT_TRUE(LmAdvance(m, ids, LmAblation(), true, &part_cache, &part, from).ok());
    EXPECT_EQ(part_cache.key, cache.key) << "every position is in the cache";
    ASSERT_EQ(part.weights.size(), full.weights.size());
    for (size_t l = 0; l < full.weights.size(); ++l)
      for (size_t h = 0; h < full.weights[l].size(); ++h)
        EXPECT_EQ(part.weights[l][h], Matrix(full.weights[l][h].bottomRightCorner(t, t))) << l << "." << h;
    ASSERT_EQ(part.residual_norms.size(), full.residual_norms.size());
    for (size_t l = 0; l < full.residual_norms.size(); ++l)
      EXPECT_EQ(part.residual_norms[l], std::vector<float>(full.residual_norms[l].begin() + from, full.residual_norms[l].end()));
    ASSERT_EQ(part.logits.rows(), t);
    EXPECT_TRUE(AllClose(part.logits, full.logits.bottomRows(t), 1e-6, 1e-6));
    ASSERT_EQ(part.lens_logits.size(), full.lens_logits.size());
    for (size_t l = 0; l < full.lens_logits.size(); ++l)
      EXPECT_TRUE(AllClose(part.lens_logits[l], full.lens_logits[l].bottomRows(t), 1e-6, 1e-6)) << l;
    LmCache unchanged;
    EXPECT_EQ(LmAdvance(m, ids, LmAblation(), false, &unchanged, &part, 13).code(), StatusCode::kOutOfRange);
    EXPECT_EQ(LmAdvance(m, ids, LmAblation(), false, &unchanged, &part, -1).code(), StatusCode::kOutOfRange);
    EXPECT_EQ(unchanged.length(), 0);
  }
}

TEST(LmAblation, ZeroingAHeadChangesOnlyWhatComesAfterIt) {
  const LmModel m = SmallModel(Positions::kLearned);
  const std::vector<int> ids = Sentence(8, m.config.vocab);
  LmCache a, b;
  LmTrace base, knocked;
  ASSERT_TRUE(LmAdvance(m, ids, LmAblation(), true, &a, &base).ok());
  LmAblation ablation;
  ablation.heads = {{1, 2}};
  ASSERT_TRUE(LmAdvance(m, ids, ablation, true, &b, &knocked).ok());
  EXPECT_EQ(knocked.lens_logits[1], base.lens_logits[1]) << "block 1 runs before the knocked head";
  EXPECT_EQ(knocked.weights[1][2], base.weights[1][2]) << "its weights are what they were; its output is gone";
  EXPECT_FALSE(AllClose(knocked.logits, base.logits, 0, 1e-4));
  ablation.heads = {{2, 0}};
  EXPECT_EQ(LmAdvance(m, ids, ablation, false, &b, &knocked).code(), StatusCode::kOutOfRange);
  ablation.heads = {{0, 4}};
  EXPECT_EQ(LmAdvance(m, ids, ablation, false, &b, &knocked).code(), StatusCode::kOutOfRange);
}

// Means L × h × d_k, every float `value`.
std::vector<std::vector<std::vector<float>>> Means(const LmConfig& c, float value) {
  return std::vector<std::vector<std::vector<float>>>(
      static_cast<size_t>(c.layers),
      std::vector<std::vector<float>>(static_cast<size_t>(c.heads), std::vector<float>(static_cast<size_t>(c.d_model / c.heads), value)));
}

TEST(LmAblation, MeanAblationPutsTheGivenVectorInTheHeadsPlace) {
  const LmModel m = SmallModel(Positions::kRope);
  const std::vector<int> ids = Sentence(8, m.config.vocab);
  LmCache cache;
  LmTrace base, zero, zero_with_means, mean;
  ASSERT_TRUE(LmAdvance(m, ids, LmAblation(), false, &cache, &base).ok());
  LmAblation ablation;
  ablation.heads = {{1, 2}};
  cache = LmCache();
  ASSERT_TRUE(LmAdvance(m, ids, ablation, false, &cache, &zero).ok());
  ablation.means = Means(m.config, 0.5f);
  cache = LmCache();
  ASSERT_TRUE(LmAdvance(m, ids, ablation, false, &cache, &zero_with_means).ok());
  EXPECT_EQ(zero_with_means.logits, zero.logits) << "mode zero ignores the means";
  ablation.mode = LmAblationMode::kMean;
  cache = LmCache();
  ASSERT_TRUE(LmAdvance(m, ids, ablation, false, &cache, &mean).ok());
  EXPECT_FALSE(AllClose(mean.logits, zero.logits, 0, 1e-4)) << "a mean of 0.5 is not zero";
  EXPECT_FALSE(AllClose(mean.logits, base.logits, 0, 1e-4));
  ablation.means = Means(m.config, 0.0f);
  cache = LmCache();
  ASSERT_TRUE(LmAdvance(m, ids, ablation, false, &cache, &mean).ok());
  EXPECT_EQ(mean.logits, zero.logits) << "a zero mean is zero ablation";
}

// A head whose values are its bias alone outputs that bias at every position (its weights sum to
// 1): replacing it by that vector changes nothing but rounding.
TEST(LmAblation, MeanAblationByTheHeadsOwnConstantOutputChangesNothing) {
  LmModel m = SmallModel(Positions::kLearned);
  const int d_k = m.config.d_model / m.config.heads;
  AttentionParameters& a = m.params.blocks[1].attention;
  a.wv.middleCols(2 * d_k, d_k).setZero();
  const std::vector<int> ids = Sentence(8, m.config.vocab);
  LmCache cache;
  LmTrace base, mean;
  ASSERT_TRUE(LmAdvance(m, ids, LmAblation(), false, &cache, &base).ok());
  LmAblation ablation;
  ablation.heads = {{1, 2}};
  ablation.mode = LmAblationMode::kMean;
  ablation.means = Means(m.config, 0.0f);
  for (int k = 0; k < d_k; ++k) ablation.means[1][2][static_cast<size_t>(k)] = a.bv(0, 2 * d_k + k);
  cache = LmCache();
  ASSERT_TRUE(LmAdvance(m, ids, ablation, false, &cache, &mean).ok());
  EXPECT_TRUE(AllClose(mean.logits, base.logits, 0, 1e-5));
  ablation.mode = LmAblationMode::kZero;
  cache = LmCache();
  ASSERT_TRUE(LmAdvance(m, ids, ablation, false, &cache, &mean).ok());
  EXPECT_FALSE(AllClose(mean.logits, base.logits, 0, 1e-4)) << "zeroing the same head does change the output";
}

TEST(LmAblation, MeanAblationRefusesMeansOfTheWrongShape) {
  const LmModel m = SmallModel(Positions::kLearned);
  const std::vector<int> ids = Sentence(8, m.config.vocab);
  LmAblation ablation;
  ablation.heads = {{1, 2}};
  ablation.mode = LmAblationMode::kMean;
  LmCache cache;
  LmTrace t;
  const auto message = [&](StatusCode code) {
    const Status s = LmAdvance(m, ids, ablation, false, &cache, &t);
    EXPECT_EQ(s.code(), code) << s.message();
    EXPECT_EQ(cache.length(), 0) << "a refused call leaves the cache as it was";
    return s.message();
  };
  EXPECT_NE(message(StatusCode::kShapeMismatch).find("means: expected 2 layers"), std::string::npos);
  ablation.means = Means(m.config, 0.1f);
  ablation.means[1].pop_back();
  EXPECT_NE(message(StatusCode::kShapeMismatch).find("means[1]: expected 4 heads, got 3"), std::string::npos);
  ablation.means = Means(m.config, 0.1f);
  ablation.means[0][3].pop_back();
  EXPECT_NE(message(StatusCode::kShapeMismatch).find("means[0][3]: expected 4 floats (d_k), got 3"), std::string::npos);
  ablation.means = Means(m.config, 0.1f);
  ablation.means[1][0][2] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_NE(message(StatusCode::kOutOfRange).find("means[1][0][2]: expected a finite float"), std::string::npos);
}

TEST(LmGenerate, SameSeedSameWordsThroughTheCache) {
  const LmModel m = SmallModel(Positions::kLearned);
  LmGenerateConfig g;
  g.tokens = 12;
  std::vector<LmGenerated> a, b, c, greedy;
  ASSERT_TRUE(LmGenerate(m, {1, 2, 3}, g, &a).ok());
  ASSERT_TRUE(LmGenerate(m, {1, 2, 3}, g, &b).ok());
  g.seed = 2;
  ASSERT_TRUE(LmGenerate(m, {1, 2, 3}, g, &c).ok());
  ASSERT_EQ(a.size(), 12u);
  bool differs = false;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].id, b[i].id);
    EXPECT_EQ(a[i].p, b[i].p);
    EXPECT_EQ(a[i].cache_length, static_cast<int>(3 + i));
    EXPECT_NE(a[i].id, m.config.vocab - 1) << "the unknown word is never generated";
    differs |= a[i].id != c[i].id;
  }
  EXPECT_TRUE(differs) << "another seed, other words";
  // Greedy: each word is the most probable one (but the unknown word) after the words before it,
  // checked by a full recomputation without the cache.
  g.temperature = 0;
  ASSERT_TRUE(LmGenerate(m, {4}, g, &greedy).ok());
  std::vector<int> sentence = {4};
  for (const LmGenerated& w : greedy) {
    LmCache fresh;
    LmTrace t;
    ASSERT_TRUE(LmAdvance(m, sentence, LmAblation(), false, &fresh, &t).ok());
    Matrix last = t.logits.bottomRows(1);
    const Matrix p = LmSoftmax(last);
    last(0, m.config.vocab - 1) = -std::numeric_limits<float>::infinity();
    Eigen::Index best = 0;
    last.row(0).maxCoeff(&best);
    EXPECT_EQ(w.id, best);
    EXPECT_NEAR(w.p, p(0, best), 1e-5);
    sentence.push_back(w.id);
  }
}

// exclude_unknown where the unknown word dominates: its output bias +50 puts nearly all the
// probability on it at every step (checked), so greedy and sampled generation choose it on every
// word when allowed (exclude_unknown false, a checkpoint's last id being a real token), and never
// when excluded — the rest then keep their ratios, so greedy takes the best of the others.
TEST(LmGenerate, ExcludeUnknownNeverChoosesTheLastIdEvenWhereItDominates) {
  LmModel m = SmallModel(Positions::kLearned);
  const int unknown = m.config.vocab - 1;
  m.params.out_b(0, unknown) += 50.0f;
  for (const float temperature : {0.0f, 0.8f}) {
    LmGenerateConfig g;
    g.tokens = 8;
    g.temperature = temperature;
    std::vector<LmGenerated> excluded, allowed;
    ASSERT_TRUE(LmGenerate(m, {1, 2}, g, &excluded).ok());
    g.exclude_unknown = false;
    ASSERT_TRUE(LmGenerate(m, {1, 2}, g, &allowed).ok());
    ASSERT_EQ(excluded.size(), 8u);
    ASSERT_EQ(allowed.size(), 8u);
    for (size_t i = 0; i < 8; ++i) {
      EXPECT_NE(excluded[i].id, unknown) << "temperature " << temperature << ", word " << i;
      EXPECT_LT(excluded[i].p, 1e-6f) << "the word chosen instead has almost none of the probability";
      EXPECT_EQ(allowed[i].id, unknown) << "temperature " << temperature << ", word " << i;
      EXPECT_GT(allowed[i].p, 0.999f) << "the unknown word is the most probable";
    }
  }
}

TEST(LmGenerate, RefusesBadArgumentsWithClearMessages) {
  const LmModel m = SmallModel(Positions::kLearned);
  std::vector<LmGenerated> out;
  LmGenerateConfig g;
  EXPECT_EQ(LmGenerate(m, {}, g, &out).code(), StatusCode::kInvalidArgument);
  g.tokens = 14;
  const Status s = LmGenerate(m, {1, 2, 3}, g, &out);
  EXPECT_EQ(s.message(), "lm: tokens: expected 1–13 (the context less the prompt), got 14");
  g.tokens = 2;
  g.temperature = -1;
  EXPECT_EQ(LmGenerate(m, {1}, g, &out).code(), StatusCode::kOutOfRange);
  g.temperature = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(LmGenerate(m, {1}, g, &out).code(), StatusCode::kOutOfRange);
  g.temperature = 1;
  EXPECT_EQ(LmGenerate(m, {40}, g, &out).code(), StatusCode::kOutOfRange) << "an id past the vocabulary";
  LmModel broken = m;
  broken.params.blocks[1].fc_w.resize(3, 3);
  const Status shape = LmGenerate(broken, {1}, g, &out);
  EXPECT_EQ(shape.message(), "lm: block2.fc_w: expected (16, 64), got (3, 3)");
}

TEST(LmWordIndex, UnknownWordsMapToTheLastId) {
  const LmWordIndex index({"the", "jury", kLmUnknownWord});
  EXPECT_EQ(index.Id("the"), 0);
  EXPECT_EQ(index.Id("jury"), 1);
  EXPECT_EQ(index.Id("zebra"), 2);
  EXPECT_EQ(index.Id(kLmUnknownWord), 2);
}

// [SECTION] Training
std::vector<int> ToyStream(int vocab) {
  // Each word is the one before it + 7 (mod vocab), but one in ten is random: learnable, not trivial.
  SeededRandom rng(4);
  std::vector<int> s;
  for (int i = 0; i < 3000; ++i) s.push_back(rng.Below(10) == 0 ? static_cast<int>(rng.Below(vocab)) : (i * 7) % vocab);
  return s;
}

LmTrainConfig ToyConfig() {
  LmTrainConfig c;
  c.model = SmallModel(Positions::kLearned).config;
  c.batch_size = 4;
  c.steps = 150;
  c.warmup_steps = 5;
  c.optimizer.learning_rate = 1e-2f;
  return c;
}

// On the default kernel (Eigen) and on the fastest (the bench's): the same bytes twice.
TEST(LmTrainer, TwoTrainingsGiveTheSameBytes) {
  for (KernelId kernel : {KernelId::kEigen, FastestKernel()}) {
    LmTrainConfig c = ToyConfig();
    c.model.kernel = kernel;
    const std::vector<int> stream = ToyStream(c.model.vocab);
    std::string bytes[2];
    for (std::string& out : bytes) {
      LmTrainer t;
      ASSERT_TRUE(t.Init(c, &stream).ok());
      for (int i = 0; i < 6; ++i) ASSERT_TRUE(t.Step(nullptr).ok());
      LmModel m = SmallModel(Positions::kLearned);
      m.params = t.parameters();
      ASSERT_TRUE(WriteLmAsset(m, &out).ok());
    }
    EXPECT_EQ(bytes[0], bytes[1]) << KernelName(kernel);
  }
}

TEST(LmTrainer, LearnsAPatternAndBeatsTheBigram) {
  const LmTrainConfig c = ToyConfig();
  const std::vector<int> stream = ToyStream(c.model.vocab);
  LmTrainer t;
  ASSERT_TRUE(t.Init(c, &stream).ok());
  LmStepStats first, last;
  ASSERT_TRUE(t.Step(&first).ok());
  for (int i = 1; i < c.steps; ++i) ASSERT_TRUE(t.Step(&last).ok());
  EXPECT_LT(last.loss, first.loss - 1.0f);
  LmScore model;
  ASSERT_TRUE(LmEvaluate(t.config().model, t.parameters(), stream, 8, &model).ok());
  EXPECT_EQ(model.tokens, 2999) << "every token but the first, once";
  NgramBaselines baselines;
  LmScore unigram, bigram;
  ASSERT_TRUE(baselines.Fit(stream, c.model.vocab).ok());
  ASSERT_TRUE(baselines.Score(stream, &unigram, &bigram).ok());
  EXPECT_EQ(bigram.tokens, model.tokens);
  EXPECT_LT(bigram.perplexity(), unigram.perplexity());
}

TEST(LmTrainer, RefusesBadConfigsAndStreams) {
  LmTrainConfig c = ToyConfig();
  std::vector<int> stream = ToyStream(c.model.vocab);
  LmTrainer t;
  EXPECT_EQ(t.Step(nullptr).code(), StatusCode::kInvalidArgument) << "Step before Init";
  stream[17] = 40;
  Status s = t.Init(c, &stream);
  EXPECT_EQ(s.message(), "lm: tokens[17]: expected an id in [0, 40), got 40");
  const std::vector<int> short_stream(17, 1);
  EXPECT_EQ(t.Init(c, &short_stream).code(), StatusCode::kInvalidArgument);
  c.warmup_steps = c.steps + 1;
  stream[17] = 1;
  EXPECT_EQ(t.Init(c, &stream).code(), StatusCode::kOutOfRange);
}

TEST(LmTrainer, ScheduleWarmsUpThenDecaysToItsFloor) {
  LmTrainConfig c = ToyConfig();
  c.optimizer.learning_rate = 1.0f;
  c.steps = 105;
  c.warmup_steps = 5;
  EXPECT_FLOAT_EQ(LmLearningRate(c, 0), 0.2f);
  EXPECT_FLOAT_EQ(LmLearningRate(c, 4), 1.0f);
  EXPECT_FLOAT_EQ(LmLearningRate(c, 5), 1.0f);
  EXPECT_NEAR(LmLearningRate(c, 55), 0.55f, 1e-6);
  EXPECT_NEAR(LmLearningRate(c, 104), 0.1f, 1e-3);
}

TEST(LmWindowStarts, EveryTokenButTheFirstIsPredictedOnce) {
  EXPECT_EQ(LmWindowStarts(10, 4), (std::vector<int64_t>{0, 4, 8}));  // predicts 1–4, 5–8, 9
  EXPECT_EQ(LmWindowStarts(9, 4), (std::vector<int64_t>{0, 4}));      // predicts 1–4, 5–8
  EXPECT_TRUE(LmWindowStarts(1, 4).empty());
}

TEST(NgramBaselines, KneserNeyIsADistributionForEveryContext) {
  const std::vector<int> stream = ToyStream(12);
  NgramBaselines b;
  ASSERT_TRUE(b.Fit(stream, 12).ok());
  EXPECT_GT(b.discount(), 0);
  EXPECT_LT(b.discount(), 1);
  double unigram = 0;
  for (int v = 0; v < 12; ++v) {
    double sum = 0;
    for (int w = 0; w < 12; ++w) {
      EXPECT_GT(b.Bigram(v, w), 0);
      sum += b.Bigram(v, w);
    }
    EXPECT_NEAR(sum, 1.0, 1e-12) << "context " << v;
    unigram += b.Unigram(v);
  }
  EXPECT_NEAR(unigram, 1.0, 1e-12);
  EXPECT_EQ(b.Fit({1, 12}, 12).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(b.Fit({1}, 12).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace attn::train
