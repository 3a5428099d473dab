// The Learn view's model as safetensors + config.json and back (namings and settings:
// attn/train/model_checkpoint.h). The export names come from ForEachParameter's own names, so the
// writer, the reader and the model's parameter list cannot drift apart.
#include "attn/train/model_checkpoint.h"

#include <cstdlib>
#include <new>
#include <set>
#include <utility>
#include <vector>

#include "attn/train/bounded_json.h"
#include "attn/train/lm_checkpoint.h"

namespace attn::train {
namespace {

Status Fail(StatusCode code, const std::string& what) { return Status(code, "checkpoint: " + what); }

// ForEachParameter's name of a transformer parameter ("block2.attention.wq", "out_w") as the
// export's ("h.1.attn.q.weight", "head.weight"); `vector` says it is stored with shape [n].
std::string ExportName(const std::string& name, bool* vector) {
  static const std::pair<const char*, const char*> kBlock[] = {
      {"ln1_gamma", "ln_1.weight"},       {"ln1_beta", "ln_1.bias"},          {"attention.wq", "attn.q.weight"},
      {"attention.wk", "attn.k.weight"},  {"attention.wv", "attn.v.weight"},  {"attention.wo", "attn.c_proj.weight"},
      {"attention.bq", "attn.q.bias"},    {"attention.bk", "attn.k.bias"},    {"attention.bv", "attn.v.bias"},
      {"attention.bo", "attn.c_proj.bias"}, {"ln2_gamma", "ln_2.weight"},     {"ln2_beta", "ln_2.bias"},
      {"fc_w", "mlp.c_fc.weight"},        {"fc_b", "mlp.c_fc.bias"},          {"proj_w", "mlp.c_proj.weight"},
      {"proj_b", "mlp.c_proj.bias"}};
  static const std::pair<const char*, const char*> kTop[] = {
      {"wte", "wte.weight"},     {"wpe", "wpe.weight"},  {"lnf_gamma", "ln_f.weight"},
      {"lnf_beta", "ln_f.bias"}, {"out_w", "head.weight"}, {"out_b", "head.bias"}};
  const auto vector_name = [](const std::string& n) {
    return n.size() > 5 && (n.compare(n.size() - 5, 5, ".bias") == 0 || n.find("ln_") != std::string::npos);
  };
  std::string out;
  for (const auto& [from, to] : kTop)
    if (name == from) out = to;
  if (out.empty() && name.compare(0, 5, "block") == 0) {
    const size_t dot = name.find('.');
    const int block = std::atoi(name.substr(5, dot - 5).c_str());
    for (const auto& [from, to] : kBlock)
      if (name.compare(dot + 1, std::string::npos, from) == 0) out = "h." + std::to_string(block - 1) + "." + to;
  }
  *vector = vector_name(out);
  return out;
}

std::vector<int64_t> StoredShape(const Matrix& m, bool vector) {
  return vector ? std::vector<int64_t>{m.size()} : std::vector<int64_t>{m.rows(), m.cols()};
}

constexpr const char* kPositionNames[] = {"none", "learned", "sinusoidal", "rope"};

std::string JsonStrings(TaskKind task, int count, std::string (*text)(TaskKind, int)) {
  std::string s = "[";
  for (int i = 0; i < count; ++i) {
    if (i) s += ", ";
    AppendJsonString(text(task, i), &s);
  }
  return s + "]";
}

}  // namespace

Status WriteModelCheckpoint(TaskKind task, const ModelConfig& c, const ModelParameters& params,
                            std::string* safetensors, std::string* config_json) {
  if (c.kind != ModelKind::kTransformer)
    return Fail(StatusCode::kUnknownOption, "model kind: expected transformer (the Learn view's model), got " +
                                                std::string(ModelKindName(c.kind)));
  ATTN_RETURN_IF_ERROR(ValidateModelConfig(c));
  if (!c.scaled || c.sparsemax)  // what config.json names and docs/pytorch.md's reference computes
    return Fail(StatusCode::kUnknownOption, std::string("attention: expected scaled scores and softmax (the checkpoint's "
                                                        "attention_scale 1/sqrt(head_dim)), got ") +
                                                (c.scaled ? "" : "unscaled scores") + (!c.scaled && c.sparsemax ? " and " : "") +
                                                (c.sparsemax ? "sparsemax" : ""));
  if (task < TaskKind::kPrevious || task >= TaskKind::kCount)
    return Fail(StatusCode::kUnknownOption, "task: expected " + TaskNames(", "));
  const TaskShape shape = ShapeOf(task);
  if (c.vocab != shape.vocab || c.classes != shape.classes || c.seq_len != shape.seq_len)
    return Fail(StatusCode::kShapeMismatch, std::string("config: expected ") + TaskName(task) + "'s vocab " +
                                                std::to_string(shape.vocab) + ", classes " + std::to_string(shape.classes) +
                                                ", seq_len " + std::to_string(shape.seq_len) + ", got " +
                                                std::to_string(c.vocab) + ", " + std::to_string(c.classes) + ", " +
                                                std::to_string(c.seq_len));
  try {
    // The shapes to export are InitializeModel's: a parameter missing or of another shape is refused.
    const ModelParameters expected = InitializeModel(c);
    if (params.blocks.size() != expected.blocks.size() || !params.convs.empty())
      return Fail(StatusCode::kShapeMismatch, "parameters: expected " + std::to_string(expected.blocks.size()) +
                                                  " blocks, got " + std::to_string(params.blocks.size()));
    std::vector<SafetensorsEntry> tensors;
    Status status;
    ForEachParameterPair(expected, params, [&](const std::string& name, const Matrix& want, const Matrix& got) {
      bool vector = false;
      const std::string export_name = ExportName(name, &vector);
      if (status.ok() && (got.rows() != want.rows() || got.cols() != want.cols()))
        status = Fail(StatusCode::kShapeMismatch, export_name + ": expected shape " + SafetensorsShapeText(StoredShape(want, vector)) +
                                                      ", got " + SafetensorsShapeText({got.rows(), got.cols()}));
      tensors.push_back({export_name, StoredShape(want, vector), got});
    });
    ATTN_RETURN_IF_ERROR(status);
    std::string bytes;
    ATTN_RETURN_IF_ERROR(WriteSafetensors({{"format", "pt"}, {"attnlab.model", "learn"}}, tensors, &bytes));

    const auto line = [](const char* key, const std::string& value) { return ",\n  \"" + std::string(key) + "\": " + value; };
    const auto text = [](const char* s) { return "\"" + std::string(s) + "\""; };
    const auto flag = [](bool b) { return std::string(b ? "true" : "false"); };
    std::string task_name;
    AppendJsonString(TaskName(task), &task_name);
    std::string config = "{\n  \"model_type\": \"attnlab-learn\"" + line("task", task_name) +
                         line("vocab_size", std::to_string(c.vocab)) + line("n_classes", std::to_string(c.classes)) +
                         line("n_positions", std::to_string(c.seq_len)) + line("n_embd", std::to_string(c.d_model)) +
                         line("n_layer", std::to_string(c.layers)) + line("n_head", std::to_string(c.heads)) +
                         line("head_dim", std::to_string(HeadDim(c))) +
                         line("positions", text(kPositionNames[static_cast<int>(c.positions)])) +
                         line("position_base", "10000") + line("layer_norm", flag(c.layer_norm)) +
                         line("norm_placement", text("pre")) + line("layer_norm_epsilon", "1e-05") +
                         line("mlp", flag(c.mlp)) + line("mlp_hidden", std::to_string(4 * c.d_model)) +
                         line("activation_function", text("relu")) + line("causal", flag(c.causal)) +
                         line("attention_scale", text("1/sqrt(head_dim)")) +
                         line("tokens", JsonStrings(task, c.vocab, TokenText)) +
                         line("class_tokens", JsonStrings(task, c.classes, ClassText)) + "\n}\n";
    *safetensors = std::move(bytes);
    *config_json = std::move(config);
    return Status::Ok();
  } catch (const std::bad_alloc&) {
    return Fail(StatusCode::kResourceExhausted, "out of memory writing the model");
  }
}

Status ReadModelCheckpoint(const std::string& bytes, const std::string& config_json, TaskKind* task_out,
                           ModelConfig* config_out, ModelParameters* params_out) {
  try {
    JsonValue json;
    ATTN_RETURN_IF_ERROR(ParseJson(config_json.data(), config_json.size(), &json));
    if (json.kind != JsonValue::Kind::kObject) return Fail(StatusCode::kParseError, "config: expected a JSON object");
    const auto text = [&](const char* key, std::string* out) -> Status {
      const JsonValue* v = json.Find(key);
      if (!v || v->kind != JsonValue::Kind::kString)
        return Fail(StatusCode::kInvalidArgument, std::string("config: ") + key + ": expected a string");
      *out = v->text;
      return Status::Ok();
    };
    const auto integer = [&](const char* key, int* out) -> Status {
      const JsonValue* v = json.Find(key);
      if (!v || v->kind != JsonValue::Kind::kNumber || !v->integral || v->integer < 0 || v->integer > 65536)
        return Fail(StatusCode::kInvalidArgument, std::string("config: ") + key + ": expected an integer 0–65536");
      *out = static_cast<int>(v->integer);
      return Status::Ok();
    };
    const auto boolean = [&](const char* key, bool* out) -> Status {
      const JsonValue* v = json.Find(key);
      if (!v || v->kind != JsonValue::Kind::kBool)
        return Fail(StatusCode::kInvalidArgument, std::string("config: ") + key + ": expected true or false");
      *out = v->boolean;
      return Status::Ok();
    };
    std::string model_type, task_name, positions;
    ATTN_RETURN_IF_ERROR(text("model_type", &model_type));
    if (model_type != "attnlab-learn")
      return Fail(StatusCode::kUnknownOption, "config: model_type: expected attnlab-learn, got '" + model_type.substr(0, 40) + "'");
    ATTN_RETURN_IF_ERROR(text("task", &task_name));
    TaskKind task;
    ATTN_RETURN_IF_ERROR(ParseTask(task_name, &task));
    ModelConfig base;
    int vocab = 0, classes = 0, seq_len = 0;
    ATTN_RETURN_IF_ERROR(integer("vocab_size", &vocab));
    ATTN_RETURN_IF_ERROR(integer("n_classes", &classes));
    ATTN_RETURN_IF_ERROR(integer("n_positions", &seq_len));
    ATTN_RETURN_IF_ERROR(integer("n_embd", &base.d_model));
    ATTN_RETURN_IF_ERROR(integer("n_layer", &base.layers));
    ATTN_RETURN_IF_ERROR(integer("n_head", &base.heads));
    ATTN_RETURN_IF_ERROR(integer("head_dim", &base.head_dim));
    ATTN_RETURN_IF_ERROR(text("positions", &positions));
    ATTN_RETURN_IF_ERROR(boolean("layer_norm", &base.layer_norm));
    ATTN_RETURN_IF_ERROR(boolean("mlp", &base.mlp));
    ATTN_RETURN_IF_ERROR(boolean("causal", &base.causal));
    int kind = 0;
    while (kind < static_cast<int>(Positions::kCount) && positions != kPositionNames[kind]) ++kind;
    if (kind == static_cast<int>(Positions::kCount))
      return Fail(StatusCode::kUnknownOption, "config: positions: expected none, learned, sinusoidal or rope, got '" +
                                                  positions.substr(0, 40) + "'");
    base.positions = static_cast<Positions>(kind);
    const ModelConfig c = ConfigForTask(task, base);
    if (vocab != c.vocab || classes != c.classes || seq_len != c.seq_len)
      return Fail(StatusCode::kShapeMismatch, "config: vocab_size, n_classes, n_positions: expected " + task_name + "'s " +
                                                  std::to_string(c.vocab) + ", " + std::to_string(c.classes) + ", " +
                                                  std::to_string(c.seq_len) + ", got " + std::to_string(vocab) + ", " +
                                                  std::to_string(classes) + ", " + std::to_string(seq_len));
    ATTN_RETURN_IF_ERROR(ValidateModelConfig(c));

    SafetensorsFile file;
    ATTN_RETURN_IF_ERROR(ParseSafetensors(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &file));
    ModelParameters params = InitializeModel(c);  // the shapes; every value is then the file's
    std::set<std::string> used;
    Status status;
    std::vector<float> floats;
    ForEachParameter(params, [&](const std::string& name, Matrix& m) {
      if (!status.ok()) return;
      bool vector = false;
      const std::string export_name = ExportName(name, &vector);
      const SafetensorsTensor* t = nullptr;
      for (const SafetensorsTensor& candidate : file.tensors)
        if (candidate.name == export_name) t = &candidate;
      if (!t) {
        status = Fail(StatusCode::kShapeMismatch, export_name + ": missing");
        return;
      }
      used.insert(export_name);
      if (t->shape != StoredShape(m, vector)) {
        status = Fail(StatusCode::kShapeMismatch, export_name + ": expected shape " + SafetensorsShapeText(StoredShape(m, vector)) +
                                                      ", got " + SafetensorsShapeText(t->shape));
        return;
      }
      status = SafetensorsToFloats(file, *t, &floats);
      if (status.ok()) m = Eigen::Map<const Matrix>(floats.data(), m.rows(), m.cols());
    });
    ATTN_RETURN_IF_ERROR(status);
    for (const SafetensorsTensor& t : file.tensors)
      if (!used.count(t.name))
        return Fail(StatusCode::kShapeMismatch, t.name.substr(0, 80) + ": not a tensor of this model (an extra tensor)");
    *task_out = task;
    *config_out = c;
    *params_out = std::move(params);
    return Status::Ok();
  } catch (const std::bad_alloc&) {
    return Fail(StatusCode::kResourceExhausted, "out of memory reading the model");
  }
}

}  // namespace attn::train
