// Seeded generators of the toy tasks the models learn. Every sequence has the task's fixed length
// T; a position is scored (weight 1) only where its target is determined by what came before.
//
//   previous   16 random letters; predict, at each position t ≥ 1, the letter at t − 1
//              (a head must learn to look one step back: it needs positions)
//   copy       6 digits, "|", then the same digits: predict each digit after "|"
//   reverse    as copy, the digits reversed
//   sort       as copy, the digits sorted ascending
//   recall     6 pairs "key value" (distinct letter keys, digit values), then one of the keys:
//              predict its value (attention as retrieval; two layers form an induction head)
//   plusminus  "+" or "-", then 15 digits 0–5: predict at each position t ≥ 2 the previous digit
//              plus this one (after "+") or minus this one (after "-"), mod 6:
//                + 3 4 1 … → targets at t = 2, 3: (3 + 4) mod 6 = 1, (4 + 1) mod 6 = 5
//                - 3 4 1 … → targets at t = 2, 3: (3 − 4) mod 6 = 5, (4 − 1) mod 6 = 3
//              One local rule, the same at every position (a convolution's shared filter learns it
//              from a few sequences: each holds 14 examples of it), and one far dependency, the sign
//              at the start, which a CNN cannot see once its window has moved past it: there it is
//              sure only where both signs give one answer (this digit 0 or 3) and guesses elsewhere,
//              2/3 right at best (a window of 5: 0.738 over the sequence), while attention can look
//              back at the sign and reaches 1 — given enough sequences (data_size.h measures how many)
#pragma once

#include <cstdint>
#include <string>

#include "attn/seeded_random.h"
#include "attn/status.h"
#include "attn/train/model.h"

namespace attn::train {

enum class TaskKind { kPrevious, kCopy, kReverse, kSort, kRecall, kPlusMinus, kCount };

// "previous", "copy", "reverse", "sort", "recall", "plusminus"
const char* TaskName(TaskKind kind);
// Every task's name, joined by `separator` ("previous|copy|…|plusminus" for usage lines).
std::string TaskNames(const char* separator);
// The inverse of TaskName; kUnknownOption names the tasks there are.
Status ParseTask(const std::string& name, TaskKind* kind);

struct TaskShape {
  int vocab = 0;    // token ids in [0, vocab)
  int classes = 0;  // targets in [0, classes)
  int seq_len = 0;  // T
};
TaskShape ShapeOf(TaskKind kind);

// A token as the page prints it: "a"…"p" for letters, "0"…"9" for digits, "|" for the separator,
// "+" and "-" for plusminus's signs.
std::string TokenText(TaskKind kind, int id);
// A target class as a token (the classes of copy/reverse/sort/plusminus are digits, of the others
// tokens).
std::string ClassText(TaskKind kind, int target);

// One sequence: ids, targets and weights of its T positions.
void SampleSequence(TaskKind kind, SeededRandom* rng, int* ids, int* targets, float* weights);
// `size` sequences from `rng`, stacked.
Batch SampleBatch(TaskKind kind, SeededRandom* rng, int size);

// ModelConfig of the right vocabulary, classes and length for the task (other fields from `base`).
ModelConfig ConfigForTask(TaskKind kind, ModelConfig base);

}  // namespace attn::train
