#include "train_commands.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "attn/train/data_size.h"
#include "attn/train/head_roles.h"
#include "attn/train/trainer.h"

namespace attnlab_cli {
namespace {

using attn::train::TrainConfig;

// Flags of the form "--name value" or "--switch"; every lookup removes what it used, so what is
// left at the end is what nobody asked for (an unknown flag).
class Flags {
 public:
  Flags(int argc, char** argv) : args_(argv, argv + argc) {}

  // The value after --name; false on a missing or malformed value (the message says which).
  bool Int(const char* name, int lo, int hi, int* out) {
    std::string text;
    if (!Take(name, &text)) return error_.empty();
    char* end = nullptr;
    const long v = std::strtol(text.c_str(), &end, 10);
    if (end == text.c_str() || *end || v < lo || v > hi) return Fail(name, text, std::to_string(lo) + "–" + std::to_string(hi));
    *out = static_cast<int>(v);
    return true;
  }
  bool Float(const char* name, float lo, float hi, float* out) {
    std::string text;
    if (!Take(name, &text)) return error_.empty();
    char* end = nullptr;
    const float v = std::strtof(text.c_str(), &end);
    if (end == text.c_str() || *end || !(v >= lo && v <= hi))
      return Fail(name, text, std::to_string(lo) + " to " + std::to_string(hi));
    *out = v;
    return true;
  }
  // "--name 16,64,256": at least one integer, each in [lo, hi].
  bool IntList(const char* name, int lo, int hi, std::vector<int>* out) {
    std::string text;
    if (!Take(name, &text)) return error_.empty();
    std::vector<int> values;
    for (size_t at = 0; at <= text.size();) {
      const size_t comma = std::min(text.find(',', at), text.size());
      const std::string item = text.substr(at, comma - at);
      char* end = nullptr;
      const long v = std::strtol(item.c_str(), &end, 10);
      if (item.empty() || *end || v < lo || v > hi)
        return Fail(name, text, "integers " + std::to_string(lo) + "–" + std::to_string(hi) + " separated by commas");
      values.push_back(static_cast<int>(v));
      at = comma + 1;
    }
    *out = values;
    return true;
  }
  bool Text(const char* name, std::string* out) { return Take(name, out) || error_.empty(); }
  bool Switch(const char* name) {
    for (size_t i = 0; i < args_.size(); ++i) {
      if (args_[i] == name) {
        args_.erase(args_.begin() + i);
        return true;
      }
    }
    return false;
  }
  // After every lookup: the first argument nobody took, as an error.
  bool Finish() {
    if (!error_.empty()) return false;
    if (args_.empty()) return true;
    error_ = "unknown flag '" + args_[0].substr(0, 40) + "'";
    return false;
  }
  bool Fail(const char* name, const std::string& got, const std::string& expected) {
    error_ = std::string(name) + ": expected " + expected + ", got '" + got.substr(0, 40) + "'";
    return false;
  }
  const std::string& error() const { return error_; }

