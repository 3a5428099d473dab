// [SECTION] candidates · [SECTION] the probe · [SECTION] the process's choice · [SECTION] API
// attn/kernel_choice.h: each SIMD variant's tiling, chosen on this CPU by timing its candidates.
#include "attn/kernel_choice.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <mutex>
#include <vector>

#include "kernels/simd/kernel_registry.h"
#include "kernels/simd/kernel_table.h"

namespace attn {
namespace {

// [SECTION] candidates

constexpr int kSliceKbOptions[] = {32, 16};       // 32 KB first: the slice tuned on Zen 4
constexpr int kQueryTileOptions[] = {8, 4};       // micro-kernel tiles of query rows; 8 first
constexpr int kKeyTileOptions[] = {128, 64, 256};  // 128 first

// Today's settings before any measurement (the first of each list): what a probe must beat.
KernelChoice DefaultChoice(const simd::KernelTable& t) {
  KernelChoice c;
  c.kernel = t.id;
  c.gemm_rows = t.micro_rows;
  c.gemm_slice_kb = kSliceKbOptions[0];
  c.attention_rows = t.micro_rows * kQueryTileOptions[0];
  c.attention_keys = kKeyTileOptions[0];
  c.fused_multiply_add = c.gemm_fused_multiply_add = t.fused_multiply_add;
  return c;
}

// The form of the multiply-add a part of the probe times: the GEMM's or the attention's.
using Form = bool (*)(const KernelChoice&);
bool GemmForm(const KernelChoice& c) { return c.gemm_fused_multiply_add; }
bool AttentionForm(const KernelChoice& c) { return c.fused_multiply_add; }

// The forms of the multiply-add the table can run, its own first.
std::vector<bool> FusionOptions(const simd::KernelTable& t) {
  if (!t.chooses_fusion) return {t.fused_multiply_add};
  return {t.fused_multiply_add, !t.fused_multiply_add};
}

bool SameGemm(const KernelChoice& a, const KernelChoice& b) {
  return a.gemm_rows == b.gemm_rows && a.gemm_slice_kb == b.gemm_slice_kb &&
         a.gemm_fused_multiply_add == b.gemm_fused_multiply_add;
}

// The GEMM settings with the default attention's, the default first, each form of the multiply-add's
// in turn (the table's own form first).
std::vector<KernelChoice> GemmCandidates(const simd::KernelTable& t) {
  std::vector<KernelChoice> list = {DefaultChoice(t)};
  for (bool fused : FusionOptions(t))
    for (int r = 0; r < t.gemm_row_count; ++r)
      for (int slice : kSliceKbOptions) {
        KernelChoice c = DefaultChoice(t);
        c.gemm_rows = t.gemm_rows[r], c.gemm_slice_kb = slice, c.gemm_fused_multiply_add = fused;
        if (!SameGemm(c, list[0])) list.push_back(c);
      }
  return list;
}

// The attention settings with the default GEMM's, the default first, each form's in turn.
std::vector<KernelChoice> AttentionCandidates(const simd::KernelTable& t) {
  std::vector<KernelChoice> list;
  for (bool fused : FusionOptions(t))
    for (int tiles : kQueryTileOptions)
      for (int keys : kKeyTileOptions) {
        KernelChoice c = DefaultChoice(t);
        c.attention_rows = t.micro_rows * tiles, c.attention_keys = keys, c.fused_multiply_add = fused;
        list.push_back(c);
      }
  return list;
}

template <std::size_t N>
bool OneOf(int value, const int (&options)[N]) {
  return std::find(std::begin(options), std::end(options), value) != std::end(options);
}

std::string ListOf(const int* values, int count, int times = 1) {
  std::string s;
  for (int i = 0; i < count; ++i) s += (i ? ", " : "") + std::to_string(values[i] * times);
  return s;
}

// [SECTION] the probe
// Two calls shaped like the engine's hot spots, small enough to time every candidate in a few ms:
//  - GEMM: A (48, 1024) · B (1024, 128), B packed once as a model's weights are. k = 1024 spans several
//    depth slices of either size; 48 rows are whole tiles of 4, 6 and 8.
//  - attention: one head, 128 queries, 256 keys, d_k = d_v = 64, unmasked: two key tiles of 128, four
//    of 64, one of 256.
// The default runs first untimed (in WebAssembly until V8's optimised code has arrived; so does the
// first candidate of the other multiply-add form, another function), every candidate once more
// untimed, then three interleaved rounds (a noisy moment lands on all of them); each keeps its
// fastest time. A candidate replaces the default only when ≥ 3% faster (more where the clock is
// coarse), so the choice does not flip between runs on noise alone; the other form of the
// multiply-add likewise, for the GEMM and the attention each on its own (ChooseForm).

constexpr int kGemmM = 48, kGemmK = 1024, kGemmN = 128;
constexpr int kQueries = 128, kKeys = 256, kHeadDim = 64;
constexpr double kGemmFlops = 2.0 * kGemmM * kGemmK * kGemmN;
constexpr double kAttentionFlops = 2.0 * 2.0 * kQueries * kKeys * kHeadDim;  // Q Kᵀ and P V
constexpr int kRounds = 3;
constexpr double kMargin = 0.97;
constexpr double kTicksPerSample = 20;
constexpr double kMaxTick = 0.5e-3;  // a coarser clock cannot time the candidates in a few ms

double Seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Deterministic values in [-1, 1): the probe's inputs (their values do not change the time).
void Fill(std::vector<float>* x, unsigned seed) {
  unsigned state = seed * 2654435761u + 1u;
  for (float& v : *x) {
    state = state * 1664525u + 1013904223u;
    v = static_cast<float>(state >> 8) / static_cast<float>(1u << 23) - 1.0f;
  }
}

// The clock's resolution: the smallest step Seconds() is seen to take. Natively and in node a
// microsecond or finer; in a browser page that is not cross-origin isolated (an embed cannot isolate
// its host page) performance.now() is coarsened to 100 µs, coarser than one of the probe's calls;
// a browser that resists fingerprinting coarsens it to 100 ms. Infinity when it does not move in a
// million reads.
double ClockTick() {
  double tick = std::numeric_limits<double>::infinity();
  for (int i = 0; i < 3; ++i) {
    const double t0 = Seconds();
    double t1 = t0;
    for (int reads = 0; t1 == t0 && reads < 1000000; ++reads) t1 = Seconds();
    if (t1 != t0) tick = std::min(tick, t1 - t0);
  }
  return tick;
}

// Each candidate's fastest time per call, in seconds, and the margin a candidate must beat the
// default by: kMargin, or more where the clock is too coarse to resolve 3% (two ticks in a sample).
struct Timed {
  std::vector<double> seconds;
  double margin = kMargin;
};

// Index of the fastest of the candidates whose part runs multiply-add form `fused`: the first of them
// (that form's default) unless another beats it by the margin.
std::size_t Fastest(const std::vector<KernelChoice>& candidates, const Timed& timed, bool fused, Form form) {
  std::size_t first = candidates.size(), best = candidates.size();
  const std::vector<double>& times = timed.seconds;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (form(candidates[i]) != fused) continue;
    if (first == candidates.size()) first = best = i;
    else if (times[i] < times[best] && times[i] < timed.margin * times[first]) best = i;
  }
  return best;
}

// The form of the multiply-add a part (the GEMM, the attention) runs: the table's own unless the
// other form's fastest candidate took less time by the margin — and by less than half: the two forms'
// code differs by an instruction or two per multiply-add, so a form twice as slow was timed on V8's
// baseline code (its optimised code had not arrived), and says nothing about the CPU. Each part
// apart: on Zen 5 under V8 the GEMM runs faster unfused and the attention fused (kernel_choice.h).
bool ChooseForm(const simd::KernelTable& t, const std::vector<KernelChoice>& candidates, const Timed& timed, Form form) {
  const bool own = t.fused_multiply_add;
  if (!t.chooses_fusion) return own;
  const double other = timed.seconds[Fastest(candidates, timed, !own, form)];
  const double mine = timed.seconds[Fastest(candidates, timed, own, form)];
  return other < timed.margin * mine && other > 0.5 * mine ? !own : own;
}

// WebAssembly's first calls run V8's baseline code, several times slower, until its optimised code
// arrives from a background thread, which took over 12 ms for the plain build's GEMM (node 20, Zen 5:
// a fixed 12 ms warm-up timed its baseline code, 17–18 GFLOP/s against 58 optimised). So in wasm each
// function the probe times (each form of the multiply-add is its own) first runs until two calls in a
// row take under kTieredUp of the median call before them, the first (which compiles) aside — the
// optimised code has arrived, within 8–25 ms in node here — or for kWarmSeconds at most (code
// optimised from the start, as a browser's code cache may give it, never speeds up); natively one
// call warms the caches.
#if defined(__wasm__)
constexpr double kWarmSeconds = 0.030;
#else
constexpr double kWarmSeconds = 0.0;
#endif
constexpr double kTieredUp = 0.6;
std::atomic<double> g_warm_seconds{kWarmSeconds};  // SetKernelProbeWarmup

// Runs `run` until it has sped up (see above), runs as fast as `warm_seconds` (another form's warmed
// call, 0 for none: within 1/kTieredUp of it, this code is optimised too), or kWarmSeconds have
// passed (or what SetKernelProbeWarmup asked for). Returns its last call's time.
template <class Run>
double Warm(const Run& run, double warm_seconds) {
  std::vector<double> calls;  // after the first (which compiles the baseline code)
  const double until = Seconds() + g_warm_seconds.load(std::memory_order_relaxed);
  int fast_in_a_row = 0;  // two calls in a row under kTieredUp of the median: one could be noise
  for (bool first = true;; first = false) {
    const double start = Seconds();
    run();
    const double end = Seconds(), took = end - start;
    if (end >= until || (!first && took * kTieredUp < warm_seconds)) return took;
    if (first) continue;
    if (calls.size() >= 3) {
      std::vector<double> sorted = calls;
      std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
      fast_in_a_row = took < kTieredUp * sorted[sorted.size() / 2] ? fast_in_a_row + 1 : 0;
      if (fast_in_a_row == 2) return took;
    }
    calls.push_back(took);
  }
}

// Times `run` under each candidate, each sample kTicksPerSample of the clock's ticks long at least
// (one call natively and in node; about 2 ms of calls in a browser page).
template <class Run>
Timed TimeCandidates(const std::vector<KernelChoice>& candidates, double tick, Form form, const Run& run) {
  double warm_seconds = 0.0;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    // Each form of the multiply-add is its own code: the first candidate of each warms it.
    const auto same_form = [&](const KernelChoice& c) { return form(c) == form(candidates[i]); };
    if (std::any_of(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(i), same_form)) continue;
    const ScopedKernelChoice use(candidates[i]);
    warm_seconds = Warm(run, warm_seconds);
  }
  int reps = 0;  // calls per sample
  {
    const ScopedKernelChoice use(candidates[0]);
    for (const double start = Seconds(); reps == 0 || Seconds() - start < kTicksPerSample * tick; ++reps) run();
  }
  Timed timed;
  timed.seconds.assign(candidates.size(), 1e300);
  for (int round = 0; round <= kRounds; ++round)
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const ScopedKernelChoice use(candidates[i]);
      const double start = Seconds();
      for (int r = 0; r < reps; ++r) run();
      if (round > 0) timed.seconds[i] = std::min(timed.seconds[i], (Seconds() - start) / reps);
    }
  timed.margin = std::min(kMargin, 1.0 - 2.0 * tick / (timed.seconds[0] * reps));
  return timed;
}

