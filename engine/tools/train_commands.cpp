#include "train_commands.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "attn/train/circuits.h"
#include "attn/train/data_size.h"
#include "attn/train/head_roles.h"
#include "attn/train/lm_checkpoint.h"
#include "attn/train/model_checkpoint.h"
#include "attn/train/phase_change.h"
#include "attn/train/trainer.h"
#include "cli_flags.h"
#include "cli_support.h"
#include "json_text.h"

namespace attnlab_cli {
namespace {

using attn::train::TrainConfig;

constexpr IntFlag kLayers{"--layers", "L", 1, 3, "attention blocks"};
constexpr IntFlag kHeads{"--heads", "H", 1, 8, "heads per block, dividing --dim"};
constexpr IntFlag kDim{"--dim", "D", 1, 512, "width of the residual stream (d_model)"};
constexpr IntFlag kTrainSteps{"--steps", "N", 0, 10000000, "updates, one batch each"};
constexpr IntFlag kSeed{"--seed", "S", 0, 2147483647,
                        "seeds the parameters, the training and the held-out sequences"};
constexpr IntFlag kTrainBatch{"--batch", "B", 1, 1024, "fresh sequences per update"};
constexpr FloatFlag kLearningRate{"--lr", "R", 1e-6f, 10.0f, "learning rate"};
constexpr IntFlag kLogEvery{"--log-every", "K", 1, 10000000,
                            "a line every K steps, with the means over those steps"};
constexpr IntFlag kTrainEval{"--eval", "N", 1, 65536, "held-out sequences scored at the end"};
constexpr int kDefaultSteps = 2000, kDefaultLogEvery = 100, kDefaultEval = 512, kDefaultSeed = 1;

constexpr IntFlag kSizes{"--sizes", "N1,N2,...", 1, 1 << 20,
                         "the training-set sizes N, ascending, separated by commas"};
constexpr IntFlag kSeeds{"--seeds", "S", 1, 64, "runs per (model, N), seeds 1 to S"};
constexpr IntFlag kDataSizeSteps{"--steps", "N", 1, 10000000,
                                 "updates per run, the same for both models and every N"};
constexpr IntFlag kDataSizeBatch{"--batch", "B", 1, 1024,
                                 "sequences per update, drawn from the N with replacement"};
constexpr IntFlag kDataSizeEval{"--eval", "N", 1, 65536,
                                "held-out sequences scoring a run (the same for both models)"};

// --positions and --optimizer, by attn::train::Positions and OptimizerKind.
constexpr const char* kPositionNames[] = {"none", "learned", "sinusoidal", "rope"};
constexpr const char* kOptimizerNames[] = {"adam", "sgd"};
static_assert(sizeof(kPositionNames) / sizeof(kPositionNames[0]) ==
              static_cast<size_t>(attn::train::Positions::kCount));
static_assert(sizeof(kOptimizerNames) / sizeof(kOptimizerNames[0]) ==
              static_cast<size_t>(attn::train::OptimizerKind::kCount));

// A status of the training library in the CLI's words: its fields as the flags that set them
// ("resource_exhausted: --dim 512, --heads 2, …: training needs …").
std::string WithFlagNames(const attn::Status& status) {
  static constexpr std::pair<const char*, const char*> kFlags[] = {
      {"d_model or batch_size", "--dim or --batch"},
      {"task: ", "--task: "},         {"d_model ", "--dim "},     {"heads ", "--heads "},
      {"layers ", "--layers "},       {"batch_size ", "--batch "}, {"train_set_size ", "--sizes "},
      {"eval_sequences", "--eval"},   {"seeds: ", "--seeds: "},    {"steps: ", "--steps: "}};
  std::string text = status.ToString();
  for (const auto& [field, flag] : kFlags) {
    for (size_t at = text.find(field); at != std::string::npos; at = text.find(field, at)) {
      if (at == 0 || text[at - 1] == ' ' || text[at - 1] == '(') {  // a whole word
        text.replace(at, std::strlen(field), flag);
        at += std::strlen(flag);
      } else {
        at += std::strlen(field);
      }
    }
  }
  return text;
}

// Held-out sequences scored at every logged step: the loss curve the phase change is read from,
// and the sequences MeasureHeadRoles averages each head's weights over.
constexpr int kLoggedSequences = 64;

// Every head's scores now, as JSON: prefix matching (the mean share of its weight on the token after
// an earlier copy of the query's token over held-out sequences, MeasureHeadRoles' "after same"; null
// where the task never has one), copying (its OV circuit's, attn/train/circuits.h), and the Q/K/V
// composition of every earlier × later pair. `heads[i]` gets the members of head i (layer by layer),
// `compositions` the array.
attn::Status HeadScores(const attn::train::Trainer& trainer, std::vector<attn::train::HeadRole>* roles,
                        std::vector<std::string>* heads, std::string* compositions) {
  using attn::train::KeyKind;
  ATTN_RETURN_IF_ERROR(attn::train::MeasureHeadRoles(trainer, kLoggedSequences, roles));
  const attn::train::ModelConfig& model = trainer.model();
  attn::train::Circuits circuits;
  ATTN_RETURN_IF_ERROR(attn::train::ComputeCircuits(
      model, trainer.parameters(), attn::train::ClassOfToken(trainer.config().task, model.vocab, model.classes), &circuits));
  heads->clear();
  for (size_t i = 0; i < roles->size() && i < circuits.heads.size(); ++i) {
    const float prefix = (*roles)[i].shares[static_cast<int>(KeyKind::kAfterSame)];
    heads->push_back("\"prefix_matching\":" + (prefix < 0 ? std::string("null") : JsonNumber(prefix)) +
                     ",\"copying\":" + JsonNumber(circuits.heads[i].copying));
  }
  *compositions = "[";
  for (const attn::train::HeadComposition& c : circuits.compositions) {
    *compositions += (compositions->size() > 1 ? "," : "") + std::string("{\"from\":\"") + std::to_string(c.from_layer) + "." +
                     std::to_string(c.from_head) + "\",\"to\":\"" + std::to_string(c.to_layer) + "." + std::to_string(c.to_head) +
                     "\",\"q\":" + JsonNumber(c.q) + ",\"k\":" + JsonNumber(c.k) + ",\"v\":" + JsonNumber(c.v) + "}";
  }
  *compositions += "]";
  return attn::Status::Ok();
}

}  // namespace

int Train(int argc, char** argv) {
  Flags flags(argc, argv);
  std::string task_name;
  if (!flags.Text("--task", &task_name)) return UsageError("train", flags.error());
  if (task_name.empty())
    return UsageError("train", "invalid_argument: --task: missing (" + attn::train::TaskNames(", ") + ")");
  attn::train::TaskKind task;
  const attn::Status task_status = attn::train::ParseTask(task_name, &task);
  if (!task_status.ok()) return UsageError("train", WithFlagNames(task_status));
  TrainConfig config = attn::train::DefaultTrainConfig(task);
  std::string positions = kPositionNames[static_cast<int>(config.model.positions)];
  std::string optimizer = kOptimizerNames[static_cast<int>(config.optimizer.kind)];
  int steps = kDefaultSteps, log_every = kDefaultLogEvery, eval = kDefaultEval, seed = kDefaultSeed;
  std::string save_path;
  const bool ok = flags.Int(kLayers, &config.model.layers) && flags.Int(kHeads, &config.model.heads) &&
                  flags.Int(kDim, &config.model.d_model) && flags.Text("--positions", &positions) &&
                  flags.Int(kTrainSteps, &steps) && flags.Int(kSeed, &seed) &&
                  flags.Int(kTrainBatch, &config.batch_size) &&
                  flags.Float(kLearningRate, &config.optimizer.learning_rate) &&
                  flags.Text("--optimizer", &optimizer) && flags.Int(kLogEvery, &log_every) &&
                  flags.Int(kTrainEval, &eval) && flags.Text("--save", &save_path);
  if (!ok) return UsageError("train", flags.error());
  config.model.layer_norm = !flags.Switch("--no-layer-norm");
  config.model.mlp = flags.Switch("--mlp");
  const bool json = flags.Switch("--json");
  if (!flags.Finish()) return UsageError("train", flags.error());
  if (!ParseName(kPositionNames, positions, &config.model.positions))
    return UsageError("train", "unknown_option: --positions: expected " + OneOf(kPositionNames) + ", got '" +
                                   Excerpt(positions.c_str()) + "'");
  if (!ParseName(kOptimizerNames, optimizer, &config.optimizer.kind))
    return UsageError("train", "unknown_option: --optimizer: expected " + OneOf(kOptimizerNames) + ", got '" +
                                   Excerpt(optimizer.c_str()) + "'");
  config.seed = static_cast<uint32_t>(seed);

  if (config.model.d_model % config.model.heads)  // the CLI has no --head-dim: the model's head_dim stays 0
    return UsageError("train", "shape_mismatch: --dim " + std::to_string(config.model.d_model) +
                                   ": expected a multiple of --heads " + std::to_string(config.model.heads));
  attn::train::Trainer trainer;
  attn::Status status = trainer.Init(config);  // refuses a run whose memory estimate passes the limit
  if (!status.ok()) return UsageError("train", WithFlagNames(status));
  // Both files are opened before training, so a path that cannot be written costs no training.
  const std::string config_path = attn::train::ConfigNameBeside(save_path);
  std::FILE* save_files[2] = {nullptr, nullptr};
  if (!save_path.empty()) {
    std::string error;
    if (!OpenForWriting(save_path, &save_files[0], &error) || !OpenForWriting(config_path, &save_files[1], &error)) {
      if (save_files[0]) std::fclose(save_files[0]);
      return UsageError("train", "invalid_argument: --save: " + error);
    }
  }
  const auto start = std::chrono::steady_clock::now();
  double loss_sum = 0, accuracy_sum = 0, scoring_seconds = 0;
  int in_window = 0;
  std::vector<attn::train::LossPoint> held_out_curve;  // at every logged step: where the phase change is read
  std::vector<attn::train::HeadRole> roles;
  std::vector<std::string> head_scores;
  std::string compositions;
  for (int s = 0; s < steps; ++s) {
    attn::train::StepStats stats;
    status = trainer.Step(&stats);
    if (!status.ok()) {
      std::fprintf(stderr, "attnlab train: step %d: %s\n", s + 1, status.ToString().c_str());
      return kExitFailed;
    }
    loss_sum += stats.loss, accuracy_sum += stats.accuracy, ++in_window;
    if (stats.step % log_every == 0 || s + 1 == steps) {  // the mean over the steps since the last line
      // Scoring is not training: its time stays out of steps_per_second.
      const auto scoring = std::chrono::steady_clock::now();
      attn::train::Evaluation logged;
      status = trainer.Evaluate(kLoggedSequences, &logged);
      if (status.ok()) status = HeadScores(trainer, &roles, &head_scores, &compositions);
      if (!status.ok()) {
        std::fprintf(stderr, "attnlab train: step %d: %s\n", stats.step, status.ToString().c_str());
        return kExitFailed;
      }
      held_out_curve.push_back({stats.step, logged.loss});
      if (json) {
        std::printf("{\"step\":%d,\"loss\":%.6g,\"accuracy\":%.6g,\"held_out_loss\":%.6g,\"heads\":[", stats.step,
                    loss_sum / in_window, accuracy_sum / in_window, logged.loss);
        for (size_t i = 0; i < head_scores.size(); ++i)
          std::printf("%s{\"layer\":%d,\"head\":%d,%s}", i ? "," : "", roles[i].layer, roles[i].head, head_scores[i].c_str());
        std::printf("],\"compositions\":%s}\n", compositions.c_str());
      } else {
        std::printf("step %6d  loss %.4f  accuracy %.3f\n", stats.step, loss_sum / in_window, accuracy_sum / in_window);
      }
      std::fflush(stdout);
      loss_sum = accuracy_sum = 0, in_window = 0;
      scoring_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - scoring).count();
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() - scoring_seconds;
  const int phase_change = attn::train::PhaseChangeStep(held_out_curve);
  attn::train::Evaluation held_out;
  status = trainer.Evaluate(eval, &held_out);
  // The last step is always logged, and its scores are the final model's: measured again only when
  // no step was taken.
  if (status.ok() && held_out_curve.empty()) status = HeadScores(trainer, &roles, &head_scores, &compositions);
  if (!status.ok()) {
    std::fprintf(stderr, "attnlab train: %s\n", status.ToString().c_str());
    return kExitFailed;
  }
  if (!save_path.empty()) {
    std::string safetensors, config_json, error;
    status = attn::train::WriteModelCheckpoint(trainer.config().task, trainer.model(), trainer.parameters(),
                                               &safetensors, &config_json);
    if (!status.ok()) {
      std::fprintf(stderr, "attnlab train: --save: %s\n", status.ToString().c_str());
      return kExitFailed;
    }
    if (!WriteAndClose(save_files[0], save_path, safetensors, &error) ||
        !WriteAndClose(save_files[1], config_path, config_json, &error))
      return UsageError("train", "invalid_argument: --save: " + error);
  }
  const double steps_per_second = seconds > 0 ? steps / seconds : 0;
  if (json) {
    std::printf("{\"final\":true,\"steps\":%d,\"held_out\":{\"loss\":%.6g,\"accuracy\":%.6g,\"positions\":%d},"
                "\"steps_per_second\":%.1f,\"heads\":[",
                steps, held_out.loss, held_out.accuracy, held_out.scored, steps_per_second);
    for (size_t i = 0; i < roles.size(); ++i) {
      const auto& r = roles[i];
      std::printf("%s{\"layer\":%d,\"head\":%d,\"role\":%s,\"share\":%.4f,\"text\":%s,%s}", i ? "," : "", r.layer,
                  r.head, JsonString(attn::train::KeyKindText(r.kind)).c_str(), r.share, JsonString(r.text).c_str(),
                  head_scores[i].c_str());
    }
    std::printf("],\"compositions\":%s,\"phase_change_step\":%s", compositions.c_str(),
                phase_change < 0 ? "null" : std::to_string(phase_change).c_str());
    if (!save_path.empty())
      std::printf(",\"saved\":{\"safetensors\":%s,\"config\":%s}", JsonString(save_path).c_str(),
                  JsonString(config_path).c_str());
    std::printf("}\n");
  } else {
    std::printf("held-out: loss %.4f, accuracy %.3f over %d positions; %.0f steps/s\n", held_out.loss,
                held_out.accuracy, held_out.scored, steps_per_second);
    for (const auto& r : roles) std::printf("%s\n", r.text.c_str());
    if (phase_change < 0) std::printf("no phase change in the held-out loss (the rule: attn/train/phase_change.h)\n");
    else std::printf("phase change at step %d: the held-out loss fell suddenly there\n", phase_change);
    if (!save_path.empty()) std::printf("saved %s and %s\n", save_path.c_str(), config_path.c_str());
  }
  return kExitOk;
}

int DataSize(int argc, char** argv) {
  using attn::train::DataSizePoint;
  using attn::train::ModelKind;
  Flags flags(argc, argv);
  attn::train::DataSizeConfig config;
  std::string task_name = attn::train::TaskName(config.task);
  const bool ok = flags.Text("--task", &task_name) && flags.IntList(kSizes, &config.sizes) &&
                  flags.Int(kSeeds, &config.seeds) && flags.Int(kDataSizeSteps, &config.steps) &&
                  flags.Int(kDataSizeBatch, &config.batch_size) && flags.Int(kDataSizeEval, &config.eval_sequences);
  if (!ok) return UsageError("datasize", flags.error());
  const bool json = flags.Switch("--json");
  if (!flags.Finish()) return UsageError("datasize", flags.error());
  attn::Status status = attn::train::ParseTask(task_name, &config.task);
  attn::train::DataSizeRunner runner;
  if (status.ok()) status = runner.Init(config);
  if (!status.ok()) return UsageError("datasize", WithFlagNames(status));

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
      return kExitFailed;
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
  return kExitOk;
}

std::string TrainHelp() {
  const TrainConfig defaults = attn::train::DefaultTrainConfig(TrainConfig().task);
  const auto on_off = [](bool on) { return std::string(on ? "with" : "without"); };
  return "usage: attnlab train --task TASK [FLAGS]\n"
         "\n"
         "Trains the Learn view's model, a small transformer, on a toy task with fresh sequences "
         "every\n"
         "step. Prints the mean batch loss and accuracy every K steps, then the held-out loss and\n"
         "accuracy, the steps per second and each head's measured role (\"head 1.2 puts 0.98 of "
         "its\n"
         "weight on the previous token\").\n"
         "\n"
         "flags:\n" +
         HelpFlag("--task TASK", "required: " + attn::train::TaskNames(", ")) +
         IntFlagHelp(kLayers, std::to_string(defaults.model.layers)) +
         IntFlagHelp(kHeads, std::to_string(defaults.model.heads)) +
         IntFlagHelp(kDim, std::to_string(defaults.model.d_model)) +
         HelpFlag("--positions P",
                  "position encoding: " + OneOf(kPositionNames) + "; default " +
                      std::string(kPositionNames[static_cast<int>(defaults.model.positions)])) +
         IntFlagHelp(kTrainSteps, std::to_string(kDefaultSteps)) +
         IntFlagHelp(kSeed, std::to_string(kDefaultSeed)) +
         IntFlagHelp(kTrainBatch, std::to_string(defaults.batch_size)) +
         HelpFlag(std::string(kLearningRate.name) + " " + kLearningRate.arg,
                  std::string(kLearningRate.what) + ": " + Number(kLearningRate.lo) + " to " +
                      Number(kLearningRate.hi) + "; default " +
                      Number(defaults.optimizer.learning_rate)) +
         HelpFlag("--optimizer O",
                  OneOf(kOptimizerNames) + " (with momentum); default " +
                      std::string(kOptimizerNames[static_cast<int>(defaults.optimizer.kind)])) +
         HelpFlag("--no-layer-norm",
                  "no LayerNorm (default " + on_off(defaults.model.layer_norm) + ")") +
         HelpFlag("--mlp",
                  "a ReLU MLP after each attention (default " + on_off(defaults.model.mlp) + ")") +
         IntFlagHelp(kLogEvery, std::to_string(kDefaultLogEvery)) +
         IntFlagHelp(kTrainEval, std::to_string(kDefaultEval)) +
         HelpFlag("--save FILE",
                  "after training, the model as FILE (safetensors, F32) and its settings as "
                  "FILE.config.json beside it (FILE's .safetensors ending replaced): names and "
                  "settings in docs/pytorch.md, which loads them in PyTorch") +
         HelpFlag("--json",
                  "JSON lines instead: {\"step\", \"loss\", \"accuracy\", \"held_out_loss\", "
                  "\"heads\": [{\"layer\", \"head\", \"prefix_matching\", \"copying\"}, ...], "
                  "\"compositions\": [{\"from\", \"to\", \"q\", \"k\", \"v\"}, ...]} every K steps, then "
                  "{\"final\": true, \"steps\", \"held_out\": {\"loss\", \"accuracy\", "
                  "\"positions\"}, \"steps_per_second\", \"heads\": [{\"layer\", \"head\", "
                  "\"role\", \"share\", \"text\", \"prefix_matching\", \"copying\"}, ...], "
                  "\"compositions\", \"phase_change_step\" (null: none), with --save \"saved\": "
                  "{\"safetensors\", \"config\"}}. prefix_matching: a head's mean weight on the token "
                  "after an earlier copy of the query's (64 held-out sequences); copying and the Q/K/V "
                  "composition scores: read off the weights (Elhage et al. 2021; docs/concepts.md); the "
                  "phase change: the step where the held-out loss fell suddenly (the rule: "
                  "attn/train/phase_change.h)") +
         HelpFlag("--help, -h", "this text") +
         HelpExitCodes("trained", "training failed (a step or the evaluation returned an error)") +
         HelpExample(
             "attnlab train --task recall --layers 2 --heads 2 --steps 3000 --seed 1 --json");
}

std::string DataSizeHelp() {
  const attn::train::DataSizeConfig defaults;
  std::string sizes;
  for (size_t i = 0; i < defaults.sizes.size(); ++i)
    sizes += (i ? "," : "") + std::to_string(defaults.sizes[i]);
  return "usage: attnlab datasize [--task TASK] [--sizes N1,N2,...] [--seeds S] [--steps N] "
         "[--batch B]\n"
         "                        [--eval N] [--json]\n"
         "\n"
         "The data-size experiment of view 8: a transformer and a CNN of about the same size learn "
         "one\n"
         "task from N training sequences, for each N and seed; prints each model's held-out "
         "accuracy\n"
         "per N (mean [min, max] over the seeds), a row as soon as its runs finish, then from "
         "which N\n"
         "on the transformer stays ahead.\n"
         "\n"
         "flags:\n" +
         HelpFlag("--task TASK", attn::train::TaskNames(", ") + "; default " +
                                     attn::train::TaskName(defaults.task)) +
         IntFlagHelp(kSizes, sizes) + IntFlagHelp(kSeeds, std::to_string(defaults.seeds)) +
         IntFlagHelp(kDataSizeSteps, std::to_string(defaults.steps)) +
         IntFlagHelp(kDataSizeBatch, std::to_string(defaults.batch_size)) +
         IntFlagHelp(kDataSizeEval, std::to_string(defaults.eval_sequences)) +
         HelpFlag(
             "--json",
             "JSON lines instead: {\"model\", \"size\", \"accuracy\": [per seed], \"mean\", "
             "\"min\", \"max\"} per (model, N), then {\"final\": true, \"task\", \"seeds\", "
             "\"steps\", \"batch\", \"eval\", \"parameters\": {\"transformer\", \"cnn\"}, "
             "\"crossover\": the N from which the transformer stays ahead or 0, \"seconds\"}") +
         HelpFlag("--help, -h", "this text") +
         HelpExitCodes("done", "training failed (a run returned an error)") +
         HelpExample("attnlab datasize --sizes 16,64,256,1024,4096 --seeds 3");
}

}  // namespace attnlab_cli
