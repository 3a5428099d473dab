// The language model's asset format (attn/train/lm_asset.h): what is written reads back as
// QuantizeLm's values, exactly; every malformed file is refused with a status, never a crash.
#include <gtest/gtest.h>

#include <string>

#include "attn/train/lm_asset.h"
#include "train/lm_test_model.h"

namespace attn::train {
namespace {

LmModel Seeded(Positions positions) {
  LmConfig c;
  c.vocab = 30;
  c.seq_len = 8;
  c.d_model = 8;
  c.layers = 2;
  c.heads = 2;
  c.positions = positions;
  return testing::SeededLm(c, 2, 0.1f);
}

TEST(LmAsset, ReadsBackTheQuantisedModelExactly) {
  for (const Positions positions : {Positions::kLearned, Positions::kRope}) {
    const LmModel m = Seeded(positions);
    std::string bytes;
    ASSERT_TRUE(WriteLmAsset(m, &bytes).ok());
    EXPECT_EQ(bytes.size() % 4, 0u);
    LmModel back;
    ASSERT_TRUE(ReadLmAsset(bytes, &back).ok());
    EXPECT_EQ(back.config.vocab, 30);
    EXPECT_EQ(back.config.positions, positions);
    EXPECT_EQ(back.vocabulary, m.vocabulary);
    const ModelParameters q = QuantizeLm(m.params);
    ForEachParameterPair(q, back.params, [&](const std::string& name, const Matrix& want, const Matrix& got) {
      EXPECT_EQ(want, got) << name;
      // int8 with per-row scales: each value within half a step, max|row| / 254, of the float one.
    });
    ForEachParameterPair(m.params, back.params, [&](const std::string& name, const Matrix& f, const Matrix& got) {
      for (Eigen::Index r = 0; r < f.rows(); ++r) {
        const float half_step = f.rows() > 1 ? f.row(r).cwiseAbs().maxCoeff() / 254.0f * 1.0001f : 0.0f;
        EXPECT_LE((f.row(r) - got.row(r)).cwiseAbs().maxCoeff(), half_step) << name << " row " << r;
      }
    });
    std::string again;
    ASSERT_TRUE(WriteLmAsset(back, &again).ok());
    EXPECT_EQ(again, bytes) << "quantising quantised values changes nothing";
  }
}

TEST(LmAsset, RefusesEveryTruncationAndCorruption) {
  const LmModel m = Seeded(Positions::kLearned);
  std::string bytes;
  ASSERT_TRUE(WriteLmAsset(m, &bytes).ok());
  LmModel out;
  for (size_t n = 0; n < bytes.size(); n += 1 + n / 50)
    EXPECT_EQ(ReadLmAsset(std::string_view(bytes.data(), n), &out).code(), StatusCode::kParseError) << n << " bytes";
  EXPECT_EQ(ReadLmAsset(bytes + "xxxx", &out).message().rfind("lm asset: trailing bytes: 4", 0), 0u);
  std::string bad = bytes;
  bad[7] = '2';
  EXPECT_EQ(ReadLmAsset(bad, &out).message(), "lm asset: expected the magic \"ATTNLM01\" (at byte 8)");
  bad = bytes;
  bad[8 + 4 * 3] = 0;  // layers 0
  EXPECT_EQ(ReadLmAsset(bad, &out).message(), "lm asset: lm: layers: expected 1–48, got 0 (at byte 36)");
  bad = bytes;
  bad[8 + 4 * 5] = 2;  // sinusoidal positions
  EXPECT_EQ(ReadLmAsset(bad, &out).code(), StatusCode::kParseError);
  bad = bytes;
  bad[8 + 4 * 2] = 16;  // d_model 16 (and its MLP width 64): wte's shape no longer matches
  bad[8 + 4 * 6] = 64;
  const Status s = ReadLmAsset(bad, &out);
  EXPECT_NE(s.message().find("wte: expected (30, 16), got (30, 8)"), std::string::npos) << s.message();
  LmModel wrong = m;
  wrong.vocabulary[3] = "two\nwords";
  EXPECT_EQ(WriteLmAsset(wrong, &bytes).code(), StatusCode::kInvalidArgument);
  wrong = m;
  wrong.params.blocks[0].attention.wq.resize(2, 2);
  EXPECT_EQ(WriteLmAsset(wrong, &bytes).message(), "lm: block1.attention.wq: expected (8, 8), got (2, 2)");
}

}  // namespace
}  // namespace attn::train
