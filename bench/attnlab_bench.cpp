// attnlab's side of `npm run bench`: one measurement per process, one JSON line on stdout.
//   attnlab_bench forward --n N [--warmup-ms W] [--reps R] [--kernel K] [--d-model D] [--heads H] [--threads T]
//       the benchmark layer's forward (lessons/bench_layer.h) on an attn::PreparedAttention: the
//       parameters seeded and packed once, outside the timing, as the peers prepare an onnxruntime
//       session or a PyTorch module once; on T threads (AttentionConfig::threads, default 1)
//   attnlab_bench gemm --m M --k K --n N [--warmup-ms W] [--reps R] [--kernel K] [--packed 1]
//       C = A · B; --packed 1: B packed once for K (attn::PackMatrix, not timed), as a model's weights are
//   attnlab_bench peak [--kernel K]          this core's multiply-add peak with K's vectors
//   attnlab_bench threads [--threads T] [--ns N,N...] [--kernel K]
//       from which size of call T threads are used (attn/thread_choice.h): the benchmark layer at each
//       n (default 16 … 1024), called until the calls near the crossover have decided, as a page or
//       server process learns it; prints the choice (DescribeThreadChoice)
//   attnlab_bench layer [--ns N,N...] [--d-model D] [--heads H]
//       the benchmark layer: d_model, heads, seed and the FLOPs of one forward at each n
//   attnlab_bench lm-train [--reps R] [--kernel K]
//       training steps of the language model (attn/train/lm_trainer.h: the shipped shape, 16 windows
//       of 64 words, Adam) on seeded words, after 2 warm-up steps: tokens/s against
//       bench/peers/torch_lm_train.py's same model and batch in PyTorch
//   attnlab_bench lm-generate [--reps R]
//       30 words after a 4-word prompt from a seeded model of the shipped shape, greedy: ms per word
//       through the KV cache (attn::train::LmGenerate) and by recomputing the whole sentence
//   attnlab_bench gpt2 [--dir DIR] [--reps R] [--warmup W] [--kernel K]
//       the GPT-2-small workload (bench/peers/gpt2_common.mjs has the loop and the output's contract):
//       DIR/model.safetensors + config.json (bench/peers/gpt2.py export) read by ReadLmCheckpoint,
//       a prefill of 128 tokens, then 32 greedy decode steps through the KV cache (attn::train::
//       LmAdvance), on kernel K (LmConfig::kernel; default the fastest here)
// The same source builds natively (impl "attnlab-native") and with Emscripten for node
// (impl "attnlab-wasm"); bench/run.mjs runs both beside the peers.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "attn/attention.h"
#include "attn/config_names.h"
#include "attn/kernel_choice.h"
#include "attn/thread_choice.h"
#include "attn/kernels.h"
#include "attn/prepared_attention.h"
#include "attn/seeded_random.h"
#include "attn/train/lm_checkpoint.h"
#include "attn/train/lm_inference.h"
#include "attn/train/lm_trainer.h"
#include "lessons/bench_layer.h"
#include "peak_rss.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string command;
  int n = 1024, m = 0, k = 0, reps = 5, threads = 1, warmup = 1;
  bool packed = false;  // gemm
  std::string dir = "bench/.cache/gpt2-small";  // gpt2
  std::vector<int> ns;  // layer: the n to give FLOPs for
  lessons::BenchLayer layer;
  double warmup_ms = 1500.0;
  attn::KernelId kernel = attn::FastestKernel();
  std::string choice;  // --choice: gemm rows, slice KB, attention rows, attention keys[, fused|unfused] (else the probe's)
};

