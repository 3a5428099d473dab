// attnlab's side of `npm run bench`: one measurement per process, one JSON line on stdout.
//   attnlab_bench forward --n N [--warmup-ms W] [--reps R] [--kernel K] [--d-model D] [--heads H]
//       full multi-head forward (Wq, Wk, Wv, Wo with biases) through ForwardOutput
//   attnlab_bench gemm --m M --k K --n N [--warmup-ms W] [--reps R] [--kernel K]
//   attnlab_bench peak [--kernel K]          this core's multiply-add peak with K's vectors
// The same source builds natively (impl "attnlab-native") and with Emscripten for node
// (impl "attnlab-wasm"); bench/run.mjs runs both beside the peers.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "attn/attention.h"
#include "attn/config_names.h"
#include "attn/kernels.h"
#include "peak_rss.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string command;
  int n = 1024, m = 0, k = 0, d_model = 256, heads = 4, reps = 5;
  double warmup_ms = 1500.0;
  attn::KernelId kernel = attn::FastestKernel();
};

[[noreturn]] void Usage(const char* why) {
  std::fprintf(stderr,
               "attnlab_bench: %s\nusage: attnlab_bench forward --n N [--warmup-ms W] [--reps R] [--kernel K] "
               "[--d-model D] [--heads H]\n       attnlab_bench gemm --m M --k K --n N [--warmup-ms W] [--reps R] "
               "[--kernel K]\n       attnlab_bench peak [--kernel K]\nkernels here: %s\n",
               why, attn::AvailableKernelNames().c_str());
  std::exit(2);
}

int PositiveInt(const char* text) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (*end != '\0' || v < 1 || v > (1 << 24)) Usage("expected a positive integer");
  return static_cast<int>(v);
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
    else if (flag == "--d-model") o.d_model = PositiveInt(value);
    else if (flag == "--heads") o.heads = PositiveInt(value);
    else if (flag == "--reps") o.reps = PositiveInt(value);
    else if (flag == "--warmup-ms") o.warmup_ms = std::atof(value);
    else if (flag == "--kernel") {
      const attn::Status status = attn::ParseKernel(value, &o.kernel);
      if (!status.ok()) Usage(status.message().c_str());
    } else {
      Usage("unknown option");
    }
  }
  return o;
}

attn::Matrix Uniform(int rows, int cols, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  attn::Matrix x(rows, cols);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = dist(gen);
  return x;
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
              attn::KernelName(o.kernel), o.n, message.c_str());
}

int Forward(const Options& o) {
  attn::AttentionConfig config;
  config.kernel = o.kernel;
  config.num_heads = o.heads;
  config.project_inputs = config.project_output = config.use_bias = true;
  config.seed = 7;
  attn::AttentionInputs inputs;
  inputs.query = Uniform(o.n, o.d_model, 1);
  attn::AttentionParameters params;  // seeded once, outside the timing
  attn::Status status = attn::InitializeParameters(config, o.d_model, o.d_model, o.d_model, &params);
  attn::Matrix out;
  const auto run = [&] {
    if (status.ok()) status = attn::ForwardOutput(config, inputs, params, &out);
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
  const double d = o.d_model, n = o.n;
  const double flops = 2.0 * n * d * d * 4.0 + 4.0 * n * n * d;
  const double ms = Median(samples);
  std::printf(
      "{\"impl\":\"%s\",\"variant\":\"%s\",\"fused\":%s,\"n\":%d,\"ms\":%.4f,\"gflops\":%.3f,\"samples\":%s,"
      "\"peak_rss_mb\":%.1f}\n",
      ATTN_BENCH_IMPL, attn::KernelName(o.kernel), attn::FusedKernelCovers(config, inputs) ? "true" : "false", o.n, ms,
      flops / ms * 1e-6, Samples(samples).c_str(), attnlab_bench::PeakRssMb());
  return 0;
}

int Gemm(const Options& o) {
  if (o.m == 0 || o.k == 0) Usage("gemm needs --m, --k and --n");
  const attn::Matrix a = Uniform(o.m, o.k, 1), b = Uniform(o.k, o.n, 2);
  attn::Matrix c;
  attn::Status status;
  const std::vector<double> samples = Time([&] { status = attn::MatMul(o.kernel, a, b, &c); }, o.warmup_ms, o.reps);
  if (!status.ok()) {
    PrintError(o, status.message());
    return 0;
  }
  const double ms = Median(samples);
  std::printf("{\"impl\":\"%s\",\"variant\":\"%s\",\"m\":%d,\"k\":%d,\"n\":%d,\"ms\":%.4f,\"gemm_gflops\":%.3f}\n",
              ATTN_BENCH_IMPL, attn::KernelName(o.kernel), o.m, o.k, o.n, ms,
              2.0 * o.m * o.k * o.n / ms * 1e-6);
  return 0;
}

int Peak(const Options& o) {
  std::printf("{\"impl\":\"%s\",\"variant\":\"%s\",\"peak_gflops\":%.3f}\n", ATTN_BENCH_IMPL,
              attn::KernelName(o.kernel), attn::MeasurePeakGflops(o.kernel, 1.0));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = Parse(argc, argv);
  if (o.command == "forward") return Forward(o);
  if (o.command == "gemm") return Gemm(o);
  if (o.command == "peak") return Peak(o);
  Usage("unknown command");
}
