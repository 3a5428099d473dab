// One sentence through the language model (shapes: attn/train/lm_inference.h). The layers are
// lm_model.cpp's (LayerNorm, the engine's attention, the GELU MLP, the tied output) on one sequence,
// with the engine's key/value cache in place of the whole batch.
#include "attn/train/lm_inference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "attn/seeded_random.h"
#include "model_support.h"

namespace attn::train {
namespace {

// A model a caller hands in: its shapes and its vocabulary's size (an asset read back has both).
Status CheckModel(const LmModel& m) {
  ATTN_RETURN_IF_ERROR(CheckLmShapes(m.config, m.params));
  if (m.vocabulary.size() != static_cast<size_t>(m.config.vocab))
    return OutOfRange("lm: vocabulary: words", static_cast<int>(m.vocabulary.size()),
                      ("exactly vocab = " + std::to_string(m.config.vocab)).c_str());
  return Status::Ok();
}

// The packed weights to use on `kernel`, or null (none prepared, or prepared for another kernel).
const LmPackedWeights* PackedFor(const LmModel& m, KernelId kernel) {
  return m.packed && m.packed->kernel == kernel && m.packed->blocks.size() == m.params.blocks.size() ? m.packed.get()
                                                                                                      : nullptr;
}

// LNf(x) wteᵀ + b: what the model would say from the stream x, its products on `kernel`.   (n, d) -> (n, V)
Matrix Readout(const LmConfig& c, const ModelParameters& p, const LmPackedWeights* packed, const Matrix& x,
               KernelId kernel) {
  Matrix normed, logits;
  std::vector<float> mean, rstd;
  LayerNormForward<float>(x, p.lnf_gamma, p.lnf_beta, &normed, &mean, &rstd, static_cast<float>(c.layer_norm_eps));
  TiedUnembedForward<float>(normed, p.wte, p.out_b, &logits, PackedProducts{kernel, {packed ? &packed->wte : nullptr}});
  return logits;
}

// Mean ablation's vectors: L × h × d_k finite floats.
Status CheckAblationMeans(const LmConfig& c, const std::vector<std::vector<std::vector<float>>>& means) {
  const int d_k = c.d_model / c.heads;
  if (static_cast<int>(means.size()) != c.layers)
    return Status(StatusCode::kShapeMismatch, "lm: ablation: means: expected " + std::to_string(c.layers) +
                                                  " layers (mean ablation), got " + std::to_string(means.size()));
  for (size_t l = 0; l < means.size(); ++l) {
    const std::string layer = "lm: ablation: means[" + std::to_string(l) + "]";
    if (static_cast<int>(means[l].size()) != c.heads)
      return Status(StatusCode::kShapeMismatch,
                    layer + ": expected " + std::to_string(c.heads) + " heads, got " + std::to_string(means[l].size()));
    for (size_t h = 0; h < means[l].size(); ++h) {
      const std::string name = layer + "[" + std::to_string(h) + "]";
      if (static_cast<int>(means[l][h].size()) != d_k)
        return Status(StatusCode::kShapeMismatch,
                      name + ": expected " + std::to_string(d_k) + " floats (d_k), got " + std::to_string(means[l][h].size()));
      for (size_t k = 0; k < means[l][h].size(); ++k)
        if (!std::isfinite(means[l][h][k]))
          return Status(StatusCode::kOutOfRange, name + "[" + std::to_string(k) + "]: expected a finite float, got " +
                                                     std::to_string(means[l][h][k]));
    }
  }
  return Status::Ok();
}

// A block's queries, keys and values, LN(x) Wq + bq, LN(x) Wk + bk, LN(x) Wv + bv: one product on the
// packed [Wq | Wk | Wv] where PrepareLm made it, else three on `kernel` (the same bits: each entry is
// the same sum either way).   ln: (n, d) -> in->query, key, value: (n, d)
Status ProjectQkv(const AttentionParameters& a, const LmPackedWeights::Block* packed, KernelId kernel, const Matrix& ln,
                  AttentionInputs* in) {
  const std::array<const float*, 6> sources{a.wq.data(), a.wk.data(), a.wv.data(), a.bq.data(), a.bk.data(), a.bv.data()};
  if (!packed || packed->qkv_sources != sources) {  // not packed, or packed from other matrices (a copy's)
    const KernelProducts products{kernel};
    LinearForward<float>(ln, a.wq, a.bq, &in->query, products);
    LinearForward<float>(ln, a.wk, a.bk, &in->key, products);
    LinearForward<float>(ln, a.wv, a.bv, &in->value, products);
    return Status::Ok();
  }
  Matrix qkv;
  ATTN_RETURN_IF_ERROR(MatMul(ln, packed->qkv, &qkv));
  qkv.rowwise() += packed->qkv_bias.row(0);
  const Eigen::Index d = a.wq.cols();
  in->query = qkv.leftCols(d);
  in->key = qkv.middleCols(d, d);
  in->value = qkv.rightCols(d);
  return Status::Ok();
}

std::vector<float> RowNorms(const Matrix& x) {
  std::vector<float> norms(static_cast<size_t>(x.rows()));
  for (Eigen::Index r = 0; r < x.rows(); ++r) norms[static_cast<size_t>(r)] = x.row(r).norm();
  return norms;
}

}  // namespace

const char* const kLmUnknownWord = "<unk>";

LmWordIndex::LmWordIndex(const std::vector<std::string>& vocabulary)
    : unknown_(vocabulary.empty() ? 0 : static_cast<int>(vocabulary.size()) - 1) {
  for (size_t i = 0; i + 1 < vocabulary.size(); ++i) ids_.emplace(vocabulary[i], static_cast<int>(i));
}

int LmWordIndex::Id(const std::string& word) const {
  const auto it = ids_.find(word);
  return it == ids_.end() ? unknown_ : it->second;
}

int64_t LmPackedWeights::bytes() const {
  int64_t total = wte.bytes();
  for (const Block& b : blocks) total += b.qkv.bytes() + b.wo.bytes() + b.fc.bytes() + b.proj.bytes();
  return total;
}

Status PrepareLm(LmModel* model) {
  ATTN_RETURN_IF_ERROR(CheckModel(*model));
  const KernelId kernel = model->config.kernel;
  if (kernel == KernelId::kEigen || kernel == KernelId::kReference) {
    model->packed.reset();
    return Status::Ok();
  }
  auto packed = std::make_shared<LmPackedWeights>();
  packed->kernel = kernel;
  const ModelParameters& p = model->params;
  for (const BlockParametersT<float>& b : p.blocks) {
    LmPackedWeights::Block block;
    const AttentionParameters& a = b.attention;
    Matrix qkv(a.wq.rows(), a.wq.cols() + a.wk.cols() + a.wv.cols());
    qkv << a.wq, a.wk, a.wv;
    ATTN_RETURN_IF_ERROR(PackMatrix(kernel, qkv, false, &block.qkv));
    block.qkv_bias.resize(1, qkv.cols());
    block.qkv_bias << a.bq, a.bk, a.bv;
    block.qkv_sources = {a.wq.data(), a.wk.data(), a.wv.data(), a.bq.data(), a.bk.data(), a.bv.data()};
    ATTN_RETURN_IF_ERROR(PackMatrix(kernel, a.wo, false, &block.wo));
    ATTN_RETURN_IF_ERROR(PackMatrix(kernel, b.fc_w, false, &block.fc));
    ATTN_RETURN_IF_ERROR(PackMatrix(kernel, b.proj_w, false, &block.proj));
    packed->blocks.push_back(std::move(block));
  }
  ATTN_RETURN_IF_ERROR(PackMatrix(kernel, p.wte, true, &packed->wte));
  model->packed = std::move(packed);
  return Status::Ok();
}

int64_t LmCache::bytes() const {
  int64_t floats = 0;
  for (const auto* side : {&key, &value})
    for (const auto& layer : *side)
      for (const Matrix& m : layer) floats += m.size();
  return 4 * floats;
}

namespace {

// LmAdvance on a model CheckModel accepted: generation checks the model once, not once a word (the
// shape check builds every shape, 5 MB for the shipped model: most of a cached word's time).
Status AdvanceCheckedModel(const LmModel& model, const std::vector<int>& ids, const LmAblation& ablation, bool logit_lens,
                           LmCache* cache, LmTrace* trace, int traced_from) {
  const LmConfig& c = model.config;
  const ModelParameters& p = model.params;
  const int past = cache->length(), n = static_cast<int>(ids.size());
  if (n < 1) return Status(StatusCode::kInvalidArgument, "lm: ids: expected at least one word, got none");
  if (traced_from < 0 || traced_from >= n)
    return OutOfRange("lm: traced_from", traced_from, ("0–" + std::to_string(n - 1) + " (a position of ids)").c_str());
  if (past + n > c.seq_len)
    return OutOfRange("lm: positions (cached + new)", past + n, ("1–" + std::to_string(c.seq_len) + " (the context)").c_str());
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 0 || ids[i] >= c.vocab)
      return OutOfRange("lm: ids[" + std::to_string(i) + "]", ids[i], ("in [0, " + std::to_string(c.vocab) + ")").c_str());
  std::vector<std::vector<bool>> knocked(static_cast<size_t>(c.layers), std::vector<bool>(c.heads, false));
  for (const auto& [layer, head] : ablation.heads) {
    if (layer < 0 || layer >= c.layers) return OutOfRange("lm: ablation: layer", layer, ("0–" + std::to_string(c.layers - 1)).c_str());
    if (head < 0 || head >= c.heads) return OutOfRange("lm: ablation: head", head, ("0–" + std::to_string(c.heads - 1)).c_str());
    knocked[layer][head] = true;
  }
  const bool mean_mode = ablation.mode == LmAblationMode::kMean;
  if (mean_mode && !ablation.heads.empty()) ATTN_RETURN_IF_ERROR(CheckAblationMeans(c, ablation.means));

