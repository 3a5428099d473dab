// The layers the language model adds to layers.h, each forward beside its backward, templated on
// the scalar (float to train, double for the gradient checks). Rows are positions of the whole
// batch stacked: R = B·T. Backward functions ADD into the parameter gradients and WRITE the input
// gradient, as in layers.h. The model also uses layers.h's embedding, Linear, LayerNorm and softmax
// cross-entropy (a row of V = 4096 classes is just a wider row there).
#pragma once

#include <cmath>

#include "attn/train/layers.h"

namespace attn::train {

// [SECTION] GELU, tanh form (GPT-2's): y = ½ x (1 + tanh(u)), u = √(2/π) (x + 0.044715 x³)
// x: (R, c) -> y: (R, c)
template <typename T>
struct GeluConstants {
  static constexpr T kSqrt2OverPi = T(0.7978845608028654);  // √(2/π)
  static constexpr T kCubic = T(0.044715);
};
// Written on whole arrays so Eigen vectorises tanh (a scalar std::tanh per entry was a fifth of a
// training step).
template <typename T>
void GeluForward(const Mat<T>& x, Mat<T>* y) {
  using K = GeluConstants<T>;
  const auto v = x.array();
  *y = (T(0.5) * v * (T(1) + (K::kSqrt2OverPi * (v + K::kCubic * v.cube())).tanh())).matrix();
}
// dy/dx = ½ (1 + t) + ½ x (1 − t²) √(2/π) (1 + 3·0.044715 x²), t = tanh(u)
// x: (R, c)   d_y: (R, c) -> d_x: (R, c)
template <typename T>
void GeluBackward(const Mat<T>& x, const Mat<T>& d_y, Mat<T>* d_x) {
  using K = GeluConstants<T>;
  const auto v = x.array();
  const Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> t =
      (K::kSqrt2OverPi * (v + K::kCubic * v.cube())).tanh();
  const auto du = K::kSqrt2OverPi * (T(1) + T(3) * K::kCubic * v.square());
  *d_x = (d_y.array() * (T(0.5) * (T(1) + t) + T(0.5) * v * (T(1) - t.square()) * du)).matrix();
}

// [SECTION] GELU, exact form (Hugging Face's "gelu", PyTorch's default nn.GELU): y = x Φ(x) =
// ½ x (1 + erf(x / √2)). Checkpoints trained with it are read with it; attnlab's own use tanh.
// x: (R, c) -> y: (R, c)
template <typename T>
void GeluErfForward(const Mat<T>& x, Mat<T>* y) {
  const T inv_sqrt2 = T(0.7071067811865476);
  *y = x.unaryExpr([inv_sqrt2](T v) { return T(0.5) * v * (T(1) + std::erf(v * inv_sqrt2)); });
}
// dy/dx = Φ(x) + x φ(x), φ(x) = e^(−x²/2) / √(2π)
// x: (R, c)   d_y: (R, c) -> d_x: (R, c)
template <typename T>
void GeluErfBackward(const Mat<T>& x, const Mat<T>& d_y, Mat<T>* d_x) {
  const T inv_sqrt2 = T(0.7071067811865476), inv_sqrt2pi = T(0.3989422804014327);
  *d_x = x.binaryExpr(d_y, [=](T v, T g) {
    return g * (T(0.5) * (T(1) + std::erf(v * inv_sqrt2)) + v * inv_sqrt2pi * std::exp(T(-0.5) * v * v));
  });
}

// [SECTION] Tied unembedding: logits = x wteᵀ + b, the input embedding table read backwards (one
// matrix, so a word's input vector and its output direction are the same row)
// x: (R, d)   wte: (V, d)   b: (1, V) -> logits: (R, V)
template <typename T, typename Products = EigenProducts>
void TiedUnembedForward(const Mat<T>& x, const Mat<T>& wte, const Mat<T>& b, Mat<T>* logits,
                        const Products& products = Products()) {
  Product<false, true, false>(products, x, wte, logits);
  logits->rowwise() += b.row(0);
}
// d_logits: (R, V) -> d_x = d_logits wte: (R, d), d_wte += d_logitsᵀ x (the embedding's own
// gradient is added to the same matrix by EmbeddingBackward), d_b += Σ_r d_logits
template <typename T, typename Products = EigenProducts>
void TiedUnembedBackward(const Mat<T>& x, const Mat<T>& wte, const Mat<T>& d_logits, Mat<T>* d_x, Mat<T>* d_wte,
                         Mat<T>* d_b, const Products& products = Products()) {
  Product<false, false, false>(products, d_logits, wte, d_x);
  Product<true, false, true>(products, d_logits, x, d_wte);
  *d_b += d_logits.colwise().sum();
}

// [SECTION] GPT-2's MLP: y = GELU(x W_fc + b_fc) W_proj + b_proj (tanh GELU, or erf with `erf`)
// x: (R, d)   fc_w: (d, 4d)   fc_b: (1, 4d)   proj_w: (4d, d)   proj_b: (1, d)
// -> y: (R, d); fc, gelu: (R, 4d) kept for backward
template <typename T, typename Products = EigenProducts>
void GeluMlpForward(const Mat<T>& x, const Mat<T>& fc_w, const Mat<T>& fc_b, const Mat<T>& proj_w,
                    const Mat<T>& proj_b, Mat<T>* fc, Mat<T>* gelu, Mat<T>* y, const Products& products = Products(),
                    bool erf = false) {
  LinearForward<T>(x, fc_w, fc_b, fc, products);
  if (erf)
    GeluErfForward<T>(*fc, gelu);
  else
    GeluForward<T>(*fc, gelu);
  LinearForward<T>(*gelu, proj_w, proj_b, y, products);
}
// d_y: (R, d) -> d_x: (R, d); the four parameter gradients added to
template <typename T, typename Products = EigenProducts>
void GeluMlpBackward(const Mat<T>& x, const Mat<T>& fc_w, const Mat<T>& proj_w, const Mat<T>& fc,
                     const Mat<T>& gelu, const Mat<T>& d_y, Mat<T>* d_x, Mat<T>* d_fc_w, Mat<T>* d_fc_b,
                     Mat<T>* d_proj_w, Mat<T>* d_proj_b, const Products& products = Products(), bool erf = false) {
  Mat<T> d_gelu, d_fc;
  LinearBackward<T>(gelu, proj_w, d_y, &d_gelu, d_proj_w, d_proj_b, products);
  if (erf)
    GeluErfBackward<T>(fc, d_gelu, &d_fc);
  else
    GeluBackward<T>(fc, d_gelu, &d_fc);
  LinearBackward<T>(x, fc_w, d_fc, d_x, d_fc_w, d_fc_b, products);
}

}  // namespace attn::train
