#include "attn/train/circuits.h"

#include <cmath>
#include <limits>
#include <string>

#include "attn/positions.h"
#include "attn/train/layers.h"

namespace attn::train {
namespace {

using MatD = Mat<double>;

// One head's slices of its block, in double, with the block's LN1 γ folded into the reading side
// (W_Q, W_K, W_V) for the composition scores.
struct HeadWeights {
  MatD q, k, v;  // (d, d_k) W_Q,h W_K,h W_V,h
  MatD o;        // (d_k, d) W_O,h
  MatD bq, bk, bv;  // (1, d_k)
  MatD q_folded, k_folded, v_folded;  // diag(γ) W_·,h
  // The norms a composition score divides by, once per head: ‖V O‖ (what it writes), ‖Q' K'ᵀ‖ and
  // ‖V' O‖ (what it reads, γ folded in).
  double ov_norm = 0, qk_folded_norm = 0, ov_folded_norm = 0;
};

// The products here are small ((V or d) × d × d_k): plain loops in double, one function for all of
// them, rather than Eigen's blocked product kernels instantiated for double (tens of KB of the page's
// wasm, for a few microseconds of work).
MatD Mul(const MatD& a, const MatD& b) {
  MatD out = MatD::Zero(a.rows(), b.cols());
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index k = 0; k < a.cols(); ++k) {
      const double x = a(i, k);
      for (Eigen::Index j = 0; j < b.cols(); ++j) out(i, j) += x * b(k, j);
    }
  return out;
}
MatD Transposed(const MatD& a) { return a.transpose(); }
// Rows of x plus the row vector b.
MatD PlusRow(MatD x, const MatD& b) {
  for (Eigen::Index i = 0; i < x.rows(); ++i) x.row(i) += b.row(0);
  return x;
}

// ‖U M Wᵀ‖_F from the small factors: ‖X‖²_F = tr(XᵀX) = tr((UᵀU) M (WᵀW) Mᵀ). U (d, a), M (a, b),
// W (d, b): every product here has rank at most d_k, so nothing (d, d) is formed.
double FrobeniusOfProduct(const MatD& u, const MatD& m, const MatD& w) {
  const double squared = Mul(Mul(Mul(Mul(Transposed(u), u), m), Mul(Transposed(w), w)), Transposed(m)).trace();
  return std::sqrt(std::max(squared, 0.0));
}

HeadWeights Slice(const ModelConfig& c, const BlockParametersT<float>& b, int h) {
  const int d = c.d_model, dk = HeadDim(c);
  const AttentionParameters& a = b.attention;
  HeadWeights w;
  w.q = a.wq.block(0, h * dk, d, dk).cast<double>();
  w.k = a.wk.block(0, h * dk, d, dk).cast<double>();
  w.v = a.wv.block(0, h * dk, d, dk).cast<double>();
  w.o = a.wo.block(h * dk, 0, dk, d).cast<double>();
  w.bq = a.bq.block(0, h * dk, 1, dk).cast<double>();
  w.bk = a.bk.block(0, h * dk, 1, dk).cast<double>();
  w.bv = a.bv.block(0, h * dk, 1, dk).cast<double>();
  w.q_folded = w.q, w.k_folded = w.k, w.v_folded = w.v;
  if (c.layer_norm) {
    const Eigen::Array<double, Eigen::Dynamic, 1> gamma = b.ln1_gamma.row(0).transpose().cast<double>().array();
    w.q_folded.array().colwise() *= gamma;
    w.k_folded.array().colwise() *= gamma;
    w.v_folded.array().colwise() *= gamma;
  }
  const MatD identity = MatD::Identity(dk, dk);
  w.ov_norm = FrobeniusOfProduct(w.v, identity, Transposed(w.o));
  w.qk_folded_norm = FrobeniusOfProduct(w.q_folded, identity, w.k_folded);
  w.ov_folded_norm = FrobeniusOfProduct(w.v_folded, identity, Transposed(w.o));
  return w;
}

// a_l(x) for every row: LN1 of block l, or the rows themselves.
MatD AttentionInput(const ModelConfig& c, const BlockParametersT<float>& b, const MatD& x) {
  if (!c.layer_norm) return x;
  MatD y;
  std::vector<double> mean, rstd;
  LayerNormForward<double>(x, b.ln1_gamma.cast<double>(), b.ln1_beta.cast<double>(), &y, &mean, &rstd);
  return y;
}

// scale: the model's (1/√d_k, or 1 when config.scaled is false).
MatD QkOf(const HeadWeights& w, const MatD& input, double scale) {
  return Mul(PlusRow(Mul(input, w.q), w.bq), Transposed(PlusRow(Mul(input, w.k), w.bk))) * scale;
}

double Ratio(double num, double a, double b) { return a > 0 && b > 0 ? std::min(num / (a * b), 1.0) : 0.0; }

Status Expect(bool ok, const std::string& what) {
  return ok ? Status::Ok() : Status(StatusCode::kInvalidArgument, "circuits: " + what);
}

Status CheckShapes(const ModelConfig& c, const ModelParameters& p, const std::vector<int>& class_of_token) {
  ATTN_RETURN_IF_ERROR(ValidateModelConfig(c));
  ATTN_RETURN_IF_ERROR(Expect(c.kind == ModelKind::kTransformer, "expected a transformer, got a cnn"));
  const int d = c.d_model, hd = c.heads * HeadDim(c);
  ATTN_RETURN_IF_ERROR(Expect(p.wte.rows() == c.vocab && p.wte.cols() == d, "wte: expected (vocab, d_model)"));
  ATTN_RETURN_IF_ERROR(Expect(p.out_w.rows() == d && p.out_w.cols() == c.classes, "out_w: expected (d_model, classes)"));
  ATTN_RETURN_IF_ERROR(Expect(c.positions != Positions::kLearned || (p.wpe.rows() == c.seq_len && p.wpe.cols() == d),
                              "wpe: expected (seq_len, d_model)"));
  ATTN_RETURN_IF_ERROR(Expect(!c.layer_norm || (p.lnf_gamma.rows() == 1 && p.lnf_gamma.cols() == d), "lnf_gamma: expected (1, d_model)"));
  ATTN_RETURN_IF_ERROR(Expect(static_cast<int>(p.blocks.size()) == c.layers,
                              "blocks: expected " + std::to_string(c.layers) + ", got " + std::to_string(p.blocks.size())));
  for (const BlockParametersT<float>& b : p.blocks) {
    const AttentionParameters& a = b.attention;
    const bool ok = a.wq.rows() == d && a.wq.cols() == hd && a.wk.rows() == d && a.wk.cols() == hd && a.wv.rows() == d &&
                    a.wv.cols() == hd && a.wo.rows() == hd && a.wo.cols() == d && a.bq.size() == hd && a.bk.size() == hd &&
                    a.bv.size() == hd && (!c.layer_norm || b.ln1_gamma.size() == d) && (!c.layer_norm || b.ln1_beta.size() == d);
    ATTN_RETURN_IF_ERROR(Expect(ok, "a block's attention or LN1 parameters: expected wq wk wv (d_model, heads·d_k), wo (heads·d_k, d_model)"));
  }
  ATTN_RETURN_IF_ERROR(Expect(static_cast<int>(class_of_token.size()) == c.vocab,
                              "class_of_token: expected " + std::to_string(c.vocab) + " entries, got " +
                                  std::to_string(class_of_token.size())));
  for (int cls : class_of_token)
    ATTN_RETURN_IF_ERROR(Expect(cls >= -1 && cls < c.classes, "class_of_token: expected entries in −1 … classes − 1, got " +
                                                                   std::to_string(cls)));
  return Status::Ok();
}

}  // namespace