KernelChoice Probe(const simd::KernelTable& t) {
  const double start = Seconds();
  KernelChoice choice = DefaultChoice(t);
  const double tick = ClockTick();
  choice.clock_tick_us = tick * 1e6;
  if (!(tick <= kMaxTick)) {  // the defaults, unmeasured: see DescribeKernelChoice
    choice.probe_ms = (Seconds() - start) * 1e3;
    return choice;
  }
  try {
    std::vector<float> a(static_cast<std::size_t>(kGemmM) * kGemmK), b(static_cast<std::size_t>(kGemmK) * kGemmN),
        packed(t.packed_size(kGemmK, kGemmN)), c(static_cast<std::size_t>(kGemmM) * kGemmN);
    Fill(&a, 1), Fill(&b, 2);
    t.pack_b(b.data(), kGemmN, false, kGemmK, kGemmN, packed.data());
    const std::vector<KernelChoice> gemms = GemmCandidates(t);
    const Timed gemm_times = TimeCandidates(gemms, tick, GemmForm, [&] {
      t.gemm_packed(kGemmM, kGemmN, kGemmK, a.data(), kGemmK, packed.data(), nullptr, c.data(), kGemmN);
    });

    std::vector<float> q(static_cast<std::size_t>(kQueries) * kHeadDim), k(static_cast<std::size_t>(kKeys) * kHeadDim),
        v(k.size()), out(q.size());
    Fill(&q, 3), Fill(&k, 4), Fill(&v, 5);
    simd::FlashAttentionArgs args;
    args.q = q.data(), args.k = k.data(), args.v = v.data(), args.out = out.data();
    args.ldq = args.ldk = args.ldv = args.ldo = kHeadDim;
    args.n = kQueries, args.m = kKeys, args.d_k = args.d_v = kHeadDim;
    args.scale = 0.125f;
    const std::vector<KernelChoice> attentions = AttentionCandidates(t);
    const Timed attention_times = TimeCandidates(attentions, tick, AttentionForm, [&] { t.flash_attention(args); });
    const bool gemm_fused = ChooseForm(t, gemms, gemm_times, GemmForm);
    const bool attention_fused = ChooseForm(t, attentions, attention_times, AttentionForm);
    const std::size_t g = Fastest(gemms, gemm_times, gemm_fused, GemmForm);
    const std::size_t h = Fastest(attentions, attention_times, attention_fused, AttentionForm);

    choice.gemm_fused_multiply_add = gemm_fused;
    choice.fused_multiply_add = attention_fused;
    choice.gemm_rows = gemms[g].gemm_rows, choice.gemm_slice_kb = gemms[g].gemm_slice_kb;
    choice.attention_rows = attentions[h].attention_rows, choice.attention_keys = attentions[h].attention_keys;
    choice.candidates = static_cast<int>(gemms.size() + attentions.size());
    choice.gemm_gflops = kGemmFlops / gemm_times.seconds[g] * 1e-9;
    choice.attention_gflops = kAttentionFlops / attention_times.seconds[h] * 1e-9;
  } catch (const std::bad_alloc&) {
    // No memory for the probe's 1 MB: today's settings, unmeasured (candidates stays 0).
  }
  choice.probe_ms = (Seconds() - start) * 1e3;
  return choice;
}

