// View 11. What the reader sees: a task's "what to watch for", Train / Pause / Step / Reset, run B
// beside run A (one setting changed), the loss and accuracy curves with the phase change marked,
// every head's weights on one probe sequence (a slider goes back through the snapshots to
// initialisation), and one measured line per head; the microscope below them is
// learn_microscope_panel.cpp's. The numbers are attn::train's.
#include "panels/learn_panel.h"

#include <algorithm>
#include <cmath>
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
const char* const kNormalizerLabels[] = {"softmax", "sparsemax"};
const char* const kCompareLabels[] = {"no run B", "run B: the other scaling", "run B: the other normaliser",
                                      "run B: other positions", "run B: other layers", "run B: another seed"};
const char* const kRunNames[] = {"run A", "run B"};
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
      "without them; pick a run B (one setting changed) to train beside it; below the maps, read a head's "
      "circuits off its weights.");
  DrawControls(ctx);
  DrawStatusLine(job_.a().error());
  if (compared() && !job_.b().error().empty()) DrawStatusLine("run B: " + job_.b().error());
  if (job_.a().lab().snapshots().empty()) return;
  Refresh();
  DrawCurves(ctx);
  DrawScores(ctx);
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
  SameLineIfFits(200.0f);
  CheckboxField(s.kScaled, &s.scaled);
  SameLineIfFits(160.0f);
  ChoiceCombo("##normalizer", kNormalizerLabels, s.kNormalizer.count, &s.normalizer);
  DrawCompareControls(ctx);

  // Run A restarts when its settings change (or a link asks for an earlier step); run B when its
  // own do — A's settings, or which change B makes. Comparing does not restart A.
  const std::string settings = lessons::LearnSettingsKey(s);
  const std::string settings_b = s.compare ? lessons::LearnSettingsKey(lessons::RunBState(s)) : "";
  if (settings != settings_ || job_.a().lab().steps() > s.steps) {
    settings_ = settings;
    ++EngineRuns();
    job_.a().Reset(s);
    snapshot_ = -1;
    settings_b_.clear();
    ++resets_;
  }
  if (settings_b != settings_b_) {
    settings_b_ = settings_b;
    if (!settings_b.empty()) {
      ++EngineRuns();
      job_.b().Reset(lessons::RunBState(s));
      ++resets_;
    }
  }
  job_.SetCompared(s.compare != 0);

  // Not pressed Train: both runs train up to the state's step (a link being replayed, or Step). Run B
  // follows run A: on and on while A trains on.
  lessons::LearnJob& a = job_.a();
  lessons::LearnJob& b = job_.b();
  if (a.continuous()) {
    if (!b.continuous()) b.TrainTo(s.kSteps.max, true);
  } else {
    a.TrainTo(s.steps, false);
    b.TrainTo(s.steps, false);
  }

  const bool training = a.running() || (compared() && b.running());
  if (ImGui::Button(training ? "Pause" : "Train")) {
    if (training) {
      s.steps = a.lab().steps();  // stop where it is (a link made now reruns to here)
      a.TrainTo(s.steps, false);
      b.TrainTo(s.steps, false);
    } else {
      a.TrainTo(s.kSteps.max, true);  // on and on, up to the last step a link can name
      b.TrainTo(s.kSteps.max, true);
    }
  }
  ctx.published.Rect("learn.train", LastItemRect());
  ImGui::SameLine();
  if (ImGui::Button("Step")) {
    s.steps = a.lab().steps() + 1;
    a.TrainTo(s.steps, false);
    b.TrainTo(s.steps, false);
  }
  ImGui::SameLine();
  if (ImGui::Button("Reset")) {
    s.steps = 0;
    a.TrainTo(0, false);
    b.TrainTo(0, false);
    settings_.clear();  // the next frame starts over from the seed
  }
  SameLineIfFits(260.0f);
  if (compared())
    ImGui::Text("step %d (run B: %d)", a.lab().steps(), b.lab().steps());
  else
    ImGui::Text("step %d", a.lab().steps());
  if (a.lab().steps_per_second() > 0) {
    ImGui::SameLine();
    ImGui::TextDisabled("· %.0f steps/s%s", a.lab().steps_per_second(), a.in_worker() ? " in a Web Worker" : "");
  }
  ctx.published.Scalar("learn.in_worker", a.in_worker() ? 1 : 0);
  if (!offload::Failure().empty() && a.lab().steps() > 0)
    DrawNote("%s: training goes on on the page's thread, a slice per frame.", offload::Failure().c_str());
  ctx.published.Scalar("learn.running", training ? 1 : 0);
  DrawNote("What to watch for: %s", lessons::LearnWhatToWatch(static_cast<attn::train::TaskKind>(s.task)));
}

