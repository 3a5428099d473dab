// attn_learn_probe: what attnlab computes on the held-out sequences of a model `attnlab train --save`
// wrote, for tests/torch/export_check.py to set PyTorch's numbers against (ctest learn.export_torch).
// Reads FILE.safetensors + FILE.config.json with ReadModelCheckpoint, takes the held-out sequences
// `attnlab train --seed S --eval N` scored (HeldOutBatch) and writes OUT (safetensors, F32):
//   ids, targets, weights (N, T)   the sequences (ids and targets as floats: exact below 2²⁴)
//   logits (N·T, C)                ModelForward's, row r = position r mod T of sequence r / T
//   __metadata__ {"correct", "scored"}: the held-out accuracy's counts, as `attnlab train` prints it
//   usage: attn_learn_probe FILE.safetensors FILE.config.json SEED N OUT.safetensors
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "attn/train/lm_checkpoint.h"
#include "attn/train/model_checkpoint.h"
#include "attn/train/trainer.h"

namespace {

std::string ReadFile(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

int Fail(const std::string& what) {
  std::fprintf(stderr, "attn_learn_probe: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace attn::train;
  if (argc != 6) return Fail("usage: attn_learn_probe FILE.safetensors FILE.config.json SEED N OUT.safetensors");
  TrainConfig config;
  ModelParameters params;
  attn::Status status = ReadModelCheckpoint(ReadFile(argv[1]), ReadFile(argv[2]), &config.task, &config.model, &params);
  if (!status.ok()) return Fail(status.ToString());
  config.seed = static_cast<uint32_t>(std::strtoul(argv[3], nullptr, 10));
  const Batch batch = HeldOutBatch(config, std::atoi(argv[4]));
  Activations acts;
  status = ModelForward(config.model, params, batch, &acts);
  if (!status.ok()) return Fail(status.ToString());
  const auto table = [&](const auto& values) {
    attn::Matrix m(batch.size, batch.seq_len);
    for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(values[static_cast<size_t>(i)]);
    return m;
  };
  const std::vector<SafetensorsEntry> tensors = {
      {"ids", {batch.size, batch.seq_len}, table(batch.ids)},
      {"targets", {batch.size, batch.seq_len}, table(batch.targets)},
      {"weights", {batch.size, batch.seq_len}, table(batch.weights)},
      {"logits", {acts.logits.rows(), acts.logits.cols()}, acts.logits}};
  std::string bytes;
  status = WriteSafetensors({{"correct", std::to_string(acts.correct)}, {"scored", std::to_string(acts.scored)}}, tensors, &bytes);
  if (!status.ok()) return Fail(status.ToString());
  std::ofstream out(argv[5], std::ios::binary);
  out << bytes;
  return out ? 0 : Fail(std::string("cannot write ") + argv[5]);
}
