#include "lessons/views/lm.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "attn/train/lm_inference.h"
#include "attn/train/model.h"
#include "lessons/lm_heads.h"
#include "attn/text.h"

namespace lessons {
namespace {

using attn::train::LmModel;

constexpr int kTop = 5;

// Whether the vocabulary's last word is attnlab's <unk> class (the asset's, attnlab's own
// checkpoints'): a class no reader can read, which the continuation never says. A GPT-2 vocabulary
// has none (its last token, <|endoftext|>, is a token like the others).
bool HasUnknown(const LmModel& model) {
  return !model.vocabulary.empty() && model.vocabulary.back() == attn::train::kLmUnknownWord;
}

// The k most probable words of one row of logits (lowest id first on ties), at T = 1 and at T.
std::vector<LmNextWord> TopWords(const LmModel& model, const Matrix& logits_row, float temperature, int k) {
  const Matrix p = attn::train::LmSoftmax(logits_row);
  const bool unknown = HasUnknown(model);
  // What LmGenerate samples from: softmax(logits / T) over every word but <unk>, which it never says.
  Matrix sampled = logits_row;
  if (unknown) sampled(0, sampled.cols() - 1) = -std::numeric_limits<float>::infinity();
  const Matrix pt = temperature > 0 ? attn::train::LmSoftmax(sampled, temperature) : Matrix();
  std::vector<int> order(static_cast<size_t>(p.cols()));
  std::iota(order.begin(), order.end(), 0);
  const int shown = std::min<int>(k, static_cast<int>(order.size()));
  std::partial_sort(order.begin(), order.begin() + shown, order.end(),
                    [&](int a, int b) { return p(0, a) > p(0, b) || (p(0, a) == p(0, b) && a < b); });
  std::vector<LmNextWord> top;
  for (int i = 0; i < shown; ++i) {
    const int id = order[static_cast<size_t>(i)];
    // Greedy (T = 0) takes the most probable word that is not <unk> with certainty.
    float p_t = 0;
    if (temperature > 0) p_t = pt(0, id);
    top.push_back({model.vocabulary[static_cast<size_t>(id)], p(0, id), p_t});
  }
  if (temperature == 0) {
    for (LmNextWord& w : top)
      if (!unknown || w.word != attn::train::kLmUnknownWord) {
        w.p_t = 1;
        break;
      }
  }
  return top;
}

int64_t ParameterCount(const LmModel& model) {
  int64_t count = 0;
  attn::train::ForEachParameter(model.params, [&](const std::string&, const auto& m) { count += m.size(); });
  return count;
}

// Where the drawn words start among the N read: the last kLmViewMaxTokens.
int FirstDrawn(int read) { return std::max(0, read - kLmViewMaxTokens); }

// Everything after the words became ids: `m` holds the model's shape, the drawn words and `first`.
Status ComputeFromIds(const LmModel& model, const LmHeadTable* heads, const std::vector<int>& ids, const LmState& state,
                      LmViewModel& m) {
  const attn::train::LmConfig& c = model.config;
  const int first = m.first, n = static_cast<int>(ids.size()) - first;  // n drawn of the ids read
  const bool has_unknown = HasUnknown(model);
  const int unknown = has_unknown ? c.vocab - 1 : -1;
  m.ids = ids;

  // The model as trained, with the logit lens, traced at the drawn words.
  attn::train::LmCache cache;
  attn::train::LmTrace trace;
  ATTN_RETURN_IF_ERROR(attn::train::LmAdvance(model, ids, {}, true, &cache, &trace, first));
  for (const auto& layer : trace.weights)
    for (const Matrix& w : layer) m.weights.push_back(w);
  m.residual_norms = trace.residual_norms;
  for (const Matrix& lens : trace.lens_logits) {
    std::vector<LmNextWord> row;
    for (int i = 0; i < n; ++i) {
      LmNextWord w = TopWords(model, lens.row(i), 1.0f, 1)[0];
      w.p_t = w.p;
      row.push_back(w);
    }
    m.lens.push_back(std::move(row));
  }
  double nll = 0;
  int scored = 0;
  for (int i = 0; i + 1 < n; ++i) {
    const int next = ids[static_cast<size_t>(first + i + 1)];
    if (has_unknown && next == unknown) {
      m.p_next.push_back(-1);
      continue;
    }
    const Matrix p = attn::train::LmSoftmax(trace.logits.row(i));
    m.p_next.push_back(p(0, next));
    nll -= std::log(static_cast<double>(p(0, next)));
    ++scored;
  }
  m.perplexity = scored ? static_cast<float>(std::exp(nll / scored)) : 0.0f;

  // Knocked-out heads: the same pass with their outputs replaced.
  attn::train::LmAblation ablation;
  for (int head : LmKnockedOut(state, c.layers * c.heads)) {
    ablation.heads.push_back({head / c.heads, head % c.heads});
    m.ablated.push_back(head);
  }
  m.ablation = state.ablation;
  Matrix logits = trace.logits;
  const bool have_heads = heads && heads->layers == c.layers && heads->heads == c.heads;
  if (!m.ablated.empty()) {
    if (state.ablation != 0 && have_heads) {
      ablation.mode = attn::train::LmAblationMode::kMean;
      ablation.means = LmHeadMeans(*heads);
    } else if (state.ablation != 0) {
      m.note = "replacing a head by its mean needs the heads' held-out means (lm-brown-heads.txt), which have not "
               "loaded: the heads are zeroed";
      m.ablation = 0;
    }
    attn::train::LmCache ablated_cache;
    attn::train::LmTrace ablated;
    ATTN_RETURN_IF_ERROR(attn::train::LmAdvance(model, ids, ablation, false, &ablated_cache, &ablated, first));
    for (int i = 0; i < n; ++i) {
      m.base_top.push_back(TopWords(model, trace.logits.row(i), state.temperature, kTop));
      const Matrix p = attn::train::LmSoftmax(trace.logits.row(i));
      const Matrix q = attn::train::LmSoftmax(ablated.logits.row(i));
      double kl = 0;
      for (int v = 0; v < c.vocab; ++v)
        if (p(0, v) > 0) kl += p(0, v) * (std::log(static_cast<double>(p(0, v))) - std::log(static_cast<double>(q(0, v))));
      m.kl.push_back(static_cast<float>(std::max(0.0, kl)));
      Eigen::Index best = 0;
      p.row(0).maxCoeff(&best);
      m.delta_logp.push_back(static_cast<float>(std::log(static_cast<double>(q(0, best))) -
                                                std::log(static_cast<double>(p(0, best)))));
    }
    logits = ablated.logits;
  }
  for (int i = 0; i < n; ++i) m.top.push_back(TopWords(model, logits.row(i), state.temperature, kTop));

  // The continuation, through the KV cache, from the last words that leave it room.
  if (state.generate) {
    const int words = std::clamp(state.words, 1, c.seq_len - 1);
    const int prompt = std::min(static_cast<int>(ids.size()), c.seq_len - words);
    m.prompt_words = prompt;
    attn::train::LmGenerateConfig g;
    g.tokens = words;
    g.temperature = state.temperature;
    g.seed = static_cast<uint32_t>(state.seed);
    g.exclude_unknown = has_unknown;
    std::vector<attn::train::LmGenerated> generated;
    ATTN_RETURN_IF_ERROR(attn::train::LmGenerate(model, std::vector<int>(ids.end() - prompt, ids.end()), g, &generated));
    const int64_t bytes_per_position = int64_t{4} * 2 * c.layers * c.d_model;  // h · d_k = d_model
    for (const attn::train::LmGenerated& w : generated)
      m.continuation.push_back({model.vocabulary[static_cast<size_t>(w.id)], w.p, w.cache_length,
                                bytes_per_position * w.cache_length});
  }
  if (have_heads) {
    m.held_out_perplexity = static_cast<float>(std::exp(heads->nll));
    m.held_out_tokens = heads->tokens;
    for (const LmHeadStats& h : heads->stats) {
      m.head_texts.push_back(h.text);
      m.zero_perplexity.push_back(static_cast<float>(std::exp(heads->nll + h.zero_delta_nll)));
      m.mean_perplexity.push_back(static_cast<float>(std::exp(heads->nll + h.mean_delta_nll)));
    }
  }
  // The induction demo needs room for its words twice (a small checkpoint's context may not hold them).
  if (2 * kLmInductionWords <= c.seq_len && kLmInductionWords < c.vocab) {
    LmInduction induction;
    ATTN_RETURN_IF_ERROR(ComputeLmInduction(model, kLmInductionWords, static_cast<uint32_t>(state.seed), &induction));
    for (int id : induction.ids) m.induction_words.push_back(model.vocabulary[static_cast<size_t>(id)]);
    m.induction_loss = induction.loss;
    m.induction_first = induction.first_half, m.induction_second = induction.second_half;
    m.induction_scores = induction.scores;
    m.induction_text = induction.text;
  }
  return Status::Ok();
}

LmViewModel Shape(const LmModel& model) {
  const attn::train::LmConfig& c = model.config;
  LmViewModel m;
  m.layers = c.layers, m.heads = c.heads, m.d_model = c.d_model, m.seq_len = c.seq_len, m.vocab = c.vocab;
  m.parameters = ParameterCount(model);
  m.tokenizer = "words";
  return m;
}

}  // namespace

Status ComputeLm(const LmModel& model, const LmHeadTable* heads, const std::vector<std::string>& tokens, const LmState& state,
                 LmViewModel* out) {
  if (tokens.empty()) return Status(StatusCode::kEmptyInput, "lm: sentence: expected at least one word, got none");
  LmViewModel m = Shape(model);
  const int read = std::min<int>(static_cast<int>(tokens.size()), model.config.seq_len);
  m.dropped = static_cast<int>(tokens.size()) - read;
  m.first = FirstDrawn(read);
  const attn::train::LmWordIndex index(model.vocabulary);
  std::vector<int> ids;
  const int unknown = model.config.vocab - 1;
  for (int i = 0; i < read; ++i) {
    const std::string word = attn::NormalizeToken(tokens[static_cast<size_t>(i)]);
    ids.push_back(index.Id(word));
    if (i < m.first) continue;
    m.words.push_back(word);
    m.known.push_back(ids.back() != unknown ? 1 : 0);
  }
  ATTN_RETURN_IF_ERROR(ComputeFromIds(model, heads, ids, state, m));
  *out = std::move(m);
  return Status::Ok();
}

Status ComputeLmOnIds(const LmModel& model, const LmHeadTable* heads, const std::vector<int>& ids, const LmState& state,
                      LmViewModel* out) {
  if (ids.empty()) return Status(StatusCode::kEmptyInput, "lm: sentence: expected at least one token, got none");
  const attn::train::LmConfig& c = model.config;
  if (model.vocabulary.size() != static_cast<size_t>(c.vocab))
    return Status(StatusCode::kInvalidArgument, "lm: vocabulary: expected " + std::to_string(c.vocab) + " tokens, got " +
                                                    std::to_string(model.vocabulary.size()));
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 0 || ids[i] >= c.vocab)
      return Status(StatusCode::kOutOfRange, "lm: ids[" + std::to_string(i) + "]: expected a token id 0–" +
                                                 std::to_string(c.vocab - 1) + ", got " + std::to_string(ids[i]));
  LmViewModel m = Shape(model);
  const int count = std::min(static_cast<int>(ids.size()), c.seq_len);
  m.dropped = static_cast<int>(ids.size()) - count;
  m.first = FirstDrawn(count);
  const std::vector<int> read(ids.begin(), ids.begin() + count);
  const bool has_unknown = HasUnknown(model);
  for (int i = m.first; i < count; ++i) {
    const int id = read[static_cast<size_t>(i)];
    m.words.push_back(model.vocabulary[static_cast<size_t>(id)]);
    m.known.push_back(has_unknown && id == c.vocab - 1 ? 0 : 1);
  }
  ATTN_RETURN_IF_ERROR(ComputeFromIds(model, heads, read, state, m));
  *out = std::move(m);
  return Status::Ok();
}

}  // namespace lessons