[[noreturn]] void Usage(const char* why) {
  std::fprintf(stderr,
               "attnlab_bench: %s\nusage: attnlab_bench forward --n N [--warmup-ms W] [--reps R] [--kernel K] "
               "[--d-model D] [--heads H] [--threads T]\n       attnlab_bench gemm --m M --k K --n N [--warmup-ms W] [--reps R] "
               "[--kernel K] [--packed 1]\n       attnlab_bench peak [--kernel K]\n       attnlab_bench threads [--threads T] [--ns N,N...] [--kernel K]\n       attnlab_bench layer [--ns N,N...] "
               "[--d-model D] [--heads H]\n       attnlab_bench lm-train [--reps R]\n       attnlab_bench lm-generate [--reps R]\n"
               "       attnlab_bench gpt2 [--dir DIR] [--reps R] [--warmup W] [--kernel K]\n"
               "every command: [--choice GEMM_ROWS,SLICE_KB,ATTENTION_ROWS,ATTENTION_KEYS[,fused|unfused]] (attn::KernelChoice; "
               "default: the probe's)\n"
               "kernels here: %s\n",
               why, attn::AvailableKernelNames().c_str());
  std::exit(2);
}

int PositiveInt(const char* text) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (*end != '\0' || v < 1 || v > (1 << 24)) Usage("expected a positive integer");
  return static_cast<int>(v);
}

std::vector<int> PositiveInts(const std::string& text) {
  std::vector<int> values;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    values.push_back(PositiveInt(text.substr(start, comma - start).c_str()));
    start = comma + 1;
  }
  return values;
}

Options Parse(int argc, char** argv) {
  if (argc < 2) Usage("missing command");
  Options o;
  o.command = argv[1];
  for (int i = 2; i < argc; i += 2) {
    if (i + 1 >= argc) Usage("option without a value");
    const std::string flag = argv[i];
    const char* value = argv[i + 1];
    if (flag == "--n") o.n = PositiveInt(value);
    else if (flag == "--m") o.m = PositiveInt(value);
    else if (flag == "--k") o.k = PositiveInt(value);
    else if (flag == "--ns") o.ns = PositiveInts(value);
    else if (flag == "--d-model") o.layer.d_model = PositiveInt(value);
    else if (flag == "--heads") o.layer.heads = PositiveInt(value);
    else if (flag == "--reps") o.reps = PositiveInt(value);
    else if (flag == "--threads") o.threads = PositiveInt(value);
    else if (flag == "--warmup-ms") o.warmup_ms = std::atof(value);
    else if (flag == "--warmup") o.warmup = std::atoi(value);
    else if (flag == "--dir") o.dir = value;
    else if (flag == "--packed") o.packed = std::atoi(value) != 0;
    else if (flag == "--choice") o.choice = value;
    else if (flag == "--kernel") {
      const attn::Status status = attn::ParseKernel(value, &o.kernel);
      if (!status.ok()) Usage(status.message().c_str());
    } else {
      Usage("unknown option");
    }
  }
  if (!o.choice.empty()) {
    // Four integers, then the multiply-add's form where the build has two (else the kernel's own).
    std::string numbers = o.choice, form;
    if (const size_t last = numbers.rfind(','); last != std::string::npos && (last + 1 == numbers.size() ||
                                                                              !std::isdigit(static_cast<unsigned char>(numbers[last + 1]))))
      form = numbers.substr(last + 1), numbers.resize(last);  // a last value that is not a number: the form
    const std::vector<int> n = PositiveInts(numbers);
    if (n.size() != 4) Usage("--choice: expected four integers, then optionally fused or unfused");
    if (!form.empty() && form != "fused" && form != "unfused") Usage("--choice: the fifth value must be fused or unfused");
    const std::vector<attn::KernelChoice> candidates = attn::KernelChoiceCandidates(o.kernel);
    attn::KernelChoice c;
    c.kernel = o.kernel;
    c.gemm_rows = n[0], c.gemm_slice_kb = n[1], c.attention_rows = n[2], c.attention_keys = n[3];
    c.fused_multiply_add = c.gemm_fused_multiply_add =  // both parts' form
        form.empty() ? !candidates.empty() && candidates[0].fused_multiply_add : form == "fused";
    const attn::Status status = attn::SetKernelChoice(c);
    if (!status.ok()) Usage(status.message().c_str());
  }
  return o;
}

