// Checkpoints (attn/train/lm_checkpoint.h): the committed GPT-2 / nanoGPT fixtures of
// tests/torch/gpt2_checkpoints.py (both namings, F32/F16/BF16) against that independent PyTorch
// GPT-2's logits; attnlab's writer read back; the dtype conversions; the bounded JSON parser; and
// hostile files, each refused with a message naming the tensor or field.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "attn/kernels.h"
#include "attn/train/bounded_json.h"
#include "attn/train/lm_checkpoint.h"
#include "attn/train/lm_inference.h"

namespace attn::train {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The fixtures' directory: ATTN_CHECKPOINT_DIR when the torch ctest regenerated them, else the committed ones.
std::string FixtureDir() {
  const char* fresh = std::getenv("ATTN_CHECKPOINT_DIR");
  return fresh ? fresh : std::string(ATTN_TEST_DATA_DIR) + "/checkpoints";
}

struct Golden {
  std::vector<std::vector<int>> ids;
  std::vector<Matrix> logits;  // per sequence (n, V)
};

Golden ReadGolden(const std::string& path, int vocab) {
  Golden g;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("ids ", 0) == 0) {
      std::vector<int> ids;
      std::stringstream s(line.substr(4));
      std::string id;
      while (std::getline(s, id, ',')) ids.push_back(std::stoi(id));
      Matrix m(static_cast<Eigen::Index>(ids.size()), vocab);
      for (Eigen::Index r = 0; r < m.rows(); ++r) {
        std::getline(in, line);
        std::stringstream row(line);
        double v = 0;
        for (int k = 0; k < vocab; ++k) row >> v, m(r, k) = static_cast<float>(v);
      }
      g.ids.push_back(ids);
      g.logits.push_back(m);
    }
  }
  return g;
}

// [SECTION] The fixtures against PyTorch
//
// The bound, for float32: the reference is float64 on the very weights the file holds (rounded to
// F16/BF16 before it ran, and those convert to float exactly), so the whole difference is our float32
// rounding. With u = 2⁻²⁴ ≈ 6.0e-8, a dot product of length K is off by at most γ_K Σ|aᵢbᵢ| ≈ K·u·Σ|aᵢbᵢ|
// (Higham, Accuracy and Stability, §3.1); the longest here is K = 4d = 64. A logit passes through
// 2 blocks × 6 such stages (LN, q|k|v, weights·v, c_proj, c_fc + GELU, c_proj) plus LN_f and the
// unembedding: 14 stages. That worst case (14 × 64 u) assumes every rounding error has the same
// sign; rounding errors behave as independent, and the probabilistic bound of Higham & Mary (SIAM
// J. Sci. Comput. 41(5), 2019) replaces K u by √K u with probability ≥ 1 − 10⁻⁶ or so: 14 × 8 u ≈
// 6.7e-6 relative to the terms' magnitudes. LayerNorm's 1/σ and the softmax amplify by at most ~10
// for these weights (γ ≈ 1 ± 0.2, scores O(1)). Bound: 10 × 14 × √64 × u × max(1, max |logit|) ≈
// 6.7e-5 × scale, ≈ 5e-4 here: 20 times tighter than the erf/tanh GELU difference
// (WrongSettingsAreSeen), 100 times looser than what we measure (printed below).
constexpr double kUnitRoundoff = 5.960464477539063e-8;
constexpr double kRelativeBound = 10 * 14 * 8 * kUnitRoundoff;

// BASE.config.json and BASE.safetensors read into *model.
::testing::AssertionResult ReadFixture(const std::string& base, LmModel* model, LmCheckpointInfo* info) {
  LmCheckpointOptions options;
  options.config_json = ReadFile(base + ".config.json");
  if (options.config_json.empty()) return ::testing::AssertionFailure() << base << ".config.json: missing or empty";
  const Status s = ReadLmCheckpoint(ReadFile(base + ".safetensors"), options, model, info);
  if (!s.ok()) return ::testing::AssertionFailure() << base << ": " << s.ToString();
  return ::testing::AssertionSuccess();
}

class CheckpointFixtureTest : public ::testing::TestWithParam<const char*> {};

