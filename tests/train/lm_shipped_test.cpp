// The shipped language model (web/assets/lm-brown.bin): it loads, its held-out perplexity on the
// committed sample is the one scripts/build-lm.mjs printed, and its logits equal an independent
// PyTorch implementation's (tests/torch/lm_reference.py, float64, the same weights) within the
// float32 bound derived below. tests/data/lm-brown-torch-logits.txt is that script's output,
// committed so this runs without torch; the ctest lm.torch_regenerate re-runs the script where torch
// is and points ATTN_LM_TORCH_LOGITS at its fresh output.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "attn/train/lm_asset.h"
#include "attn/train/lm_inference.h"
#include "attn/train/lm_trainer.h"
#include "lessons/asset.h"

namespace attn::train {
namespace {

// The sample: one window of words a line, "#" lines skipped.
std::vector<std::vector<std::string>> ReadWindows(const std::string& path) {
  std::ifstream file(path);
  std::vector<std::vector<std::string>> windows;
  for (std::string line; std::getline(file, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    windows.emplace_back();
    for (std::string w; words >> w;) windows.back().push_back(w);
  }
  return windows;
}

LmModel Shipped() {
  LmModel m;
  const Status s = ReadLmAsset(lessons::testing::ReadAsset("lm-brown.bin"), &m);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return m;
}

std::vector<int> Ids(const LmModel& m, const std::vector<std::string>& words) {
  const LmWordIndex index(m.vocabulary);
  std::vector<int> ids;
  for (const std::string& w : words) ids.push_back(index.Id(w));
  return ids;
}

// What scripts/build-lm.mjs printed for the sample ("sample ...: stored model perplexity").
constexpr double kSamplePerplexity = 74.4838;

TEST(ShippedLm, HeldOutSamplePerplexityIsTheOneTheBuildPrinted) {
  const LmModel m = Shipped();
  ASSERT_EQ(m.config.vocab, 4096);
  ASSERT_EQ(m.config.layers, 4);
  ASSERT_EQ(m.config.heads, 4);
  ASSERT_EQ(m.config.d_model, 128);
  ASSERT_EQ(m.config.seq_len, 64);
  // The windows overlap by one word: the stream is the first window, then each next one's tail.
  std::vector<int> stream;
  for (const auto& window : ReadWindows(std::string(ATTN_TEST_DATA_DIR) + "/lm-brown-held-out-sample.txt")) {
    const std::vector<int> ids = Ids(m, window);
    stream.insert(stream.end(), ids.begin() + (stream.empty() ? 0 : 1), ids.end());
  }
  ASSERT_EQ(stream.size(), 4097u);
  LmScore score;
  ASSERT_TRUE(LmEvaluate(m.config, m.params, stream, 16, &score).ok());
  EXPECT_EQ(score.tokens, 4096);
  EXPECT_NEAR(score.perplexity(), kSamplePerplexity, 1e-3 * kSamplePerplexity);
}

TEST(ShippedLm, WritingItBackGivesTheSameBytes) {
  const std::string bytes = lessons::testing::ReadAsset("lm-brown.bin");
  std::string again;
  ASSERT_TRUE(WriteLmAsset(Shipped(), &again).ok());
  EXPECT_TRUE(again == bytes) << "the writer no longer gives the shipped layout (" << again.size() << " bytes against "
                              << bytes.size() << ")";
}

// [SECTION] Against PyTorch
// The bound. Torch runs in float64 on the asset's values (float32 numbers, exact in double), so its
// logits are the exact ones to ~1e-15 and the difference is attnlab's float32 rounding alone. With
// u = 2⁻²⁴ the unit roundoff, an inner product of k terms computed in float32 errs by at most
// k·u·Σ|terms| (Higham, Accuracy and Stability, Thm 3.1; FMA only lowers it). A logit depends on the
// input through a chain of such sums: per block the Q, K, V projections (k = d), the weighted sum of
// values (k = n ≤ 64), W_o (d), W_fc (d), W_proj (4d), i.e. 7d + n; then the final LayerNorm's mean
// and variance (2d) and the logit's own product (d): K = L(7d + n) + 3d = 4224 roundings at d = 128,
// L = 4. Every LayerNorm rescales its input to unit variance, so an error that enters the stream
// leaves each block no larger relative to the stream than it entered (to first order: a pre-LN
// block adds to the stream, it does not multiply it), and the logit's relative error stays below
// K·u ≈ 2.5e-4 of the magnitude of its terms, S_w = Σ_j |y_j W_wj| + |b_w| (y = LNf(x)). So
//   |Δ logit_w| ≤ K·u·S_w + 1e-6,   |Δ logsumexp| ≤ max_w K·u·S_w + 1e-6
// (logsumexp is a weighted mean of the logits' errors). The 1e-6 covers a logit whose terms cancel.
constexpr double kRoundings = 4 * (7 * 128 + 64) + 3 * 128;
constexpr double kUnitRoundoff = 5.9604644775390625e-08;  // 2⁻²⁴

TEST(ShippedLm, LogitsEqualAnIndependentPyTorchImplementationWithinTheFloat32Bound) {
  const LmModel m = Shipped();
  const auto windows = ReadWindows(std::string(ATTN_TEST_DATA_DIR) + "/lm-brown-held-out-sample.txt");
  const char* fresh = std::getenv("ATTN_LM_TORCH_LOGITS");
  std::ifstream golden(fresh ? std::string(fresh) : std::string(ATTN_TEST_DATA_DIR) + "/lm-brown-torch-logits.txt");
  ASSERT_TRUE(golden.good());
  std::string header;
  std::getline(golden, header);
  std::vector<int> probes;
  {
    std::istringstream h(header.substr(header.find("probes") + 6));
    for (int p; h >> p;) probes.push_back(p);
  }
  ASSERT_FALSE(probes.empty());
  int current = -1, rows = 0;
  LmActivations acts;
  Matrix bound_terms;  // (n, V) S_w per position
  double worst = 0, worst_ratio = 0;
  for (std::string line; std::getline(golden, line);) {
    std::istringstream in(line);
    int window = 0, t = 0, target = 0;
    double lse = 0, at_target = 0;
    in >> window >> t >> target >> lse >> at_target;
    if (window != current) {
      current = window;
      const std::vector<int> ids = Ids(m, windows.at(static_cast<size_t>(window)));
      Batch b;
      b.size = 1;
      b.seq_len = static_cast<int>(ids.size()) - 1;
      b.ids.assign(ids.begin(), ids.end() - 1);
      b.targets.assign(ids.begin() + 1, ids.end());
      b.weights.assign(b.ids.size(), 1.0f);
      ASSERT_TRUE(LmForward(m.config, m.params, b, &acts).ok());
      bound_terms = (acts.lnf.cwiseAbs() * m.params.wte.cwiseAbs().transpose()).rowwise() + m.params.out_b.cwiseAbs().row(0);
    }
    const auto check = [&](double got, double want, double terms) {
      const double bound = kRoundings * kUnitRoundoff * terms + 1e-6;
      worst = std::max(worst, std::fabs(got - want));
      worst_ratio = std::max(worst_ratio, std::fabs(got - want) / bound);
      EXPECT_LE(std::fabs(got - want), bound) << "window " << window << ", position " << t;
    };
    const Eigen::RowVectorXd row = acts.logits.row(t).cast<double>();
    const double max = row.maxCoeff();
    check(max + std::log((row.array() - max).exp().sum()), lse, bound_terms.row(t).maxCoeff());
    check(row(target), at_target, bound_terms(t, target));
    for (const int w : probes) {
      double want = 0;
      in >> want;
      check(row(w), want, bound_terms(t, w));
    }
    ++rows;
  }
  EXPECT_EQ(rows, 4 * 64);
  std::printf("[ torch    ] %d positions: largest |attnlab - torch| %.3e, at most %.3f of its bound\n", rows, worst,
              worst_ratio);
}

}  // namespace
}  // namespace attn::train
