#include "train_commands.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

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

int BadFlags(const std::string& message) {
  std::fprintf(stderr,
               "attnlab train: %s\n"
               "usage: attnlab train --task previous|copy|reverse|sort|recall [--layers 1-3] [--heads 1-8] [--dim D]\n"
               "         [--positions none|learned|sinusoidal|rope] [--steps N] [--seed S] [--batch B] [--lr R]\n"
               "         [--optimizer adam|sgd] [--no-layer-norm] [--mlp] [--log-every K] [--eval N] [--json]\n",
               message.c_str());
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
  if (!flags.Text("--task", &task_name)) return BadFlags(flags.error());
  if (task_name.empty()) return BadFlags("--task: missing (previous, copy, reverse, sort or recall)");
  attn::train::TaskKind task;
  const attn::Status task_status = attn::train::ParseTask(task_name, &task);
  if (!task_status.ok()) return BadFlags(task_status.message());
  TrainConfig config = attn::train::DefaultTrainConfig(task);
  int steps = 2000, log_every = 100, eval = 512, seed = 1;
  const bool ok = flags.Int("--layers", 1, 3, &config.model.layers) && flags.Int("--heads", 1, 8, &config.model.heads) &&
                  flags.Int("--dim", 1, 512, &config.model.d_model) && flags.Text("--positions", &positions) &&
                  flags.Int("--steps", 0, 10000000, &steps) && flags.Int("--seed", 0, 2147483647, &seed) &&
                  flags.Int("--batch", 1, 1024, &config.batch_size) &&
                  flags.Float("--lr", 1e-6f, 10.0f, &config.optimizer.learning_rate) &&
                  flags.Text("--optimizer", &optimizer) && flags.Int("--log-every", 1, 10000000, &log_every) &&
                  flags.Int("--eval", 1, 65536, &eval);
  if (!ok) return BadFlags(flags.error());
  config.model.layer_norm = !flags.Switch("--no-layer-norm");
  config.model.mlp = flags.Switch("--mlp");
  const bool json = flags.Switch("--json");
  if (!flags.Finish()) return BadFlags(flags.error());
  if (!ParsePositions(positions, &config.model.positions))
    return BadFlags("--positions: expected none, learned, sinusoidal or rope, got '" + positions.substr(0, 40) + "'");
  if (optimizer == "sgd") config.optimizer.kind = attn::train::OptimizerKind::kSgd;
  else if (optimizer != "adam") return BadFlags("--optimizer: expected adam or sgd, got '" + optimizer.substr(0, 40) + "'");
  config.seed = static_cast<uint32_t>(seed);

  attn::train::Trainer trainer;
  attn::Status status = trainer.Init(config);
  if (!status.ok()) return BadFlags(status.message());
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

}  // namespace attnlab_cli