void LearnPanel::DrawCompareControls(PanelContext& ctx) {
  lessons::LearnState& s = ctx.state.learn;
  const int before = s.compare;
  ImGui::SetNextItemWidth(std::min(250.0f, ImGui::GetContentRegionAvail().x));
  ChoiceCombo("##compare", kCompareLabels, s.kCompare.count, &s.compare);
  ctx.published.Rect("learn.compare", LastItemRect());
  if (s.compare != before) s.compare_value = lessons::DefaultCompareValue(s, s.compare);
  if (s.compare == 3) {  // B's positions: any but A's
    SameLineIfFits(230.0f);
    int b = lessons::RunBState(s).positions;
    if (ChoiceCombo("##b_positions", kPositionLabels, s.kPositions.count, &b)) s.compare_value = b;
  } else if (s.compare == 4) {
    SameLineIfFits(200.0f);
    int b = lessons::RunBState(s).layers;
    ImGui::SetNextItemWidth(120.0f);
    if (ImGui::SliderInt("run B's layers", &b, s.kLayers.min, s.kLayers.max)) s.compare_value = b;
  } else if (s.compare == 5) {
    SameLineIfFits(200.0f);
    int b = lessons::RunBState(s).seed;
    ImGui::SetNextItemWidth(110.0f);
    if (ImGui::InputInt("run B's seed", &b)) s.compare_value = s.kSeed.Clamp(b);
  }
  if (s.compare) {
    SameLineIfFits(300.0f);
    ImGui::TextDisabled("B: %s", lessons::RunBChange(s).c_str());
  }
}

void LearnPanel::Refresh() {
  const lessons::LearnLab& a = job_.a().lab();
  const lessons::LearnLab* b = compared() && !job_.b().lab().snapshots().empty() ? &job_.b().lab() : nullptr;
  // Once per change: a step of either run, a snapshot thinned away, or a run started over.
  const int steps_b = b ? b->steps() : -1;
  if (curves_steps_ == a.steps() && curves_steps_b_ == steps_b && curves_resets_ == resets_ &&
      score_steps_.cols() == static_cast<Eigen::Index>(a.snapshots().size()))
    return;
  curves_steps_ = a.steps(), curves_steps_b_ = steps_b, curves_resets_ = resets_;
  curves_ = lessons::MakeLearnCurves(a, b, kCurveBins);
  phase_[0] = lessons::FindPhaseChange(a.snapshots());
  phase_[1] = b ? lessons::FindPhaseChange(b->snapshots()) : lessons::PhaseChange();
  score_steps_ = lessons::SnapshotSteps(a.snapshots());
  prefix_ = lessons::ScoreCurves(a.snapshots(), lessons::HeadScore::kPrefixMatching);
  copying_ = lessons::ScoreCurves(a.snapshots(), lessons::HeadScore::kCopying);
  labels_ = lessons::LearnCircuitLabels(a.task(), a.trainer().model());
}