// Warm up for warmup_ms (at least once), then time `reps` runs; returns the sorted samples in ms.
std::vector<double> Time(const std::function<void()>& run, double warmup_ms, int reps) {
  const auto warm_start = Clock::now();
  do run();
  while (std::chrono::duration<double, std::milli>(Clock::now() - warm_start).count() < warmup_ms);
  std::vector<double> samples;
  for (int r = 0; r < reps; ++r) {
    const auto start = Clock::now();
    run();
    samples.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  std::sort(samples.begin(), samples.end());
  return samples;
}

double Median(const std::vector<double>& sorted) {
  const size_t h = sorted.size() / 2;
  return sorted.size() % 2 ? sorted[h] : 0.5 * (sorted[h - 1] + sorted[h]);
}

std::string Samples(const std::vector<double>& samples) {
  std::string out = "[";
  char buf[32];
  for (size_t i = 0; i < samples.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s%.4f", i ? "," : "", samples[i]);
    out += buf;
  }
  return out + "]";
}

void PrintError(const Options& o, const std::string& message) {
  std::printf("{\"impl\":\"%s\",\"variant\":\"%s\",\"n\":%d,\"error\":\"%s\"}\n", ATTN_BENCH_IMPL,
              attn::KernelBuildName(o.kernel), o.n, message.c_str());
}

int Forward(const Options& o) {
  attn::AttentionConfig config = o.layer.Config(o.kernel);
  config.threads = o.threads;
  attn::AttentionInputs inputs;
  inputs.query = o.layer.Input(o.n);
  attn::AttentionParameters params;  // seeded and packed once, outside the timing
  attn::Status status = o.layer.Parameters(&params);
  attn::PreparedAttention layer;
  if (status.ok()) status = attn::Prepare(config, o.layer.d_model, params, &layer);
  attn::Matrix out;
  const auto run = [&] {
    if (status.ok()) status = layer.Forward(inputs.query, &out);
  };
  run();
  if (!status.ok()) {
    PrintError(o, status.message());
    return 0;
  }
  const std::vector<double> samples = Time(run, o.warmup_ms, o.reps);
  if (!status.ok()) {
    PrintError(o, status.message());
    return 0;
  }
  const double flops = o.layer.Flops(o.n);
  const double ms = Median(samples);
  std::printf(
      "{\"impl\":\"%s\",\"variant\":\"%s\",\"fused\":%s,\"threads\":%d,\"n\":%d,\"ms\":%.4f,\"gflops\":%.3f,"
      "\"samples\":%s,\"peak_rss_mb\":%.1f}\n",
      ATTN_BENCH_IMPL, attn::KernelBuildName(o.kernel), layer.fused() ? "true" : "false", o.threads, o.n, ms,
      flops / ms * 1e-6, Samples(samples).c_str(), attnlab_bench::PeakRssMb());
  return 0;
}

int Gemm(const Options& o) {
  if (o.m == 0 || o.k == 0) Usage("gemm needs --m, --k and --n");
  const attn::Matrix a = attn::SeededRandom(1).UniformMatrix(o.m, o.k, -1.0f, 1.0f),
                     b = attn::SeededRandom(2).UniformMatrix(o.k, o.n, -1.0f, 1.0f);
  attn::Matrix c;
  attn::PackedMatrix packed;
  attn::Status status = o.packed ? attn::PackMatrix(o.kernel, b, false, &packed) : attn::Status::Ok();
  const std::vector<double> samples = Time([&] {
    if (status.ok()) status = o.packed ? attn::MatMul(a, packed, &c) : attn::MatMul(o.kernel, a, b, &c);
  }, o.warmup_ms, o.reps);
  if (!status.ok()) {
    PrintError(o, status.message());
    return 0;
  }
  const double ms = Median(samples);
  std::printf("{\"impl\":\"%s\",\"variant\":\"%s\",\"m\":%d,\"k\":%d,\"n\":%d,\"ms\":%.4f,\"gemm_gflops\":%.3f}\n",
              ATTN_BENCH_IMPL, attn::KernelBuildName(o.kernel), o.m, o.k, o.n, ms,
              2.0 * o.m * o.k * o.n / ms * 1e-6);
  return 0;
}

int Peak(const Options& o) {
  // The tiling this CPU runs the variant with (attn/kernel_choice.h): a line of the bench report, so
  // a run on another CPU shows what its probe picked.
  const std::string choice = attn::DescribeKernelChoice(attn::ChosenKernelSettings(o.kernel));
  std::printf("{\"impl\":\"%s\",\"variant\":\"%s\",\"peak_gflops\":%.3f,\"kernel_choice\":\"%s\"}\n", ATTN_BENCH_IMPL,
              attn::KernelBuildName(o.kernel), attn::MeasurePeakGflops(o.kernel, 1.0), choice.c_str());
  return 0;
}

// A line of the bench report, as the kernel choice is: what the calls of this process taught the
// crossover. Each n is prepared once and called 16 times, more than the 2 · 5 timed calls a class
// near the crossover takes (thread_crossover.h), in increasing n as a growing prompt would.
int Threads(const Options& o) {
  const int threads = o.threads > 1 ? o.threads : 2;
  const std::vector<int> ns = o.ns.empty() ? std::vector<int>{16, 32, 64, 96, 128, 192, 256, 384, 512, 1024} : o.ns;
  attn::AttentionParameters params;
  attn::Status status = o.layer.Parameters(&params);
  attn::AttentionConfig config = o.layer.Config(o.kernel);
  config.threads = threads;
  for (int n : ns) {
    attn::PreparedAttention layer;
    if (status.ok()) status = attn::Prepare(config, o.layer.d_model, params, &layer);
    const attn::Matrix x = o.layer.Input(n);
    attn::Matrix out;
    for (int call = 0; call < 16 && status.ok(); ++call) status = layer.Forward(x, &out);
  }
  if (!status.ok()) {
    PrintError(o, status.message());
    return 0;
  }
  const std::string choice = attn::DescribeThreadChoice(attn::ChosenThreads(o.kernel, threads));
  std::printf("{\"impl\":\"%s\",\"variant\":\"%s\",\"threads\":%d,\"thread_choice\":\"%s\"}\n", ATTN_BENCH_IMPL,
              attn::KernelBuildName(o.kernel), threads, choice.c_str());
  return 0;
}

// {"impl":…,"d_model":D,"heads":H,"seed":S,"bias":true,"flops_formula":"…","flops":{"64":F,…}}: what
// bench/run.mjs reports and divides by, so the layer's numbers exist only in lessons/bench_layer.h.
int Layer(const Options& o) {
  std::string flops;
  char buf[64];
  for (size_t i = 0; i < o.ns.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s\"%d\":%.0f", i ? "," : "", o.ns[i], o.layer.Flops(o.ns[i]));
    flops += buf;
  }
  std::printf("{\"impl\":\"%s\",\"d_model\":%d,\"heads\":%d,\"seed\":%u,\"bias\":%s,\"flops_formula\":\"%s\","
              "\"flops\":{%s}}\n",
              ATTN_BENCH_IMPL, o.layer.d_model, o.layer.heads, static_cast<unsigned>(o.layer.seed),
              o.layer.Config(o.kernel).use_bias ? "true" : "false", lessons::BenchLayer::FlopsFormula(), flops.c_str());
  return 0;
}

}  // namespace

