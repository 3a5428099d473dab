// Converts inputs and parameters between scalar types: float -> double to run the reference in
// double precision on exactly the values the float engine saw (attn::reference::ToDouble).
#pragma once

#include <vector>

#include "attn/attention.h"

namespace attn::pipeline {

template <typename To, typename From>
std::vector<MatrixT<To>> CastList(const std::vector<MatrixT<From>>& list) {
  std::vector<MatrixT<To>> out;
  for (const auto& m : list) out.push_back(m.template cast<To>());
  return out;
}

template <typename To, typename From>
AttentionInputsT<To> CastInputs(const AttentionInputsT<From>& in) {
  AttentionInputsT<To> out;
  out.query = in.query.template cast<To>();
  out.key = in.key.template cast<To>();
  out.value = in.value.template cast<To>();
  out.past_key = CastList<To>(in.past_key);
  out.past_value = CastList<To>(in.past_value);
  out.float_mask = CastList<To>(in.float_mask);
  out.bool_mask = in.bool_mask;
  out.bool_mask_meaning = in.bool_mask_meaning;
  out.key_padding = in.key_padding;
  out.query_offset = in.query_offset;
  return out;
}

template <typename To, typename From>
AttentionParametersT<To> CastParameters(const AttentionParametersT<From>& p) {
  AttentionParametersT<To> out;
  out.wq = p.wq.template cast<To>();
  out.wk = p.wk.template cast<To>();
  out.wv = p.wv.template cast<To>();
  out.wo = p.wo.template cast<To>();
  out.bq = p.bq.template cast<To>();
  out.bk = p.bk.template cast<To>();
  out.bv = p.bv.template cast<To>();
  out.bo = p.bo.template cast<To>();
  out.bilinear = CastList<To>(p.bilinear);
  out.additive_wq = CastList<To>(p.additive_wq);
  out.additive_wk = CastList<To>(p.additive_wk);
  out.additive_concat = CastList<To>(p.additive_concat);
  out.additive_v = CastList<To>(p.additive_v);
  out.position_table = p.position_table.template cast<To>();
  out.relative_center = p.relative_center.template cast<To>();
  out.relative_sharpness = p.relative_sharpness.template cast<To>();
  return out;
}

}  // namespace attn::pipeline