void LearnPanel::DrawCurves(PanelContext& ctx) {
  const lessons::LearnLab& lab = job_.a().lab();
  const auto& snaps = lab.snapshots();
  const bool two = curves_.loss[1].size() > 0;  // run B is drawn
  ctx.published.Scalar("learn.steps", lab.steps());
  ctx.published.Scalar("learn.held_out", snaps.back().held_out_accuracy);
  ctx.published.Scalar("learn.held_out_loss", snaps.back().held_out_loss);
  ctx.published.Scalar("learn.loss", lab.last_loss());
  ctx.published.Scalar("learn.steps_per_second", lab.steps_per_second());
  ctx.published.Scalar("learn.phase_change_step", phase_[0].step);
  ctx.published.Matrix("learn.curve_steps", curves_.steps);
  if (two) {
    const lessons::LearnLab& b = job_.b().lab();
    ctx.published.Scalar("learn.b.steps", b.steps());
    ctx.published.Scalar("learn.b.held_out", b.snapshots().back().held_out_accuracy);
    ctx.published.Scalar("learn.b.held_out_loss", b.snapshots().back().held_out_loss);
    ctx.published.Scalar("learn.b.phase_change_step", phase_[1].step);
  }
  if (ctx.state.learn.positions == 0 && snaps.back().step > 0)  // "none": what causal attention alone reaches
    DrawNote("Positions are off: held-out accuracy is %.3f at step %d, with nothing but causal attention to tell "
             "the positions apart (a token sees only the tokens before it, and how many there are).",
             snaps.back().held_out_accuracy, snaps.back().step);
  if (curves_.steps.rows() < 2) return;
  const float width = std::min(620.0f, ImGui::GetContentRegionAvail().x);
  std::vector<PlotMarker> markers;  // each run's phase change, in its colour
  for (int run = 0; run < (two ? 2 : 1); ++run)
    if (phase_[run].step >= 0) markers.push_back({static_cast<float>(phase_[run].step), HeadColor(run == 0 ? 2 : 3), 2.0f});
  const auto step_axis = [&] {  // both plots: the steps along x, axes ending on round values
    PlotOptions o;
    o.x = &curves_.steps;
    o.round_axes = true;
    o.height = 170.0f;
    o.max_width = width;
    o.x_label = "step";
    o.markers = markers;
    return o;
  };
  const char* const held_out_labels[] = {"held-out (128 new sequences)", "run B, held-out"};
  DrawSideBySide(
      "learn.curves",
      [&] {
        ImGui::SeparatorText("Loss: cross-entropy of each batch and of held-out sequences");
        PlotOptions o = step_axis();
        o.describe = [&](int i) {
          ImGui::Text("up to step %.0f: batch loss %.4g, held-out %.4g", curves_.steps(i, 0), curves_.loss[0](i, 0),
                      curves_.held_out_loss[0](i, 0));
          if (two && std::isfinite(curves_.loss[1](i, 0)))
            ImGui::Text("run B: batch loss %.4g, held-out %.4g", curves_.loss[1](i, 0), curves_.held_out_loss[1](i, 0));
        };
        std::vector<PlotSeries> series = {
            {"loss", two ? "run A, batches" : "batches (mean over the steps of each point)", &curves_.loss[0], CurrentTheme().plot_marker, 1.5f},
            {"held_out_loss", two ? "run A, held-out" : held_out_labels[0], &curves_.held_out_loss[0], HeadColor(2), 2.5f}};
        if (two) {
          series.push_back({"b_loss", "run B, batches", &curves_.loss[1], HeadColor(1), 1.5f});
          series.push_back({"b_held_out_loss", held_out_labels[1], &curves_.held_out_loss[1], HeadColor(3), 2.5f});
        }
        DrawPlot("learn.loss", series, o, ctx.published);
      },
      [&] {
        ImGui::SeparatorText("Accuracy: training batches and held-out sequences");
        PlotOptions o = step_axis();
        o.describe = [&](int i) {
          ImGui::Text("up to step %.0f: batches %.3f, held-out %.3f", curves_.steps(i, 0), curves_.accuracy[0](i, 0),
                      curves_.held_out_accuracy[0](i, 0));
          if (two && std::isfinite(curves_.accuracy[1](i, 0)))
            ImGui::Text("run B: batches %.3f, held-out %.3f", curves_.accuracy[1](i, 0), curves_.held_out_accuracy[1](i, 0));
        };
        std::vector<PlotSeries> series = {
            {"batches", two ? "run A, batches" : "training batches", &curves_.accuracy[0], HeadColor(0), 1.5f},
            {"held_out", two ? "run A, held-out" : held_out_labels[0], &curves_.held_out_accuracy[0], HeadColor(2), 2.5f}};
        if (two) {
          series.push_back({"b_batches", "run B, batches", &curves_.accuracy[1], HeadColor(1), 1.5f});
          series.push_back({"b_held_out", held_out_labels[1], &curves_.held_out_accuracy[1], HeadColor(3), 2.5f});
        }
        DrawPlot("learn.accuracy", series, o, ctx.published);
      });
  // What the marked lines are, in words, and the two runs compared.
  for (int run = 0; run < (two ? 2 : 1); ++run) {
    const std::string text = lessons::PhaseChangeText(phase_[run], run ? job_.b().lab().snapshots() : snaps);
    if (two) Prose("%s: %s", run ? "Run B" : "Run A", text.c_str());
    else Prose("%s", text.c_str());
  }
  if (two) Prose("%s", lessons::CompareText(lab, job_.b().lab(), lessons::RunBChange(ctx.state.learn)).c_str());
}