int LmTrain(const Options& o) {
  attn::train::LmTrainConfig config;  // the shipped model's shape and batch
  config.steps = o.reps + 2;
  config.warmup_steps = 0;  // the rate's schedule costs nothing; a step is a step
  config.model.kernel = o.kernel;  // FastestKernel() unless --kernel: PyTorch runs its BLAS on the CPU's best ISA too
  attn::SeededRandom rng(1);
  std::vector<int> words(200000);
  for (int& w : words) w = static_cast<int>(rng.Below(static_cast<uint32_t>(config.model.vocab)));
  attn::train::LmTrainer trainer;
  attn::Status status = trainer.Init(config, &words);
  for (int i = 0; i < 2 && status.ok(); ++i) status = trainer.Step(nullptr);
  const auto start = Clock::now();
  for (int i = 0; i < o.reps && status.ok(); ++i) status = trainer.Step(nullptr);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (!status.ok()) {
    std::printf("{\"impl\":\"%s\",\"variant\":\"lm-train\",\"error\":\"%s\"}\n", ATTN_BENCH_IMPL, status.message().c_str());
    return 1;
  }
  const double tokens = static_cast<double>(o.reps) * config.batch_size * config.model.seq_len;
  std::printf("{\"impl\":\"%s\",\"variant\":\"lm-train\",\"kernel\":\"%s\",\"tokens_per_s\":%.0f,"
              "\"ms_per_step\":%.1f,\"steps\":%d}\n",
              ATTN_BENCH_IMPL, attn::KernelBuildName(config.model.kernel), tokens / seconds, 1e3 * seconds / o.reps, o.reps);
  return 0;
}