// [SECTION] the process's choice

struct ProcessChoices {
  std::mutex mu;
  std::atomic<bool> ready[static_cast<int>(KernelId::kCount)] = {};
  KernelChoice choice[static_cast<int>(KernelId::kCount)];
};
ProcessChoices& Process() {
  static ProcessChoices process;
  return process;
}

}  // namespace

namespace simd {

const KernelChoice*& ThreadChoice() {
  static thread_local const KernelChoice* choice = nullptr;
  return choice;
}

const KernelChoice& CurrentChoice(KernelId id) {
  const KernelChoice* own = ThreadChoice();
  if (own && own->kernel == id) return *own;
  ProcessChoices& p = Process();
  const int i = static_cast<int>(id);
  if (!p.ready[i].load(std::memory_order_acquire)) {
    const std::lock_guard<std::mutex> lock(p.mu);
    if (!p.ready[i].load(std::memory_order_relaxed)) {
      const KernelTable* table = FindKernelTable(id);
      p.choice[i] = table ? Probe(*table) : KernelChoice{id};
      p.ready[i].store(true, std::memory_order_release);
    }
  }
  return p.choice[i];
}

}  // namespace simd

// [SECTION] API

// The widest SIMD variant (the last compiled), unless another's probe ran ≥ 10% faster (an AVX-512
// core that lowers its clock for 512-bit code may run AVX2 faster): a probe time is its winners' GEMM
// and attention times added.
KernelId FastestKernel() {
  static const KernelId fastest = [] {
    const std::vector<KernelId> available = AvailableKernels();
    KernelId best = available.back();
    const auto seconds = [](KernelId id) {
      const KernelChoice c = ChosenKernelSettings(id);
      return c.gemm_gflops > 0 && c.attention_gflops > 0 ? kGemmFlops / c.gemm_gflops + kAttentionFlops / c.attention_gflops
                                                         : 0.0;
    };
    const double widest = simd::FindKernelTable(best) ? seconds(best) : 0.0;
    double best_seconds = widest;
    for (KernelId id : available) {
      if (id == available.back() || !simd::FindKernelTable(id) || widest <= 0) continue;
      const double s = seconds(id);
      if (s > 0 && s < 0.9 * widest && s < best_seconds) best = id, best_seconds = s;
    }
    return best;
  }();
  return fastest;
}

