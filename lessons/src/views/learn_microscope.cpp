#include "lessons/views/learn_microscope.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "attn/train/phase_change.h"
#include "lessons/format.h"

namespace lessons {
namespace {

constexpr float kAccuracyTarget = 0.9f;
constexpr float kLeastMove = 0.2f;  // a score moving less than this is not named
constexpr int kMovers = 2;

const char* const kPositionWords[] = {"no positions", "learned positions", "sinusoidal positions", "RoPE"};

int NextDifferent(int value, int a_value, int lo, int hi) {
  value = std::clamp(value, lo, hi);
  return value != a_value ? value : (value < hi ? value + 1 : lo);
}

std::string HeadName(int layer, int head) { return Format("head %d.%d", layer, head); }

float ScoreOf(const LearnSnapshot& snapshot, int head, HeadScore score) {
  return score == HeadScore::kCopying ? Copying(snapshot, head) : PrefixMatching(snapshot, head);
}

}  // namespace

// [SECTION] Curves

LearnCurves MakeLearnCurves(const LearnLab& a, const LearnLab* b, int bins) {
  LearnCurves c;
  const LearnLab& longer = b && b->steps() > a.steps() ? *b : a;
  c.steps = longer.Curves(bins).col(0);
  const Eigen::Index n = c.steps.rows();
  const float none = std::numeric_limits<float>::quiet_NaN();
  for (int run = 0; run < (b ? 2 : 1); ++run) {
    const LearnLab& lab = run == 0 ? a : *b;
    const auto& snaps = lab.snapshots();
    for (Matrix* m : {&c.loss[run], &c.accuracy[run], &c.held_out_loss[run], &c.held_out_accuracy[run]}) m->setConstant(n, 1, none);
    size_t k = 0;
    for (Eigen::Index i = 0; i < n; ++i) {
      const int begin = i ? static_cast<int>(c.steps(i - 1, 0)) : 0, end = static_cast<int>(c.steps(i, 0));
      if (end > lab.steps() || snaps.empty()) break;
      lab.MeanOver(begin, end, &c.loss[run](i, 0), &c.accuracy[run](i, 0));
      while (k + 1 < snaps.size() && snaps[k + 1].step <= end) ++k;
      c.held_out_loss[run](i, 0) = snaps[k].held_out_loss;
      c.held_out_accuracy[run](i, 0) = snaps[k].held_out_accuracy;
    }
  }
  return c;
}

// [SECTION] Run B

LearnState RunBState(const LearnState& a) {
  LearnState b = a;
  switch (a.compare) {
    case 1: b.scaled = !a.scaled; break;
    case 2: b.normalizer = 1 - std::clamp(a.normalizer, 0, 1); break;
    case 3: b.positions = NextDifferent(a.compare_value, a.positions, 0, LearnState::kPositions.count - 1); break;
    case 4: b.layers = NextDifferent(a.compare_value, a.layers, LearnState::kLayers.min, LearnState::kLayers.max); break;
    case 5:  // another initialisation, the same sequences
      b.seed = NextDifferent(a.compare_value, a.seed, LearnState::kSeed.min, LearnState::kSeed.max);
      b.data_seed = a.data_seed ? a.data_seed : a.seed;
      break;
    default: break;
  }
  b.compare = b.compare_value = 0;
  return b;
}

int DefaultCompareValue(const LearnState& a, int compare) {
  switch (compare) {
    case 3: return a.positions == 3 ? 0 : 3;
    case 4: return a.layers == 1 ? 2 : 1;
    case 5: return a.seed < LearnState::kSeed.max ? a.seed + 1 : 1;
    default: return 0;
  }
}

std::string RunBChange(const LearnState& a) {
  const LearnState b = RunBState(a);
  switch (a.compare) {
    case 1: return b.scaled ? "scores divided by √d_k instead of plain q·k" : "plain q·k instead of scores divided by √d_k";
    case 2: return b.normalizer ? "sparsemax instead of softmax" : "softmax instead of sparsemax";
    case 3:
      return Format("%s instead of %s", kPositionWords[std::clamp(b.positions, 0, 3)], kPositionWords[std::clamp(a.positions, 0, 3)]);
    case 4: return Format("%d layer%s instead of %d", b.layers, b.layers == 1 ? "" : "s", a.layers);
    case 5: return Format("initial weights from seed %d instead of %d", b.seed, a.seed);
    default: return "";
  }
}

int StepToAccuracy(const std::vector<LearnSnapshot>& snapshots, float target) {
  for (const LearnSnapshot& s : snapshots)
    if (s.held_out_accuracy >= target) return s.step;
  return -1;
}

std::string CompareText(const LearnLab& a, const LearnLab& b, const std::string& change) {
  const auto& sa = a.snapshots();
  const auto& sb = b.snapshots();
  if (sa.empty() || sb.empty()) return "";
  std::string text = "Run B is run A with " + change + ", on the same sequences. ";
  const int ta = StepToAccuracy(sa, kAccuracyTarget), tb = StepToAccuracy(sb, kAccuracyTarget);
  if (ta >= 0 && tb >= 0) {
    text += Format("Held-out accuracy reached %.1f at step %d in run A and at step %d in run B", kAccuracyTarget, ta, tb);
    text += ta == tb ? " (the same snapshot). " : Format(" (%s %d steps sooner). ", ta < tb ? "A" : "B", std::abs(ta - tb));
  } else if (ta >= 0 || tb >= 0) {
    const LearnLab& late = ta >= 0 ? b : a;
    text += Format("Held-out accuracy reached %.1f at step %d in run %s; run %s is at %.3f at step %d. ", kAccuracyTarget,
                   ta >= 0 ? ta : tb, ta >= 0 ? "A" : "B", ta >= 0 ? "B" : "A", late.snapshots().back().held_out_accuracy,
                   late.snapshots().back().step);
  } else {
    text += Format("Neither run has reached %.1f held-out accuracy yet. ", kAccuracyTarget);
  }
  // The last step both have a snapshot of (both take them on one schedule).
  const LearnSnapshot *last_a = nullptr, *last_b = nullptr;
  for (const LearnSnapshot& x : sa)
    for (const LearnSnapshot& y : sb)
      if (x.step == y.step && (!last_a || x.step > last_a->step)) last_a = &x, last_b = &y;
  if (last_a && last_a->step > 0)
    text += Format("At step %d, the last snapshot both have, the held-out loss is %.3f in run A and %.3f in run B.", last_a->step,
                   last_a->held_out_loss, last_b->held_out_loss);
  return text;
}

// [SECTION] Scores over training and the phase change

const char* HeadScoreName(HeadScore score) { return score == HeadScore::kCopying ? "copying" : "prefix matching"; }

Matrix ScoreCurves(const std::vector<LearnSnapshot>& snapshots, HeadScore score) {
  const int heads = snapshots.empty() ? 0 : static_cast<int>(snapshots.front().roles.size());
  Matrix curves(heads, static_cast<Eigen::Index>(snapshots.size()));
  for (size_t s = 0; s < snapshots.size(); ++s)
    for (int h = 0; h < heads; ++h)
      curves(h, static_cast<Eigen::Index>(s)) = ScoreOf(snapshots[s], h, score);
  return curves;
}

Matrix SnapshotSteps(const std::vector<LearnSnapshot>& snapshots) {
  Matrix steps(1, static_cast<Eigen::Index>(snapshots.size()));
  for (size_t s = 0; s < snapshots.size(); ++s) steps(0, static_cast<Eigen::Index>(s)) = static_cast<float>(snapshots[s].step);
  return steps;
}

Matrix HeldOutLoss(const std::vector<LearnSnapshot>& snapshots) {
  Matrix loss(1, static_cast<Eigen::Index>(snapshots.size()));
  for (size_t s = 0; s < snapshots.size(); ++s) loss(0, static_cast<Eigen::Index>(s)) = snapshots[s].held_out_loss;
  return loss;
}

PhaseChange FindPhaseChange(const std::vector<LearnSnapshot>& snapshots) {
  PhaseChange change;
  std::vector<attn::train::LossPoint> curve;
  for (const LearnSnapshot& s : snapshots) curve.push_back({s.step, s.held_out_loss});
  change.step = attn::train::PhaseChangeStep(curve);
  if (change.step < 0) return change;
  int at = 0;
  while (snapshots[at].step != change.step) ++at;
  const int last = static_cast<int>(snapshots.size()) - 1;
  const LearnSnapshot& from = snapshots[std::max(0, at - 2)];
  const LearnSnapshot& to = snapshots[std::min(last, at + 2)];
  change.from_step = from.step, change.to_step = to.step;
  change.from_loss = from.held_out_loss, change.to_loss = to.held_out_loss;
  for (int h = 0; h < static_cast<int>(to.roles.size()); ++h) {
    for (HeadScore score : {HeadScore::kPrefixMatching, HeadScore::kCopying}) {
      HeadMove move;
      move.head = h;
      move.layer = to.roles[h].layer, move.head_in_layer = to.roles[h].head;
      move.score = score;
      move.before = ScoreOf(from, h, score);
      move.after = ScoreOf(to, h, score);
      if (move.before >= 0 && move.after >= 0 && std::fabs(move.after - move.before) >= kLeastMove)
        change.movers.push_back(move);
    }
  }
  // The kMovers largest moves, largest first (the first listed of equal ones): a selection, as the
  // page keeps no std::stable_sort (its wasm costs an embed's bytes).
  const auto move = [](const HeadMove& m) { return std::fabs(m.after - m.before); };
  for (size_t i = 0; i < change.movers.size() && i < static_cast<size_t>(kMovers); ++i) {
    size_t best = i;
    for (size_t j = i + 1; j < change.movers.size(); ++j)
      if (move(change.movers[j]) > move(change.movers[best])) best = j;
    std::rotate(change.movers.begin() + static_cast<long>(i), change.movers.begin() + static_cast<long>(best),
                change.movers.begin() + static_cast<long>(best) + 1);
  }
  if (change.movers.size() > kMovers) change.movers.resize(kMovers);
  return change;
}

std::string PhaseChangeText(const PhaseChange& change, const std::vector<LearnSnapshot>& snapshots) {
  if (change.step < 0) {
    if (snapshots.size() < 7)
      return Format("The phase change is looked for once there are 7 snapshots (there are %zu).", snapshots.size());
    return Format("No phase change up to step %d: no fall of the held-out loss is both three times as steep as a "
                  "stretch before it and a quarter of its whole fall.", snapshots.back().step);
  }
  std::string text = Format("Phase change at step %d: the held-out loss fell fastest there, from %.3f at step %d to %.3f at "
                            "step %d.", change.step, change.from_loss, change.from_step, change.to_loss, change.to_step);
  if (change.movers.empty()) return text + " No head's score moved by 0.2 or more across it.";
  text += " Across it";
  for (size_t i = 0; i < change.movers.size(); ++i) {
    const HeadMove& m = change.movers[i];
    text += Format("%s %s's %s went from %.2f to %.2f", i ? " and" : "", HeadName(m.layer, m.head_in_layer).c_str(),
                   HeadScoreName(m.score), m.before, m.after);
  }
  return text + ".";
}

// [SECTION] Loss per position

Matrix PositionLoss(const LearnSnapshot& snapshot) {
  const Eigen::Index n = static_cast<Eigen::Index>(snapshot.position_loss.size());
  Matrix loss(n, 1);
  for (Eigen::Index t = 0; t < n; ++t)
    loss(t, 0) = snapshot.position_scored[t] > 0 ? snapshot.position_loss[t] : std::numeric_limits<float>::quiet_NaN();
  return loss;
}

std::string PositionLossText(const LearnSnapshot& snapshot, const LearnSnapshot* snapshot_b) {
  std::vector<int> scored;
  for (size_t t = 0; t < snapshot.position_scored.size(); ++t)
    if (snapshot.position_scored[t] > 0) scored.push_back(static_cast<int>(t));
  if (scored.empty()) return "";
  const auto at = [](const LearnSnapshot& s, int t) { return s.position_loss[static_cast<size_t>(t)]; };
  const auto b_at = [&](int t) {
    return snapshot_b && static_cast<size_t>(t) < snapshot_b->position_loss.size() ? Format(" (run B: %.3f)", at(*snapshot_b, t)) : std::string();
  };
  if (scored.size() == 1)
    return Format("The task scores one position, %d: its held-out loss at step %d is %.3f%s.", scored[0] + 1, snapshot.step,
                  at(snapshot, scored[0]), b_at(scored[0]).c_str());
  const int first = scored.front(), last = scored.back();
  return Format("The task scores %zu of %zu positions. At step %d the held-out loss is %.3f at position %d, the first "
                "scored%s, and %.3f at position %d, the last%s.",
                scored.size(), snapshot.position_scored.size(), snapshot.step, at(snapshot, first), first + 1,
                b_at(first).c_str(), at(snapshot, last), last + 1, b_at(last).c_str());
}

// [SECTION] Circuits

CircuitLabels LearnCircuitLabels(attn::train::TaskKind task, const attn::train::ModelConfig& model) {
  CircuitLabels labels;
  for (int t = 0; t < model.vocab; ++t) labels.tokens.push_back(attn::train::TokenText(task, t));
  for (int c = 0; c < model.classes; ++c) labels.classes.push_back(attn::train::ClassText(task, c));
  for (int p = 0; p < model.seq_len; ++p) labels.positions.push_back(std::to_string(p + 1));
  return labels;
}

std::string CopyingText(const LearnSnapshot& snapshot, int head, attn::train::TaskKind task, const attn::train::ModelConfig& model) {
  if (head < 0 || head >= static_cast<int>(snapshot.circuits.heads.size())) return "";
  const attn::train::HeadCircuits& c = snapshot.circuits.heads[head];
  int candidates = 0;
  for (int cls : attn::train::ClassOfToken(task, model.vocab, model.classes)) candidates += cls >= 0;
  if (candidates == 0) return "";
  const int copied = static_cast<int>(std::lround(c.copying * candidates));
  return Format("Copying score of %s: %.2f. For %d of the %d tokens that are also answers, its OV circuit writes most "
                "towards that same answer (by chance about 1 in %d).",
                HeadName(c.layer, c.head).c_str(), c.copying, copied, candidates, model.classes);
}

Matrix CompositionTable(const attn::train::Circuits& circuits, int heads_per_layer, char which) {
  const int n = static_cast<int>(circuits.heads.size());
  Matrix table = Matrix::Zero(n, n);
  for (const attn::train::HeadComposition& c : circuits.compositions) {
    const int from = (c.from_layer - 1) * heads_per_layer + c.from_head - 1;
    const int to = (c.to_layer - 1) * heads_per_layer + c.to_head - 1;
    if (from < 0 || from >= n || to < 0 || to >= n) continue;
    table(from, to) = static_cast<float>(which == 'q' ? c.q : which == 'v' ? c.v : c.k);
  }
  return table;
}

std::string StrongestCompositionText(const attn::train::Circuits& now, const attn::train::Circuits& start) {
  size_t best = 0;
  for (size_t i = 1; i < now.compositions.size(); ++i)
    if (now.compositions[i].k > now.compositions[best].k) best = i;
  if (now.compositions.empty()) return "";
  const attn::train::HeadComposition& c = now.compositions[best];
  const std::string from = HeadName(c.from_layer, c.from_head), to = HeadName(c.to_layer, c.to_head);
  std::string text = Format("The strongest K-composition is %s into %s: %.2f", from.c_str(), to.c_str(), c.k);
  if (best < start.compositions.size()) text += Format(" (%.2f at initialisation)", start.compositions[best].k);
  std::string reader = to;
  reader[0] = 'H';  // the sentence starts with it
  return text + Format(". %s's keys read what %s writes: an induction head's wiring when %s looks one token back.",
                       reader.c_str(), from.c_str(), from.c_str());
}

}  // namespace lessons
