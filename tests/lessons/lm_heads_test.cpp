// The language model's heads (lessons/lm_heads.h): the committed table web/assets/lm-brown-heads.txt
// read back (shape, ranges, the same bytes written again), corrupt tables refused without a crash,
// its means driving mean ablation on the shipped model, the induction demo on the shipped model, and
// — where the prepared corpus is (node scripts/prepare-brown.mjs) — the table's attention
// statistics recomputed from the held-out text.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "attn/train/lm_asset.h"
#include "attn/train/corpus.h"
#include "lessons/lm_heads.h"

namespace lessons {
namespace {

namespace train = attn::train;

std::string ReadText(const std::string& path) {
  const std::vector<uint8_t> bytes = attn::train::ReadFile(path);
  return std::string(bytes.begin(), bytes.end());
}

const std::string& HeadsText() {
  static const std::string text = ReadText(std::string(ATTN_ASSET_DIR) + "/lm-brown-heads.txt");
  return text;
}

const train::LmModel& Shipped() {
  static const train::LmModel model = [] {
    train::LmModel m;
    const std::string bytes = ReadText(std::string(ATTN_ASSET_DIR) + "/lm-brown.bin");
    EXPECT_TRUE(train::ReadLmAsset(bytes, &m).ok());
    return m;
  }();
  return model;
}

TEST(LmHeads, CommittedTableReadsBackWithTheModelsShape) {
  ASSERT_FALSE(HeadsText().empty()) << "web/assets/lm-brown-heads.txt";
  LmHeadTable t;
  const Status s = ReadLmHeads(HeadsText(), &t);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const train::LmConfig& c = Shipped().config;
  EXPECT_EQ(t.layers, c.layers);
  EXPECT_EQ(t.heads, c.heads);
  EXPECT_EQ(t.d_k, c.d_model / c.heads);
  EXPECT_EQ(t.tokens, static_cast<int64_t>(t.windows) * c.seq_len);
  EXPECT_TRUE(t.ablated);
  EXPECT_GT(std::exp(t.nll), 20.0);  // the model's held-out perplexity: far below 4096, far above 1
  EXPECT_LT(std::exp(t.nll), 200.0);
  ASSERT_EQ(t.stats.size(), static_cast<size_t>(c.layers * c.heads));
  for (size_t k = 0; k < t.stats.size(); ++k) {
    const LmHeadStats& h = t.stats[k];
    EXPECT_EQ(h.layer, static_cast<int>(k) / c.heads + 1);
    EXPECT_EQ(h.head, static_cast<int>(k) % c.heads + 1);
    for (const float share : {h.previous, h.first, h.itself, h.tag_share}) EXPECT_TRUE(share >= 0 && share <= 1);
    EXPECT_LE(h.previous + h.first + h.itself, 1.0f + 3e-4f) << "disjoint keys (t ≥ 2 in most queries)";
    EXPECT_TRUE(h.induction == -1.0f || (h.induction >= 0 && h.induction <= 1));
    EXPECT_FALSE(h.query_tag.empty());
    EXPECT_GT(h.tag_lift, 1.0f) << "the favoured pair is above chance";
    EXPECT_TRUE(std::isfinite(h.zero_delta_nll) && std::isfinite(h.mean_delta_nll));
    ASSERT_EQ(h.mean_output.size(), static_cast<size_t>(t.d_k));
    EXPECT_EQ(h.text.rfind("head " + std::to_string(h.layer) + "." + std::to_string(h.head) + " ", 0), 0u) << h.text;
    EXPECT_NE(h.text.find("held-out perplexity"), std::string::npos) << h.text;
  }
  std::string again;
  ASSERT_TRUE(WriteLmHeads(t, &again).ok());
  EXPECT_EQ(again, HeadsText()) << "reading and writing gives the same bytes";
}

TEST(LmHeads, CorruptTablesAreRefusedNeverACrash) {
  const std::string& good = HeadsText();
  ASSERT_FALSE(good.empty());
  LmHeadTable t;
  // Every prefix (the last newline is what ends the last line): refused.
  for (size_t n = 0; n + 1 < good.size(); n += 7)
    EXPECT_EQ(ReadLmHeads(std::string_view(good).substr(0, n), &t).code(), StatusCode::kParseError) << n;
  // Bytes changed anywhere: parsed or refused, never anything else.
  for (size_t i = 0; i < good.size(); i += 3)
    for (const char b : {'\0', '9', '-', ' ', '\n', 'x', '\xff'}) {
      std::string bad = good;
      bad[i] = b;
      const Status s = ReadLmHeads(bad, &t);
      EXPECT_TRUE(s.ok() || s.code() == StatusCode::kParseError) << i;
    }
  const auto message = [&](const std::string& from, const std::string& to) {
    std::string bad = good;
    const size_t at = bad.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    bad.replace(at, from.size(), to);
    const Status s = ReadLmHeads(bad, &t);
    EXPECT_EQ(s.code(), StatusCode::kParseError);
    return s.message();
  };
  EXPECT_NE(message("attnlab-lm-heads 1", "attnlab-lm-heads 2").find("line 1: header"), std::string::npos);
  EXPECT_NE(message("shape 4 4 32", "shape 4 4 31").find("line 5: mean: expected 34 fields"), std::string::npos);
  EXPECT_NE(message("shape 4 4 32", "shape 99 4 32").find("line 2: layers: expected an integer in [1, 12]"), std::string::npos);
  EXPECT_NE(message("head 1 1 0.", "head 1 1 1.").find("line 4: previous: expected a number in [0, 1]"), std::string::npos);
  EXPECT_NE(message("head 1 1 0", "head 1 1 nan").find("previous"), std::string::npos);
  EXPECT_NE(message("head 1 2 ", "head 1 3 ").find("line 6: record"), std::string::npos);
  EXPECT_NE(message("mean 4 4 ", "extra\nmean 4 4 ").find("lines"), std::string::npos);
  EXPECT_EQ(ReadLmHeads(good + "\n", &t).code(), StatusCode::kParseError) << "an extra line";
}

TEST(LmHeads, TheTablesMeansDriveMeanAblationOnTheShippedModel) {
  LmHeadTable t;
  ASSERT_TRUE(ReadLmHeads(HeadsText(), &t).ok());
  const train::LmModel& m = Shipped();
  const std::vector<int> ids = {1, 2, 3, 4, 5, 6, 7, 8};
  train::LmAblation ablation;
  ablation.heads = {{0, 0}};
  ablation.mode = train::LmAblationMode::kMean;
  ablation.means = LmHeadMeans(t);
  train::LmCache cache;
  train::LmTrace mean, zero;
  ASSERT_TRUE(train::LmAdvance(m, ids, ablation, false, &cache, &mean).ok());
  ablation.mode = train::LmAblationMode::kZero;
  cache = train::LmCache();
  ASSERT_TRUE(train::LmAdvance(m, ids, ablation, false, &cache, &zero).ok());
  EXPECT_GT((mean.logits - zero.logits).cwiseAbs().maxCoeff(), 1e-3f);
}

// The shipped model has no induction head: repeating 32 random words does not make the second time
// through easier, and no head looks at the word after the earlier copy (measured: the loss is about
// 11.5 nats both times, the best prefix-matching score about 0.01). Should a retrained model learn to
// copy, this test says so by failing, and the page's text (LmInduction::text) says it anyway.
TEST(LmInduction, TheShippedModelDoesNotCopyRepeatedRandomWords) {
  const train::LmModel& m = Shipped();
  const int heads = m.config.layers * m.config.heads;
  for (const uint32_t seed : {1u, 2u}) {
    LmInduction r;
    ASSERT_TRUE(ComputeLmInduction(m, 32, seed, &r).ok());
    ASSERT_EQ(r.ids.size(), 64u);
    EXPECT_TRUE(std::equal(r.ids.begin(), r.ids.begin() + 32, r.ids.begin() + 32));
    for (const int id : r.ids) EXPECT_TRUE(id >= 0 && id < m.config.vocab - 1) << "never <unk>";
    ASSERT_EQ(r.loss.size(), 63u);
    ASSERT_EQ(r.scores.size(), static_cast<size_t>(heads));
    ASSERT_EQ(r.ranked.size(), static_cast<size_t>(heads));
    for (size_t i = 1; i < r.ranked.size(); ++i) EXPECT_GE(r.scores[r.ranked[i - 1]], r.scores[r.ranked[i]]);
    EXPECT_GT(r.first_half, 8.0f) << "random words are hard to predict";
    EXPECT_GT(r.second_half, 0.9f * r.first_half) << "no copying: the second time is not much easier";
    EXPECT_LT(r.scores[r.ranked[0]], 0.1f) << "no head looks at the word after the earlier copy";
    EXPECT_NE(r.text.find("not learned to copy"), std::string::npos) << r.text;
  }
  LmInduction a, b, c;
  ASSERT_TRUE(ComputeLmInduction(m, 10, 7, &a).ok());
  ASSERT_TRUE(ComputeLmInduction(m, 10, 7, &b).ok());
  ASSERT_TRUE(ComputeLmInduction(m, 10, 8, &c).ok());
  EXPECT_EQ(a.ids, b.ids);
  EXPECT_EQ(a.loss, b.loss);
  EXPECT_EQ(a.scores, b.scores);
  EXPECT_NE(a.ids, c.ids);
  for (const int bad : {1, 33, -4}) {
    const Status s = ComputeLmInduction(m, bad, 1, &a);
    EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
    EXPECT_NE(s.message().find("words_per_half: expected 2–32"), std::string::npos) << s.message();
  }
}

// The table's attention statistics and mean outputs recomputed from the held-out text (one forward a
// window; the ablation's 32 more a window are the tool's). Needs .cache/brown/brown-upos.bin.
TEST(LmHeads, RecomputedSharesMatchTheCommittedTable) {
  const std::vector<uint8_t> bytes = attn::train::ReadFile(std::string(ATTN_ASSET_DIR) + "/../../.cache/brown/brown-upos.bin");
  if (bytes.empty()) GTEST_SKIP() << "no prepared corpus (node scripts/prepare-brown.mjs)";
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "the held-out windows take minutes under AddressSanitizer";
#endif
  attn::train::Corpus corpus;
  ASSERT_TRUE(attn::train::ReadCorpus(bytes, &corpus).ok());
  LmHeadTable committed, fresh;
  ASSERT_TRUE(ReadLmHeads(HeadsText(), &committed).ok());
  LmHeadsConfig config;
  config.windows = committed.windows;
  config.ablate = false;
  ASSERT_TRUE(MeasureLmHeads(Shipped(), corpus, config, &fresh).ok());
  EXPECT_NEAR(fresh.nll, committed.nll, 1e-4);
  EXPECT_FALSE(fresh.ablated);
  ASSERT_EQ(fresh.stats.size(), committed.stats.size());
  for (size_t k = 0; k < fresh.stats.size(); ++k) {
    const LmHeadStats &a = fresh.stats[k], &b = committed.stats[k];
    EXPECT_NEAR(a.previous, b.previous, 2e-4) << k;
    EXPECT_NEAR(a.first, b.first, 2e-4) << k;
    EXPECT_NEAR(a.itself, b.itself, 2e-4) << k;
    EXPECT_NEAR(a.induction, b.induction, 2e-4) << k;
    EXPECT_EQ(a.query_tag, b.query_tag) << k;
    EXPECT_EQ(a.key_tag, b.key_tag) << k;
    EXPECT_NEAR(a.tag_share, b.tag_share, 2e-4) << k;
    for (int e = 0; e < fresh.d_k; ++e) EXPECT_NEAR(a.mean_output[e], b.mean_output[e], 1e-4) << k << " " << e;
    EXPECT_EQ(a.text.find("knocking"), std::string::npos) << "no ablation measured, none claimed";
  }
}

}  // namespace
}  // namespace lessons