KernelChoice ChosenKernelSettings(KernelId kernel) {
  if (!simd::FindKernelTable(kernel)) return KernelChoice{kernel};
  return simd::CurrentChoice(kernel);
}

bool KernelChoiceMade(KernelId kernel) {
  const int i = static_cast<int>(kernel);
  if (!simd::FindKernelTable(kernel)) return i >= 0 && i < static_cast<int>(KernelId::kCount);
  return Process().ready[i].load(std::memory_order_acquire);
}

std::vector<KernelChoice> KernelChoiceCandidates(KernelId kernel) {
  const simd::KernelTable* t = simd::FindKernelTable(kernel);
  if (!t) return {};
  std::vector<KernelChoice> all;
  for (const KernelChoice& g : GemmCandidates(*t))
    for (const KernelChoice& h : AttentionCandidates(*t)) {
      KernelChoice c = g;  // each part's form its own: both pairs where the table carries both
      c.attention_rows = h.attention_rows, c.attention_keys = h.attention_keys;
      c.fused_multiply_add = h.fused_multiply_add;
      all.push_back(c);
    }
  return all;
}

KernelChoice DefaultKernelChoice(KernelId kernel) {
  const simd::KernelTable* t = simd::FindKernelTable(kernel);
  return t ? DefaultChoice(*t) : KernelChoice{kernel};
}

