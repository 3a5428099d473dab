// Case JSON <-> tensors, float16 rounding, and the statuses bad case files and bad operator
// inputs produce.
#include "attn/case_io.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

namespace attn {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// A case with the given inputs JSON (and optional extra top-level fields).
std::string CaseText(const std::string& inputs, const std::string& extra = "") {
  return "{\"name\":\"t\"" + extra + ",\"inputs\":{" + inputs + "}}";
}

Status Parse(const std::string& text, Case* c) { return ParseCase(text, c); }

TEST(CaseIo, ParsesEveryDtypeAndNonFiniteStrings) {
  const std::string inputs =
      R"("a":{"dims":[2,2],"dtype":"float32","data":[1.5,"inf","-inf","nan"]},
         "b":{"dims":[3],"dtype":"bool","data":[true,false,1]},
         "c":{"dims":[2],"dtype":"int64","data":[7,-9007199254740993]},
         "d":{"dims":[1],"dtype":"float16","data":[0.1]},
         "e":{"dims":[],"dtype":"float32","data":[3]})";
  const std::string header =
      R"(,"op":"MultiHeadAttention","opset":24,"attributes":{"scale":0.25,"is_causal":1})";
  Case c;
  ASSERT_TRUE(Parse(CaseText(inputs, header), &c).ok());
  EXPECT_EQ(c.name, "t");
  EXPECT_EQ(c.op, "MultiHeadAttention");
  EXPECT_EQ(c.opset, 24);
  EXPECT_EQ(c.attributes.at("scale"), 0.25);
  EXPECT_EQ(c.attributes.at("is_causal"), 1.0);
  const Tensor& a = c.inputs.at("a");
  EXPECT_EQ(a.dtype, DType::kFloat32);
  EXPECT_EQ(a.dims, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(a.values[0], 1.5f);
  EXPECT_EQ(a.values[1], kInf);
  EXPECT_EQ(a.values[2], -kInf);
  EXPECT_TRUE(std::isnan(a.values[3]));
  EXPECT_EQ(c.inputs.at("b").values, (std::vector<float>{1, 0, 1}));
  // int64 keeps every bit, even past float and double precision.
  EXPECT_EQ(c.inputs.at("c").integers, (std::vector<int64_t>{7, -9007199254740993LL}));
  // float16 inputs hold float16 values, widened exactly to float32.
  EXPECT_EQ(c.inputs.at("d").values[0], 0.0999755859375f);
  EXPECT_EQ(c.inputs.at("e").NumElements(), 1);
  EXPECT_TRUE(c.outputs.empty());
}

TEST(CaseIo, AbsentOpMeansOnnxAttention) {
  Case c;
  ASSERT_TRUE(Parse(CaseText(R"("x":{"dims":[1],"dtype":"float32","data":[0]})"), &c).ok());
  EXPECT_EQ(c.op, "Attention");
}

TEST(CaseIo, MalformedFilesAreParseErrorsNamingTheField) {
  struct Bad {
    std::string text;
    std::string mentions;
  };
  const Bad bad[] = {
      {"{not json", "not valid JSON"},
      {"[1, 2]", "expected a JSON object"},
      {"{\"name\":\"t\"}", "missing \"inputs\""},
      {CaseText(R"("x":{"dims":[2],"dtype":"float32","data":[1]})"), "inputs.x"},
      {CaseText(R"("x":{"dims":[-1],"dtype":"float32","data":[]})"), "non-negative"},
      {CaseText(R"("x":{"dims":[1],"dtype":"float64","data":[1]})"), "unknown dtype"},
      {CaseText(R"("x":{"dims":[1],"dtype":"float32","data":["infinity"]})"), "inputs.x.data[0]"},
      {CaseText(R"("x":{"dims":[1],"dtype":"bool","data":[2]})"), "true, false"},
      {CaseText(R"("x":{"dims":[1],"dtype":"int64","data":[1.5]})"), "integer"},
      {CaseText(R"("x":{"dtype":"float32","data":[1]})"), "dims"},
      {CaseText(R"("x":[1,2])"), "tensor object"},
      {CaseText("", R"(,"attributes":{"scale":"big"})"), "attributes.scale"},
      {CaseText("", R"(,"op":3)"), "op"},
  };
  for (const Bad& b : bad) {
    Case c;
    const Status s = Parse(b.text, &c);
    EXPECT_EQ(s.code(), StatusCode::kParseError) << b.text;
    EXPECT_NE(s.message().find(b.mentions), std::string::npos) << s.message();
  }
}

TEST(CaseIo, MissingFileIsAParseErrorNamingThePath) {
  Case c;
  const Status s = ReadCaseFile("/nonexistent/case.json", &c);
  EXPECT_EQ(s.code(), StatusCode::kParseError);
  EXPECT_NE(s.message().find("/nonexistent/case.json"), std::string::npos);
}

TEST(CaseIo, OutputsRoundTripThroughJson) {
  TensorMap outputs;
  Tensor f;
  f.dims = {2, 3};
  f.values = {0.1f, -kInf, kInf, 1e-30f, -123456.789f, std::nextafter(1.0f, 2.0f)};
  Tensor b;
  b.dtype = DType::kBool;
  b.dims = {2};
  b.values = {1, 0};
  Tensor i;
  i.dtype = DType::kInt64;
  i.dims = {1};
  i.integers = {-42};
  Tensor h;
  h.dtype = DType::kFloat16;
  h.dims = {1};
  h.values = {0.1f};  // written rounded to float16
  outputs["Y"] = f;
  outputs["mask"] = b;
  outputs["n"] = i;
  outputs["half"] = h;
  const std::string json = OutputsToJson(outputs);
  Case c;
  ASSERT_TRUE(Parse("{\"inputs\":{}," + json.substr(1), &c).ok()) << json;
  EXPECT_EQ(c.outputs.at("Y").dims, f.dims);
  EXPECT_EQ(c.outputs.at("Y").values, f.values);  // exact: 9 significant digits
  EXPECT_EQ(c.outputs.at("mask").values, b.values);
  EXPECT_EQ(c.outputs.at("n").integers, i.integers);
  EXPECT_EQ(c.outputs.at("half").values[0], 0.0999755859375f);
  EXPECT_NE(json.find("\"-inf\""), std::string::npos);
}

TEST(CaseIo, NegativeZeroKeepsItsSign) {
  // Found by case_fuzz: "-0" was written, and read back as the integer 0.
  TensorMap outputs;
  for (DType dtype : {DType::kFloat32, DType::kFloat16}) {
    Tensor t;
    t.dtype = dtype;
    t.dims = {2};
    t.values = {-0.0f, 0.0f};
    outputs[DTypeName(dtype)] = t;
  }
  const std::string json = OutputsToJson(outputs);
  Case c;
  ASSERT_TRUE(ParseCase("{\"inputs\":{}," + json.substr(1), &c).ok()) << json;
  for (const auto& [name, t] : c.outputs) {
    EXPECT_TRUE(std::signbit(t.values[0])) << name << " " << json;
    EXPECT_FALSE(std::signbit(t.values[1])) << name << " " << json;
  }
}

TEST(CaseIo, OutputNamesAreEscapedEvenWhenNotUtf8) {
  TensorMap outputs;
  outputs["quote\"and\xff"].dims = {0};
  const std::string json = OutputsToJson(outputs);
  EXPECT_NE(json.find("quote\\\"and"), std::string::npos) << json;
  Case c;
  EXPECT_TRUE(ParseCase("{\"inputs\":{}," + json.substr(1), &c).ok()) << json;
}

TEST(CaseIo, RoundToFloat16MatchesIeeeHalf) {
  EXPECT_EQ(RoundToFloat16(1.0f), 1.0f);
  EXPECT_EQ(RoundToFloat16(0.1f), 0.0999755859375f);
  EXPECT_EQ(RoundToFloat16(-2.5f), -2.5f);
  // Ties go to even: 1 + 2^-11 lies halfway between 1 and 1 + 2^-10.
  EXPECT_EQ(RoundToFloat16(1.0f + std::ldexp(1.0f, -11)), 1.0f);
  EXPECT_EQ(RoundToFloat16(1.0f + 3 * std::ldexp(1.0f, -11)), 1.0f + std::ldexp(1.0f, -9));
  EXPECT_EQ(RoundToFloat16(65504.0f), 65504.0f);  // largest finite half
  EXPECT_EQ(RoundToFloat16(65519.0f), 65504.0f);
  EXPECT_EQ(RoundToFloat16(65520.0f), kInf);  // halfway to the next step rounds to inf
  EXPECT_EQ(RoundToFloat16(-1e6f), -kInf);
  EXPECT_EQ(RoundToFloat16(std::ldexp(1.0f, -24)), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(RoundToFloat16(std::ldexp(1.0f, -26)), 0.0f);
  EXPECT_EQ(RoundToFloat16(std::ldexp(3.0f, -25)), std::ldexp(1.0f, -23));  // 1.5 steps -> 2
  EXPECT_TRUE(std::isnan(RoundToFloat16(std::numeric_limits<float>::quiet_NaN())));
}

TEST(CaseIo, ToleranceByDtype) {
  EXPECT_EQ(ToleranceFor(DType::kFloat32).rtol, 1e-3);
  EXPECT_EQ(ToleranceFor(DType::kFloat32).atol, 1e-5);
  EXPECT_EQ(ToleranceFor(DType::kFloat16).atol, 1e-3);
  EXPECT_EQ(ToleranceFor(DType::kBool).atol, 0);
}

// ---- Operator inputs the runner rejects before computing anything ---------------------------

// A float32 tensor of `dims` filled with 0.5.
std::string FloatTensor(const std::string& dims, int count) {
  std::string data;
  for (int i = 0; i < count; ++i) data += (i ? ",0.5" : "0.5");
  return "{\"dims\":" + dims + ",\"dtype\":\"float32\",\"data\":[" + data + "]}";
}

Status RunText(const std::string& text) {
  Case c;
  const Status parsed = ParseCase(text, &c);
  if (!parsed.ok()) return parsed;
  TensorMap out;
  return RunCase(c, &out);
}

TEST(CaseRun, UnknownOpIsReported) {
  const Status s = RunText(CaseText("", R"(,"op":"Conv")"));
  EXPECT_EQ(s.code(), StatusCode::kUnknownOption);
  EXPECT_NE(s.message().find("Conv"), std::string::npos);
}

TEST(CaseRun, TensorsBuiltInCodeMustHoldTheirDims) {
  Case c;
  ASSERT_TRUE(
      ReadCaseFile(std::string(ATTN_TEST_DATA_DIR) + "/onnx-attention/test_attention_4d.json", &c)
          .ok());
  TensorMap out;
  ASSERT_TRUE(RunCase(c, &out).ok());
  c.inputs["K"].values.pop_back();
  const Status s = RunCase(c, &out);
  EXPECT_EQ(s.code(), StatusCode::kShapeMismatch);
  EXPECT_NE(s.message().find("inputs.K"), std::string::npos) << s.message();
}

TEST(CaseCheck, EachOutputHasItsOwnVerdict) {
  Case c;
  ASSERT_TRUE(ReadCaseFile(std::string(ATTN_TEST_DATA_DIR) +
                               "/onnx-attention/test_attention_24_fullymasked_qk_matmul_output_mode3_zero.json",
                           &c)
                  .ok());
  CaseCheck check = CheckCase(c);
  ASSERT_TRUE(check.passed) << check.message;
  ASSERT_EQ(check.outputs.size(), 2u);  // the case's order: Y, qk_matmul_output
  EXPECT_EQ(check.outputs[0].name, "Y");
  EXPECT_EQ(check.outputs[1].name, "qk_matmul_output");
  EXPECT_TRUE(check.outputs[0].passed && check.outputs[1].passed);
  EXPECT_EQ(check.outputs[0].tolerance.rtol, ToleranceFor(DType::kFloat32).rtol);

  // One output moved past its tolerance fails alone; the case's verdict and message are its.
  c.outputs["Y"].values[0] += 1.0f;
  check = CheckCase(c);
  EXPECT_FALSE(check.passed);
  EXPECT_FALSE(check.outputs[0].passed);
  EXPECT_TRUE(check.outputs[1].passed) << check.outputs[1].message;
  EXPECT_NEAR(check.outputs[0].max_abs_error, 1.0, 1e-6);
  EXPECT_EQ(check.worst_output, "Y");
  EXPECT_EQ(check.message, check.outputs[0].message);
  EXPECT_NE(check.message.find("Y[0]"), std::string::npos) << check.message;

  // A case that cannot run compares nothing.
  c.inputs["K"].values.pop_back();
  check = CheckCase(c);
  EXPECT_FALSE(check.passed);
  EXPECT_TRUE(check.outputs.empty());
  EXPECT_NE(check.message.find("inputs.K"), std::string::npos) << check.message;
}

TEST(CaseRun, BadOnnxInputsGiveStatuses) {
  const std::string q4 = "\"Q\":" + FloatTensor("[1,2,3,4]", 24);
  const std::string k4 = "\"K\":" + FloatTensor("[1,2,5,4]", 40);
  const std::string v4 = "\"V\":" + FloatTensor("[1,2,5,4]", 40);
  struct Bad {
    std::string inputs, extra;
    StatusCode code;
  };
  const Bad bad[] = {
      {q4 + "," + k4, "", StatusCode::kParseError},  // no V
      {"\"Q\":" + FloatTensor("[3,4]", 12) + "," + k4 + "," + v4, "", StatusCode::kShapeMismatch},
      {q4 + ",\"K\":" + FloatTensor("[1,2,5,3]", 30) + "," + v4, "", StatusCode::kShapeMismatch},
      {q4 + ",\"K\":" + FloatTensor("[2,2,5,4]", 80) + ",\"V\":" + FloatTensor("[2,2,5,4]", 80), "",
       StatusCode::kShapeMismatch},  // batch sizes differ
      {"\"Q\":" + FloatTensor("[1,3,3,4]", 36) + "," + k4 + "," + v4, "",
       StatusCode::kShapeMismatch},  // 3 query heads over 2 kv heads
      {"\"Q\":" + FloatTensor("[1,3,8]", 24) + ",\"K\":" + FloatTensor("[1,5,8]", 40) +
           ",\"V\":" + FloatTensor("[1,5,8]", 40),
       "", StatusCode::kShapeMismatch},  // 3-D without head counts
      {q4 + "," + k4 + "," + v4 + ",\"attn_mask\":" + FloatTensor("[2,5]", 10), "",
       StatusCode::kShapeMismatch},  // 2 mask rows for 3 queries
      {q4 + "," + k4 + "," + v4 + ",\"attn_mask\":" + FloatTensor("[3,6]", 18), "",
       StatusCode::kShapeMismatch},  // longer than the keys
      {q4 + "," + k4 + "," + v4 +
           ",\"nonpad_kv_seqlen\":{\"dims\":[1],\"dtype\":\"int64\",\"data\":[6]}",
       "", StatusCode::kOutOfRange},
      {q4 + "," + k4 + "," + v4 + ",\"past_key\":" + FloatTensor("[1,2,1,4]", 8), "",
       StatusCode::kShapeMismatch},  // past_key without past_value
      {q4 + "," + k4 + "," + v4, R"(,"attributes":{"qk_matmul_output_mode":4})",
       StatusCode::kOutOfRange},
      {q4 + "," + k4 + "," + v4, R"(,"attributes":{"is_causal":0.5})", StatusCode::kOutOfRange},
      {q4 + "," + k4 + "," + v4, R"(,"attributes":{"scale":-1})", StatusCode::kOutOfRange},
      {q4 + "," + k4 + "," + v4, R"(,"attributes":{"q_num_heads":4})", StatusCode::kShapeMismatch},
  };
  for (const Bad& b : bad) {
    const Status s = RunText(CaseText(b.inputs, b.extra));
    EXPECT_EQ(s.code(), b.code) << b.inputs << b.extra << " -> " << s.ToString();
  }
}

TEST(CaseRun, BadTorchInputsGiveStatuses) {
  const std::string op = R"(,"op":"MultiHeadAttention")";
  const std::string three_heads = op + R"(,"attributes":{"num_heads":3})";
  const std::string qkv = "\"query\":" + FloatTensor("[1,2,6]", 12) +
                          ",\"key\":" + FloatTensor("[1,3,6]", 18) +
                          ",\"value\":" + FloatTensor("[1,3,6]", 18);
  const std::string weights = qkv + ",\"in_proj_weight\":" + FloatTensor("[18,6]", 108) +
                              ",\"out_proj_weight\":" + FloatTensor("[6,6]", 36);
  struct Bad {
    std::string inputs, extra;
    StatusCode code;
  };
  const Bad bad[] = {
      {qkv, three_heads, StatusCode::kParseError},  // no projection weights
      {weights, op, StatusCode::kParseError},       // no num_heads
      {weights, op + R"(,"attributes":{"num_heads":4})", StatusCode::kShapeMismatch},  // 6 % 4
      {weights + ",\"attn_mask\":" + FloatTensor("[2,2]", 4), three_heads,
       StatusCode::kShapeMismatch},
      {weights + ",\"attn_mask\":" + FloatTensor("[2,2,3]", 12), three_heads,
       StatusCode::kShapeMismatch},  // a 3-D mask needs N·H = 3 planes
      {weights + ",\"attn_mask\":" + FloatTensor("[3,2,2]", 12), three_heads,
       StatusCode::kShapeMismatch},  // 3 planes of (L, 2) for S = 3 keys
      {weights + ",\"key_padding_mask\":" + FloatTensor("[1,2]", 2), three_heads,
       StatusCode::kShapeMismatch},
      {weights + ",\"in_proj_bias\":" + FloatTensor("[6]", 6), three_heads,
       StatusCode::kShapeMismatch},
  };
  for (const Bad& b : bad) {
    const Status s = RunText(CaseText(b.inputs, b.extra));
    EXPECT_EQ(s.code(), b.code) << b.extra << " -> " << s.ToString();
  }
}

// ---- Hostile cases: whatever a file says, a bounded Status, never a crash or a huge allocation ----

// Case text whose `field` (of tensor Q, or the attributes) is `levels` nested arrays.
std::string DeeplyNested(const std::string& field, int levels) {
  const std::string deep = std::string(levels, '[') + std::string(levels, ']');
  if (field == "attributes") return "{\"attributes\":{\"scale\":" + deep + "},\"inputs\":{}}";
  const std::string dims = field == "dims" ? deep : "[1]";
  const std::string data = field == "data" ? "[" + deep + "]" : "[0]";
  return CaseText("\"Q\":{\"dims\":" + dims + ",\"dtype\":\"float32\",\"data\":" + data + "}");
}

// Messages are one short line whatever the input: at most this many bytes.
constexpr size_t kShortMessage = 300;

TEST(CaseLimits, DeepNestingIsAParseErrorBeforeAnyRecursion) {
  // Was: a recursive dump() of the bad value overflowed the stack (SIGSEGV) from ~58k levels.
  for (const std::string field : {"data", "dims", "attributes"}) {
    Case c;
    const Status s = ParseCase(DeeplyNested(field, 100000), &c);
    EXPECT_EQ(s.code(), StatusCode::kParseError) << field;
    EXPECT_NE(s.message().find("nesting deeper than 64 levels at byte"), std::string::npos)
        << s.message();
    EXPECT_LT(s.message().size(), kShortMessage) << field;
  }
  // Brackets inside strings are text, not nesting.
  Case c;
  EXPECT_TRUE(ParseCase("{\"name\":\"" + std::string(1000, '[') + "\",\"inputs\":{}}", &c).ok());
}

TEST(CaseLimits, BadValuesAreQuotedAsShortExcerpts) {
  // Was: the whole offending value was echoed (a 50 MB element reached stderr whole).
  const std::string long_string = "\"" + std::string(1 << 20, 'x') + "\"";
  std::string long_array = "[";
  for (int i = 0; i < 100000; ++i) long_array += i ? ",1" : "1";
  long_array += "]";
  const std::string long_key = std::string(1 << 20, 'k');
  const std::string texts[] = {
      CaseText("\"Q\":{\"dims\":[1],\"dtype\":\"float32\",\"data\":[" + long_string + "]}"),
      CaseText("\"Q\":{\"dims\":[1],\"dtype\":\"float32\",\"data\":[" + long_array + "]}"),
      CaseText("\"Q\":{\"dims\":[1],\"dtype\":" + long_string + ",\"data\":[1]}"),
      CaseText("", ",\"attributes\":{\"" + long_key + "\":" + long_array + "}"),
      CaseText("\"" + long_key + "\":{\"dims\":[1],\"dtype\":\"float32\",\"data\":[true]}"),
      CaseText("", ",\"op\":" + long_string),
      CaseText("", ",\"attributes\":{\"" + long_key + "\":1}"),
  };
  for (const std::string& text : texts) {
    Case c;
    Status s = ParseCase(text, &c);
    if (s.ok()) {
      TensorMap out;
      s = RunCase(c, &out);
    }
    EXPECT_FALSE(s.ok());
    EXPECT_LT(s.message().size(), kShortMessage) << s.message().substr(0, 1000);
  }
}

TEST(CaseLimits, ShapesInMessagesAreBounded) {
  // Was: a Q of 100 000 dims of 1 printed every one of them in "expected 3 or 4 dims, got (...)".
  std::string dims = "[1";
  for (int i = 1; i < 100000; ++i) dims += ",1";
  dims += "]";
  const Status s = RunText(CaseText("\"Q\":{\"dims\":" + dims +
                                    ",\"dtype\":\"float32\",\"data\":[0]},\"K\":" +
                                    FloatTensor("[1,1,1,1]", 1) + ",\"V\":" + FloatTensor("[1,1,1,1]", 1)));
  EXPECT_EQ(s.code(), StatusCode::kShapeMismatch);
  EXPECT_LT(s.message().size(), kShortMessage);
  EXPECT_NE(s.message().find("100000 dims"), std::string::npos) << s.message();
}

// ONNX Attention with L = M = n and d = 1: small inputs (3n elements), (n, n) scores.
std::string LongSequenceCase(int n, const std::string& extra = "") {
  const std::string dims = "[1,1," + std::to_string(n) + ",1]";
  return CaseText("\"Q\":" + FloatTensor(dims, n) + ",\"K\":" + FloatTensor(dims, n) +
                      ",\"V\":" + FloatTensor(dims, n),
                  extra);
}

TEST(CaseLimits, ScoresOverTheLimitAreRefusedBeforeAllocating) {
  // Was: L = M = 100 000 asked for 40 GB and aborted with an uncaught std::bad_alloc (L = M =
  // 20 000 ran 78 s to 9.4 GB). The refusal names the check made before anything is allocated: the
  // scores of one batch item. That it allocates next to nothing is counted (not timed) by
  // AllocationBudget.ACaseOverTheElementLimitIsRefusedBeforeAllocating (allocation_budget_test.cpp).
  Case c;
  ASSERT_TRUE(ParseCase(LongSequenceCase(100000), &c).ok());
  TensorMap out;
  const Status s = RunCase(c, &out);
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted) << s.ToString();
  EXPECT_NE(s.message().find("scores of one batch item"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("max_elements"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("16777216"), std::string::npos) << s.message();
}

TEST(CaseLimits, DimsWhoseProductOverflowsAreResourceExhausted) {
  // 2^32 cubed wraps int64 (was a parse error "dims are too large" only past 2^40; a Case built in
  // code overflowed NumElements, undefined behaviour).
  Case c;
  const Status parsed = ParseCase(
      CaseText(R"("Q":{"dims":[4294967296,4294967296,4294967296],"dtype":"float32","data":[]})"),
      &c);
  EXPECT_EQ(parsed.code(), StatusCode::kResourceExhausted) << parsed.ToString();
  EXPECT_NE(parsed.message().find("inputs.Q"), std::string::npos) << parsed.message();

  ASSERT_TRUE(ParseCase(LongSequenceCase(2), &c).ok());
  c.inputs["Q"].dims = {int64_t{1} << 32, int64_t{1} << 32, int64_t{1} << 32, 1};
  EXPECT_EQ(c.inputs["Q"].NumElements(), std::numeric_limits<int64_t>::max());
  TensorMap out;
  EXPECT_EQ(RunCase(c, &out).code(), StatusCode::kResourceExhausted);
  // A zero dim makes the product 0 whatever the others are.
  c.inputs["Q"].dims = {0, int64_t{1} << 62, int64_t{1} << 62};
  EXPECT_EQ(c.inputs["Q"].NumElements(), 0);
}

TEST(CaseLimits, EveryLimitCanBeSetAndNamesItself) {
  CaseLimits tight;
  tight.max_elements = 15;
  Case c;
  // A 16-element input is over a 15-element limit at parse time...
  Status s = ParseCase(CaseText("\"Q\":" + FloatTensor("[16]", 16)), &c, tight);
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(s.message().find("max_elements"), std::string::npos) << s.message();
  // ...and (1, 4) scores of 4 keys fit, (1, 4, 4) do not.
  ASSERT_TRUE(ParseCase(LongSequenceCase(4), &c, tight).ok());
  TensorMap out;
  s = RunCase(c, &out, KernelId::kEigen, tight);
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(s.message().find("scores"), std::string::npos) << s.message();
  EXPECT_TRUE(RunCase(c, &out).ok());

  CaseLimits small_input;
  small_input.max_input_bytes = 100;
  s = ParseCase(LongSequenceCase(4), &c, small_input);
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(s.message().find("max_input_bytes"), std::string::npos) << s.message();

  CaseLimits shallow;
  shallow.max_nesting_depth = 3;
  s = ParseCase(LongSequenceCase(4), &c, shallow);
  EXPECT_EQ(s.code(), StatusCode::kParseError);
  EXPECT_NE(s.message().find("nesting deeper than 3 levels"), std::string::npos) << s.message();
}

TEST(CaseLimits, FilesOverTheInputLimitAreNotRead) {
  const std::string path = testing::TempDir() + "case_io_test_big.json";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  const std::string text = LongSequenceCase(200);
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
  Case c;
  CaseLimits limits;
  limits.max_input_bytes = static_cast<int64_t>(text.size()) - 1;
  Status s = ReadCaseFile(path, &c, limits);
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(s.message().find("max_input_bytes"), std::string::npos) << s.message();
  limits.max_input_bytes = static_cast<int64_t>(text.size());
  EXPECT_TRUE(ReadCaseFile(path, &c, limits).ok());
  std::remove(path.c_str());
}

TEST(CaseLimits, OnlyRegularFilesAreRead) {
  // Was: a directory read as empty text ("not valid JSON"); /dev/zero was read without end.
  Case c;
  Status s = ReadCaseFile(testing::TempDir(), &c);
  EXPECT_EQ(s.code(), StatusCode::kParseError);
  EXPECT_NE(s.message().find("is a directory"), std::string::npos) << s.message();
  for (const char* device : {"/dev/zero", "/dev/urandom"}) {
    s = ReadCaseFile(device, &c);
    EXPECT_EQ(s.code(), StatusCode::kParseError) << device;
    EXPECT_NE(s.message().find("not a regular file"), std::string::npos) << s.message();
  }
}

TEST(CaseRun, QkMatmulOutputOnlyWhenTheCaseAsksForIt) {
  // Was: the (B, Hq, L, M) qk_matmul_output was always allocated and returned.
  Case c;
  ASSERT_TRUE(ParseCase(LongSequenceCase(3), &c).ok());
  TensorMap out;
  ASSERT_TRUE(RunCase(c, &out).ok());
  EXPECT_EQ(out.count("Y"), 1u);
  EXPECT_EQ(out.count("qk_matmul_output"), 0u);

  c.attributes["qk_matmul_output_mode"] = 3;  // the attribute asks
  ASSERT_TRUE(RunCase(c, &out).ok());
  ASSERT_EQ(out.count("qk_matmul_output"), 1u);
  EXPECT_EQ(out.at("qk_matmul_output").dims, (std::vector<int64_t>{1, 1, 3, 3}));
  EXPECT_NEAR(out.at("qk_matmul_output").values[0], 1.0f / 3, 1e-6f);  // equal scores

  c.attributes.clear();
  c.outputs["qk_matmul_output"] = Tensor();  // listed among the expected outputs
  ASSERT_TRUE(RunCase(c, &out).ok());
  EXPECT_EQ(out.count("qk_matmul_output"), 1u);
}

TEST(CaseRun, AttentionWeightsOnlyWhenTheCaseAsksForThem) {
  Case c;
  ASSERT_TRUE(ReadCaseFile(std::string(ATTN_TEST_DATA_DIR) +
                               "/torch-mha/torch_mha_001_cross_E4H2_L3S1.json",
                           &c)
                  .ok());
  TensorMap out;
  ASSERT_TRUE(RunCase(c, &out).ok());  // its outputs list attn_output_weights
  EXPECT_EQ(out.count("attn_output_weights"), 1u);
  c.outputs.erase("attn_output_weights");
  ASSERT_TRUE(RunCase(c, &out).ok());
  EXPECT_EQ(out.count("attn_output_weights"), 0u);
  EXPECT_EQ(out.count("attn_output"), 1u);
  c.attributes["need_weights"] = 1;
  ASSERT_TRUE(RunCase(c, &out).ok());
  EXPECT_EQ(out.at("attn_output_weights").dims, (std::vector<int64_t>{2, 2, 3, 1}));
}

TEST(CaseRun, UnknownNamesAreRefusedWithTheNearestKnownOne) {
  // Was: ignored; a typo (is_casual) silently gave the non-causal result.
  struct Bad {
    std::string text;
    std::string message;
  };
  const std::string torch_case = ",\"op\":\"MultiHeadAttention\"";
  const Bad bad[] = {
      {LongSequenceCase(3, R"(,"attributes":{"is_casual":1})"),
       "is_casual: unknown attribute of Attention (did you mean is_causal?)"},
      {LongSequenceCase(3, R"(,"attributes":{"colour":1})"),
       "colour: unknown attribute of Attention (expected one of is_causal, kv_num_heads,"},
      {CaseText("\"Q\":" + FloatTensor("[1,1,1,1]", 1) + ",\"K\":" + FloatTensor("[1,1,1,1]", 1) +
                ",\"V\":" + FloatTensor("[1,1,1,1]", 1) + ",\"atn_mask\":" + FloatTensor("[1,1]", 1)),
       "atn_mask: unknown input of Attention (did you mean attn_mask?)"},
      {LongSequenceCase(3, ",\"outputs\":{\"y\":" + FloatTensor("[1]", 1) + "}"),
       "y: unknown output of Attention (did you mean Y?)"},
      {CaseText("", torch_case + R"(,"attributes":{"num_head":2})"),
       "num_head: unknown attribute of MultiHeadAttention (did you mean num_heads?)"},
      {CaseText("\"querry\":" + FloatTensor("[1]", 1), torch_case),
       "querry: unknown input of MultiHeadAttention (did you mean query?)"},
  };
  for (const Bad& b : bad) {
    const Status s = RunText(b.text);
    EXPECT_EQ(s.code(), StatusCode::kUnknownOption) << s.ToString();
    EXPECT_NE(s.message().find(b.message), std::string::npos) << s.message();
  }
  // The same case without the typo runs.
  EXPECT_TRUE(RunText(LongSequenceCase(3, R"(,"attributes":{"is_causal":1})")).ok());
}

TEST(CaseIo, UnknownKeysOfACaseOrATensorAreRefused) {
  // Was: ignored, so "attribute" (for "attributes") silently ran the case without its attributes.
  struct Bad {
    std::string text;
    std::string message;
  };
  const Bad bad[] = {
      {LongSequenceCase(3, R"(,"attribute":{"is_causal":1})"),
       "attribute: unknown key of a case (did you mean attributes?)"},
      {LongSequenceCase(3, R"(,"comment":"x")"),
       "comment: unknown key of a case (expected one of name, op, opset, attributes, inputs, outputs)"},
      {CaseText("\"Q\":{\"dims\":[1],\"dtype\":\"float32\",\"data\":[1],\"dtpye\":\"float16\"}"),
       "dtpye: unknown key of a tensor (did you mean dtype?)"},
  };
  for (const Bad& b : bad) {
    Case c;
    const Status s = ParseCase(b.text, &c);
    EXPECT_EQ(s.code(), StatusCode::kUnknownOption) << s.ToString();
    EXPECT_NE(s.message().find(b.message), std::string::npos) << s.message();
  }
}

TEST(CaseRun, SoftmaxPrecisionMustNameAFloatType) {
  EXPECT_TRUE(RunText(LongSequenceCase(2, R"(,"attributes":{"softmax_precision":1})")).ok());
  EXPECT_EQ(RunText(LongSequenceCase(2, R"(,"attributes":{"softmax_precision":7})")).code(),
            StatusCode::kOutOfRange);
}

TEST(CaseIo, Int64BeyondItsRangeIsRefused) {
  // Was: 2^64 - 1 wrapped silently to -1.
  Case c;
  const Status s = ParseCase(
      CaseText(R"("n":{"dims":[1],"dtype":"int64","data":[18446744073709551615]})"), &c);
  EXPECT_EQ(s.code(), StatusCode::kParseError);
  EXPECT_NE(s.message().find("inputs.n.data[0]"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace attn
