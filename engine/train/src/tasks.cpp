#include "attn/train/tasks.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace attn::train {
namespace {

constexpr int kLetters = 16;     // previous: a…p; recall: the keys a…p
constexpr int kDigits = 10;      // copy/reverse/sort: 0…9 (also the classes); recall: values
constexpr int kCopyLength = 6;   // digits before the separator
constexpr int kPairs = 6;        // recall: key-value pairs before the query
constexpr int kSeparator = kDigits;  // copy/reverse/sort: id 10 is "|"
constexpr int kModulus = 6;          // plusminus: digits 0…5, sums and differences mod 6
constexpr int kPlus = kModulus;      // plusminus: id 6 is "+", id 7 "-"
constexpr int kPlusMinusLength = 16;  // the sign and 15 digits

const char* const kNames[] = {"previous", "copy", "reverse", "sort", "recall", "plusminus"};
static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<size_t>(TaskKind::kCount), "one name per task");

bool DigitTask(TaskKind kind) { return kind == TaskKind::kCopy || kind == TaskKind::kReverse || kind == TaskKind::kSort; }

}  // namespace

const char* TaskName(TaskKind kind) {
  const int i = static_cast<int>(kind);
  return i >= 0 && i < static_cast<int>(TaskKind::kCount) ? kNames[i] : "unknown";
}

std::string TaskNames(const char* separator) {
  std::string names;
  for (int i = 0; i < static_cast<int>(TaskKind::kCount); ++i) names += (i ? separator : "") + std::string(kNames[i]);
  return names;
}

Status ParseTask(const std::string& name, TaskKind* kind) {
  for (int i = 0; i < static_cast<int>(TaskKind::kCount); ++i) {
    if (name == kNames[i]) {
      *kind = static_cast<TaskKind>(i);
      return Status::Ok();
    }
  }
  return Status(StatusCode::kUnknownOption, "task: expected " + TaskNames(", ") + ", got '" + name.substr(0, 40) + "'");
}

TaskShape ShapeOf(TaskKind kind) {
  if (kind == TaskKind::kPrevious) return {kLetters, kLetters, 16};
  if (kind == TaskKind::kRecall) return {kLetters + kDigits, kLetters + kDigits, 2 * kPairs + 1};
  if (kind == TaskKind::kPlusMinus) return {kModulus + 2, kModulus, kPlusMinusLength};
  return {kDigits + 1, kDigits, 2 * kCopyLength};
}

std::string TokenText(TaskKind kind, int id) {
  if (DigitTask(kind)) return id == kSeparator ? "|" : std::string(1, static_cast<char>('0' + id));
  if (kind == TaskKind::kPlusMinus && id >= kPlus) return id == kPlus ? "+" : "-";
  if (kind == TaskKind::kPlusMinus) return std::string(1, static_cast<char>('0' + id));
  if (id < kLetters) return std::string(1, static_cast<char>('a' + id));
  return std::string(1, static_cast<char>('0' + id - kLetters));
}

std::string ClassText(TaskKind kind, int target) { return TokenText(kind, target); }

void SampleSequence(TaskKind kind, SeededRandom* rng, int* ids, int* targets, float* weights) {
  const int seq = ShapeOf(kind).seq_len;
  std::fill(targets, targets + seq, 0);
  std::fill(weights, weights + seq, 0.0f);
  switch (kind) {
    case TaskKind::kPrevious:
      for (int t = 0; t < seq; ++t) ids[t] = static_cast<int>(rng->Below(kLetters));
      for (int t = 1; t < seq; ++t) targets[t] = ids[t - 1], weights[t] = 1;
      return;
    case TaskKind::kRecall: {
      int keys[kLetters];
      std::iota(keys, keys + kLetters, 0);
      for (int i = 0; i < kPairs; ++i) std::swap(keys[i], keys[i + rng->Below(kLetters - i)]);  // distinct keys
      for (int i = 0; i < kPairs; ++i) {
        ids[2 * i] = keys[i];
        ids[2 * i + 1] = kLetters + static_cast<int>(rng->Below(kDigits));
      }
      const int asked = static_cast<int>(rng->Below(kPairs));
      ids[seq - 1] = keys[asked];
      targets[seq - 1] = ids[2 * asked + 1];
      weights[seq - 1] = 1;
      return;
    }
    case TaskKind::kPlusMinus: {
      const bool minus = rng->Below(2) == 1;
      ids[0] = minus ? kPlus + 1 : kPlus;
      for (int t = 1; t < seq; ++t) ids[t] = static_cast<int>(rng->Below(kModulus));
      for (int t = 2; t < seq; ++t) {
        targets[t] = ((minus ? ids[t - 1] - ids[t] : ids[t - 1] + ids[t]) + kModulus) % kModulus;
        weights[t] = 1;
      }
      return;
    }
    default: {  // copy, reverse, sort: digits | answer, the answer fed back one step late (teacher forcing)
      std::vector<int> digits(kCopyLength), answer;
      for (int& d : digits) d = static_cast<int>(rng->Below(kDigits));
      answer = digits;
      if (kind == TaskKind::kReverse) std::reverse(answer.begin(), answer.end());
      if (kind == TaskKind::kSort) std::sort(answer.begin(), answer.end());
      for (int i = 0; i < kCopyLength; ++i) ids[i] = digits[i];
      ids[kCopyLength] = kSeparator;
      for (int i = 0; i + 1 < kCopyLength; ++i) ids[kCopyLength + 1 + i] = answer[i];
      for (int i = 0; i < kCopyLength; ++i) targets[kCopyLength + i] = answer[i], weights[kCopyLength + i] = 1;
      return;
    }
  }
}

Batch SampleBatch(TaskKind kind, SeededRandom* rng, int size) {
  Batch b;
  b.size = size;
  b.seq_len = ShapeOf(kind).seq_len;
  const size_t rows = static_cast<size_t>(size) * b.seq_len;
  b.ids.resize(rows);
  b.targets.resize(rows);
  b.weights.resize(rows);
  for (int s = 0; s < size; ++s) {
    const size_t at = static_cast<size_t>(s) * b.seq_len;
    SampleSequence(kind, rng, &b.ids[at], &b.targets[at], &b.weights[at]);
  }
  return b;
}

ModelConfig ConfigForTask(TaskKind kind, ModelConfig base) {
  const TaskShape shape = ShapeOf(kind);
  base.vocab = shape.vocab;
  base.classes = shape.classes;
  base.seq_len = shape.seq_len;
  return base;
}

}  // namespace attn::train