TEST_P(CheckpointFixtureTest, LogitsEqualAnIndependentPyTorchGpt2WithinTheFloat32Bound) {
  const std::string base = FixtureDir() + "/" + GetParam();
  LmModel model;
  LmCheckpointInfo info;
  ASSERT_TRUE(ReadFixture(base, &model, &info));
  EXPECT_EQ(model.config.vocab, 97);
  EXPECT_EQ(model.config.layers, 2);
  EXPECT_EQ(model.config.heads, 4);
  const std::string name = GetParam();
  EXPECT_EQ(info.layout, name.rfind("gpt2", 0) == 0 ? "gpt2 (Conv1D)" : "nanogpt (Linear)");
  const Golden golden = ReadGolden(base + ".logits.txt", model.config.vocab);
  ASSERT_EQ(golden.ids.size(), 2u);
  double worst = 0, scale = 1;
  for (size_t i = 0; i < golden.ids.size(); ++i) {
    LmCache cache;
    LmTrace trace;
    ASSERT_TRUE(LmAdvance(model, golden.ids[i], LmAblation(), false, &cache, &trace).ok());
    ASSERT_EQ(trace.logits.rows(), golden.logits[i].rows());
    worst = std::max(worst, static_cast<double>((trace.logits - golden.logits[i]).cwiseAbs().maxCoeff()));
    scale = std::max(scale, static_cast<double>(golden.logits[i].cwiseAbs().maxCoeff()));
  }
  const double bound = kRelativeBound * scale;
  std::printf("[ checkpoint ] %-13s %-5s max |Δ logit| %.2e (bound %.2e, max |logit| %.1f)\n", GetParam(),
              info.dtype.c_str(), worst, bound, scale);
  EXPECT_LE(worst, bound);
}

// [SECTION] GPT-2 small's shapes (124 M parameters) against PyTorch: tests/checkpoint_124m_torch_test.cmake
// writes the checkpoint and its golden logits (tests/torch/gpt2_checkpoints.py --config 124m: GPT-2's
// initial scales, 64 ids) into a scratch directory and names it in ATTN_CHECKPOINT_124M_DIR; skipped
// without it (the files are ~550 MB, never committed).
//
// The bound, derived as above: the longest dot product is K = 4d = 3072 (√K ≈ 55.4); a logit passes
// through 12 blocks × 6 stages + LN_f + the unembedding = 74 stages; the same amplification allowance
// of 10. Bound: 10 × 74 × √3072 × u × max(1, max |logit|) ≈ 2.4e-3 × scale. Checked on the engine's
// portable products (kEigen, LmConfig's default) and on the fastest SIMD kernel (LmConfig::kernel,
// what the bench runs), whose rounding order differs.
constexpr double kRelativeBound124m = 10 * 74 * 55.43 * kUnitRoundoff;

