#include "attn/train/head_roles.h"

#include <cstdio>

namespace attn::train {
namespace {

constexpr uint32_t kRoleStream = (1u << 20) + 2;  // beside the trainer's data streams
constexpr int kKinds = static_cast<int>(KeyKind::kCount);

// Whether key j is of `kind` for the query at t.   ids, targets: T entries; weights: scored or not
bool IsKind(KeyKind kind, const int* ids, const int* targets, const float* weights, int t, int j) {
  switch (kind) {
    case KeyKind::kPrevious: return j == t - 1;
    case KeyKind::kItself: return j == t;
    case KeyKind::kFirst: return j == 0;
    case KeyKind::kSameToken: return j < t && ids[j] == ids[t];
    case KeyKind::kAfterSame: return j >= 1 && j <= t && ids[j - 1] == ids[t];
    case KeyKind::kAnswer: return weights[t] > 0 && ids[j] == targets[t];
    default: return false;
  }
}

}  // namespace

const char* KeyKindText(KeyKind kind) {
  static const char* const kText[] = {"the previous token", "itself", "the first token",
                                      "an earlier copy of its token", "the token after an earlier copy of its token",
                                      "the token it must output"};
  const int i = static_cast<int>(kind);
  return i >= 0 && i < kKinds ? kText[i] : "?";
}

Status MeasureHeadRoles(const Trainer& trainer, int sequences, std::vector<HeadRole>* roles) {
  if (sequences < 1 || sequences > kMaxAttendSequences)
    return Status(StatusCode::kOutOfRange, "sequences: expected 1–" + std::to_string(kMaxAttendSequences) + ", got " +
                                               std::to_string(sequences));
  const ModelConfig& model = trainer.model();
  if (model.kind != ModelKind::kTransformer)
    return Status(StatusCode::kUnknownOption, "head roles: the model has no attention heads (it is a cnn)");
  const int seq = model.seq_len, layers = model.layers, heads = model.heads;
  // sums[layer][head][kind], counts[kind] (how many queries the kind applied to)
  std::vector<double> sums(static_cast<size_t>(layers) * heads * kKinds, 0.0);
  std::vector<int> counts(kKinds, 0);
  SeededRandom rng(DataSeed(trainer.config()), kRoleStream);
  const Batch batch = SampleBatch(trainer.config().task, &rng, sequences);
  std::vector<std::vector<std::vector<Matrix>>> maps;  // sequences × layers × heads × (T, T)
  std::vector<int> predictions;
  ATTN_RETURN_IF_ERROR(trainer.Attend(batch, &maps, &predictions));
  for (int s = 0; s < sequences; ++s) {
    const int* ids = &batch.ids[s * seq];
    const int* targets = &batch.targets[s * seq];
    const float* weights = &batch.weights[s * seq];
    for (int t = 1; t < seq; ++t) {
      const int last_key = model.causal ? t : seq - 1;
      for (int k = 0; k < kKinds; ++k) {
        const KeyKind kind = static_cast<KeyKind>(k);
        bool applies = false;
        for (int j = 0; j <= last_key && !applies; ++j) applies = IsKind(kind, ids, targets, weights, t, j);
        if (!applies) continue;
        ++counts[k];
        for (int l = 0; l < layers; ++l)
          for (int h = 0; h < heads; ++h)
            for (int j = 0; j <= last_key; ++j)
              if (IsKind(kind, ids, targets, weights, t, j))
                sums[(static_cast<size_t>(l) * heads + h) * kKinds + k] += maps[s][l][h](t, j);
      }
    }
  }
  roles->clear();
  for (int l = 0; l < layers; ++l) {
    for (int h = 0; h < heads; ++h) {
      HeadRole r;
      r.layer = l + 1;
      r.head = h + 1;
      r.shares.assign(kKinds, -1.0f);
      r.share = -1;
      for (int k = 0; k < kKinds; ++k) {
        if (!counts[k]) continue;
        r.shares[k] = static_cast<float>(sums[(static_cast<size_t>(l) * heads + h) * kKinds + k] / counts[k]);
        if (r.shares[k] > r.share) r.share = r.shares[k], r.kind = static_cast<KeyKind>(k);
      }
      char text[160];
      if (r.share >= 0.3f) {
        std::snprintf(text, sizeof(text), "head %d.%d puts %.2f of its weight on %s", r.layer, r.head, r.share,
                      KeyKindText(r.kind));
      } else {
        std::snprintf(text, sizeof(text), "head %d.%d spreads its weight (at most %.2f on %s)", r.layer, r.head,
                      r.share, KeyKindText(r.kind));
      }
      r.text = text;
      roles->push_back(std::move(r));
    }
  }
  return Status::Ok();
}

}  // namespace attn::train
