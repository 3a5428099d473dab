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
#pragma once

#include <cstdint>
#include <string>

#include "attn/seeded_random.h"
#include "attn/status.h"
#include "attn/train/model.h"

namespace attn::train {

enum class TaskKind { kPrevious, kCopy, kReverse, kSort, kRecall, kCount };

// "previous", "copy", "reverse", "sort", "recall"
const char* TaskName(TaskKind kind);
// The inverse of TaskName; kUnknownOption names the tasks there are.
Status ParseTask(const std::string& name, TaskKind* kind);

struct TaskShape {
  int vocab = 0;    // token ids in [0, vocab)
  int classes = 0;  // targets in [0, classes)
  int seq_len = 0;  // T
};
TaskShape ShapeOf(TaskKind kind);

// A token as the page prints it: "a"…"p" for letters, "0"…"9" for digits, "|" for the separator.
std::string TokenText(TaskKind kind, int id);
// A target class as a token (the classes of copy/reverse/sort are digits, of the others tokens).
std::string ClassText(TaskKind kind, int target);

// One sequence: ids, targets and weights of its T positions.
void SampleSequence(TaskKind kind, SeededRandom* rng, int* ids, int* targets, float* weights);
// `size` sequences from `rng`, stacked.
Batch SampleBatch(TaskKind kind, SeededRandom* rng, int size);

// ModelConfig of the right vocabulary, classes and length for the task (other fields from `base`).
ModelConfig ConfigForTask(TaskKind kind, ModelConfig base);

}  // namespace attn::train