void SetKernelProbeWarmup(double seconds) {
  constexpr double kMostSeconds = 2.0;  // a function whose code is optimised from the start never speeds up
  g_warm_seconds.store(seconds > kWarmSeconds ? std::min(seconds, kMostSeconds) : kWarmSeconds, std::memory_order_relaxed);
}

Status SetKernelChoice(const KernelChoice& choice) {
  ATTN_RETURN_IF_ERROR(CheckKernelAvailable(choice.kernel));
  const simd::KernelTable* t = simd::FindKernelTable(choice.kernel);
  const std::string name = KernelName(choice.kernel);
  if (!t) return Status(StatusCode::kInvalidArgument, "kernel choice: " + name + " has no tiling to choose");
  const auto refuse = [&](const char* field, int value, const std::string& expected) {
    return Status(StatusCode::kInvalidArgument, std::string("kernel choice: ") + field + " must be one of " + expected +
                                                    " on " + name + ", got " + std::to_string(value));
  };
  if (std::find(t->gemm_rows, t->gemm_rows + t->gemm_row_count, choice.gemm_rows) == t->gemm_rows + t->gemm_row_count)
    return refuse("gemm_rows", choice.gemm_rows, ListOf(t->gemm_rows, t->gemm_row_count));
  if (!OneOf(choice.gemm_slice_kb, kSliceKbOptions))
    return refuse("gemm_slice_kb", choice.gemm_slice_kb, ListOf(kSliceKbOptions, std::size(kSliceKbOptions)));
  const bool rows_ok = std::any_of(std::begin(kQueryTileOptions), std::end(kQueryTileOptions),
                                   [&](int tiles) { return choice.attention_rows == tiles * t->micro_rows; });
  if (!rows_ok)
    return refuse("attention_rows", choice.attention_rows,
                  ListOf(kQueryTileOptions, std::size(kQueryTileOptions), t->micro_rows));
  if (!OneOf(choice.attention_keys, kKeyTileOptions))
    return refuse("attention_keys", choice.attention_keys, ListOf(kKeyTileOptions, std::size(kKeyTileOptions)));
  const auto only_form = [&](const char* field, bool value) {
    return Status(StatusCode::kInvalidArgument, std::string("kernel choice: ") + field + " must be " +
                                                    (t->fused_multiply_add ? "true" : "false") + " on " + name +
                                                    " (its only form), got " + (value ? "true" : "false"));
  };
  if (!t->chooses_fusion && choice.fused_multiply_add != t->fused_multiply_add)
    return only_form("fused_multiply_add", choice.fused_multiply_add);
  if (!t->chooses_fusion && choice.gemm_fused_multiply_add != t->fused_multiply_add)
    return only_form("gemm_fused_multiply_add", choice.gemm_fused_multiply_add);
  ProcessChoices& p = Process();
  const std::lock_guard<std::mutex> lock(p.mu);
  const int i = static_cast<int>(choice.kernel);
  p.choice[i] = choice;
  p.choice[i].set_from_elsewhere = true;
  p.ready[i].store(true, std::memory_order_release);
  return Status::Ok();
}

