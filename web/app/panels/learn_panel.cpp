// View 11. What the reader sees: a task's "what to watch for", Train / Pause / Step / Reset, the loss
// and accuracy curves, every head's weights on one probe sequence (a slider goes back through the
// snapshots to initialisation), and one measured line per head. The numbers are attn::train's.
#include "panels/learn_panel.h"

#include <algorithm>
#include <cstdio>

#include "imgui.h"
#include "offload.h"
#include "theme.h"
#include "widgets/field_widgets.h"
#include "widgets/flow_layout.h"
#include "widgets/matrix_view.h"
#include "widgets/plot.h"
#include "widgets/prose.h"

namespace attnlab {
namespace {

const char* const kTaskLabels[] = {"previous letter", "copy", "reverse", "sort", "recall (key → value)",
                                   "plus/minus (sign, then digits)"};
const char* const kPositionLabels[] = {"no positions", "learned positions", "sinusoidal positions", "RoPE"};
const char* const kOptimizerLabels[] = {"Adam", "SGD (momentum 0.9)"};
constexpr int kCurveBins = 200;

}  // namespace

void LearnPanel::Draw(PanelContext& ctx) {
  DrawExplanation(ctx,
      "Elsewhere the projections Wq, Wk, Wv are seeded at random or, in views 3 and 5, come from a tagger trained "
      "offline (views 1, 2 and 6 have none). Here a small transformer (32 numbers per "
      "token, 1–3 layers of 1–4 heads, attention only unless you add a feed-forward layer) learns them by "
      "gradient descent on a toy task, "
      "in your browser: each step shows it 32 new sequences, measures the cross-entropy of its answers and "
      "moves every weight a little against its gradient (Adam). The maps are each head's weights on one fixed "
      "sequence, from initialisation to now; the line under each head says what it does, measured on 16 other "
      "sequences.",
      "press Train and watch the maps change; drag the step slider back to see how they started; switch the "
      "task, or take positions away from the previous-letter task and see how far causal attention gets "
      "without them.");
  DrawControls(ctx);
  DrawStatusLine(job_.error());
  if (job_.lab().snapshots().empty()) return;
  DrawCurves(ctx);
  DrawHeads(ctx);
}

void LearnPanel::DrawControls(PanelContext& ctx) {
  lessons::LearnState& s = ctx.state.learn;
  ChoiceCombo("task", kTaskLabels, s.kTask.count, &s.task);
  SameLineIfFits(230.0f);
  ChoiceCombo("##positions", kPositionLabels, s.kPositions.count, &s.positions);
  const float w = std::min(160.0f, ImGui::GetContentRegionAvail().x * 0.5f);
  ImGui::SetNextItemWidth(w);
  SliderField(s.kLayers, &s.layers);
  SameLineIfFits(w + 60.0f);
  ImGui::SetNextItemWidth(w);
  SliderField(s.kHeads, &s.heads);
  SameLineIfFits(230.0f);
  ChoiceCombo("##optimizer", kOptimizerLabels, s.kOptimizer.count, &s.optimizer);
  SameLineIfFits(260.0f);
  CheckboxField(s.kMlp, &s.mlp);
  ImGui::SetNextItemWidth(w);
  SliderField(s.kLearningRate, &s.learning_rate);
  SameLineIfFits(150.0f);
  ImGui::SetNextItemWidth(110.0f);
  StepperField(s.kSeed, &s.seed);

  const lessons::LearnLab& lab = job_.lab();
  const std::string settings = lessons::LearnSettingsKey(s);
  if (settings != settings_ || lab.steps() > s.steps) {  // new settings, or a link asks for an earlier step
    settings_ = settings;
    ++EngineRuns();
    job_.Reset(s);
    snapshot_ = -1;
    curves_step_ = -1;
  }
  // Not pressed Train: the job trains up to the state's step (a link being replayed, or Step).
  if (!job_.continuous()) job_.TrainTo(s.steps, false);

  const bool training = job_.running();
  if (ImGui::Button(training ? "Pause" : "Train")) {
    if (training) {
      s.steps = lab.steps();  // stop where it is (a link made now reruns to here)
      job_.TrainTo(s.steps, false);
    } else {
      job_.TrainTo(s.kSteps.max, true);  // on and on, up to the last step a link can name
    }
  }
  ctx.published.Rect("learn.train", LastItemRect());
  ImGui::SameLine();
  if (ImGui::Button("Step")) {
    s.steps = lab.steps() + 1;
    job_.TrainTo(s.steps, false);
  }
  ImGui::SameLine();
  if (ImGui::Button("Reset")) {
    s.steps = 0;
    job_.TrainTo(0, false);
    settings_.clear();  // the next frame starts over from the seed
  }
  SameLineIfFits(260.0f);
  ImGui::Text("step %d", lab.steps());
  if (lab.steps_per_second() > 0) {
    ImGui::SameLine();
    ImGui::TextDisabled("· %.0f steps/s%s", lab.steps_per_second(), job_.in_worker() ? " in a Web Worker" : "");
  }
  ctx.published.Scalar("learn.in_worker", job_.in_worker() ? 1 : 0);
  if (!offload::Failure().empty() && lab.steps() > 0)
    DrawNote("%s: training goes on on the page's thread, a slice per frame.", offload::Failure().c_str());
  ctx.published.Scalar("learn.running", training ? 1 : 0);
  DrawNote("What to watch for: %s", lessons::LearnWhatToWatch(static_cast<attn::train::TaskKind>(s.task)));
}

void LearnPanel::DrawCurves(PanelContext& ctx) {
  const lessons::LearnLab& lab = job_.lab();
  const auto& snaps = lab.snapshots();
  if (curves_step_ != lab.steps()) {
    curves_step_ = lab.steps();
    curves_ = lab.Curves(kCurveBins);
    curve_steps_ = curves_.col(0);
    curve_loss_ = curves_.col(1);
    curve_accuracy_ = curves_.col(2);
    // Held-out accuracy as a step line on the same x: at each point, the last snapshot's.
    held_out_accuracy_.resize(curves_.rows(), 1);
    size_t k = 0;
    for (Eigen::Index i = 0; i < curves_.rows(); ++i) {
      while (k + 1 < snaps.size() && snaps[k + 1].step <= curve_steps_(i, 0)) ++k;
      held_out_accuracy_(i, 0) = snaps[k].held_out_accuracy;
    }
  }
  ctx.published.Scalar("learn.steps", lab.steps());
  ctx.published.Scalar("learn.held_out", snaps.back().held_out_accuracy);
  ctx.published.Scalar("learn.loss", lab.last_loss());
  ctx.published.Scalar("learn.steps_per_second", lab.steps_per_second());
  if (ctx.state.learn.positions == 0 && snaps.back().step > 0)  // "none": what causal attention alone reaches
    DrawNote("Positions are off: held-out accuracy is %.3f at step %d, with nothing but causal attention to tell "
             "the positions apart (a token sees only the tokens before it, and how many there are).",
             snaps.back().held_out_accuracy, snaps.back().step);
  if (curves_.rows() < 2) return;
  const float width = std::min(620.0f, ImGui::GetContentRegionAvail().x);
  const auto step_axis = [&] {  // both plots: the steps along x, axes ending on round values
    PlotOptions o;
    o.x = &curve_steps_;
    o.round_axes = true;
    o.height = 170.0f;
    o.max_width = width;
    o.x_label = "step";
    return o;
  };
  DrawSideBySide(
      "learn.curves",
      [&] {
        ImGui::SeparatorText("Loss: cross-entropy of each batch");
        PlotOptions o = step_axis();
        o.describe = [&](int i) { ImGui::Text("up to step %.0f: loss %.4g", curve_steps_(i, 0), curve_loss_(i, 0)); };
        DrawPlot("learn.loss", {{"loss", "loss (mean over the steps of each point)", &curve_loss_, CurrentTheme().plot_marker, 2.0f}},
                 o, ctx.published);
      },
      [&] {
        ImGui::SeparatorText("Accuracy: training batches and held-out sequences");
        PlotOptions o = step_axis();
        o.describe = [&](int i) {
          ImGui::Text("up to step %.0f: batches %.3f, held-out %.3f", curve_steps_(i, 0), curve_accuracy_(i, 0),
                      held_out_accuracy_(i, 0));
        };
        DrawPlot("learn.accuracy",
                 {{"batches", "training batches", &curve_accuracy_, HeadColor(0), 1.5f},
                  {"held_out", "held-out (128 new sequences)", &held_out_accuracy_, HeadColor(1), 2.5f}},
                 o, ctx.published);
      });
}

void LearnPanel::DrawHeads(PanelContext& ctx) {
  const lessons::LearnLab& lab = job_.lab();
  const auto& snaps = lab.snapshots();
  const int last = static_cast<int>(snaps.size()) - 1;
  if (snapshot_ > last) snapshot_ = -1;
  int shown = snapshot_ < 0 ? last : snapshot_;
  ImGui::SeparatorText("Each head's weights on one sequence (row: the query, column: the key it looks at)");
  char label[64];
  std::snprintf(label, sizeof(label), shown == last ? "step %d (latest)" : "step %d", snaps[shown].step);
  ImGui::SetNextItemWidth(std::min(320.0f, ImGui::GetContentRegionAvail().x - 80.0f));
  if (ImGui::SliderInt("snapshot", &shown, 0, last, label)) snapshot_ = shown == last ? -1 : shown;
  const lessons::LearnSnapshot& snap = snaps[shown];
  ctx.published.Scalar("learn.snapshot_step", snap.step);

  // The model's answers where the task asks for one: right ones as they are, wrong ones with the truth.
  std::string answers;
  int right = 0, asked = 0;
  for (size_t t = 0; t < lab.probe().size(); ++t) {
    if (lab.probe_scored()[t] <= 0) continue;
    const bool ok = snap.predictions[t] == lab.probe_targets()[t];
    right += ok, ++asked;
    answers += attn::train::ClassText(lab.task(), snap.predictions[t]);
    if (!ok) answers += " (not " + attn::train::ClassText(lab.task(), lab.probe_targets()[t]) + ")";
    answers += "  ";
  }
  Prose("Its answers at step %d: %s— %d of %d right", snap.step, answers.c_str(), right, asked);
  ctx.published.Scalar("learn.probe_right", right);

  const int heads = static_cast<int>(snap.weights[0].size());
  const float size = ImGui::GetContentRegionAvail().x < 500.0f ? 170.0f : 240.0f;
  for (size_t l = 0; l < snap.weights.size(); ++l) {
    for (int h = 0; h < heads; ++h) {
      const int k = static_cast<int>(l) * heads + h;
      if (k > 0) SameLineIfFits(size + 20.0f);
      ImGui::BeginGroup();
      const std::string name = "learn.W" + std::to_string(l + 1) + "." + std::to_string(h + 1);
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(HeadColor(k)));
      ImGui::Text("head %d.%d (layer %d)", static_cast<int>(l) + 1, h + 1, static_cast<int>(l) + 1);
      ImGui::PopStyleColor();
      const attn::Matrix& w = snap.weights[l][h];
      MatrixViewOptions o = TokenGridOptions("weight", WeightsStyle(w), MatrixLabels{&lab.probe_text(), nullptr});
      o.max_width = size;
      o.legend = k == 0;
      DrawMatrix(name, w, resets_ * 1000000 + snap.step + 1, o, ctx.published);
      ImGui::EndGroup();
    }
    // What the engine computed these maps from, for the tests to recompute them: the layer's input
    // and its attention parameters at this snapshot.
    const std::string layer = "learn.L" + std::to_string(l + 1) + ".";
    const attn::AttentionParameters& p = snap.attention[l];
    ctx.published.Matrix(layer + "input", snap.inputs[l]);
    for (const auto& [key, m] : {std::pair{"wq", &p.wq}, {"wk", &p.wk}, {"wv", &p.wv}, {"wo", &p.wo}, {"bq", &p.bq},
                                 {"bk", &p.bk}, {"bv", &p.bv}, {"bo", &p.bo}})
      ctx.published.Matrix(layer + key, *m);
  }
  ImGui::Spacing();
  for (const auto& role : snap.roles) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(HeadColor((role.layer - 1) * heads + role.head - 1)));
    ImGui::Bullet();
    ImGui::PopStyleColor();
    ImGui::SameLine();
    Prose("%s", role.text.c_str());
  }
  DrawNote("Measured on %d held-out sequences: the mean share of each head's weight on each kind of key.",
           lessons::LearnLab::kRoleSequences);
  if (!snap.roles.empty()) ctx.summary = "Learn, step " + std::to_string(snap.step) + ": " + snap.roles[0].text;
}

}  // namespace attnlab