void LearnPanel::DrawHeads(PanelContext& ctx) {
  const lessons::LearnLab& lab = job_.a().lab();
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
  // Run B's snapshot of the same step (both take them on one schedule), or its latest before it.
  const lessons::LearnSnapshot* snap_b = nullptr;
  if (compared())
    for (const lessons::LearnSnapshot& x : job_.b().lab().snapshots())
      if (x.step <= snap.step) snap_b = &x;

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
  Prose("%sIts answers at step %d: %s— %d of %d right", compared() ? "Run A. " : "", snap.step, answers.c_str(), right, asked);
  ctx.published.Scalar("learn.probe_right", right);

  if (snap_b) {
    DrawSideBySide(
        "learn.heads", [&] { DrawHeadMaps(ctx, lab, snap, 0); },
        [&] { DrawHeadMaps(ctx, job_.b().lab(), *snap_b, 1); }, 700.0f);
  } else {
    DrawHeadMaps(ctx, lab, snap, 0);
  }
  DrawNote("Measured on %d held-out sequences: the mean share of each head's weight on each kind of key.",
           lessons::LearnLab::kRoleSequences);
  if (!snap.roles.empty()) ctx.summary = "Learn, step " + std::to_string(snap.step) + ": " + snap.roles[0].text;
  DrawPositionLoss(ctx, snap, snap_b);
  DrawCircuits(ctx, snap);
}

// One run's maps, head by head; run 0 publishes what the tests recompute them from.
void LearnPanel::DrawHeadMaps(PanelContext& ctx, const lessons::LearnLab& lab, const lessons::LearnSnapshot& snap, int run) {
  const int heads = static_cast<int>(snap.weights[0].size());
  const float avail = ImGui::GetContentRegionAvail().x;
  const float size = avail < 500.0f ? 170.0f : compared() ? 200.0f : 240.0f;
  if (compared()) ImGui::TextDisabled("%s at step %d", kRunNames[run], snap.step);
  const std::string prefix = run ? "learn.b.W" : "learn.W";
  for (size_t l = 0; l < snap.weights.size(); ++l) {
    for (int h = 0; h < static_cast<int>(snap.weights[l].size()); ++h) {
      const int k = static_cast<int>(l) * heads + h;
      if (k > 0) SameLineIfFits(size + 20.0f);
      ImGui::BeginGroup();
      const std::string name = prefix + std::to_string(l + 1) + "." + std::to_string(h + 1);
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(HeadColor(k)));
      ImGui::Text("head %d.%d (layer %d)", static_cast<int>(l) + 1, h + 1, static_cast<int>(l) + 1);
      ImGui::PopStyleColor();
      const attn::Matrix& w = snap.weights[l][h];
      MatrixViewOptions o = TokenGridOptions("weight", WeightsStyle(w), MatrixLabels{&lab.probe_text(), nullptr});
      o.max_width = size;
      o.legend = k == 0 && run == 0;
      DrawMatrix(name, w, resets_ * 1000000 + snap.step + 1, o, ctx.published);
      ImGui::EndGroup();
    }
    if (run) continue;
    // What the engine computed these maps from, for the tests to recompute them: the layer's input
    // and its attention parameters at this snapshot.
    const std::string layer = "learn.L" + std::to_string(l + 1) + ".";
    const attn::AttentionParameters& p = snap.parameters.blocks[l].attention;
    ctx.published.Matrix(layer + "input", snap.inputs[l]);
    for (const auto& [key, m] : {std::pair{"wq", &p.wq}, {"wk", &p.wk}, {"wv", &p.wv}, {"wo", &p.wo}, {"bq", &p.bq},
                                 {"bk", &p.bk}, {"bv", &p.bv}, {"bo", &p.bo}})
      ctx.published.Matrix(layer + key, *m);
  }
  ImGui::Spacing();
  for (const auto& role : snap.roles) {  // what each head does, measured
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(HeadColor((role.layer - 1) * heads + role.head - 1)));
    ImGui::Bullet();
    ImGui::PopStyleColor();
    ImGui::SameLine();
    Prose("%s", role.text.c_str());
  }
}

}  // namespace attnlab
