// Every committed ONNX and PyTorch case, run with every kernel through the same code as
// `attnlab check`; natively and under node (the wasm binary reads the files through NODERAWFS).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "attn/case_io.h"

namespace attn {
namespace {

// The *.json files of tests/data/<folder>, sorted.
std::vector<std::string> CaseFiles(const std::string& folder) {
  std::vector<std::string> files;
  std::error_code error;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(ATTN_TEST_DATA_DIR) + "/" + folder, error)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Checks every case of `folder` with every kernel of this build; one failure line per bad case,
// and the largest error seen per kernel.
void ExpectAllCasesPass(const std::string& folder, size_t minimum_count) {
  const std::vector<std::string> files = CaseFiles(folder);
  ASSERT_GE(files.size(), minimum_count)
      << "cases missing from " << ATTN_TEST_DATA_DIR << "/" << folder;
  std::vector<Case> cases(files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    const Status status = ReadCaseFile(files[i], &cases[i]);
    ASSERT_TRUE(status.ok()) << status.ToString();
  }
  for (KernelId kernel : AvailableKernels()) {
    CaseCheck worst;
    for (const Case& c : cases) {
      const CaseCheck check = CheckCase(c, kernel);
      EXPECT_TRUE(check.passed) << KernelName(kernel) << " kernel, " << check.name << ": "
                                << check.message;
      if (check.max_abs_error >= worst.max_abs_error) worst = check;
    }
    std::printf("%s, %s kernel: %zu cases, largest error %.3g in %s (%s)\n", folder.c_str(),
                KernelName(kernel), cases.size(), worst.max_abs_error, worst.name.c_str(),
                worst.worst_output.c_str());
  }
}

TEST(Conformance, OnnxAttentionCasesPass) { ExpectAllCasesPass("onnx-attention", 50); }

TEST(Conformance, TorchMultiheadAttentionCasesPass) { ExpectAllCasesPass("torch-mha", 200); }

// The check itself must be able to fail: nudge one expected value past the tolerance.
TEST(Conformance, CheckRejectsAnOutputOutsideTolerance) {
  for (const char* file : {"onnx-attention/test_attention_4d_gqa_with_past_and_present.json",
                           "onnx-attention/test_attention_4d_fp16.json",
                           "torch-mha/torch_mha_004_cross_E6H3_L5S6_mask_bool2d_kpm_bool.json"}) {
    SCOPED_TRACE(file);
    Case c;
    ASSERT_TRUE(ReadCaseFile(std::string(ATTN_TEST_DATA_DIR) + "/" + file, &c).ok());
    ASSERT_TRUE(CheckCase(c).passed);
    Tensor& first_output = c.outputs.begin()->second;
    const Tolerance tol = ToleranceFor(first_output.dtype);
    float& value = first_output.values[first_output.values.size() / 2];
    value += static_cast<float>(3 * (tol.atol + tol.rtol * std::abs(value)));
    const CaseCheck check = CheckCase(c);
    EXPECT_FALSE(check.passed);
    EXPECT_NE(check.message.find(c.outputs.begin()->first), std::string::npos) << check.message;
  }
}

TEST(Conformance, CheckRejectsMissingAndMisshapenOutputs) {
  Case c;
  ASSERT_TRUE(
      ReadCaseFile(std::string(ATTN_TEST_DATA_DIR) + "/onnx-attention/test_attention_4d.json", &c)
          .ok());
  Case renamed = c;
  renamed.outputs["Z"] = renamed.outputs["Y"];
  EXPECT_FALSE(CheckCase(renamed).passed);
  Case reshaped = c;
  reshaped.outputs["Y"].dims.back() += 1;
  EXPECT_FALSE(CheckCase(reshaped).passed);
  Case no_outputs = c;
  no_outputs.outputs.clear();
  EXPECT_FALSE(CheckCase(no_outputs).passed);
}

}  // namespace
}  // namespace attn
