// What each trained head does, in measured terms: the mean share of its weight on each kind of
// key, over held-out sequences of the task, and the kind it favours
// ("head 1.2 puts 0.94 of its weight on the previous token").
#pragma once

#include <string>
#include <vector>

#include "attn/status.h"
#include "attn/train/trainer.h"

namespace attn::train {

// Kinds of key, for the query at position t of a sequence x.
enum class KeyKind {
  kPrevious,       // j = t − 1
  kItself,         // j = t
  kFirst,          // j = 0
  kSameToken,      // j < t with x_j = x_t (an earlier copy of this token)
  kAfterSame,      // j ≤ t with x_{j−1} = x_t (the token after an earlier copy: an induction head)
  kAnswer,         // j ≤ t with x_j = the target at t (where the answer can be copied from), scored t only
  kCount,
};

// "the previous token", "itself", …
const char* KeyKindText(KeyKind kind);

struct HeadRole {
  int layer = 0, head = 0;               // 1-based, as the page prints them
  KeyKind kind = KeyKind::kPrevious;     // the kind with the largest mean share
  float share = 0;                       // that share, in [0, 1]
  std::vector<float> shares;             // every kind's mean share (kCount entries; −1 where it never applies)
  std::string text;                      // "head 1.2 puts 0.94 of its weight on the previous token"
};

// Mean shares over `sequences` (1–kMaxAttendSequences) held-out sequences (their own seeded stream), over queries t ≥ 1
// where a kind has at least one key (causal models see keys j ≤ t only; for kAnswer, scored t only).
// A head whose largest share is below 0.3 "spreads its weight".
Status MeasureHeadRoles(const Trainer& trainer, int sequences, std::vector<HeadRole>* roles);

}  // namespace attn::train
