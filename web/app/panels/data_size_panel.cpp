// View 8. What the reader sees: the task in one line, Run / Pause, a progress bar naming the run,
// held-out accuracy against the number of training sequences (log axis) for the transformer and the
// CNN with their spread over seeds, a table of the numbers and one sentence of what they show.
#include "panels/data_size_panel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "imgui.h"
#include "offload.h"
#include "theme.h"
#include "widgets/field_widgets.h"
#include "widgets/flow_layout.h"
#include "widgets/plot.h"
#include "widgets/prose.h"

namespace attnlab {
namespace {

using attn::train::ModelKind;

}  // namespace

void DataSizePanel::Draw(PanelContext& ctx) {
  DrawExplanation(ctx,
      "Self-attention can compute anything a convolution can (view 7), so why use convolutions at all? Because "
      "freedom costs data. Both models here learn the same task from N training sequences and are scored on "
      "sequences they never saw. The task: a sign, + or -, then 15 digits 0–5; at each position answer the "
      "previous digit plus this one (after +) or minus it (after -), mod 6. The rule is local and the same at "
      "every position, which is exactly what a CNN assumes (its inductive bias): one small filter, shared by all positions, learns it "
      "from a handful of sequences. But the sign is far away, beyond the CNN's window of 5 positions, so it can "
      "only guess where the sign matters. The transformer (learned positions, so it knows nothing of "
      "neighbourhoods) can look back at the sign, but must first learn where to look, and that takes data: it is "
      "the more flexible model, and flexibility is paid for in examples.",
      "press Run and watch the two curves cross; add seeds to see how much a single run can vary.");
  // The app stepped the job before this frame's views: the progress bar and the summary below it are
  // drawn from the runner as it now is, and never disagree within a frame.
  DrawControls(ctx);
  DrawStatusLine(job_.error());
  if (started_) DrawCurves(ctx);
}

void DataSizePanel::DrawControls(PanelContext& ctx) {
  lessons::DataSizeState& s = ctx.state.data_size;
  const float w = std::min(200.0f, ImGui::GetContentRegionAvail().x * 0.55f);
  ImGui::SetNextItemWidth(w);
  char label[32];
  std::snprintf(label, sizeof(label), "%d", 1 << s.largest);
  SliderField(s.kLargest, &s.largest, s.kLargest.max, label);
  SameLineIfFits(w + 110.0f);
  ImGui::SetNextItemWidth(w);
  SliderField(s.kSeeds, &s.seeds);
  SameLineIfFits(w + 110.0f);
  ImGui::SetNextItemWidth(w);
  SliderField(s.kSteps, &s.steps);

  const std::string settings = lessons::FieldsKey(s);
  if (settings != settings_) {
    settings_ = settings;
    ++EngineRuns();
    job_.Reset(s);
    job_.SetRunning(restart_);
    started_ = restart_;  // "Run again" starts the new run at once; new settings wait for Run
    restart_ = false;
    finished_runs_ = -1;
  }
  const attn::train::DataSizeRunner& runner = job_.runner();
  const bool done = runner.done();
  const bool running = job_.running();
  if (ImGui::Button(running ? "Pause" : done && started_ ? "Run again" : started_ ? "Go on" : "Run")) {
    if (done && started_) {
      settings_.clear();  // the next frame starts over from seed 1
      restart_ = true;
    } else {
      job_.SetRunning(!running);
      started_ = true;
    }
  }
  ctx.published.Rect("datasize.run", LastItemRect());
  ImGui::SameLine();
  const attn::train::DataSizeRun& run = runner.current();
  const int elsewhere = job_.runs_elsewhere();
  char progress[128];
  if (!started_) {
    std::snprintf(progress, sizeof(progress), "%zu sizes × %d seeds × 2 models", runner.config().sizes.size(), s.seeds);
  } else if (done) {
    std::snprintf(progress, sizeof(progress), "done");
  } else if (elsewhere > 0) {
    // The runs are whole in the workers: the bar moves as they come back.
    std::snprintf(progress, sizeof(progress), "%d of %d runs done, %d running in %s", runner.runs_done(), runner.runs(),
                  elsewhere, elsewhere == 1 ? "a Web Worker" : "Web Workers");
  } else {
    std::snprintf(progress, sizeof(progress), "%s, N = %d, seed %d: step %d of %d",
                  run.model == ModelKind::kCnn ? "CNN" : "transformer", run.size, run.seed, run.step, s.steps);
  }
  ImGui::ProgressBar(runner.progress(), ImVec2(std::min(420.0f, ImGui::GetContentRegionAvail().x), 0), progress);
  ctx.published.Scalar("datasize.progress", runner.progress());
  ctx.published.Scalar("datasize.running", running ? 1 : 0);
  ctx.published.Scalar("datasize.in_workers", elsewhere);
  if (!offload::Failure().empty() && started_)
    DrawNote("%s: the runs go on on the page's thread, a slice per frame.", offload::Failure().c_str());
  DrawNote("transformer: 1 block of 2 heads, d = 24, learned positions, %lld parameters · CNN: 2 causal convolutions of "
           "3 taps, 36 channels, %lld parameters · both: %d Adam steps of 16 sequences at every N, scored on 256 new "
           "sequences",
           static_cast<long long>(runner.parameters(ModelKind::kTransformer)),
           static_cast<long long>(runner.parameters(ModelKind::kCnn)), s.steps);
}

void DataSizePanel::DrawCurves(PanelContext& ctx) {
  const attn::train::DataSizeRunner& runner = job_.runner();
  const int finished = runner.runs_done();
  if (finished != finished_runs_) {
    finished_runs_ = finished;
    curves_ = lessons::CurvesOfPoints(runner);
    description_ = lessons::DescribeDataSize(runner);
  }
  ImGui::SeparatorText("Held-out accuracy against N");
  const ImU32 transformer = HeadColor(1), cnn = HeadColor(0);
  PlotOptions o;
  o.x = &curves_.log2_n;
  o.x_powers_of_two = true;
  o.x_step = 2.0;
  o.round_axes = true;
  o.height = 260.0f;
  o.max_width = 640.0f;
  o.x_label = "training sequences N (log scale)";
  o.y_label = "held-out accuracy";
  o.describe = [&](int i) {
    ImGui::Text("N = %d", 1 << static_cast<int>(curves_.log2_n(i, 0)));
    const auto line = [](const char* name, const attn::train::DataSizePoint& p) {
      if (p.accuracy.empty()) return ImGui::TextDisabled("%s: not yet", name);
      ImGui::Text("%s: %.3f (seeds: %.3f … %.3f)", name, p.mean, p.min, p.max);
    };
    line("transformer", runner.point(ModelKind::kTransformer, i));
    line("CNN", runner.point(ModelKind::kCnn, i));
  };
  DrawPlot("datasize.curve",
           {{"transformer", "transformer (mean of the seeds)", &curves_.transformer_mean, transformer, 2.5f, false, -1, true},
            {"transformer_min", "lowest and highest seed", &curves_.transformer_min, transformer, 1.0f},
            {"transformer_max", "", &curves_.transformer_max, transformer, 1.0f},
            {"cnn", "CNN (mean of the seeds)", &curves_.cnn_mean, cnn, 2.5f, false, -1, true},
            {"cnn_min", "lowest and highest seed", &curves_.cnn_min, cnn, 1.0f},
            {"cnn_max", "", &curves_.cnn_max, cnn, 1.0f}},
           o, ctx.published);
  if (!description_.empty()) {
    Prose("%s", description_.c_str());
    ctx.summary = "Data size: " + description_;
  }
  // The numbers behind the curves.
  if (ImGui::BeginTable("datasize.table", 3, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("N");
    ImGui::TableSetupColumn("transformer: mean [lowest, highest]");
    ImGui::TableSetupColumn("CNN: mean [lowest, highest]");
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < runner.config().sizes.size(); ++i) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%d", runner.config().sizes[i]);
      for (ModelKind kind : {ModelKind::kTransformer, ModelKind::kCnn}) {
        ImGui::TableNextColumn();
        const attn::train::DataSizePoint& p = runner.point(kind, static_cast<int>(i));
        if (p.accuracy.empty()) {
          ImGui::TextDisabled("…");
        } else {
          ImGui::Text("%.3f [%.3f, %.3f]", p.mean, p.min, p.max);
          ctx.published.Scalar(std::string("datasize.") + (kind == ModelKind::kCnn ? "cnn." : "transformer.") +
                                   std::to_string(runner.config().sizes[i]),
                               p.mean);
        }
      }
    }
    ImGui::EndTable();
  }
  ctx.published.Scalar("datasize.crossover", attn::train::Crossover(runner.points()));
}

}  // namespace attnlab