TEST(Checkpoint124m, LogitsEqualAnIndependentPyTorchGpt2WithinTheFloat32Bound) {
  const char* dir = std::getenv("ATTN_CHECKPOINT_124M_DIR");
  if (!dir) GTEST_SKIP() << "ATTN_CHECKPOINT_124M_DIR not set (tests/checkpoint_124m_torch_test.cmake sets it)";
  for (const char* name : {"gpt2-124m-f32", "gpt2-124m-f16"}) {
    const std::string base = std::string(dir) + "/" + name;
    if (ReadFile(base + ".config.json").empty()) continue;  // the dtypes the script was asked for
    LmModel model;
    LmCheckpointInfo info;
    ASSERT_TRUE(ReadFixture(base, &model, &info));
    const LmConfig& c = model.config;  // vocab, layers, heads, d_model, context
    EXPECT_EQ(std::vector<int>({c.vocab, c.layers, c.heads, c.d_model, c.seq_len}), std::vector<int>({50257, 12, 12, 768, 1024}));
    EXPECT_EQ(info.parameters, 124439808 + 50257);  // GPT-2 small's, and attnlab's output bias (zeros)
    const Golden golden = ReadGolden(base + ".logits.txt", model.config.vocab);
    ASSERT_EQ(golden.ids.size(), 1u);
    const double scale = std::max(1.0, static_cast<double>(golden.logits[0].cwiseAbs().maxCoeff()));
    const double bound = kRelativeBound124m * scale;
    for (const KernelId kernel : {KernelId::kEigen, FastestKernel()}) {
      model.config.kernel = kernel;
      LmCache cache;
      LmTrace trace;
      ASSERT_TRUE(LmAdvance(model, golden.ids[0], LmAblation(), false, &cache, &trace).ok());
      ASSERT_EQ(trace.logits.rows(), golden.logits[0].rows());
      const double worst = (trace.logits - golden.logits[0]).cwiseAbs().maxCoeff();
      std::printf("[ checkpoint ] %-13s %-5s %-7s max |Δ logit| %.2e (bound %.2e, max |logit| %.2f)\n", name,
                  info.dtype.c_str(), KernelBuildName(kernel), worst, bound, scale);
      EXPECT_LE(worst, bound) << name << " on " << KernelBuildName(kernel);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CheckpointFixtureTest,
                         ::testing::Values("gpt2-f32", "gpt2-f16", "gpt2-bf16", "nanogpt-f32", "nanogpt-f16", "nanogpt-bf16"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

// The settings matter: the wrong activation or ε moves the logits beyond the bound (the test above can fail).
TEST(CheckpointFixture, WrongSettingsAreSeen) {
  const std::string base = FixtureDir() + "/gpt2-f16";  // erf GELU, ε 1e-6
  LmCheckpointOptions options;
  options.config_json = ReadFile(base + ".config.json");
  options.activation = "gelu_new";
  LmModel model;
  ASSERT_TRUE(ReadLmCheckpoint(ReadFile(base + ".safetensors"), options, &model).ok());
  const Golden golden = ReadGolden(base + ".logits.txt", 97);
  LmCache cache;
  LmTrace trace;
  ASSERT_TRUE(LmAdvance(model, golden.ids[0], LmAblation(), false, &cache, &trace).ok());
  const double wrong = (trace.logits - golden.logits[0]).cwiseAbs().maxCoeff();
  std::printf("[ checkpoint ] gpt2-f16 read with tanh GELU instead of erf: max |Δ logit| %.2e\n", wrong);
  EXPECT_GT(wrong, kRelativeBound * std::max(1.0f, golden.logits[0].cwiseAbs().maxCoeff()));
}

// [SECTION] Writing, read back
LmModel SmallModel(Positions positions) {
  LmModel m;
  m.config.vocab = 11;
  m.config.seq_len = 8;
  m.config.d_model = 12;
  m.config.layers = 2;
  m.config.heads = 3;
  m.config.positions = positions;
  if (positions == Positions::kRope) m.config.d_model = 12, m.config.heads = 2;
  m.config.activation = LmActivation::kGeluErf;
  m.config.layer_norm_eps = 3e-6;
  m.params = InitializeLm(m.config);
  for (int v = 0; v < m.config.vocab; ++v) m.params.out_b(0, v) = -0.5f + 0.1f * static_cast<float>(v);  // a non-zero output bias travels too
  m.params.blocks[1].attention.bk.setConstant(0.25f);
  for (int i = 0; i < m.config.vocab - 1; ++i) m.vocabulary.push_back("w\"ord" + std::to_string(i));
  m.vocabulary.push_back(kLmUnknownWord);
  return m;
}

class CheckpointRoundTripTest : public ::testing::TestWithParam<Positions> {};

TEST_P(CheckpointRoundTripTest, WrittenModelReadsBackWithIdenticalParametersAndLogits) {
  const LmModel m = SmallModel(GetParam());
  std::string bytes, config;
  ASSERT_TRUE(WriteLmCheckpoint(m, &bytes, &config).ok());
  LmCheckpointOptions options;
  options.config_json = config;
  LmModel back;
  LmCheckpointInfo info;
  const Status s = ReadLmCheckpoint(bytes, options, &back, &info);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(info.layout, "gpt2 (Conv1D)");
  EXPECT_EQ(info.dtype, "F32");
  EXPECT_EQ(back.config.positions, m.config.positions);
  EXPECT_EQ(back.config.layer_norm_eps, m.config.layer_norm_eps);
  EXPECT_EQ(back.config.activation, LmActivation::kGeluErf);
  EXPECT_EQ(back.vocabulary, m.vocabulary);
  int compared = 0;
  ForEachParameterPair(m.params, back.params, [&](const std::string& name, const Matrix& a, const Matrix& b) {
    EXPECT_TRUE(a.rows() == b.rows() && a.cols() == b.cols() && a == b) << name;
    ++compared;
  });
  EXPECT_GT(compared, 20);
  const std::vector<int> ids = {1, 4, 9, 10, 2};
  LmCache c1, c2;
  LmTrace t1, t2;
  ASSERT_TRUE(LmAdvance(m, ids, LmAblation(), false, &c1, &t1).ok());
  ASSERT_TRUE(LmAdvance(back, ids, LmAblation(), false, &c2, &t2).ok());
  EXPECT_TRUE(t1.logits == t2.logits);
}

INSTANTIATE_TEST_SUITE_P(Positions, CheckpointRoundTripTest, ::testing::Values(Positions::kLearned, Positions::kRope),
                         [](const ::testing::TestParamInfo<Positions>& info) {
                           return std::string(info.param == Positions::kRope ? "rope" : "learned");
                         });

TEST(CheckpointWriter, ConfigSaysRopeAndTheFileHasNoPositionTable) {
  std::string bytes, config;
  ASSERT_TRUE(WriteLmCheckpoint(SmallModel(Positions::kRope), &bytes, &config).ok());
  EXPECT_NE(config.find("\"attnlab_positions\": \"rope\""), std::string::npos) << config;
  EXPECT_NE(config.find("\"activation_function\": \"gelu\""), std::string::npos) << config;
  EXPECT_EQ(bytes.find("wpe.weight"), std::string::npos);
  LmModel bad = SmallModel(Positions::kLearned);
  bad.vocabulary[0] = "two\nlines";
  EXPECT_EQ(WriteLmCheckpoint(bad, &bytes, &config).code(), StatusCode::kInvalidArgument);
  bad = SmallModel(Positions::kLearned);
  bad.params.blocks.pop_back();
  EXPECT_EQ(WriteLmCheckpoint(bad, &bytes, &config).code(), StatusCode::kShapeMismatch);
  bad = SmallModel(Positions::kLearned);
  bad.vocabulary.pop_back();
  EXPECT_EQ(WriteLmCheckpoint(bad, &bytes, &config).code(), StatusCode::kShapeMismatch);
}

// A model without words (GPT-2's vocabulary, read with GPT-2's BPE) is written without
// "attnlab.vocabulary", and reads back as one without words: placeholders, the same parameters.
TEST(CheckpointWriter, NoWordsNoVocabularyEntry) {
  LmModel m = SmallModel(Positions::kLearned);
  m.vocabulary.clear();
  std::string bytes, config;
  ASSERT_TRUE(WriteLmCheckpoint(m, &bytes, &config).ok());
  EXPECT_EQ(bytes.find("attnlab.vocabulary"), std::string::npos);
  LmCheckpointOptions options;
  options.config_json = config;
  LmModel back;
  LmCheckpointInfo info;
  ASSERT_TRUE(ReadLmCheckpoint(bytes, options, &back, &info).ok());
  EXPECT_EQ(info.vocabulary, "placeholders");
  ASSERT_EQ(static_cast<int>(back.vocabulary.size()), m.config.vocab);
  EXPECT_EQ(back.vocabulary[3], "[3]");
  EXPECT_EQ(back.params.wte, m.params.wte);
}

// [SECTION] Dtypes
TEST(CheckpointDtypes, HalfAndBFloat16ConvertExactly) {
  EXPECT_EQ(HalfToFloat(0x3C00), 1.0f);
  EXPECT_EQ(HalfToFloat(0xC000), -2.0f);
  EXPECT_EQ(HalfToFloat(0x7BFF), 65504.0f);                  // the largest finite
  EXPECT_EQ(HalfToFloat(0x0001), std::ldexp(1.0f, -24));     // the smallest subnormal
  EXPECT_EQ(HalfToFloat(0x03FF), std::ldexp(1023.0f, -24));  // the largest subnormal
  EXPECT_EQ(HalfToFloat(0x0400), std::ldexp(1.0f, -14));     // the smallest normal
  EXPECT_TRUE(std::signbit(HalfToFloat(0x8000)) && HalfToFloat(0x8000) == 0.0f);
  EXPECT_EQ(HalfToFloat(0x7C00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(HalfToFloat(0xFC00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(HalfToFloat(0x7E00)));
  EXPECT_EQ(HalfToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(BFloat16ToFloat(0x3F80), 1.0f);
  EXPECT_EQ(BFloat16ToFloat(0xC0A0), -5.0f);
  EXPECT_EQ(BFloat16ToFloat(0x0001), std::ldexp(1.0f, -133));  // a bfloat16 subnormal
  EXPECT_TRUE(std::isinf(BFloat16ToFloat(0x7F80)));
  EXPECT_TRUE(std::isnan(BFloat16ToFloat(0x7FC0)));
  // every finite half through float and back by rounding: the same bits (the conversion loses nothing)
  int checked = 0;
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = HalfToFloat(static_cast<uint16_t>(h));
    if (!std::isfinite(f)) continue;
    const int e = ((h >> 10) & 0x1F) == 0 ? -24 : static_cast<int>((h >> 10) & 0x1F) - 25;
    const float mantissa = std::ldexp(std::fabs(f), -e);
    EXPECT_EQ(mantissa, std::floor(mantissa)) << h;  // an integer number of the exponent's ulps
    ++checked;
  }
  EXPECT_EQ(checked, 0x10000 - 2 * 1024);
}

// [SECTION] The JSON parser
TEST(BoundedJson, ParsesWhatHeadersAndConfigsHold) {
  JsonValue v;
  const std::string text = R"( {"a": [1, -2, 3.5e-1, true, null], "s": "q\"\\\/\n\u00e9\ud83d\ude00", "o": {}} )";
  ASSERT_TRUE(ParseJson(text.data(), text.size(), &v).ok());
  ASSERT_EQ(v.kind, JsonValue::Kind::kObject);
  const JsonValue* a = v.Find("a");
  ASSERT_TRUE(a && a->items.size() == 5);
  EXPECT_TRUE(a->items[1].integral && a->items[1].integer == -2);
  EXPECT_FALSE(a->items[2].integral);
  EXPECT_DOUBLE_EQ(a->items[2].number, 0.35);
  EXPECT_EQ(v.Find("s")->text, "q\"\\/\n\xc3\xa9\xf0\x9f\x98\x80");
  const std::string big = "18446744073709551616";  // 2⁶⁴: not an int64
  ASSERT_TRUE(ParseJson(big.data(), big.size(), &v).ok());
  EXPECT_FALSE(v.integral);
}

TEST(BoundedJson, RefusesMalformedDeepAndDuplicateInput) {
  JsonValue v;
  const auto error = [&](const std::string& text) { return ParseJson(text.data(), text.size(), &v).message(); };
  EXPECT_EQ(error("{\"a\" 1}"), "json: expected ':' after an object key (at byte 5)");
  EXPECT_EQ(error("[1, 2"), "json: expected ',' or ']' in an array (at byte 5)");
  EXPECT_EQ(error("\"abc"), "json: unterminated string (at byte 4)");
  EXPECT_EQ(error("01"), "json: leading zero in a number (at byte 0)");
  EXPECT_EQ(error("\"\\ud800\""), "json: unpaired surrogate (at byte 7)");
  EXPECT_NE(error("{\"a\": 1, \"a\": 2}").find("duplicate key \"a\""), std::string::npos);
  EXPECT_EQ(error("[] []"), "json: expected the end of the text after the value (at byte 3)");
  const std::string deep(100000, '[');  // would overflow the stack without the depth limit
  EXPECT_EQ(error(deep), "json: nested deeper than 64 levels (at byte 64)");
  std::string many = "[";
  for (int i = 0; i < 1000001; ++i) many += "0,";
  many += "0]";
  EXPECT_EQ(ParseJson(many.data(), many.size(), &v).code(), StatusCode::kResourceExhausted);
}

// [SECTION] Hostile files
// A safetensors file from a header's text and a data section.
std::string Pack(const std::string& header, const std::string& data) {
  std::string out(8, '\0');
  for (int k = 0; k < 8; ++k) out[k] = static_cast<char>((static_cast<uint64_t>(header.size()) >> (8 * k)) & 0xFF);
  return out + header + data;
}

Status ReadWith(const std::string& bytes, const std::string& config) {
  LmCheckpointOptions options;
  options.config_json = config;
  LmModel model;
  model.config.vocab = 123;  // untouched on error
  const Status s = ReadLmCheckpoint(bytes, options, &model);
  EXPECT_TRUE(s.ok() || model.config.vocab == 123) << "the model changed on an error";
  return s;
}

const char* const kConfig = R"({"n_head": 3})";

TEST(CheckpointHostile, FramingTruncationAndHeaderBounds) {
  EXPECT_EQ(ReadWith("abc", kConfig).message(), "safetensors: file of 3 bytes, expected at least 8 (the header's length)");
  std::string huge(8, '\0');
  huge[0] = 16;  // 16 bytes of header in a file that has none
  EXPECT_EQ(ReadWith(huge, kConfig).message(), "safetensors: header length 16: beyond the file (0 bytes after the length)");
  // a 100 MB header is refused from its length alone, before anything is read or allocated
  std::string hundred(8, '\0');
  const uint64_t n = 100ull << 20;
  for (int k = 0; k < 8; ++k) hundred[k] = static_cast<char>((n >> (8 * k)) & 0xFF);
  EXPECT_EQ(ReadWith(hundred, kConfig).message(), "safetensors: header length 104857600: more than the 16777216 bytes allowed");
  std::string max(8, '\xff');
  EXPECT_NE(ReadWith(max, kConfig).message().find("more than the 16777216 bytes allowed"), std::string::npos);
  // a real file cut short: the offsets now point beyond the data
  std::string bytes, config;
  LmModel m = SmallModel(Positions::kLearned);
  ASSERT_TRUE(WriteLmCheckpoint(m, &bytes, &config).ok());
  const Status cut = ReadWith(bytes.substr(0, bytes.size() - 10), config);
  EXPECT_EQ(cut.code(), StatusCode::kParseError);
  EXPECT_NE(cut.message().find("lm_head.bias: data_offsets"), std::string::npos) << cut.message();
  EXPECT_NE(cut.message().find("beyond the data"), std::string::npos) << cut.message();
  for (size_t keep : {size_t{8}, size_t{9}, size_t{100}, bytes.size() / 2})
    EXPECT_FALSE(ReadWith(bytes.substr(0, keep), config).ok()) << keep;
  std::string nested;
  for (int i = 0; i < 200; ++i) nested += "{\"a\":";
  const Status deep = ReadWith(Pack(nested, ""), kConfig);
  EXPECT_NE(deep.message().find("nested deeper than 64 levels"), std::string::npos) << deep.message();
}

TEST(CheckpointHostile, EntriesOffsetsDtypesAndShapes) {
  const std::string four(16, '\0');
  const auto one = [&](const std::string& entry) {
    return ReadWith(Pack("{\"wte.weight\":" + entry + "}", four), kConfig).message();
  };
  EXPECT_EQ(one(R"({"dtype":"F32","shape":[2,2],"data_offsets":[0,20]})"),
            "safetensors: wte.weight: data_offsets [0, 20]: beyond the data (16 bytes)");
  EXPECT_EQ(one(R"({"dtype":"F32","shape":[2,2],"data_offsets":[8,4]})"),
            "safetensors: wte.weight: data_offsets [8, 4]: begin after end");
  EXPECT_EQ(one(R"({"dtype":"F32","shape":[3,2],"data_offsets":[0,16]})"),
            "safetensors: wte.weight: data_offsets [0, 16] hold 16 bytes, expected 24 (shape [3, 2] × F32's 4)");
  EXPECT_EQ(one(R"({"dtype":"F16","shape":[4294967296,4294967296],"data_offsets":[0,16]})"),
            "safetensors: wte.weight: data_offsets [0, 16] hold 16 bytes, expected more than the data (shape [4294967296, "
            "4294967296] × F16's 2)");
  EXPECT_EQ(one(R"({"dtype":"Q4","shape":[2,2],"data_offsets":[0,16]})"), "safetensors: wte.weight: dtype: unknown \"Q4\"");
  EXPECT_EQ(one(R"({"dtype":"F32","shape":[2,-2],"data_offsets":[0,16]})"),
            "safetensors: wte.weight: shape: expected non-negative integers");
  EXPECT_EQ(one(R"({"dtype":"F32","shape":[2,2],"data_offsets":[0,16],"x":1})"),
            "safetensors: wte.weight: unknown field \"x\" (expected dtype, shape, data_offsets)");
  EXPECT_EQ(one(R"({"dtype":"F32","shape":[2,2],"data_offsets":[0]})"), "safetensors: wte.weight: data_offsets: expected [begin, end]");
  EXPECT_EQ(ReadWith(Pack(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", four),
                     kConfig).message(),
            "safetensors: b: data_offsets overlap a's");
  EXPECT_EQ(ReadWith(Pack(R"({"__metadata__":{"k":1}})", ""), kConfig).message(),
            "safetensors: __metadata__: k: expected a string value");
}

// A valid written model, its header rewritten by `edit` (same data).
std::string Edited(const std::function<void(std::string*)>& edit, std::string* config = nullptr) {
  std::string bytes, cfg;
  EXPECT_TRUE(WriteLmCheckpoint(SmallModel(Positions::kLearned), &bytes, &cfg).ok());
  uint64_t n = 0;
  for (int k = 7; k >= 0; --k) n = (n << 8) | static_cast<uint8_t>(bytes[k]);
  std::string header = bytes.substr(8, n);
  edit(&header);
  if (config) *config = cfg;
  return Pack(header, bytes.substr(8 + n));
}

void Replace(std::string* s, const std::string& from, const std::string& to) {
  const size_t at = s->find(from);
  ASSERT_NE(at, std::string::npos) << from;
  s->replace(at, from.size(), to);
}

TEST(CheckpointHostile, MissingExtraAndMisshapenTensors) {
  std::string config;
  std::string bytes = Edited([](std::string* h) { Replace(h, "\"h.1.ln_2.weight\"", "\"h.1.ln_2.weigth\""); }, &config);
  EXPECT_EQ(ReadWith(bytes, config).message(), "checkpoint: h.1.ln_2.weight: missing");
  bytes = Edited([](std::string* h) { Replace(h, "\"ln_f.bias\"", "\"extra.thing\""); });
  EXPECT_EQ(ReadWith(bytes, config).message(), "checkpoint: ln_f.bias: missing");
  bytes = Edited([](std::string* h) { Replace(h, "\"lm_head.bias\"", "\"h.0.attn.rotary\""); });
  EXPECT_EQ(ReadWith(bytes, config).message(), "checkpoint: h.0.attn.rotary: an extra tensor (not a GPT-2 / nanoGPT parameter)");
  bytes = Edited([](std::string* h) { Replace(h, "\"h.0.attn.c_attn.bias\"", "\"h.0.attn.c_attn.bias_\""); });
  EXPECT_EQ(ReadWith(bytes, config).message(),
            "checkpoint: h.0.attn.c_attn.bias_: an extra tensor (not a GPT-2 / nanoGPT parameter)");
  // a shape that disagrees with the others (same bytes, other dims)
  bytes = Edited([](std::string* h) { Replace(h, "\"h.1.mlp.c_fc.weight\":{\"dtype\":\"F32\",\"shape\":[12, 48]", "\"h.1.mlp.c_fc.weight\":{\"dtype\":\"F32\",\"shape\":[48, 12]"); });
  EXPECT_EQ(ReadWith(bytes, config).message(), "checkpoint: h.1.mlp.c_fc.weight: expected shape [12, 48], got [48, 12]");
  bytes = Edited([](std::string* h) { Replace(h, "\"h.0.attn.c_attn.weight\":{\"dtype\":\"F32\",\"shape\":[12, 36]", "\"h.0.attn.c_attn.weight\":{\"dtype\":\"F32\",\"shape\":[18, 24]"); });
  EXPECT_NE(ReadWith(bytes, config).message().find("h.0.attn.c_attn.weight: expected (12, 36) (GPT-2's Conv1D) or (36, 12)"),
            std::string::npos);
}

TEST(CheckpointHostile, NonFiniteWeights) {
  std::string bytes, config;
  LmModel m = SmallModel(Positions::kLearned);
  m.params.blocks[1].fc_w(2, 3) = std::numeric_limits<float>::quiet_NaN();
  // the writer checks shapes, not values: a NaN reaches the file as a hostile writer would put it
  ASSERT_TRUE(WriteLmCheckpoint(m, &bytes, &config).ok());
  const Status s = ReadWith(bytes, config);
  EXPECT_EQ(s.code(), StatusCode::kNonFinite);
  EXPECT_EQ(s.message(), "safetensors: h.1.mlp.c_fc.weight: element 99 is nan");
  m = SmallModel(Positions::kLearned);
  m.params.wte(0, 0) = -std::numeric_limits<float>::infinity();
  ASSERT_TRUE(WriteLmCheckpoint(m, &bytes, &config).ok());
  EXPECT_EQ(ReadWith(bytes, config).message(), "safetensors: wte.weight: element 0 is inf");
}

TEST(CheckpointHostile, ConfigsThatLieOrLack) {
  std::string bytes, config;
  ASSERT_TRUE(WriteLmCheckpoint(SmallModel(Positions::kLearned), &bytes, &config).ok());
  EXPECT_EQ(ReadWith(bytes, "{}").message(),
            "checkpoint: n_head: not in the config; pass a config.json with n_head or the number of heads (a head count "
            "cannot be read off the weights' shapes, and is never guessed)");
  EXPECT_EQ(ReadWith(bytes, R"({"n_head": 5})").message(), "checkpoint: n_head: 5 does not divide n_embd 12");
  EXPECT_EQ(ReadWith(bytes, R"({"n_head": 3, "n_layer": 1000000000})").message(),
            "checkpoint: n_layer: the config says 1000000000, the file's blocks h.N number 2");
  EXPECT_EQ(ReadWith(bytes, R"({"n_head": 1000000000})").message(), "checkpoint: n_head: 1000000000 does not divide n_embd 12");
  EXPECT_EQ(ReadWith(bytes, R"({"n_head": 3, "n_embd": 768})").message(),
            "checkpoint: n_embd: the config says 768, the file's wte.weight has width 12");
  EXPECT_EQ(ReadWith(bytes, R"({"n_head": 3, "activation_function": "relu"})").message(),
            "checkpoint: activation_function: \"relu\": expected gelu_new, gelu_pytorch_tanh (tanh GELU) or gelu (erf)");
  EXPECT_EQ(ReadWith(bytes, R"({"n_head": 3, "layer_norm_epsilon": -1})").message(),
            "checkpoint: layer_norm_epsilon: expected a number in (0, 1)");
  EXPECT_EQ(ReadWith(bytes, R"({"n_head": 3.5})").message(), "checkpoint: n_head: expected a non-negative integer in the config");
  EXPECT_EQ(ReadWith(bytes, "[").code(), StatusCode::kParseError);
  // the options win over the config: heads given explicitly
  LmCheckpointOptions options;
  options.heads = 3;
  LmModel model;
  EXPECT_TRUE(ReadLmCheckpoint(bytes, options, &model).ok());
  // 10⁹ blocks named in the file (h.999999999.*): refused by the layer limit, nothing allocated
  const std::string many = Edited([](std::string* h) { Replace(h, "\"h.1.ln_2.weight\"", "\"h.999999999.ln_2.weight\""); });
  EXPECT_EQ(ReadWith(many, kConfig).message(), "checkpoint: lm: layers: expected 1–48, got 1000001");
}

// Removes `name`'s entry from a header (its bytes stay: a hole, which the reader allows).
void Remove(std::string* h, const std::string& name) {
  const size_t at = h->find("\"" + name + "\":{");
  ASSERT_NE(at, std::string::npos) << name;
  const size_t end = h->find('}', at);
  h->erase(at - 1, end - at + 2);  // the comma before it too
}

// Appends a tensor (F32, its floats) after the data and into the header.
std::string AddTensor(const std::string& name, const std::vector<int64_t>& shape, float value) {
  std::string bytes, cfg;
  EXPECT_TRUE(WriteLmCheckpoint(SmallModel(Positions::kLearned), &bytes, &cfg).ok());
  uint64_t n = 0;
  for (int k = 7; k >= 0; --k) n = (n << 8) | static_cast<uint8_t>(bytes[k]);
  std::string header = bytes.substr(8, n), data = bytes.substr(8 + n);
  while (header.back() == ' ') header.pop_back();
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  header.pop_back();  // the closing brace
  header += ",\"" + name + "\":{\"dtype\":\"F32\",\"shape\":[" + std::to_string(shape[0]) + "," + std::to_string(shape[1]) +
            "],\"data_offsets\":[" + std::to_string(data.size()) + "," + std::to_string(data.size() + 4 * count) + "]}}";
  for (int64_t i = 0; i < count; ++i) data.append(reinterpret_cast<const char*>(&value), 4);
  return Pack(header, data);
}

TEST(CheckpointHostile, UntiedHeadPartialBiasesAndUnusableDtypes) {
  std::string bytes, config;
  ASSERT_TRUE(WriteLmCheckpoint(SmallModel(Positions::kLearned), &bytes, &config).ok());
  EXPECT_EQ(ReadWith(AddTensor("lm_head.weight", {11, 12}, 0.5f), config).message(),
            "checkpoint: lm_head.weight: differs from wte.weight (an untied output head; attnlab's output is tied to wte)");
  EXPECT_EQ(ReadWith(AddTensor("lm_head.weight", {12, 11}, 0.5f), config).message(),
            "checkpoint: lm_head.weight: expected shape [11, 12], got [12, 11]");
  // GPT-2's buffers are ignored, whatever they hold
  EXPECT_TRUE(ReadWith(AddTensor("h.1.attn.masked_bias", {1, 1}, -1e4f), config).ok());
  // biases: all or none
  std::string partial = Edited([](std::string* h) { Remove(h, "h.0.attn.c_attn.bias"); });
  EXPECT_EQ(ReadWith(partial, config).message(),
            "checkpoint: h.0.attn.c_proj.bias: a bias in a file without h.0.attn.c_attn.bias (biases must be all present or all absent)");
  partial = Edited([](std::string* h) { Remove(h, "h.1.mlp.c_fc.bias"); });
  EXPECT_EQ(ReadWith(partial, config).message(), "checkpoint: h.1.mlp.c_fc.bias: missing");
  // a dtype the format has but the model cannot use (I32: the same 4 bytes an element)
  const std::string ints = Edited([](std::string* h) {
    Replace(h, "\"h.0.ln_1.weight\":{\"dtype\":\"F32\"", "\"h.0.ln_1.weight\":{\"dtype\":\"I32\"");
  });
  EXPECT_EQ(ReadWith(ints, config).message(), "safetensors: h.0.ln_1.weight: dtype I32: expected F32, F16 or BF16");
  // empty tensors: a width of 0
  const std::string empty = Pack(R"({"wte.weight":{"dtype":"F16","shape":[50257,0],"data_offsets":[0,0]},"wpe.weight":{"dtype":"F16","shape":[4,0],"data_offsets":[0,0]}})", "");
  EXPECT_EQ(ReadWith(empty, R"({"n_head": 1})").message(), "checkpoint: lm: d_model: expected 2–2048, got 0");
}

}  // namespace
}  // namespace attn::train
