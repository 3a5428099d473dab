// View 11's microscope (issue 31): what the Learn view reads off its snapshots beyond the maps — each
// head's scores over training, the phase change in the held-out loss and the heads that moved around
// it, the circuits' labels and composition tables — and run B, run A with one setting changed,
// compared with it in one sentence. Everything here is computed from LearnSnapshots (learn.h) and
// the state; the panel only draws it.
#pragma once

#include <string>
#include <vector>

#include "lessons/common.h"
#include "lessons/view_state.h"
#include "lessons/views/learn.h"

namespace lessons {

// [SECTION] Curves

// View 11's loss and accuracy plots on one step axis: for run A and, when given, run B — each batch's
// loss and accuracy averaged over at most `bins` equal runs of steps (the longer run's bins, as
// LearnLab::Curves makes them), and the held-out loss and accuracy of the last snapshot at or before
// each point. A run that has not got to a point has NaN there (the plot leaves a gap).
struct LearnCurves {
  Matrix steps;  // (n, 1) each point's last step
  Matrix loss[2], accuracy[2], held_out_loss[2], held_out_accuracy[2];  // (n, 1): run A, run B (empty without B)
};
LearnCurves MakeLearnCurves(const LearnLab& a, const LearnLab* b, int bins);

// [SECTION] Run B

// Run A's state with the one change state.compare names (the state itself when it names none):
// scale → the other scaling, normalizer → the other normaliser, positions / layers / seed →
// compare_value (clamped to the setting's range; A's own value moves on to the next one, so B
// always differs). The step target and the view's own fields are A's.
LearnState RunBState(const LearnState& a);
// The value run B starts with when the reader picks a setting to change: RoPE for positions (none
// when A uses RoPE), the other layer count of 1 and 2, the next seed.
int DefaultCompareValue(const LearnState& a, int compare);
// What differs, as the page says it: "RoPE instead of learned positions", "sparsemax instead of
// softmax", "scores q·k without the 1/√d_k", "1 layer instead of 2", "seed 2 instead of 1"; "" for none.
std::string RunBChange(const LearnState& a);

// The first snapshot's step whose held-out accuracy is at least `target`, or −1.
int StepToAccuracy(const std::vector<LearnSnapshot>& snapshots, float target);

// The comparison, from both labs' snapshots: when each reached 0.9 held-out accuracy (and the
// difference), and the held-out loss of each at the last snapshot step both have.
std::string CompareText(const LearnLab& a, const LearnLab& b, const std::string& change);

// [SECTION] Scores over training and the phase change

enum class HeadScore { kPrefixMatching, kCopying };
const char* HeadScoreName(HeadScore score);  // "prefix matching", "copying"

// Every head's score at every snapshot: (layers·heads, snapshots); prefix matching is −1 where the
// task never has a repeated token (recall and copy have them).
Matrix ScoreCurves(const std::vector<LearnSnapshot>& snapshots, HeadScore score);
// The snapshots' steps, (1, snapshots).
Matrix SnapshotSteps(const std::vector<LearnSnapshot>& snapshots);
// The held-out loss at each snapshot, (1, snapshots).
Matrix HeldOutLoss(const std::vector<LearnSnapshot>& snapshots);

struct HeadMove {
  int head = 0;  // layers·heads index
  int layer = 0, head_in_layer = 0;  // 1-based
  HeadScore score = HeadScore::kPrefixMatching;
  float before = 0, after = 0;
};

// The phase change of the held-out loss over the snapshots (attn/train/phase_change.h's rule on
// (snapshot step, held-out loss)), the window around it (the snapshots two before and two after,
// clamped), and the heads whose scores moved most across that window: the two largest moves of
// at least 0.2, largest first.
struct PhaseChange {
  int step = -1;  // −1: none
  int from_step = 0, to_step = 0;
  float from_loss = 0, to_loss = 0;
  std::vector<HeadMove> movers;
};
PhaseChange FindPhaseChange(const std::vector<LearnSnapshot>& snapshots);
// The sentence under the plots: where the loss fell and which heads moved, or why there is none yet.
std::string PhaseChangeText(const PhaseChange& change, const std::vector<LearnSnapshot>& snapshots);

// [SECTION] Loss per position

// A snapshot's held-out loss at each position, (T, 1), NaN where the task scores none.
Matrix PositionLoss(const LearnSnapshot& snapshot);
// What the reader sees in it: where the task scores, and the loss at the first and last scored
// positions (and run B's, when given).
std::string PositionLossText(const LearnSnapshot& snapshot, const LearnSnapshot* snapshot_b);

// [SECTION] Circuits

// The labels of a task's circuits: its tokens (rows of QK and OV, columns of QK), its output classes
// (columns of OV) and the positions 1…T (the positional QK circuit).
struct CircuitLabels {
  std::vector<std::string> tokens, classes, positions;
};
CircuitLabels LearnCircuitLabels(attn::train::TaskKind task, const attn::train::ModelConfig& model);

// The chosen head's copying score in words: how many of the tokens that are also answers its OV
// circuit writes most towards, against chance (1 / classes).
std::string CopyingText(const LearnSnapshot& snapshot, int head, attn::train::TaskKind task, const attn::train::ModelConfig& model);

// One composition score of every earlier × later pair: (layers·heads, layers·heads), row the earlier
// head, column the later one; 0 where the column's layer is not later. which: 'q', 'k' or 'v'.
Matrix CompositionTable(const attn::train::Circuits& circuits, int heads_per_layer, char which);

// The strongest K-composition now (an induction head reading a previous-token head), said in words
// with its score now and at `start` (the first snapshot's); "" with one layer.
std::string StrongestCompositionText(const attn::train::Circuits& now, const attn::train::Circuits& start);

}  // namespace lessons