std::vector<int> ClassOfToken(TaskKind task, int vocab, int classes) {
  std::vector<int> out(static_cast<size_t>(std::max(vocab, 0)), -1);
  for (int s = 0; s < vocab; ++s)
    for (int c = 0; c < classes; ++c)
      if (TokenText(task, s) == ClassText(task, c)) {
        out[s] = c;
        break;
      }
  return out;
}

Status ComputeCircuits(const ModelConfig& c, const ModelParameters& p, const std::vector<int>& class_of_token, Circuits* out) {
  ATTN_RETURN_IF_ERROR(CheckShapes(c, p, class_of_token));
  const double scale = c.scaled ? 1.0 / std::sqrt(static_cast<double>(HeadDim(c))) : 1.0;
  const MatD embedding = p.wte.cast<double>();
  MatD positions;  // (seq_len, d): the table added to the embeddings, if any
  if (c.positions == Positions::kLearned) positions = p.wpe.cast<double>();
  if (c.positions == Positions::kSinusoidal) positions = SinusoidalEncoding<double>(c.seq_len, c.d_model, 0, 10000.0);
  // The read-out with the final LayerNorm's γ folded in: diag(γ_f) W_out.
  MatD read_out = p.out_w.cast<double>();
  if (c.layer_norm) read_out.array().colwise() *= p.lnf_gamma.row(0).transpose().cast<double>().array();

  Circuits result;
  std::vector<std::vector<HeadWeights>> weights(static_cast<size_t>(c.layers));
  for (int l = 0; l < c.layers; ++l) {
    const BlockParametersT<float>& block = p.blocks[l];
    const MatD tokens_in = AttentionInput(c, block, embedding);
    const MatD positions_in = positions.size() ? AttentionInput(c, block, positions) : MatD();
    for (int h = 0; h < c.heads; ++h) {
      weights[l].push_back(Slice(c, block, h));
      const HeadWeights& w = weights[l].back();
      HeadCircuits head;
      head.layer = l + 1, head.head = h + 1;
      head.qk = QkOf(w, tokens_in, scale).cast<float>();
      if (positions_in.size()) head.qk_positions = QkOf(w, positions_in, scale).cast<float>();
      const MatD ov = Mul(Mul(PlusRow(Mul(tokens_in, w.v), w.bv), w.o), read_out);  // (V, C)
      head.ov = ov.cast<float>();
      int copiers = 0, candidates = 0;
      for (int s = 0; s < c.vocab; ++s) {
        if (class_of_token[s] < 0) continue;
        Eigen::Index best = 0;
        ov.row(s).maxCoeff(&best);
        ++candidates;
        copiers += best == class_of_token[s];
      }
      head.copying = candidates ? static_cast<double>(copiers) / candidates : std::numeric_limits<double>::quiet_NaN();
      result.heads.push_back(std::move(head));
    }
  }
  // Composition: every head of an earlier layer with every head of a later one. γ of the later
  // block's LN1 folds into its reading side; the earlier head's output is what it writes.
  for (int l1 = 0; l1 < c.layers; ++l1)
    for (int l2 = l1 + 1; l2 < c.layers; ++l2)
      for (int h1 = 0; h1 < c.heads; ++h1)
        for (int h2 = 0; h2 < c.heads; ++h2) {
          const HeadWeights& a = weights[l1][h1];
          const HeadWeights& b = weights[l2][h2];
          HeadComposition comp;
          comp.from_layer = l1 + 1, comp.from_head = h1 + 1, comp.to_layer = l2 + 1, comp.to_head = h2 + 1;
          // Q: V_a (O_a Q_b) K_bᵀ;  K: Q_b (K_bᵀ O_aᵀ) V_aᵀ;  V: V_a (O_a V_b) O_b.
          comp.q = Ratio(FrobeniusOfProduct(a.v, Mul(a.o, b.q_folded), b.k_folded), a.ov_norm, b.qk_folded_norm);
          comp.k = Ratio(FrobeniusOfProduct(b.q_folded, Mul(Transposed(b.k_folded), Transposed(a.o)), a.v), b.qk_folded_norm,
                         a.ov_norm);
          comp.v = Ratio(FrobeniusOfProduct(a.v, Mul(a.o, b.v_folded), Transposed(b.o)), a.ov_norm, b.ov_folded_norm);
          result.compositions.push_back(comp);
        }
  *out = std::move(result);
  return Status::Ok();
}

}  // namespace attn::train