  // x0 = wte[id] + wpe[p + i]
  Matrix x(n, c.d_model);
  for (int i = 0; i < n; ++i) {
    x.row(i) = p.wte.row(ids[i]);
    if (p.wpe.size()) x.row(i) += p.wpe.row(past + i);
  }
  // The products' kernel: c.kernel (kEigen unless the caller chose a SIMD kernel, with its own
  // rounding order), on the weights PrepareLm packed where there are some. A word or few (a decode
  // step) reads each weight once either way: the SIMD GEMM runs fewer rows than its tile down B.
  const KernelId kernel = c.kernel;
  const LmPackedWeights* packed = PackedFor(model, kernel);
  // The traced rows: the last `traced` of the n.
  const int traced = n - traced_from;
  const auto traced_rows = [&](const Matrix& m) { return traced == n ? m : Matrix(m.bottomRows(traced)); };
  LmTrace t;
  t.residual_norms.push_back(RowNorms(traced_rows(x)));
  if (logit_lens) t.lens_logits.push_back(Readout(c, p, packed, traced_rows(x), kernel));
  // The engine's attention on queries, keys and values projected here (ProjectQkv): parameter-free,
  // so a call neither copies nor re-checks the block's weights (4 d² floats a layer and word).
  AttentionConfig attention = LayerAttentionConfig(AsModelConfig(c));
  attention.kernel = kernel;
  attention.project_inputs = attention.project_output = attention.use_bias = false;
  const int d_k = c.d_model / c.heads;
  const float eps = static_cast<float>(c.layer_norm_eps);
  LmCache next;
  for (int l = 0; l < c.layers; ++l) {
    const BlockParametersT<float>& bp = p.blocks[static_cast<size_t>(l)];
    const LmPackedWeights::Block* packed_block = packed ? &packed->blocks[static_cast<size_t>(l)] : nullptr;
    Matrix ln, fc, gelu, mlp, attended;
    std::vector<float> mean, rstd;
    LayerNormForward<float>(x, bp.ln1_gamma, bp.ln1_beta, &ln, &mean, &rstd, eps);
    AttentionInputs in;
    ATTN_RETURN_IF_ERROR(ProjectQkv(bp.attention, packed_block, kernel, ln, &in));
    // The cache's keys and values lent to the inputs for the call, not copied (~1 MB a layer for GPT-2
    // small at 128 positions), and given back before anything can return: on error the cache is unchanged.
    const auto lend = [&] {
      if (past > 0) in.past_key.swap(cache->key[l]), in.past_value.swap(cache->value[l]);
    };
    lend();
    AttentionResult r;
    const Status status = EngineAttention<float>::Forward(attention, in, AttentionParameters(), &r);
    lend();  // back
    ATTN_RETURN_IF_ERROR(status);
    for (int h = 0; h < c.heads; ++h)
      if (knocked[l][h]) {
        if (!mean_mode) {
          r.concat.middleCols(h * d_k, d_k).setZero();
          continue;
        }
        const std::vector<float>& m = ablation.means[l][h];
        for (int i = 0; i < n; ++i)
          for (int k = 0; k < d_k; ++k) r.concat(i, h * d_k + k) = m[static_cast<size_t>(k)];
      }
    // concat(heads) Wo + bo
    LinearForward<float>(r.concat, bp.attention.wo, bp.attention.bo, &attended,
                         PackedProducts{kernel, {packed_block ? &packed_block->wo : nullptr}});
    x += attended;
    LayerNormForward<float>(x, bp.ln2_gamma, bp.ln2_beta, &ln, &mean, &rstd, eps);
    const PackedProducts products{kernel, {packed_block ? &packed_block->fc : nullptr, packed_block ? &packed_block->proj : nullptr}};
    GeluMlpForward<float>(ln, bp.fc_w, bp.fc_b, bp.proj_w, bp.proj_b, &fc, &gelu, &mlp, products,
                          c.activation == LmActivation::kGeluErf);
    x += mlp;
    next.key.push_back(std::move(r.present_key));
    next.value.push_back(std::move(r.present_value));
    std::vector<Matrix> weights;
    for (const HeadIntermediates& head : r.heads)
      weights.push_back(traced == n ? head.weights : Matrix(head.weights.bottomRightCorner(traced, traced)));
    t.weights.push_back(std::move(weights));
    t.residual_norms.push_back(RowNorms(traced_rows(x)));
    if (logit_lens && l + 1 < c.layers) t.lens_logits.push_back(Readout(c, p, packed, traced_rows(x), kernel));
  }
  t.logits = Readout(c, p, packed, traced_rows(x), kernel);
  ATTN_RETURN_IF_ERROR(CheckFinite("lm: logits", t.logits));
  if (logit_lens) t.lens_logits.push_back(t.logits);
  *cache = std::move(next);
  if (trace) *trace = std::move(t);
  return Status::Ok();
}

}  // namespace

