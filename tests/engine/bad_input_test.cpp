// Every invalid call returns its documented status code, a message naming the argument (with the
// expected and the given value or shape), and leaves the outputs untouched. Forward and Backward
// share the checks, so each case runs through both.
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "attn/attention.h"
#include "attn/grad.h"
#include "attn/validate.h"
#include "support/random.h"

namespace attn {
namespace {

using testing::RandomMatrix;

struct Call {
  AttentionConfig config;
  AttentionInputs inputs;
  AttentionParameters params;
};

struct BadInputCase {
  const char* name;
  std::function<void(Call*)> break_it;  // applied to a valid self-attention call on x: (3, 4)
  StatusCode code;
  const char* message_part;
};

const float kNan = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

void Project(Call* c) {
  c->config.project_inputs = true;
  c->config.project_output = true;
}

std::vector<BadInputCase> Cases() {
  using S = StatusCode;
  return {
      // Empty sequences.
      {"no query tokens", [](Call* c) { c->inputs.query.resize(0, 4); }, S::kEmptyInput,
       "query: expected a non-empty matrix, got (0, 4)"},
      {"no query features", [](Call* c) { c->inputs.query.resize(3, 0); }, S::kEmptyInput, "query: expected a non-empty matrix, got (3, 0)"},
      {"no key tokens", [](Call* c) { c->inputs.key.resize(0, 4); }, S::kEmptyInput, "key: expected a non-empty matrix, got (0, 4)"},
      {"no value tokens", [](Call* c) { c->inputs.value.resize(0, 4); }, S::kEmptyInput, "value: expected a non-empty matrix"},
      // Non-finite values.
      {"nan in query", [](Call* c) { c->inputs.query(1, 2) = kNan; }, S::kNonFinite, "query: expected finite values, got nan at (1, 2)"},
      {"inf in key", [](Call* c) { c->inputs.key = Matrix::Ones(3, 4); c->inputs.key(2, 0) = -kInf; }, S::kNonFinite, "key: expected finite values, got -inf at (2, 0)"},
      {"nan in value", [](Call* c) { c->inputs.value = Matrix::Ones(3, 4); c->inputs.value(0, 0) = kNan; }, S::kNonFinite, "value: expected finite values"},
      {"nan in float mask", [](Call* c) { c->inputs.float_mask = {Matrix::Zero(3, 3)}; c->inputs.float_mask[0](0, 1) = kNan; }, S::kNonFinite, "float_mask[0]: expected finite values or -inf, got nan at (0, 1)"},
      {"+inf in float mask", [](Call* c) { c->inputs.float_mask = {Matrix::Zero(3, 3)}; c->inputs.float_mask[0](2, 2) = kInf; }, S::kNonFinite, "float_mask[0]: expected finite values or -inf, got inf"},
      {"nan in past key", [](Call* c) { c->inputs.past_key = {Matrix::Constant(2, 4, kNan)}; c->inputs.past_value = {Matrix::Ones(2, 4)}; }, S::kNonFinite, "past_key[0]: expected finite values"},
      {"nan in wq", [](Call* c) { Project(c); c->params.wq = Matrix::Constant(4, 4, kNan); }, S::kNonFinite, "wq: expected finite values"},
      {"overflowing scores", [](Call* c) { c->inputs.query.setConstant(1e20f); }, S::kNonFinite, "overflowed"},
      // Heads.
      {"heads not dividing width", [](Call* c) { c->config.num_heads = 3; }, S::kShapeMismatch, "num_heads: expected a divisor of query.cols() = 4, got 3"},
      {"heads not dividing d_model", [](Call* c) { Project(c); c->config.num_heads = 3; }, S::kShapeMismatch, "num_heads: expected a divisor of d_model = query.cols() = 4, got 3"},
      {"zero heads", [](Call* c) { c->config.num_heads = 0; }, S::kOutOfRange, "num_heads: expected a value >= 1, got 0"},
      {"kv heads not dividing heads", [](Call* c) { Project(c); c->config.num_heads = 4; c->config.num_kv_heads = 3; }, S::kOutOfRange, "num_kv_heads: expected a divisor of num_heads = 4, got 3"},
      {"negative kv heads", [](Call* c) { c->config.num_kv_heads = -1; }, S::kOutOfRange, "num_kv_heads: expected a value >= 0, got -1"},
      {"negative head_dim", [](Call* c) { c->config.head_dim = -2; }, S::kOutOfRange, "head_dim: expected a value >= 0, got -2"},
      {"negative value_head_dim", [](Call* c) { c->config.value_head_dim = -1; }, S::kOutOfRange, "value_head_dim"},
      {"negative output_dim", [](Call* c) { c->config.output_dim = -1; }, S::kOutOfRange, "output_dim"},
      {"head_dim without projections", [](Call* c) { c->config.head_dim = 3; }, S::kShapeMismatch, "head_dim: expected 0 or query.cols() / num_heads = 4"},
      {"odd head width for RoPE", [](Call* c) { c->inputs.query = Matrix::Ones(3, 3); c->config.position = PositionEncoding::kRope; }, S::kShapeMismatch, "head_dim: expected an even d_k for RoPE, got 3"},
      // Mismatched shapes.
      {"value rows differ from key rows", [](Call* c) { c->inputs.value = Matrix::Ones(2, 4); }, S::kShapeMismatch, "value: expected 3 rows (one per key), got (2, 4)"},
      {"key width without projections", [](Call* c) { c->inputs.key = Matrix::Ones(5, 3); }, S::kShapeMismatch, "key: expected (5, 4) (m, num_kv_heads·d_k) without projections, got (5, 3)"},
      {"value width not divisible by kv heads", [](Call* c) { c->config.num_heads = 2; c->inputs.value = Matrix::Ones(3, 3); }, S::kShapeMismatch, "value: expected a width divisible by num_kv_heads = 2, got (3, 3)"},
      {"float mask shape", [](Call* c) { c->inputs.float_mask = {Matrix::Zero(3, 2)}; }, S::kShapeMismatch, "float_mask[0]: expected (3, 3) (n, M), got (3, 2)"},
      {"float mask count", [](Call* c) { c->config.num_heads = 2; c->inputs.float_mask.assign(3, Matrix::Zero(3, 3)); }, S::kShapeMismatch, "float_mask: expected 0, 1 or num_heads = 2 entries, got 3"},
      {"bool mask shape", [](Call* c) { c->inputs.bool_mask = {BoolMatrix::Constant(2, 3, true)}; }, S::kShapeMismatch, "bool_mask[0]: expected (3, 3) (n, M), got (2, 3)"},
      {"key padding shape", [](Call* c) { c->inputs.key_padding = BoolMatrix::Constant(1, 2, false); }, S::kShapeMismatch, "key_padding: expected (1, 3) (1, M), got (1, 2)"},
      {"past key count", [](Call* c) { c->inputs.past_key.assign(2, Matrix::Ones(1, 4)); c->inputs.past_value.assign(2, Matrix::Ones(1, 4)); }, S::kShapeMismatch, "past_key: expected num_kv_heads = 1 entries, got 2"},
      {"past value count", [](Call* c) { c->inputs.past_key = {Matrix::Ones(1, 4)}; }, S::kShapeMismatch, "past_value: expected as many entries as past_key (1), got 0"},
      {"past key width", [](Call* c) { c->inputs.past_key = {Matrix::Ones(2, 3)}; c->inputs.past_value = {Matrix::Ones(2, 4)}; }, S::kShapeMismatch, "past_key[0]: expected (2, 4) (p, d_k), got (2, 3)"},
      {"past value length", [](Call* c) { c->inputs.past_key = {Matrix::Ones(2, 4)}; c->inputs.past_value = {Matrix::Ones(1, 4)}; }, S::kShapeMismatch, "past_value[0]: expected (2, 4) (p, d_v), got (1, 4)"},
      {"wq shape", [](Call* c) { Project(c); c->params.wq = Matrix::Ones(3, 4); }, S::kShapeMismatch, "wq: expected (4, 4) (d_model, h·d_k), got (3, 4)"},
      {"wo shape", [](Call* c) { Project(c); c->params.wo = Matrix::Ones(4, 2); }, S::kShapeMismatch, "wo: expected (4, 4) (h·d_v, d_out), got (4, 2)"},
      {"bias shape", [](Call* c) { Project(c); c->config.use_bias = true; c->params.bk = Matrix::Ones(1, 3); }, S::kShapeMismatch, "bk: expected (1, 4) (1, h_kv·d_k), got (1, 3)"},
      {"learned table shape", [](Call* c) { c->config.position = PositionEncoding::kLearned; c->params.position_table = Matrix::Ones(512, 5); }, S::kShapeMismatch, "position_table: expected (512, 4)"},
      {"learned table width vs key", [](Call* c) { c->config.position = PositionEncoding::kLearned; c->config.project_inputs = true; c->inputs.key = Matrix::Ones(3, 5); }, S::kShapeMismatch, "key: expected width query.cols() = 4 for a learned position table, got (3, 5)"},
      // Out of range.
      {"negative scale", [](Call* c) { c->config.scale = -1.0f; }, S::kOutOfRange, "scale: expected a finite value > 0, got -1"},
      {"nan scale", [](Call* c) { c->config.scale = kNan; }, S::kOutOfRange, "scale: expected a finite value > 0, got nan"},
      {"zero temperature", [](Call* c) { c->config.temperature = 0.0f; }, S::kOutOfRange, "temperature: expected a finite value > 0, got 0"},
      {"infinite temperature", [](Call* c) { c->config.temperature = kInf; }, S::kOutOfRange, "temperature: expected a finite value > 0, got inf"},
      {"zero cosine temperature", [](Call* c) { c->config.cosine_temperature = 0.0f; }, S::kOutOfRange, "cosine_temperature"},
      {"negative softcap", [](Call* c) { c->config.softcap = -2.0f; }, S::kOutOfRange, "softcap: expected a finite value > 0, got -2"},
      {"zero position base", [](Call* c) { c->config.position_base = 0.0f; }, S::kOutOfRange, "position_base"},
      {"window left below -1", [](Call* c) { c->config.window_left = -2; }, S::kOutOfRange, "window_left: expected a value >= -1, got -2"},
      {"window right below -1", [](Call* c) { c->config.window_right = -5; }, S::kOutOfRange, "window_right: expected a value >= -1, got -5"},
      {"zero max positions", [](Call* c) { c->config.max_positions = 0; }, S::kOutOfRange, "max_positions: expected a value >= 1, got 0"},
      {"positions beyond learned table", [](Call* c) { c->config.position = PositionEncoding::kLearned; c->config.max_positions = 2; }, S::kOutOfRange, "max_positions: expected at least 3 rows"},
      {"negative offset with learned table", [](Call* c) { c->config.position = PositionEncoding::kLearned; c->inputs.query_offset = -1; }, S::kOutOfRange, "query_offset (learned positions): expected a value >= 0, got -1"},
      {"negative relative sharpness", [](Call* c) { c->config.position = PositionEncoding::kQuadraticRelative; c->params.relative_sharpness = Matrix::Constant(1, 1, -1.0f); }, S::kOutOfRange, "relative_sharpness: expected values >= 0, got -1 at (0, 0)"},
      // Unknown options.
      {"unknown kernel", [](Call* c) { c->config.kernel = static_cast<KernelId>(99); }, S::kUnknownOption, "kernel: expected one of 0..4, got 99"},
      // wasm_simd128 is never available natively, avx2/avx512 never under wasm; avx512 only on such CPUs.
      {"kernel this build or CPU lacks", [](Call* c) {
         for (int id = 0; id < static_cast<int>(KernelId::kCount); ++id)
           if (!KernelAvailable(static_cast<KernelId>(id))) c->config.kernel = static_cast<KernelId>(id);
       }, S::kUnknownOption, "is not available in this build on this CPU (available: reference, eigen"},
      {"unknown score", [](Call* c) { c->config.score = static_cast<ScoreFunction>(17); }, S::kUnknownOption, "score: expected one of 0..5, got 17"},
      {"unknown normalizer", [](Call* c) { c->config.normalizer = static_cast<Normalizer>(-1); }, S::kUnknownOption, "normalizer: expected one of 0..4, got -1"},
      {"unknown position", [](Call* c) { c->config.position = static_cast<PositionEncoding>(6); }, S::kUnknownOption, "position: expected one of 0..5, got 6"},
      {"unknown softcap order", [](Call* c) { c->config.softcap_order = static_cast<SoftcapOrder>(2); }, S::kUnknownOption, "softcap_order"},
      {"unknown bool mask meaning", [](Call* c) { c->inputs.bool_mask_meaning = static_cast<BoolMaskMeaning>(5); }, S::kUnknownOption, "bool_mask_meaning: expected one of 0..1, got 5"},
      // Score-function parameters.
      {"bilinear count", [](Call* c) { c->config.score = ScoreFunction::kBilinear; c->params.bilinear.assign(2, Matrix::Ones(4, 4)); }, S::kShapeMismatch, "bilinear: expected num_heads = 1 entries, got 2"},
      {"additive shape", [](Call* c) { c->config.score = ScoreFunction::kAdditive; c->params.additive_wk = {Matrix::Ones(4, 3)}; }, S::kShapeMismatch, "additive_wk[0]: expected (4, 4) (d_k, d_a), got (4, 3)"},
  };
}

Call ValidCall() {
  Call c;
  c.inputs.query = RandomMatrix(3, 4, 1);
  return c;
}

TEST(BadInput, EveryValidBaseCallSucceeds) {
  Call c = ValidCall();
  AttentionResult out;
  EXPECT_TRUE(Forward(c.config, c.inputs, c.params, &out).ok());
  AttentionGradients grad;
  EXPECT_TRUE(Backward(c.config, c.inputs, c.params, Matrix::Ones(3, 4), &grad).ok());
}

TEST(BadInput, ForwardReturnsDocumentedStatusAndLeavesOutputUntouched) {
  for (const BadInputCase& bad : Cases()) {
    SCOPED_TRACE(bad.name);
    Call c = ValidCall();
    bad.break_it(&c);
    AttentionResult out;
    out.output = Matrix::Constant(1, 1, 123.0f);
    const Status s = Forward(c.config, c.inputs, c.params, &out);
    EXPECT_EQ(s.code(), bad.code) << s.ToString();
    EXPECT_NE(s.message().find(bad.message_part), std::string::npos) << s.message();
    EXPECT_EQ(out.output(0, 0), 123.0f);
    EXPECT_TRUE(out.heads.empty());
  }
}

TEST(BadInput, BackwardReturnsTheSameStatus) {
  for (const BadInputCase& bad : Cases()) {
    Call c = ValidCall();
    bad.break_it(&c);
    SCOPED_TRACE(bad.name);
    AttentionGradients grad;
    grad.d_query = Matrix::Constant(1, 1, 7.0f);
    const Status s = Backward(c.config, c.inputs, c.params, Matrix::Ones(3, 4), &grad);
    EXPECT_EQ(s.code(), bad.code) << s.ToString();
    EXPECT_EQ(grad.d_query(0, 0), 7.0f);
  }
}

// The "did you mean" of unknown options (case files, the JS API): nearest by edit distance, letters
// compared without case, none past the distance asked for or for a name too long to compare.
TEST(NearestName, SuggestsTheClosestKnownName) {
  const std::vector<std::string_view> known = {"numHeads", "numKvHeads", "headDim", "causal"};
  EXPECT_EQ(validate::NearestName("numHeds", known), "numHeads");
  EXPECT_EQ(validate::NearestName("NUMHEADS", known), "numHeads");  // case is not an edit
  EXPECT_EQ(validate::NearestName("casual", known), "causal");
  EXPECT_EQ(validate::NearestName("numKvHead", known), "numKvHeads");
  EXPECT_EQ(validate::NearestName("colour", known, 2), "");          // 3+ edits from every name
  EXPECT_EQ(validate::NearestName("colour", known), "causal");       // unbounded: always one
  EXPECT_EQ(validate::NearestName(std::string(300, 'x'), known), "");  // over max_length
  EXPECT_EQ(validate::NearestName("x", {}), "");
}

}  // namespace
}  // namespace attn