std::string DescribeKernelChoice(const KernelChoice& c) {
  const std::string name = KernelBuildName(c.kernel);
  if (c.gemm_rows == 0) return name + ": no tiling to choose";
  char text[320];
  std::snprintf(text, sizeof text, "%s: GEMM tiles of %d rows, %d KB slices; attention tiles of %d queries × %d keys",
                name.c_str(), c.gemm_rows, c.gemm_slice_kb, c.attention_rows, c.attention_keys);
  std::string s = text;
  const simd::KernelTable* t = simd::FindKernelTable(c.kernel);
  if (t && t->chooses_fusion) {
    const auto form = [](bool fused) { return fused ? "fused (f32x4.relaxed_madd)" : "unfused (a multiply, then an add)"; };
    if (c.gemm_fused_multiply_add == c.fused_multiply_add)
      s += std::string("; multiply-adds ") + form(c.fused_multiply_add);
    else
      s += std::string("; the GEMM's multiply-adds ") + form(c.gemm_fused_multiply_add) + ", the attention's " +
           form(c.fused_multiply_add);
  }
  if (c.candidates > 0) {
    std::snprintf(text, sizeof text, " (%sthe fastest of %d settings%s timed in %.1f ms: GEMM %.0f GFLOP/s, attention %.0f GFLOP/s)",
                  c.set_from_elsewhere ? "taken from an earlier probe: " : "", c.candidates,
                  c.set_from_elsewhere ? "," : "", c.probe_ms, c.gemm_gflops, c.attention_gflops);
    s += text;
  } else {
    if (std::isinf(c.clock_tick_us)) {
      s += " (the defaults: this clock does not move, so nothing can be timed)";
    } else if (c.clock_tick_us > kMaxTick * 1e6) {
      std::snprintf(text, sizeof text, " (the defaults: this clock ticks every %.3g ms, too coarse to time them)",
                    c.clock_tick_us * 1e-3);
      s += text;
    } else {
      const KernelChoice d = DefaultKernelChoice(c.kernel);
      const bool defaults = SameGemm(c, d) && c.attention_rows == d.attention_rows &&
                            c.attention_keys == d.attention_keys && c.fused_multiply_add == d.fused_multiply_add;
      s += c.probe_ms > 0.0         ? " (the defaults: no memory for the probe)"
           : defaults && c.set_from_elsewhere ? " (the defaults, not measured here)"
                                               : " (set, not measured here)";
    }
  }
  return s;
}

ScopedKernelChoice::ScopedKernelChoice(const KernelChoice& choice) : choice_(choice), previous_(simd::ThreadChoice()) {
  simd::ThreadChoice() = &choice_;
}

ScopedKernelChoice::~ScopedKernelChoice() { simd::ThreadChoice() = previous_; }

}  // namespace attn