int LmGenerateTimes(const Options& o) {
  attn::train::LmModel model;
  model.config.positions = attn::train::Positions::kRope;
  model.params = attn::train::InitializeLm(model.config);
  for (int w = 0; w < model.config.vocab; ++w) model.vocabulary.push_back("w" + std::to_string(w));
  const std::vector<int> prompt = {1, 2, 3, 4};
  attn::train::LmGenerateConfig config;
  config.tokens = 30;
  config.temperature = 0;
  std::vector<attn::train::LmGenerated> words;
  attn::Status status = attn::train::LmGenerate(model, prompt, config, &words);  // warm-up
  const auto cached_start = Clock::now();
  for (int i = 0; i < o.reps && status.ok(); ++i) status = attn::train::LmGenerate(model, prompt, config, &words);
  const double cached = std::chrono::duration<double, std::milli>(Clock::now() - cached_start).count();
  // Without the cache: the whole sentence again for every word, the same words.
  const auto full_start = Clock::now();
  for (int i = 0; i < o.reps && status.ok(); ++i) {
    std::vector<int> sentence = prompt;
    for (const auto& w : words) {
      attn::train::LmCache fresh;
      attn::train::LmTrace trace;
      status = attn::train::LmAdvance(model, sentence, attn::train::LmAblation(), false, &fresh, &trace);
      sentence.push_back(w.id);
    }
  }
  const double full = std::chrono::duration<double, std::milli>(Clock::now() - full_start).count();
  if (!status.ok()) {
    std::printf("{\"impl\":\"%s\",\"variant\":\"lm-generate\",\"error\":\"%s\"}\n", ATTN_BENCH_IMPL, status.message().c_str());
    return 1;
  }
  const double per = 1.0 / (o.reps * config.tokens);
  std::printf("{\"impl\":\"%s\",\"variant\":\"lm-generate\",\"ms_per_word_cached\":%.3f,\"ms_per_word_recomputed\":%.3f,"
              "\"speedup\":%.2f}\n", ATTN_BENCH_IMPL, cached * per, full * per, full / cached);
  return 0;
}

// The file's bytes ("" when it cannot be read), in 1 MB reads: a stream's rdbuf() went byte by byte
// in wasm, 8 s of the GPT-2 runner's start for its 498 MB checkpoint.
std::string ReadWhole(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return {};
  std::string bytes;
  if (std::fseek(f, 0, SEEK_END) == 0) {
    const long size = std::ftell(f);
    if (size > 0) bytes.reserve(static_cast<size_t>(size));
    std::rewind(f);
  }
  std::vector<char> buffer(1 << 20);
  for (size_t got; (got = std::fread(buffer.data(), 1, buffer.size(), f)) > 0;) bytes.append(buffer.data(), got);
  std::fclose(f);
  return bytes;
}

