#include "attn/train/ngram_baselines.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace attn::train {
namespace {

Status CheckIds(const std::vector<int>& tokens, int vocab) {
  for (size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i] < 0 || tokens[i] >= vocab)
      return Status(StatusCode::kOutOfRange, "baselines: tokens[" + std::to_string(i) + "]: expected an id in [0, " +
                                                 std::to_string(vocab) + "), got " + std::to_string(tokens[i]));
  return Status::Ok();
}

}  // namespace

Status NgramBaselines::Fit(const std::vector<int>& tokens, int vocab) {
  if (vocab < 2) return Status(StatusCode::kOutOfRange, "baselines: vocab: expected ≥ 2, got " + std::to_string(vocab));
  if (tokens.size() < 2)
    return Status(StatusCode::kInvalidArgument,
                  "baselines: tokens: expected at least 2 ids, got " + std::to_string(tokens.size()));
  ATTN_RETURN_IF_ERROR(CheckIds(tokens, vocab));
  *this = NgramBaselines();
  vocab_ = vocab;
  total_ = static_cast<int64_t>(tokens.size());
  unigram_.assign(vocab, 0);
  context_.assign(vocab, 0);
  followers_.assign(vocab, 0);
  predecessors_.assign(vocab, 0);
  for (int w : tokens) ++unigram_[w];
  for (size_t i = 1; i < tokens.size(); ++i) {
    const int v = tokens[i - 1], w = tokens[i];
    ++context_[v];
    if (++bigram_[static_cast<int64_t>(v) * vocab + w] == 1) {
      ++followers_[v];
      if (++predecessors_[w] == 1) ++continued_words_;
      ++bigram_types_;
    }
  }
  int64_t n1 = 0, n2 = 0;
  for (const auto& kv : bigram_) n1 += kv.second == 1, n2 += kv.second == 2;
  if (n1 > 0) discount_ = static_cast<double>(n1) / static_cast<double>(n1 + 2 * n2);
  return Status::Ok();
}

double NgramBaselines::Unigram(int w) const {
  const double c = unigram_[w] > 0 ? static_cast<double>(unigram_[w]) : 0.5;
  return c / static_cast<double>(total_);
}

double NgramBaselines::Bigram(int v, int w) const {
  const double types = static_cast<double>(bigram_types_), d = discount_;
  const double continuation = std::max(static_cast<double>(predecessors_[w]) - d, 0.0) / types +
                              d * static_cast<double>(continued_words_) / types / static_cast<double>(vocab_);
  if (context_[v] == 0) return continuation;
  const auto it = bigram_.find(static_cast<int64_t>(v) * vocab_ + w);
  const double c = it == bigram_.end() ? 0.0 : static_cast<double>(it->second);
  const double cv = static_cast<double>(context_[v]);
  return std::max(c - d, 0.0) / cv + d * static_cast<double>(followers_[v]) / cv * continuation;
}

Status NgramBaselines::Score(const std::vector<int>& tokens, LmScore* unigram, LmScore* bigram) const {
  if (vocab_ == 0) return Status(StatusCode::kInvalidArgument, "baselines: Score before a successful Fit");
  ATTN_RETURN_IF_ERROR(CheckIds(tokens, vocab_));
  LmScore u, b;
  for (size_t i = 1; i < tokens.size(); ++i) {
    u.nll -= std::log(Unigram(tokens[i]));
    b.nll -= std::log(Bigram(tokens[i - 1], tokens[i]));
  }
  u.tokens = b.tokens = tokens.size() > 1 ? static_cast<int64_t>(tokens.size()) - 1 : 0;
  *unigram = u;
  *bigram = b;
  return Status::Ok();
}

}  // namespace attn::train