Status LmAdvance(const LmModel& model, const std::vector<int>& ids, const LmAblation& ablation, bool logit_lens,
                 LmCache* cache, LmTrace* trace, int traced_from) {
  ATTN_RETURN_IF_ERROR(CheckModel(model));
  return AdvanceCheckedModel(model, ids, ablation, logit_lens, cache, trace, traced_from);
}

Matrix LmSoftmax(const Matrix& logits_row, float temperature) {
  const Eigen::RowVectorXd z = logits_row.row(0).cast<double>() / static_cast<double>(temperature);
  const Eigen::RowVectorXd e = (z.array() - z.maxCoeff()).exp().matrix();
  return (e / e.sum()).cast<float>();
}

Status LmGenerate(const LmModel& model, const std::vector<int>& prompt, const LmGenerateConfig& g,
                  std::vector<LmGenerated>* out) {
  const LmConfig& c = model.config;
  if (prompt.empty()) return Status(StatusCode::kInvalidArgument, "lm: prompt: expected at least one word, got none");
  const int room = c.seq_len - static_cast<int>(prompt.size());
  if (room < 1)
    return OutOfRange("lm: prompt: words", static_cast<int>(prompt.size()),
                      ("1–" + std::to_string(c.seq_len - 1) + " (the context less one)").c_str());
  if (g.tokens < 1 || g.tokens > room)
    return OutOfRange("lm: tokens", g.tokens, ("1–" + std::to_string(room) + " (the context less the prompt)").c_str());
  if (!(std::isfinite(g.temperature) && g.temperature >= 0))
    return Status(StatusCode::kOutOfRange,
                  "lm: temperature: expected finite and ≥ 0 (0: greedy), got " + std::to_string(g.temperature));
  ATTN_RETURN_IF_ERROR(CheckModel(model));
  SeededRandom rng(g.seed);
  LmCache cache;
  LmTrace trace;
  std::vector<LmGenerated> words;
  std::vector<int> next = prompt;
  const int choosable = g.exclude_unknown ? c.vocab - 1 : c.vocab;  // ids [0, choosable) may be chosen
  for (int k = 0; k < g.tokens; ++k) {
    // Only the last position's scores are read: the prompt's others are never read out (V·d_model
    // multiply-adds each: a third of GPT-2 small's prefill).
    ATTN_RETURN_IF_ERROR(AdvanceCheckedModel(model, next, LmAblation(), false, &cache, &trace,
                                             static_cast<int>(next.size()) - 1));
    Matrix last = trace.logits;
    const Matrix probs = LmSoftmax(last);
    if (g.exclude_unknown) last(0, c.vocab - 1) = -std::numeric_limits<float>::infinity();
    int chosen = 0;
    if (g.temperature == 0) {
      Eigen::Index best = 0;
      last.row(0).maxCoeff(&best);  // the first maximum: lowest id on ties
      chosen = static_cast<int>(best);
    } else {
      const Matrix q = LmSoftmax(last, g.temperature);
      const double u = rng.Unit();
      double cumulative = 0;
      chosen = choosable - 1;  // where rounding leaves the sum just under u
      for (int w = 0; w < choosable; ++w) {
        cumulative += q(0, w);
        if (u < cumulative) {
          chosen = w;
          break;
        }
      }
    }
    words.push_back({chosen, probs(0, chosen), cache.length()});
    next.assign(1, chosen);
  }
  *out = std::move(words);
  return Status::Ok();
}

}  // namespace attn::train
