// Checkpoint files (attn/train/lm_checkpoint.h) from bytes: the input is a config.json and a
// safetensors file, [u16 little-endian config length][config][safetensors]. The reader must return
// a status, never crash, read out of bounds or allocate beyond its stated bounds (libFuzzer's
// -malloc_limit_mb turns a huge allocation into a finding). What it accepts must run (one forward
// over a few ids) and survive the writer: written and read back, the same parameters.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "attn/train/bounded_json.h"
#include "attn/train/lm_checkpoint.h"
#include "attn/train/lm_inference.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace attn::train;
  if (size < 2) return 0;
  const size_t config_size = std::min<size_t>(size - 2, static_cast<size_t>(data[0] | data[1] << 8));
  LmCheckpointOptions options;
  options.config_json.assign(reinterpret_cast<const char*>(data + 2), config_size);
  const std::string file(reinterpret_cast<const char*>(data + 2 + config_size), size - 2 - config_size);
  JsonValue json;
  (void)ParseJson(file.data(), file.size(), &json);  // the parser alone, on any text
  LmModel model;
  LmCheckpointInfo info;
  if (!ReadLmCheckpoint(file, options, &model, &info).ok()) return 0;
  if (info.parameters != LmParameterCount(model.config)) std::abort();
  std::vector<int> ids;
  for (int i = 0; i < std::min(3, model.config.seq_len); ++i) ids.push_back(i % model.config.vocab);
  LmCache cache;
  LmTrace trace;
  (void)LmAdvance(model, ids, LmAblation(), false, &cache, &trace);  // may refuse non-finite logits
  std::string bytes, config;
  if (!WriteLmCheckpoint(model, &bytes, &config).ok()) std::abort();
  LmCheckpointOptions again;
  again.config_json = config;
  LmModel back;
  if (!ReadLmCheckpoint(bytes, again, &back).ok()) std::abort();
  bool same = back.params.blocks.size() == model.params.blocks.size();
  ForEachParameterPair(model.params, back.params, [&](const std::string&, const attn::Matrix& a, const attn::Matrix& b) {
    same = same && a.rows() == b.rows() && a.cols() == b.cols() && a == b;
  });
  if (!same) std::abort();
  return 0;
}
