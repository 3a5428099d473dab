// View 14. Times attn::ForwardOutput in the browser on the multi-head layer of `npm run bench`
// (d_model 256, 4 heads, Wq Wk Wv Wo with biases). FLOPs = 2·n·d²·4 + 4·n²·d: the four projections
// and, per head, QKᵀ and the weighted sum. The timer is the browser's, so small n are timed in
// batches of several forwards. Below it, view 5's recompute (32 words, 8 heads) as the views run it.
#include "panels/speed_panel.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>

#include "attn/kernel_choice.h"
#include "attn/kernels.h"
#include "lessons/bench_layer.h"
#include "lessons/view_kernel.h"
#include "imgui.h"
#include "offload.h"
#include "platform_html5.h"
#include "widgets/field_widgets.h"
#include "widgets/flow_layout.h"
#include "widgets/plot.h"
#include "theme.h"
#include "widgets/prose.h"

namespace attnlab {
namespace {

using lessons::SpeedJob;
using lessons::SpeedLab;

// The kernels as a reader knows them; the published names stay the engine's. A SIMD kernel is named
// as this build compiled it (attn::KernelBuildName: the relaxed-SIMD wasm says so).
const char* KernelLabel(attn::KernelId kernel) {
  static const std::array<std::string, static_cast<int>(attn::KernelId::kCount)> labels = [] {
    std::array<std::string, static_cast<int>(attn::KernelId::kCount)> out;
    for (int id = 0; id < static_cast<int>(out.size()); ++id)
      out[id] = "SIMD, fused (" + std::string(attn::KernelBuildName(static_cast<attn::KernelId>(id))) + ")";
    out[static_cast<int>(attn::KernelId::kReference)] = "plain loops (reference)";
    out[static_cast<int>(attn::KernelId::kEigen)] = "Eigen library";
    return out;
  }();
  const int index = static_cast<int>(kernel);
  return index >= 0 && index < static_cast<int>(labels.size()) ? labels[index].c_str() : attn::KernelName(kernel);
}

std::string Bytes(double b) {
  char buf[32];
  if (b >= 1 << 30) std::snprintf(buf, sizeof buf, "%.1f GB", b / (1 << 30));
  else if (b >= 1 << 20) std::snprintf(buf, sizeof buf, "%.1f MB", b / (1 << 20));
  else std::snprintf(buf, sizeof buf, "%.0f KB", b / 1024);
  return buf;
}

}  // namespace

void SpeedPanel::DrawControls(PanelContext& ctx, attn::KernelId kernel) {
  lessons::SpeedState& s = ctx.state.speed;
  const std::vector<attn::KernelId> kernels = attn::AvailableKernels();
  // Wide enough for the longest label (the relaxed build's), never narrower than the slider below.
  float widest = 0.0f;
  for (attn::KernelId id : kernels) widest = std::max(widest, ImGui::CalcTextSize(KernelLabel(id)).x);
  ImGui::SetNextItemWidth(std::max(220.0f, widest + ImGui::GetStyle().FramePadding.x * 2 + ImGui::GetFrameHeight()));
  if (ImGui::BeginCombo("kernel", KernelLabel(kernel))) {
    for (attn::KernelId id : kernels) {
      if (ImGui::Selectable(KernelLabel(id), id == kernel)) s.kernel = static_cast<int>(id);
    }
    ImGui::EndCombo();
  }
  s.log2_n = std::min(s.log2_n, SpeedLab::MaxLog2N(kernel));
  ImGui::SetNextItemWidth(220);
  char label[32];
  std::snprintf(label, sizeof label, "n = %d", 1 << s.log2_n);
  SliderField(s.kLog2N, &s.log2_n, SpeedLab::MaxLog2N(kernel), label);
  SameLineIfFits(60);
  CheckboxField(s.kLive, &s.live);
  SameLineIfFits(150);
  const bool sweep = ImGui::Button("Sweep every kernel");
  ctx.published.Rect("speed.sweep", LastItemRect());
  if (sweep) timing_.StartSweep();
  SameLineIfFits(110);
  // 0.15 s of multiply-adds: in a Web Worker where there is one, else a long frame on the page's thread.
  if (ImGui::Button("Measure peak")) timing_.MeasurePeak();
  if (SpeedLab::MaxLog2N(kernel) < SpeedLab::kMaxLog2N)
    DrawNote("%s builds every n×n intermediate: n is kept to %d here.", KernelLabel(kernel),
                        1 << SpeedLab::MaxLog2N(kernel));
}

void SpeedPanel::DrawLive(PanelContext& ctx, attn::KernelId kernel, int n) {
  const lessons::SpeedState& s = ctx.state.speed;
  timing_.Show(kernel, n, s.live);
  const lessons::TimingSamples& live = timing_.live();
  DrawStatusLine(timing_.error());
  if (!offload::Failure().empty())
    DrawNote("%s: the timing runs on the page's thread, one call per frame.", offload::Failure().c_str());
  if (live.empty()) {
    if (timing_.in_flight()) Prose("Timing n = %d in a Web Worker, so the page stays responsive…", n);
    return;
  }
  const double us = live.Median(), gflops = SpeedLab::Flops(n) / us * 1e-3;
  const bool fused = SpeedLab::Fused(kernel);
  ImGui::SeparatorText("This browser, this core");
  Prose("n = %d, d_model = %d, %d heads:  %.0f µs per forward  ·  %.2f GFLOP/s", n, lessons::BenchLayer().d_model, lessons::BenchLayer().heads, us,
                     gflops);
  if (timing_.peak_gflops() > 0)
    Prose("%.0f%% of this core's measured SIMD multiply-add peak (%.1f GFLOP/s)",
                       100.0 * gflops / timing_.peak_gflops(), timing_.peak_gflops());
  const char* where = timing_.live_in_worker() ? "a Web Worker" : "the page's thread";
  if (live.us.size() == 1) {
    DrawNote("one batch of ≥ 15 ms in %s (the kernel's first batch is not timed); %.3g GFLOP per forward",
             where, SpeedLab::Flops(n) * 1e-9);
  } else {
    DrawNote("median of %d batches of ≥ 15 ms in %s, from %.0f to %.0f µs (%.0f%% apart%s); %.3g GFLOP per forward",
             static_cast<int>(live.us.size()), where, live.Min(), live.Max(), 100.0 * live.Spread(),
             live.Spread() > lessons::kNoisySpread ? ": too noisy to compare settings" : "", SpeedLab::Flops(n) * 1e-9);
  }
  if (s.live && timing_.slow()) {
    DrawNote("Live timing pauses while one forward takes over %.1f s.", SpeedJob::kLiveLimitUs * 1e-6);
    ImGui::SameLine();
    if (ImGui::Button("Time again")) timing_.TimeAgain();
  }
  // The (n, n) matrices a head keeps when every intermediate is returned: raw, scaled, capped, masked scores, weights.
  const double full_bytes = SpeedLab::IntermediateBytes(n);
  if (fused) {
    Prose("Fused: each head tiles the keys and keeps a running max and sum (online softmax), so no "
                       "n×n matrix exists. Returning every intermediate would take %s.",
                       Bytes(full_bytes).c_str());
  } else {
    Prose("Every intermediate is built, as the other views need: %s of n×n matrices.",
                       Bytes(full_bytes).c_str());
  }
  DrawBuildAndTiling(ctx, kernel);
  ctx.published.Scalar("speed.us", us);
  ctx.published.Scalar("speed.us_min", live.Min());
  ctx.published.Scalar("speed.us_max", live.Max());
  ctx.published.Scalar("speed.batches", static_cast<int>(live.us.size()));
  ctx.published.Scalar("speed.in_worker", timing_.live_in_worker() ? 1 : 0);
  char summary[128];
  std::snprintf(summary, sizeof(summary), "Speed: n = %d, %.4g µs per forward, %.3g GFLOP/s", n, us, gflops);
  ctx.summary = summary;
  ctx.published.Scalar("speed.gflops", gflops);
  ctx.published.Scalar("speed.n", n);
  ctx.published.Scalar("speed.fused", fused ? 1 : 0);
  ctx.published.Scalar("speed.kernel", static_cast<int>(kernel));
  ctx.published.Matrix("speed.output", timing_.live_output());
}

// Which WebAssembly build runs and why (the page script's choice), and how the kernel is tiled on this
// CPU and, in the relaxed build, which form of the multiply-add it runs (attn/kernel_choice.h): said
// once the engine has chosen, never chosen here (the probe times).
void SpeedPanel::DrawBuildAndTiling(PanelContext& ctx, attn::KernelId kernel) {
  const std::string reason = attnlab::platform::WasmBuildReason();
  if (!reason.empty()) {
    DrawNote("WebAssembly build: %s.", reason.c_str());
    ctx.published.Rect("speed.build_reason", LastItemRect());
  }
  if (SpeedLab::Fused(kernel) && attn::KernelChoiceMade(kernel)) {
    const attn::KernelChoice choice = attn::ChosenKernelSettings(kernel);
    DrawNote("Kernel settings on this CPU, %s.", attn::DescribeKernelChoice(choice).c_str());
    ctx.published.Rect("speed.kernel_choice", LastItemRect());
    ctx.published.Scalar("speed.choice.gemm_rows", choice.gemm_rows);
    ctx.published.Scalar("speed.choice.attention_keys", choice.attention_keys);
    ctx.published.Scalar("speed.choice.fused_multiply_add", choice.fused_multiply_add ? 1 : 0);
    ctx.published.Scalar("speed.choice.gemm_fused_multiply_add", choice.gemm_fused_multiply_add ? 1 : 0);
  }
}

void SpeedPanel::DrawHeadsRecompute(PanelContext& ctx) {
  const lessons::TimingSamples& heads_ms = timing_.heads_ms();
  if (heads_ms.empty()) return;
  const double ms = heads_ms.Median();
  ImGui::SeparatorText("The views' own computation");
  Prose("Recomputing view 5 (%d words, %d heads): %.3f ms, engine only", SpeedJob::kHeadsTokens, SpeedJob::kHeadsCount, ms);
  ctx.published.Rect("speed.heads_recompute", LastItemRect());
  DrawNote("median of %d batches of ≥ 10 ms on %s, every intermediate kept for drawing", static_cast<int>(heads_ms.us.size()),
           attn::KernelBuildName(lessons::ViewKernel()));
  ctx.published.Scalar("speed.heads_recompute_ms", ms);
  ctx.published.Scalar("speed.heads_recompute_runs", timing_.heads_runs());
  ctx.published.Scalar("speed.heads_recompute_batches", static_cast<int>(heads_ms.us.size()));
  ctx.published.Scalar("speed.heads_recompute_kernel", static_cast<int>(lessons::ViewKernel()));
}

void SpeedPanel::DrawSweep(PanelContext& ctx) {
  const lessons::SpeedSweep& sweep = timing_.sweep();
  if (sweep.empty()) return;
  ImGui::SeparatorText(timing_.sweep_batches().done() ? "Sweep: GFLOP/s and time per forward" : "Sweep: measuring…");
  // A phone has no room for three kernels' cells on one line each: each cell takes three lines there.
  const bool narrow = ImGui::GetContentRegionAvail().x < 600.0f;
  DrawNote("Each cell: GFLOP/s, the median time per forward of %d batches, and their range.", SpeedJob::kSweepBatches);
  const std::vector<attn::KernelId> kernels = attn::AvailableKernels();
  if (ImGui::BeginTable("speed.sweep", 1 + static_cast<int>(kernels.size()),
                        ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("n");
    for (attn::KernelId id : kernels) ImGui::TableSetupColumn(narrow ? attn::KernelBuildName(id) : KernelLabel(id));
    ImGui::TableHeadersRow();
    for (int k = SpeedJob::kSweepLo; k <= SpeedJob::kSweepHi; ++k) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%d", 1 << k);
      for (attn::KernelId id : kernels) {
        ImGui::TableNextColumn();
        const auto it = sweep.find({static_cast<int>(id), k});
        if (it == sweep.end()) {
          ImGui::TextDisabled(k > SpeedLab::MaxLog2N(id) ? "—" : "…");
          continue;
        }
        const lessons::TimingSamples& t = it->second.samples;
        if (narrow) {  // in ms from 10 ms on, so the column stays narrow
          const bool ms = it->second.us >= 1e4;
          const double unit = ms ? 1e-3 : 1.0;
          ImGui::Text("%.2f", it->second.gflops);
          ImGui::Text("%.0f %s", it->second.us * unit, ms ? "ms" : "µs");
          ImGui::TextDisabled("%.0f–%.0f", t.Min() * unit, t.Max() * unit);
        } else {
          ImGui::Text("%.2f (%.0f µs, %.0f–%.0f)", it->second.gflops, it->second.us, t.Min(), t.Max());
        }
        ctx.published.Scalar("speed.sweep." + std::string(attn::KernelName(id)) + "." + std::to_string(1 << k),
                             it->second.gflops);
      }
    }
    ImGui::EndTable();
  }
  std::vector<const lessons::TimingSamples*> points;
  std::vector<std::string> labels;
  for (const auto& [point, timing] : sweep) {
    points.push_back(&timing.samples);
    labels.push_back(std::string(KernelLabel(static_cast<attn::KernelId>(point.first))) + " at n = " + std::to_string(1 << point.second));
  }
  const std::string spread = lessons::DescribeTimingSpread(points, labels, "Sweep every kernel");
  if (!spread.empty()) DrawNote("%s", spread.c_str());
  DrawSweepPlot(ctx);
}

void SpeedPanel::DrawSweepPlot(PanelContext& ctx) {
  const lessons::SpeedCurves& curves = timing_.curves();
  if (curves.us.empty()) return;
  ImGui::SeparatorText("Time against n (log-log)");
  Prose("The slope becomes n² once the scores dominate.");
  std::vector<PlotSeries> series;
  const std::vector<attn::KernelId> kernels = attn::AvailableKernels();
  for (size_t k = 0; k < kernels.size() && k < curves.us.size(); ++k)
    series.push_back({attn::KernelName(kernels[k]), KernelLabel(kernels[k]), &curves.us[k], HeadColor(static_cast<int>(k)), 2.0f,
                      false, -1, true});
  if (curves.n_squared.size()) series.push_back({"n2", "∝ n², through the largest n timed", &curves.n_squared,
                                                  CurrentTheme().plot_marker, 1.0f});
  PlotOptions o;
  o.x = &curves.log2_n;
  o.x_powers_of_two = true;
  o.x_step = 1.0;
  o.log_y = true;
  o.round_axes = true;
  o.height = 240.0f;
  o.max_width = 620.0f;
  o.x_label = "n (words)";
  o.y_label = "µs per forward";
  o.describe = [&](int i) {
    ImGui::Text("n = %d", 1 << static_cast<int>(curves.log2_n(i, 0)));
    for (size_t k = 0; k < kernels.size() && k < curves.us.size(); ++k)
      if (std::isfinite(curves.us[k](i, 0))) ImGui::Text("%s: %.4g µs", KernelLabel(kernels[k]), curves.us[k](i, 0));
  };
  DrawPlot("speed.curve", series, o, ctx.published);
}

void SpeedPanel::Draw(PanelContext& ctx) {
  DrawExplanation(ctx,
      "How fast is attention here? One multi-head layer (256 numbers per word, 4 heads, the projections Wq, Wk, "
      "Wv, Wᵒ) is timed in your browser, on n words. It costs 2·n·d²·4 + 4·n²·d operations (a multiply and an "
      "add count as two): the projections grow with n, the scores and the weighted sums with n², so long "
      "sequences are dominated by the n² part. The fused SIMD kernel works on 4 numbers per instruction and "
      "walks the keys in tiles, keeping only a running maximum and sum per word, so the n×n weights never "
      "exist in memory. The other two kernels build every intermediate, as the other views need them to draw.",
      "drag n up (each setting is timed in 3 batches, or 1 when a forward takes over 0.3 s; tick live to keep timing) and watch GFLOP/s, billions of "
      "operations per second, climb; switch to the Eigen library or the plain loops; press Sweep to fill "
      "the table for every kernel.");
  const lessons::SpeedState& s = ctx.state.speed;
  const attn::KernelId kernel = s.kernel >= 0 && attn::KernelAvailable(static_cast<attn::KernelId>(s.kernel))
                                    ? static_cast<attn::KernelId>(s.kernel)
                                    : attn::FastestKernel();
  DrawControls(ctx, kernel);
  DrawLive(ctx, kernel, 1 << std::min(s.log2_n, SpeedLab::MaxLog2N(kernel)));
  DrawHeadsRecompute(ctx);
  DrawSweep(ctx);
}

}  // namespace attnlab