 private:
  bool Take(const char* name, std::string* value) {
    for (size_t i = 0; i < args_.size(); ++i) {
      if (args_[i] != name) continue;
      if (i + 1 >= args_.size()) {
        error_ = std::string(name) + ": missing value";
        return false;
      }
      *value = args_[i + 1];
      args_.erase(args_.begin() + i, args_.begin() + i + 2);
      return true;
    }
    return false;
  }
  std::vector<std::string> args_;
  std::string error_;
};

// "attnlab COMMAND: message" and the command's usage on stderr; exit code 2.
int BadFlags(const char* command, const std::string& message) {
  const std::string tasks = attn::train::TaskNames("|");
  std::fprintf(stderr, "attnlab %s: %s\n", command, message.c_str());
  if (!std::strcmp(command, "train")) {
    std::fprintf(stderr,
                 "usage: attnlab train --task %s [--layers 1-3] [--heads 1-8] [--dim D]\n"
                 "         [--positions none|learned|sinusoidal|rope] [--steps N] [--seed S] [--batch B] [--lr R]\n"
                 "         [--optimizer adam|sgd] [--no-layer-norm] [--mlp] [--log-every K] [--eval N] [--json]\n",
                 tasks.c_str());
  } else {
    std::fprintf(stderr,
                 "usage: attnlab datasize [--task %s] [--sizes N1,N2,...] [--seeds S]\n"
                 "         [--steps N] [--batch B] [--eval N] [--json]\n",
                 tasks.c_str());
  }
  return 2;
}

bool ParsePositions(const std::string& name, attn::train::Positions* out) {
  static const char* const kNames[] = {"none", "learned", "sinusoidal", "rope"};
  for (int i = 0; i < 4; ++i)
    if (name == kNames[i]) return *out = static_cast<attn::train::Positions>(i), true;
  return false;
}

}  // namespace

int Train(int argc, char** argv) {
  Flags flags(argc, argv);
  std::string task_name, positions = "learned", optimizer = "adam";
  if (!flags.Text("--task", &task_name)) return BadFlags("train", flags.error());
  if (task_name.empty()) return BadFlags("train", "--task: missing (" + attn::train::TaskNames(", ") + ")");
  attn::train::TaskKind task;
  const attn::Status task_status = attn::train::ParseTask(task_name, &task);
  if (!task_status.ok()) return BadFlags("train", task_status.message());
  TrainConfig config = attn::train::DefaultTrainConfig(task);
  int steps = 2000, log_every = 100, eval = 512, seed = 1;
  const bool ok = flags.Int("--layers", 1, 3, &config.model.layers) && flags.Int("--heads", 1, 8, &config.model.heads) &&
                  flags.Int("--dim", 1, 512, &config.model.d_model) && flags.Text("--positions", &positions) &&
                  flags.Int("--steps", 0, 10000000, &steps) && flags.Int("--seed", 0, 2147483647, &seed) &&
                  flags.Int("--batch", 1, 1024, &config.batch_size) &&
                  flags.Float("--lr", 1e-6f, 10.0f, &config.optimizer.learning_rate) &&
                  flags.Text("--optimizer", &optimizer) && flags.Int("--log-every", 1, 10000000, &log_every) &&
                  flags.Int("--eval", 1, 65536, &eval);
  if (!ok) return BadFlags("train", flags.error());
  config.model.layer_norm = !flags.Switch("--no-layer-norm");
  config.model.mlp = flags.Switch("--mlp");
  const bool json = flags.Switch("--json");
  if (!flags.Finish()) return BadFlags("train", flags.error());
  if (!ParsePositions(positions, &config.model.positions))
    return BadFlags("train", "--positions: expected none, learned, sinusoidal or rope, got '" + positions.substr(0, 40) + "'");
  if (optimizer == "sgd") config.optimizer.kind = attn::train::OptimizerKind::kSgd;
  else if (optimizer != "adam") return BadFlags("train", "--optimizer: expected adam or sgd, got '" + optimizer.substr(0, 40) + "'");
  config.seed = static_cast<uint32_t>(seed);

  attn::train::Trainer trainer;
  attn::Status status = trainer.Init(config);
  if (!status.ok()) return BadFlags("train", status.message());
  const auto start = std::chrono::steady_clock::now();
  double loss_sum = 0, accuracy_sum = 0;
  int in_window = 0;
  for (int s = 0; s < steps; ++s) {
    attn::train::StepStats stats;
    status = trainer.Step(&stats);
    if (!status.ok()) {
      std::fprintf(stderr, "attnlab train: step %d: %s\n", s + 1, status.ToString().c_str());
      return 1;
    }
    loss_sum += stats.loss, accuracy_sum += stats.accuracy, ++in_window;
    if (stats.step % log_every == 0 || s + 1 == steps) {  // the mean over the steps since the last line
      if (json) std::printf("{\"step\":%d,\"loss\":%.6g,\"accuracy\":%.6g}\n", stats.step, loss_sum / in_window, accuracy_sum / in_window);
      else std::printf("step %6d  loss %.4f  accuracy %.3f\n", stats.step, loss_sum / in_window, accuracy_sum / in_window);
      std::fflush(stdout);
      loss_sum = accuracy_sum = 0, in_window = 0;
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  attn::train::Evaluation held_out;
  std::vector<attn::train::HeadRole> roles;
  status = trainer.Evaluate(eval, &held_out);
  if (status.ok()) status = attn::train::MeasureHeadRoles(trainer, 64, &roles);
  if (!status.ok()) {
    std::fprintf(stderr, "attnlab train: %s\n", status.ToString().c_str());
    return 1;
  }
  const double steps_per_second = seconds > 0 ? steps / seconds : 0;
  if (json) {
    std::printf("{\"final\":true,\"steps\":%d,\"held_out\":{\"loss\":%.6g,\"accuracy\":%.6g,\"positions\":%d},"
                "\"steps_per_second\":%.1f,\"heads\":[",
                steps, held_out.loss, held_out.accuracy, held_out.scored, steps_per_second);
    for (size_t i = 0; i < roles.size(); ++i) {
      const auto& r = roles[i];
      std::printf("%s{\"layer\":%d,\"head\":%d,\"role\":\"%s\",\"share\":%.4f,\"text\":\"%s\"}", i ? "," : "", r.layer,
                  r.head, attn::train::KeyKindText(r.kind), r.share, r.text.c_str());
    }
    std::printf("]}\n");
  } else {
    std::printf("held-out: loss %.4f, accuracy %.3f over %d positions; %.0f steps/s\n", held_out.loss,
                held_out.accuracy, held_out.scored, steps_per_second);
    for (const auto& r : roles) std::printf("%s\n", r.text.c_str());
  }
  return 0;
}

int DataSize(int argc, char** argv) {
  using attn::train::DataSizePoint;
  using attn::train::ModelKind;
  Flags flags(argc, argv);
  attn::train::DataSizeConfig config;
  std::string task_name = attn::train::TaskName(config.task);
  const bool ok = flags.Text("--task", &task_name) && flags.IntList("--sizes", 1, 1 << 20, &config.sizes) &&
                  flags.Int("--seeds", 1, 64, &config.seeds) && flags.Int("--steps", 1, 10000000, &config.steps) &&
                  flags.Int("--batch", 1, 1024, &config.batch_size) && flags.Int("--eval", 1, 65536, &config.eval_sequences);
  if (!ok) return BadFlags("datasize", flags.error());
  const bool json = flags.Switch("--json");
  if (!flags.Finish()) return BadFlags("datasize", flags.error());
  attn::Status status = attn::train::ParseTask(task_name, &config.task);
  attn::train::DataSizeRunner runner;
  if (status.ok()) status = runner.Init(config);
  if (!status.ok()) return BadFlags("datasize", status.message());

  const int64_t parameters[2] = {runner.parameters(ModelKind::kTransformer), runner.parameters(ModelKind::kCnn)};
  const auto text = [](const char* format, auto... values) {
    char buffer[96];
    std::snprintf(buffer, sizeof(buffer), format, values...);
    return std::string(buffer);
  };
  const std::string transformer_head = text("transformer (%lld parameters)", static_cast<long long>(parameters[0]));
  const int column = static_cast<int>(transformer_head.size()) + 3;
  if (!json) {
    std::printf("%s: %zu sizes x %d seeds x 2 models, %d steps of %d sequences per run; held-out accuracy over %d "
                "sequences, mean [min, max]\n%8s   %-*scnn (%lld parameters)\n",
                task_name.c_str(), config.sizes.size(), config.seeds, config.steps, config.batch_size,
                config.eval_sequences, "N", column, transformer_head.c_str(), static_cast<long long>(parameters[1]));
  }
  const auto finished = [&](const DataSizePoint& p) { return static_cast<int>(p.accuracy.size()) == config.seeds; };
  const auto print_json = [](const DataSizePoint& p) {
    std::printf("{\"model\":\"%s\",\"size\":%d,\"accuracy\":[", attn::train::ModelKindName(p.model), p.size);
    for (size_t i = 0; i < p.accuracy.size(); ++i) std::printf("%s%.6g", i ? "," : "", p.accuracy[i]);
    std::printf("],\"mean\":%.6g,\"min\":%.6g,\"max\":%.6g}\n", p.mean, p.min, p.max);
  };
  const auto start = std::chrono::steady_clock::now();
  size_t printed = 0;  // sizes whose points are out
  while (!runner.done()) {
    status = runner.Next(config.steps);
    if (!status.ok()) {
      std::fprintf(stderr, "attnlab datasize: %s\n", status.ToString().c_str());
      return 1;
    }
    for (; printed < config.sizes.size(); ++printed) {  // a size's row once both of its points are finished
      const DataSizePoint& t = runner.point(ModelKind::kTransformer, static_cast<int>(printed));
      const DataSizePoint& c = runner.point(ModelKind::kCnn, static_cast<int>(printed));
      if (!finished(t) || !finished(c)) break;
      if (json) {
        print_json(t);
        print_json(c);
      } else {
        std::printf("%8d   %-*s%s\n", t.size, column, text("%.3f [%.3f, %.3f]", t.mean, t.min, t.max).c_str(),
                    text("%.3f [%.3f, %.3f]", c.mean, c.min, c.max).c_str());
      }
      std::fflush(stdout);
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const int crossover = attn::train::Crossover(runner.points());
  if (json) {
    std::printf("{\"final\":true,\"task\":\"%s\",\"seeds\":%d,\"steps\":%d,\"batch\":%d,\"eval\":%d,"
                "\"parameters\":{\"transformer\":%lld,\"cnn\":%lld},\"crossover\":%d,\"seconds\":%.2f}\n",
                task_name.c_str(), config.seeds, config.steps, config.batch_size, config.eval_sequences,
                static_cast<long long>(parameters[0]), static_cast<long long>(parameters[1]), crossover, seconds);
  } else if (crossover) {
    std::printf("the transformer is ahead from N = %d on; %.1f s\n", crossover, seconds);
  } else {
    std::printf("the transformer is not ahead at N = %d; %.1f s\n", config.sizes.back(), seconds);
  }
  return 0;
}

}  // namespace attnlab_cli
