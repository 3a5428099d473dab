// The fused forward pass (fused_forward.h): additive positions, the projections on the packed
// weights, the key/value caches, FlashAttention per head (kernels/simd/flash_attention.h) straight
// into its columns of the concatenation, the output projection. Memory O(n·d).
#include "fused_forward.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <utility>

#include "attn/positions.h"
#include "attn/validate.h"
#include "call_budget.h"
#include "thread_crossover.h"
#include "validate_attention.h"
#include "worker_pool.h"

namespace attn::fused {
namespace {

constexpr std::size_t kAlignFloats = 16;  // 64 bytes: a cache line, an AVX-512 vector

std::size_t RoundUpToAlignment(std::size_t floats) { return (floats + kAlignFloats - 1) / kAlignFloats * kAlignFloats; }

bool AdditivePositions(const AttentionConfig& c) {
  return c.position == PositionEncoding::kSinusoidal || c.position == PositionEncoding::kLearned;
}

// x plus the additive position encoding of rows at first, first + 1, … (as pipeline::WithPositions
// adds it), into *out; x itself for the other encodings. The sinusoidal table is kept in *table
// (first position *table_first) and computed again only when the shape or the first position change.
const Matrix& WithPositions(const Layer& layer, const Matrix& x, long long first, Matrix* table,
                            long long* table_first, Matrix* out) {
  const AttentionConfig& c = layer.config;
  if (c.position == PositionEncoding::kSinusoidal) {
    if (*table_first != first || table->rows() != x.rows() || table->cols() != x.cols()) {
      *table = SinusoidalEncoding<float>(x.rows(), x.cols(), first, c.position_base);
      *table_first = first;
    }
    *out = x + *table;
    return *out;
  }
  if (c.position == PositionEncoding::kLearned) {
    *out = x + layer.position_table.middleRows(first, x.rows());
    return *out;
  }
  return x;
}

// out = x W (+ b) on the packed W.   x: (rows, w.k) -> (rows, w.n)
// Rows each thread of a threaded projection gets at least (n = 128 splits in two).
constexpr int kMinRowsPerThread = 64;

// out = x W (+ b) on the packed W, its rows over `threads` threads when there are at least
// 2·kMinRowsPerThread (rows of a GEMM are independent: the split changes no bit). False when a
// worker failed (out of memory).   x: (rows, w.k) -> (rows, w.n)
bool Project(const Layer& layer, const PackedProjection& w, const Matrix& x, Matrix* out, int threads = 1) {
  out->resize(x.rows(), w.n);
  const auto rows = [&](int begin, int end) {
    layer.table->gemm_packed(end - begin, w.n, w.k, x.data() + static_cast<std::size_t>(begin) * x.cols(),
                             static_cast<int>(x.cols()), layer.Weights(w), w.bias.size() ? w.bias.data() : nullptr,
                             out->data() + static_cast<std::size_t>(begin) * w.n, w.n);
  };
  if (threads <= 1 || x.rows() < 2 * kMinRowsPerThread) {
    rows(0, static_cast<int>(x.rows()));
    return true;
  }
  return parallel::ForRowBlocks(threads, static_cast<int>(x.rows()), kMinRowsPerThread, rows);
}

void Pack(const simd::KernelTable& table, const Matrix& w, PackedProjection* p, std::size_t* total) {
  p->k = static_cast<int>(w.rows());
  p->n = static_cast<int>(w.cols());
  p->offset = *total;
  *total += RoundUpToAlignment(table.packed_size(p->k, p->n));
}

// Flash attention's weighted sum Σ_j p_j v_j (every p_j ≤ 1) reaches keys·max|v| before it is
// divided by Σ_j p_j ≥ 1: the power of two 2^k that brings keys·max|v| of a column under FLT_MAX / 2
// (exact scaling), 0 when it is there already.
int ValueShift(int keys, float column_max) {
  const double need = static_cast<double>(keys) * column_max / (FLT_MAX / 2.0);
  return need > 1 ? std::ilogb(need) + 1 : 0;  // 2^k > need
}

}  // namespace

CallInputs InputsOf(const AttentionInputs& inputs) {
  CallInputs in;
  in.query = &inputs.query;
  in.key = inputs.key.size() ? &inputs.key : nullptr;
  in.value = inputs.value.size() ? &inputs.value : nullptr;
  in.past_key = &inputs.past_key;
  in.past_value = &inputs.past_value;
  return in;
}

void BuildLayer(const AttentionConfig& config, AttentionParameters complete, Layer* layer) {
  layer->config = config;
  layer->table = simd::FindKernelTable(config.kernel);
  const simd::KernelTable& table = *layer->table;
  std::size_t total = 0;
  if (config.project_inputs) {
    Pack(table, complete.wq, &layer->wq, &total);
    Pack(table, complete.wk, &layer->wk, &total);
    Pack(table, complete.wv, &layer->wv, &total);
  }
  if (config.project_output) Pack(table, complete.wo, &layer->wo, &total);
  layer->packed.resize(total + kAlignFloats);
  const std::uintptr_t address = reinterpret_cast<std::uintptr_t>(layer->packed.data());
  layer->packed_start = (kAlignFloats - address / sizeof(float) % kAlignFloats) % kAlignFloats;
  const auto pack = [&](const Matrix& w, const PackedProjection& p) {
    table.pack_b(w.data(), static_cast<int>(w.cols()), false, p.k, p.n, layer->packed.data() + layer->packed_start + p.offset);
  };
  if (config.project_inputs) {
    pack(complete.wq, layer->wq), pack(complete.wk, layer->wk), pack(complete.wv, layer->wv);
    if (config.use_bias) {
      layer->wq.bias = std::move(complete.bq);
      layer->wk.bias = std::move(complete.bk);
      layer->wv.bias = std::move(complete.bv);
    }
  }
  if (config.project_output) {
    pack(complete.wo, layer->wo);
    if (config.use_bias) layer->wo.bias = std::move(complete.bo);
  }
  if (config.position == PositionEncoding::kLearned) layer->position_table = std::move(complete.position_table);
}

namespace {

double Seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Run on `threads` threads (1: the caller alone).
Status RunOn(const Layer& layer, const CallInputs& in, const pipeline::AttentionDims& d, Workspace* ws,
             Matrix* output, int threads) {
  const AttentionConfig& c = layer.config;
  const bool rope = c.position == PositionEncoding::kRope;
  const bool has_past = in.past_key != nullptr && !in.past_key->empty();

  parallel::Prewarm(threads);  // the workers start while this thread projects the inputs

  // Inputs after additive positions. Self-attention shares one matrix for queries and keys when
  // their positions agree (no additive encoding, or the queries start where the keys do).
  const Matrix& query_in =
      WithPositions(layer, *in.query, d.query_offset, &ws->query_positions, &ws->query_positions_first, &ws->query_in);
  const Matrix& key_in = (in.key == nullptr && (!AdditivePositions(c) || d.query_offset == d.past))
                             ? query_in
                             : WithPositions(layer, in.key ? *in.key : *in.query, d.past, &ws->key_positions,
                                             &ws->key_positions_first, &ws->key_in);
  const Matrix& value_in = in.value ? *in.value : key_in;

  // Projections.   (n, h d_k), (m, h_kv d_k), (m, h_kv d_v)
  const Matrix* q_all = &query_in;
  const Matrix* k_new = &key_in;
  const Matrix* v_new = &value_in;
  if (c.project_inputs) {
    if (!Project(layer, layer.wq, query_in, &ws->q_all, threads) || !Project(layer, layer.wk, key_in, &ws->k_new, threads) ||
        !Project(layer, layer.wv, value_in, &ws->v_new, threads))
      return budget::AllocationFailed("ForwardOutput");
    q_all = &ws->q_all, k_new = &ws->k_new, v_new = &ws->v_new;
  }
  // Value columns whose weighted sum would overflow float32 (n·|v| > FLT_MAX: the answer, at most
  // |v|, is finite) are scaled down by a power of two below and their output columns back up. Without
  // a cache the new values are all the values: their largest sizes and finiteness in one pass.
  const int value_columns = d.kv_heads * d.d_v;
  ws->value_max.resize(static_cast<std::size_t>(value_columns));
  const bool values_finite =
      has_past ? validate::NoInfOrNan(*v_new)
               : layer.table->columns_max_abs(v_new->data(), d.keys, value_columns, static_cast<int>(v_new->cols()),
                                              ws->value_max.data());
  if (!values_finite) {  // as Forward checks its value rows; the message built only now
    std::vector<Matrix> present_value(d.kv_heads);
    for (int g = 0; g < d.kv_heads; ++g) {
      const Matrix fresh = v_new->middleCols(g * d.d_v, d.d_v);
      Matrix& v = present_value[g];
      v.resize(d.past + d.m, d.d_v);
      if (has_past) v.topRows(d.past) = (*in.past_value)[g];
      v.bottomRows(d.m) = fresh;
    }
    return validate::ValuesFinite(present_value);
  }

  // Keys (and values) per key/value head: in place in the projection unless a cache goes first or
  // RoPE rotates them (the cache is stored rotated, so only the new rows turn).
  const bool own_keys = has_past || rope;
  if (own_keys) {
    ws->present_key.resize(d.kv_heads);
    ws->present_value.resize(has_past ? d.kv_heads : 0);
    for (int g = 0; g < d.kv_heads; ++g) {
      Matrix& k = ws->present_key[g];
      if (!has_past) {
        k = k_new->middleCols(g * d.d_k, d.d_k);
        if (rope) ApplyRope(&k, d.past, c.position_base);
        continue;
      }
      ws->rotated = k_new->middleCols(g * d.d_k, d.d_k);
      if (rope) ApplyRope(&ws->rotated, d.past, c.position_base);
      k.resize(d.past + d.m, d.d_k);
      k.topRows(d.past) = (*in.past_key)[g];
      k.bottomRows(d.m) = ws->rotated;
      Matrix& v = ws->present_value[g];
      v.resize(d.past + d.m, d.d_v);
      v.topRows(d.past) = (*in.past_value)[g];
      v.bottomRows(d.m) = v_new->middleCols(g * d.d_v, d.d_v);
    }
  }

  ws->value_shift.assign(static_cast<std::size_t>(value_columns), 0);
  if (has_past)  // the cache's values were checked finite with the inputs
    for (int g = 0; g < d.kv_heads; ++g)
      layer.table->columns_max_abs(ws->present_value[g].data(), d.keys, d.d_v, d.d_v, ws->value_max.data() + g * d.d_v);
  bool shifted = false;
  for (int c = 0; c < value_columns; ++c) {
    ws->value_shift[c] = ValueShift(d.keys, ws->value_max[c]);
    shifted = shifted || ws->value_shift[c] > 0;
  }
  if (shifted) {
    if (!has_past) ws->scaled_value = *v_new, v_new = &ws->scaled_value;
    for (int c = 0; c < value_columns; ++c) {
      const float factor = std::ldexp(1.0f, -ws->value_shift[c]);
      if (has_past) ws->present_value[c / d.d_v].col(c % d.d_v) *= factor;
      else ws->scaled_value.col(c) *= factor;
    }
  }

  // Heads, each straight into its columns of the concatenation (the output itself without Wo). Work
  // items: each head, split into `parts` interleaved sets of query tiles when there are fewer heads
  // than threads (lcm(h, threads) items, so the threads get equal shares); bit-identical for every
  // thread count (FlashAttentionArgs::tile_first).
  Matrix& concat = c.project_output ? ws->concat : ws->output;
  concat.resize(d.n, d.heads * d.d_v);
  const int parts = threads / std::gcd(d.heads, threads), items = d.heads * parts;
  std::atomic<int> first_overflow{items};  // the lowest item, as one thread finds it in order
  const auto run_item = [&](int item) {
    const int head = item / parts, part = item % parts, g = head / d.group;
    simd::FlashAttentionArgs args;
    Matrix own_rotated;  // threads > 1: each item rotates its own copy
    Matrix& rotated = threads == 1 ? ws->rotated : own_rotated;
    if (rope) {
      rotated = q_all->middleCols(head * d.d_k, d.d_k);
      ApplyRope(&rotated, d.query_offset, c.position_base);
      args.q = rotated.data(), args.ldq = d.d_k;
    } else {
      args.q = q_all->data() + head * d.d_k, args.ldq = static_cast<int>(q_all->cols());
    }
    if (own_keys) {
      args.k = ws->present_key[g].data(), args.ldk = d.d_k;
    } else {
      args.k = k_new->data() + g * d.d_k, args.ldk = static_cast<int>(k_new->cols());
    }
    if (has_past) {
      args.v = ws->present_value[g].data(), args.ldv = d.d_v;
    } else {
      args.v = v_new->data() + g * d.d_v, args.ldv = static_cast<int>(v_new->cols());
    }
    args.out = concat.data() + head * d.d_v, args.ldo = static_cast<int>(concat.cols());
    args.n = d.n, args.m = d.keys, args.d_k = d.d_k, args.d_v = d.d_v;
    // Scaled as Forward scales: raw · scale, then · (1/τ) in the normaliser.
    args.scale = EffectiveScale(c, d.d_k), args.inv_temperature = 1.0f / c.temperature;
    args.query_offset = d.query_offset;
    args.causal = c.causal;
    args.window_left = c.window_left, args.window_right = c.window_right;
    args.tile_first = part, args.tile_stride = parts;
    bool overflowed = false;
    args.overflowed = &overflowed;
    layer.table->flash_attention(args);
    for (int seen = first_overflow.load(); overflowed && item < seen;)
      if (first_overflow.compare_exchange_weak(seen, item)) break;
  };
  if (threads == 1) {
    for (int item = 0; item < items; ++item) run_item(item);  // no std::function: nothing allocated
  } else if (!parallel::ForEach(threads, items, run_item)) {
    return budget::AllocationFailed("ForwardOutput");
  }
  if (first_overflow.load() < items) return validate::ScoresOverflowed(first_overflow.load() / parts);
  if (shifted) {
    for (int head = 0; head < d.heads; ++head)
      for (int j = 0; j < d.d_v; ++j)
        concat.col(head * d.d_v + j) *= std::ldexp(1.0f, ws->value_shift[(head / d.group) * d.d_v + j]);
  }
  if (c.project_output && !Project(layer, layer.wo, ws->concat, &ws->output, threads))
    return budget::AllocationFailed("ForwardOutput");
  // The message built only now (a long name would allocate on every call). Eigen's allFinite() is a
  // scalar loop here: 9% of a call at n = 256.
  if (!validate::NoInfOrNan(ws->output))
    return validate::AllFinite("output (scores overflowed float32; scale the inputs down)", ws->output);

  // The caller's matrix of the same shape trades buffers with the workspace: no copy, no allocation.
  if (output->rows() == ws->output.rows() && output->cols() == ws->output.cols()) {
    output->swap(ws->output);
  } else {
    *output = ws->output;
  }
  return Status::Ok();
}

}  // namespace

// On one thread or on config.threads, as the process's crossover for this size of call says
// (thread_crossover.h); a call it times reports how long it took when it succeeded.
Status Run(const Layer& layer, const CallInputs& in, const pipeline::AttentionDims& d, Workspace* ws,
           Matrix* output) {
  const int threads = layer.config.threads;
  const double flops = threads > 1 ? threads::CallFlops(layer.config, d) : 0.0;
  const threads::Crossover::Plan plan = threads::PlanCall(layer.table->id, threads, flops);
  const int use = plan.threaded ? threads : 1;
  if (!plan.timed) return RunOn(layer, in, d, ws, output, use);
  const double start = Seconds();
  Status status = RunOn(layer, in, d, ws, output, use);
  if (status.ok()) threads::Record(layer.table->id, threads, flops, plan, Seconds() - start);
  return status;
}

}  // namespace attn::fused