// The GPT-2-small workload: one JSON line, as bench/peers/gpt2_common.mjs's runners print.
int Gpt2(const Options& o) {
  const auto fail = [&](const std::string& message) {
    std::printf("{\"impl\":\"%s\",\"variant\":\"%s\",\"error\":\"%s\"}\n", ATTN_BENCH_IMPL,
                attn::KernelBuildName(o.kernel), message.c_str());
    return 0;
  };
  constexpr int kPrompt = 128, kDecode = 32;
  attn::train::LmCheckpointOptions options;
  options.config_json = ReadWhole(o.dir + "/config.json");
  attn::train::LmModel model;
  {
    const std::string bytes = ReadWhole(o.dir + "/model.safetensors");
    if (bytes.empty() || options.config_json.empty())
      return fail(o.dir + "/model.safetensors or config.json missing: run /usr/bin/python3 bench/peers/gpt2.py export");
    const attn::Status status = attn::train::ReadLmCheckpoint(bytes, options, &model);
    if (!status.ok()) return fail(status.message());
  }
  model.config.kernel = o.kernel;
  {  // the weights packed once, as onnxruntime does at session creation (not timed, as its isn't)
    const attn::Status status = attn::train::PrepareLm(&model);
    if (!status.ok()) return fail(status.message());
  }
  std::vector<int> prompt;  // gpt2.py's prompt(): xorshift32 from 0x9E3779B9, mod V
  uint32_t s = 0x9E3779B9u;
  for (int i = 0; i < kPrompt; ++i) {
    s ^= s << 13, s ^= s >> 17, s ^= s << 5;
    prompt.push_back(static_cast<int>(s % static_cast<uint32_t>(model.config.vocab)));
  }
  const auto argmax = [](const attn::Matrix& logits) {
    Eigen::Index best = 0;
    logits.row(logits.rows() - 1).maxCoeff(&best);  // the first maximum: the lowest id on ties
    return static_cast<int>(best);
  };
  std::vector<double> prefill_samples, decode_samples;
  std::vector<int> tokens;
  attn::Matrix last;
  for (int rep = 0; rep < o.warmup + o.reps; ++rep) {
    attn::train::LmCache cache;
    attn::train::LmTrace trace;
    auto start = Clock::now();
    attn::Status status = attn::train::LmAdvance(model, prompt, attn::train::LmAblation(), false, &cache, &trace);
    const double prefill = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    if (!status.ok()) return fail(status.message());
    last = trace.logits.bottomRows(1);
    tokens.assign(1, argmax(last));
    start = Clock::now();
    for (int k = 0; k < kDecode && status.ok(); ++k) {
      status = attn::train::LmAdvance(model, {tokens.back()}, attn::train::LmAblation(), false, &cache, &trace);
      tokens.push_back(argmax(trace.logits));
    }
    const double decode = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    if (!status.ok()) return fail(status.message());
    if (rep >= o.warmup) prefill_samples.push_back(prefill), decode_samples.push_back(decode / kDecode);
  }
  const std::string logits_file =  // one file per variant: the eigen run must not overwrite the reference's
      o.dir + "/last-logits." ATTN_BENCH_IMPL "-" + attn::KernelBuildName(o.kernel) + ".f32";
  if (std::FILE* f = std::fopen(logits_file.c_str(), "wb")) {
    std::fwrite(last.data(), sizeof(float), static_cast<size_t>(last.size()), f);
    std::fclose(f);
  }
  std::sort(prefill_samples.begin(), prefill_samples.end());
  std::sort(decode_samples.begin(), decode_samples.end());
  std::string ids;
  for (size_t i = 0; i < tokens.size(); ++i) ids += (i ? "," : "") + std::to_string(tokens[i]);
  std::printf("{\"impl\":\"%s\",\"variant\":\"%s\",\"prefill_ms\":%.3f,\"decode_ms_per_token\":%.3f,"
              "\"prefill_samples\":%s,\"decode_samples\":%s,\"tokens\":[%s],\"logits_file\":\"%s\",\"threads\":1,"
              "\"peak_rss_mb\":%.1f}\n",
              ATTN_BENCH_IMPL, attn::KernelBuildName(o.kernel), Median(prefill_samples), Median(decode_samples),
              Samples(prefill_samples).c_str(), Samples(decode_samples).c_str(), ids.c_str(), logits_file.c_str(),
              attnlab_bench::PeakRssMb());
  return 0;
}

int main(int argc, char** argv) {
  const Options o = Parse(argc, argv);
  if (o.command == "lm-train") return LmTrain(o);
  if (o.command == "lm-generate") return LmGenerateTimes(o);
  if (o.command == "gpt2") return Gpt2(o);
  if (o.command == "forward") return Forward(o);
  if (o.command == "gemm") return Gemm(o);
  if (o.command == "peak") return Peak(o);
  if (o.command == "layer") return Layer(o);
  if (o.command == "threads") return Threads(o);
  Usage("unknown command");
}
