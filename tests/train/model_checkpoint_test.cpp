// The Learn view's model as safetensors + config.json (attn/train/model_checkpoint.h): every tensor's
// name, shape and bytes against the model's parameters, the config's settings, the round trip back
// into a model that computes the same logits, and the errors. What PyTorch computes from the files
// is checked by the ctest learn.export_torch (tests/torch_export_test.cmake) where torch is installed.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "attn/seeded_random.h"
#include "attn/train/bounded_json.h"
#include "attn/train/lm_checkpoint.h"
#include "attn/train/model_checkpoint.h"
#include "attn/train/tasks.h"

namespace attn::train {
namespace {

// The task's model with `base`'s settings, its parameters moved off InitializeModel's values (so
// no bias or LayerNorm is a constant a swap would hide).
ModelParameters Seeded(const ModelConfig& c) {
  ModelParameters p = InitializeModel(c);
  SeededRandom rng(7);
  ForEachParameter(p, [&](const std::string&, Matrix& m) {
    for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] += 0.1f * static_cast<float>(rng.Normal());
  });
  return p;
}

ModelConfig Config(TaskKind task, Positions positions, bool layer_norm, bool mlp) {
  ModelConfig base;
  base.positions = positions;
  base.layer_norm = layer_norm;
  base.mlp = mlp;
  return ConfigForTask(task, base);
}

struct Written {
  std::string safetensors, config;
  SafetensorsFile file;
  JsonValue json;
};

void Write(TaskKind task, const ModelConfig& c, const ModelParameters& p, Written* w) {
  ASSERT_TRUE(WriteModelCheckpoint(task, c, p, &w->safetensors, &w->config).ok());
  ASSERT_TRUE(ParseSafetensors(reinterpret_cast<const uint8_t*>(w->safetensors.data()), w->safetensors.size(), &w->file).ok());
  ASSERT_TRUE(ParseJson(w->config.data(), w->config.size(), &w->json).ok()) << w->config;
}

// The documented names of the default Learn model (2 blocks, LayerNorm, learned positions, no MLP),
// in the order written, with their shapes.
TEST(ModelCheckpoint, NamesTheDefaultModelsTensorsAsDocumented) {
  const ModelConfig c = Config(TaskKind::kRecall, Positions::kLearned, true, false);
  ASSERT_EQ(c.layers, 2);
  Written w;
  Write(TaskKind::kRecall, c, Seeded(c), &w);
  const int64_t V = c.vocab, C = c.classes, T = c.seq_len, d = c.d_model;
  std::vector<std::pair<std::string, std::vector<int64_t>>> expected = {{"wte.weight", {V, d}}, {"wpe.weight", {T, d}}};
  for (const std::string h : {"h.0.", "h.1."}) {
    expected.push_back({h + "ln_1.weight", {d}});
    expected.push_back({h + "ln_1.bias", {d}});
    for (const char* w : {"q", "k", "v"}) expected.push_back({h + "attn." + w + ".weight", {d, d}});
    expected.push_back({h + "attn.c_proj.weight", {d, d}});
    for (const char* b : {"q", "k", "v", "c_proj"}) expected.push_back({h + "attn." + b + ".bias", {d}});
  }
  expected.push_back({"ln_f.weight", {d}});
  expected.push_back({"ln_f.bias", {d}});
  expected.push_back({"head.weight", {d, C}});
  expected.push_back({"head.bias", {C}});
  ASSERT_EQ(w.file.tensors.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(w.file.tensors[i].name, expected[i].first);
    EXPECT_EQ(w.file.tensors[i].shape, expected[i].second) << expected[i].first;
    EXPECT_EQ(w.file.tensors[i].dtype, "F32");
  }
  EXPECT_EQ(w.file.metadata, (std::vector<std::pair<std::string, std::string>>{{"format", "pt"}, {"attnlab.model", "learn"}}));
}

// The pair --save and the page's "Export weights" write: FILE.safetensors and FILE.config.json.
TEST(ModelCheckpoint, NamesTheConfigBesideTheFile) {
  EXPECT_EQ(ConfigNameBeside("learn.safetensors"), "learn.config.json");
  EXPECT_EQ(ConfigNameBeside("out/recall 2.safetensors"), "out/recall 2.config.json");
  EXPECT_EQ(ConfigNameBeside("model.bin"), "model.bin.config.json");
  EXPECT_EQ(ConfigNameBeside(".safetensors"), ".safetensors.config.json");
}

class ModelCheckpointSettings : public ::testing::TestWithParam<std::tuple<Positions, bool, bool>> {};

// Every parameter ForEachParameter lists is in the file, once, as its exact float bytes (row-major);
// the config holds every setting; reading the files back gives the same model, whose logits are the
// same bits.
TEST_P(ModelCheckpointSettings, EveryParameterIsWrittenAsItsBytesAndReadBack) {
  const auto [positions, layer_norm, mlp] = GetParam();
  const TaskKind task = TaskKind::kPlusMinus;
  const ModelConfig c = Config(task, positions, layer_norm, mlp);
  const ModelParameters p = Seeded(c);
  Written w;
  Write(task, c, p, &w);
  size_t parameters = 0;
  ForEachParameter(p, [&](const std::string& name, const Matrix& m) {
    ++parameters;
    const SafetensorsTensor* t = nullptr;
    for (const auto& candidate : w.file.tensors) {
      int64_t count = 1;
      for (const int64_t n : candidate.shape) count *= n;
      if (count == m.size() && candidate.end - candidate.begin == 4 * static_cast<uint64_t>(m.size()) &&
          std::memcmp(w.file.data + candidate.begin, m.data(), 4 * static_cast<size_t>(m.size())) == 0)
        t = &candidate;
    }
    ASSERT_NE(t, nullptr) << name << ": no tensor holds its bytes";
    const bool vector = m.rows() == 1 && t->shape.size() == 1;
    EXPECT_TRUE(vector || t->shape == (std::vector<int64_t>{m.rows(), m.cols()})) << name << " as " << t->name;
  });
  EXPECT_EQ(w.file.tensors.size(), parameters);

  const auto number = [&](const char* key) { return w.json.Find(key) ? w.json.Find(key)->number : -1; };
  const auto text = [&](const char* key) { return w.json.Find(key) ? w.json.Find(key)->text : "?"; };
  const auto boolean = [&](const char* key) { return w.json.Find(key) && w.json.Find(key)->boolean; };
  EXPECT_EQ(text("model_type"), "attnlab-learn");
  EXPECT_EQ(text("task"), "plusminus");
  EXPECT_EQ(number("vocab_size"), c.vocab);
  EXPECT_EQ(number("n_classes"), c.classes);
  EXPECT_EQ(number("n_positions"), c.seq_len);
  EXPECT_EQ(number("n_embd"), c.d_model);
  EXPECT_EQ(number("n_layer"), c.layers);
  EXPECT_EQ(number("n_head"), c.heads);
  EXPECT_EQ(number("head_dim"), HeadDim(c));
  EXPECT_EQ(number("layer_norm_epsilon"), 1e-5);
  EXPECT_EQ(boolean("layer_norm"), layer_norm);
  EXPECT_EQ(boolean("mlp"), mlp);
  EXPECT_TRUE(boolean("causal"));
  EXPECT_EQ(text("activation_function"), "relu");
  ASSERT_NE(w.json.Find("tokens"), nullptr);
  ASSERT_EQ(w.json.Find("tokens")->items.size(), static_cast<size_t>(c.vocab));
  EXPECT_EQ(w.json.Find("tokens")->items[static_cast<size_t>(c.vocab) - 1].text, TokenText(task, c.vocab - 1));
  ASSERT_EQ(w.json.Find("class_tokens")->items.size(), static_cast<size_t>(c.classes));

  TaskKind read_task;
  ModelConfig read_config;
  ModelParameters read;
  const Status status = ReadModelCheckpoint(w.safetensors, w.config, &read_task, &read_config, &read);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(read_task, task);
  EXPECT_EQ(read_config.positions, c.positions);
  EXPECT_EQ(read_config.layer_norm, c.layer_norm);
  EXPECT_EQ(read_config.mlp, c.mlp);
  EXPECT_EQ(HeadDim(read_config), HeadDim(c));
  SeededRandom rng(3);
  const Batch batch = SampleBatch(task, &rng, 4);
  Activations a, b;
  ASSERT_TRUE(ModelForward(c, p, batch, &a).ok());
  ASSERT_TRUE(ModelForward(read_config, read, batch, &b).ok());
  EXPECT_TRUE(a.logits == b.logits) << "the same parameters, the same bits";
}

INSTANTIATE_TEST_SUITE_P(Settings, ModelCheckpointSettings,
                         ::testing::Values(std::make_tuple(Positions::kLearned, true, false),
                                           std::make_tuple(Positions::kNone, false, true),
                                           std::make_tuple(Positions::kSinusoidal, true, true),
                                           std::make_tuple(Positions::kRope, false, false)));

TEST(ModelCheckpoint, RefusesWhatItCannotWriteOrRead) {
  const TaskKind task = TaskKind::kCopy;
  const ModelConfig c = Config(task, Positions::kLearned, true, true);
  ModelParameters p = Seeded(c);
  std::string st, cfg;
  const auto message = [&](const Status& s) { return s.ok() ? std::string("ok") : s.ToString(); };

  ModelConfig cnn = c;
  cnn.kind = ModelKind::kCnn;
  EXPECT_NE(message(WriteModelCheckpoint(task, cnn, InitializeModel(cnn), &st, &cfg))
                .find("unknown_option: checkpoint: model kind: expected transformer (the Learn view's model), got cnn"),
            std::string::npos);
  EXPECT_NE(message(WriteModelCheckpoint(TaskKind::kRecall, c, p, &st, &cfg)).find("checkpoint: config: expected recall's vocab"),
            std::string::npos);
  ModelConfig unscaled = c;  // config.json's attention_scale and the PyTorch reference are softmax(q·k/√d_k)
  unscaled.scaled = false;
  EXPECT_NE(message(WriteModelCheckpoint(task, unscaled, p, &st, &cfg))
                .find("unknown_option: checkpoint: attention: expected scaled scores and softmax (the checkpoint's "
                      "attention_scale 1/sqrt(head_dim)), got unscaled scores"),
            std::string::npos);
  ModelConfig sparse = c;
  sparse.sparsemax = true;
  EXPECT_NE(message(WriteModelCheckpoint(task, sparse, p, &st, &cfg)).find("got sparsemax"), std::string::npos);
  ModelParameters narrow = p;
  narrow.blocks[0].attention.wq = Matrix::Zero(c.d_model, 16);
  EXPECT_NE(message(WriteModelCheckpoint(task, c, narrow, &st, &cfg))
                .find("shape_mismatch: checkpoint: h.0.attn.q.weight: expected shape [32, 32], got [32, 16]"),
            std::string::npos);

  ASSERT_TRUE(WriteModelCheckpoint(task, c, p, &st, &cfg).ok());
  TaskKind t;
  ModelConfig rc;
  ModelParameters rp;
  // A file of the model without its MLP: the config's MLP has no tensors.
  ModelConfig no_mlp = c;
  no_mlp.mlp = false;
  std::string st_no_mlp, cfg_no_mlp;
  ASSERT_TRUE(WriteModelCheckpoint(task, no_mlp, Seeded(no_mlp), &st_no_mlp, &cfg_no_mlp).ok());
  EXPECT_NE(message(ReadModelCheckpoint(st_no_mlp, cfg, &t, &rc, &rp)).find("checkpoint: h.0.ln_2.weight: missing"),
            std::string::npos);
  EXPECT_NE(message(ReadModelCheckpoint(st, cfg_no_mlp, &t, &rc, &rp)).find("h.0.ln_2.weight: not a tensor of this model"),
            std::string::npos);
  std::string other_task = cfg;
  other_task.replace(other_task.find("\"copy\""), 6, "\"sort\"");  // sort has copy's shapes: accepted
  EXPECT_TRUE(ReadModelCheckpoint(st, other_task, &t, &rc, &rp).ok());
  EXPECT_EQ(t, TaskKind::kSort);
  std::string bad = cfg;
  bad.replace(bad.find("\"learned\""), 9, "\"alibi\"");
  EXPECT_NE(message(ReadModelCheckpoint(st, bad, &t, &rc, &rp)).find("positions: expected none, learned, sinusoidal or rope, got 'alibi'"),
            std::string::npos);
  EXPECT_NE(message(ReadModelCheckpoint(st, "{}", &t, &rc, &rp)).find("model_type: expected a string"), std::string::npos);
  EXPECT_NE(message(ReadModelCheckpoint(st.substr(0, 20), cfg, &t, &rc, &rp)).find("safetensors"), std::string::npos);
}

}  // namespace
}  // namespace attn::train
