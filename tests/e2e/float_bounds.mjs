// How far a float32 computation may be from the exact answer, for comparing what the page computed
// (on any kernel: reference, eigen, wasm_simd128) with a float64 computation of the same formula.
// A "bounded matrix" is {rows, cols, value, bound}: value the float64 answer, bound the largest
// |float32 result − exact| the rounding analysis allows for each entry. Tolerances come from here,
// never typed by hand.
//
// The model (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., §2.2 and §3.1):
// every float32 operation is exact then rounded, fl(a ∘ b) = (a ∘ b)(1 + ε), |ε| ≤ u = 2⁻²⁴, and a
// sum of k products in ANY order (blocked, SIMD lanes, FMA) gives Σ a_t b_t (1 + θ_t) with
// |θ_t| ≤ γ_k = k·u / (1 − k·u) (Lemma 3.1 and §3.1). Hence, with inputs a, b known to ±da, ±db:
//   |fl(Σ a_t b_t) − Σ a_t b_t| ≤ Σ [(|a| + da)(|b| + db) − |a||b|] + γ_k Σ (|a| + da)(|b| + db).
// The float64 side adds γ⁽⁶⁴⁾_k Σ |a||b| (u₆₄ = 2⁻⁵³), included so the bound is of the exact answer.
//
// Softmax of one row, w_j = exp(a_j) / Σ_l exp(a_l), a_j = (s_j − max s) / τ:
//   - if each argument a_j is off by at most δ, the exact softmax of the computed arguments is
//     within a factor e^{±2δ} of w_j (numerator e^{±δ}, denominator e^{±δ});
//   - exp is within 2 ulp, a relative ε = 4u (kernels/simd/fast_exp.h measures ≤ 1 ulp for its full
//     exp and ≤ 2 for the fused softmax's x ≤ 0 form, and both tests fail above 2; std::exp and
//     Eigen's are ≤ 1 ulp);
//   - the sum of M terms adds γ_{M−1}, the division (or reciprocal and multiply) γ₂;
//   - arguments below the clamp (Eigen: −80, SIMD: −87.3) come out as e^{−80} or less instead of 0:
//     an absolute e^{−80}.
// So |w̃_j − w_j| ≤ R·w_j + e^{−80}(1 + R),  R = e^{2δ}(1 + ε)(1 + γ₂) / ((1 − ε)(1 − γ_{M−1})) − 1.
// δ for the argument of score j: the dot product's bound E_j times scale/τ, plus the roundings
// between the dot product and exp: scale = 1/√d_k and τ rounded to float32, 1/τ rounded, the two
// multiplications and the subtraction of the row max: six roundings, each of relative size ≤ u of
// |s_j| or |max s|, so  δ_j = (scale/τ)·(E_j (1 + γ₆) + γ₆ (|S_j| + max_l |S_l|)).
// The fused kernel's log2 form (kernels/simd/flash_attention.h) fits the same δ with E_j from
// product(…, { scaledA: true }): it rounds c = scale/τ·log2 e once (four roundings on the factor with
// scale, τ and 1/τ), scales the query by c (the extra rounding scaledA counts), and subtracts the row
// max (one more); 2^z = e^{z ln 2} exactly, and its 2^z is within 2 ulp as exp is.
export const U = 2 ** -24;
export const gamma = (k) => (k * U) / (1 - k * U);
const gamma64 = (k) => (k * 2 ** -53) / (1 - k * 2 ** -53);
const EXP_RELATIVE = 4 * U;
const EXP_FLOOR = Math.exp(-80);

const values = (m) => Float64Array.from(Object.values(m.data ?? m.value));

// A matrix the page or the test holds exactly (float32 inputs, parameters): bound 0.
export function exact(m) {
  const value = values(m);
  return { rows: m.rows, cols: m.cols, value, bound: new Float64Array(value.length) };
}

// Columns [c0, c0 + width) of a bounded matrix.
export function columns(m, c0, width) {
  const value = new Float64Array(m.rows * width), bound = new Float64Array(m.rows * width);
  for (let i = 0; i < m.rows; ++i)
    for (let c = 0; c < width; ++c) {
      value[i * width + c] = m.value[i * m.cols + c0 + c];
      bound[i * width + c] = m.bound[i * m.cols + c0 + c];
    }
  return { rows: m.rows, cols: width, value, bound };
}

// a · b (or a · bᵀ), + bias (a 1 × cols row) when given, computed in float32 from bounded inputs.
// scaledA: a's entries are each multiplied by a float constant and rounded before the products (the
// fused attention kernel's c·Q, scores in log2 units; the constant itself is the softmax's scale):
// each term (1 + ε)(1 + θ_t) with |ε| ≤ u, so γ_{k+1} for γ_k; a bound for the unscaled product too.
export function product(a, b, { transposeB = false, bias = null, scaledA = false } = {}) {
  const k = a.cols, rows = a.rows, cols = transposeB ? b.rows : b.cols;
  if ((transposeB ? b.cols : b.rows) !== k) throw new Error(`product: inner sizes ${k} and ${transposeB ? b.cols : b.rows}`);
  const at = (m, i, j) => m.value[i * m.cols + j], bt = (m, i, j) => m.bound[i * m.cols + j];
  const value = new Float64Array(rows * cols), bound = new Float64Array(rows * cols);
  const terms = k + (bias ? 1 : 0) + (scaledA ? 1 : 0);
  for (let i = 0; i < rows; ++i)
    for (let j = 0; j < cols; ++j) {
      let sum = 0, absolute = 0, widened = 0;
      for (let t = 0; t < k; ++t) {
        const x = at(a, i, t), dx = bt(a, i, t);
        const y = transposeB ? at(b, j, t) : at(b, t, j), dy = transposeB ? bt(b, j, t) : bt(b, t, j);
        sum += x * y;
        absolute += Math.abs(x * y);
        widened += (Math.abs(x) + dx) * (Math.abs(y) + dy);
      }
      if (bias) {
        sum += bias.value[j];
        absolute += Math.abs(bias.value[j]);
        widened += Math.abs(bias.value[j]) + bias.bound[j];
      }
      value[i * cols + j] = sum;
      bound[i * cols + j] = (widened - absolute) + gamma(terms) * widened + gamma64(terms) * absolute;
    }
  return { rows, cols, value, bound };
}

// Row softmax of scale·S/τ over the keys `allowed(i, j)` lets through (blocked entries exactly 0),
// S the bounded raw dot products q_i·k_j.
export function softmaxRows(S, { scale = 1, temperature = 1, allowed = () => true } = {}) {
  const { rows, cols } = S;
  const value = new Float64Array(rows * cols), bound = new Float64Array(rows * cols);
  const factor = scale / temperature;
  for (let i = 0; i < rows; ++i) {
    const keys = [...Array(cols).keys()].filter((j) => allowed(i, j));
    if (!keys.length) continue;  // a row that sees nothing: zeros, exactly
    const raw = keys.map((j) => S.value[i * cols + j]);
    const largest = Math.max(...raw.map(Math.abs));
    const delta = Math.max(...keys.map((j, t) => factor * (S.bound[i * cols + j] * (1 + gamma(6)) + gamma(6) * (Math.abs(raw[t]) + largest))));
    const s = raw.map((v) => v * factor), max = Math.max(...s);
    const e = s.map((v) => Math.exp(v - max)), sum = e.reduce((x, y) => x + y, 0);
    const R = Math.exp(2 * delta) * (1 + EXP_RELATIVE) * (1 + gamma(2)) / ((1 - EXP_RELATIVE) * (1 - gamma(keys.length - 1))) - 1;
    keys.forEach((j, t) => {
      const w = e[t] / sum;
      value[i * cols + j] = w;
      bound[i * cols + j] = R * w + EXP_FLOOR * (1 + R) + gamma64(keys.length + 2) * w;
    });
  }
  return { rows, cols, value, bound };
}

// Entries of `actual` (a {rows, cols, data} or an array) outside ref's bound: [{index, actual, value, bound}].
export function outside(actual, ref) {
  const got = Array.isArray(actual) ? actual : values(actual);
  if (got.length !== ref.value.length) return [{ index: -1, actual: got.length, value: ref.value.length, bound: 0 }];
  const bad = [];
  got.forEach((v, k) => { if (!(Math.abs(v - ref.value[k]) <= ref.bound[k])) bad.push({ index: k, actual: v, value: ref.value[k], bound: ref.bound[k] }); });
  return bad;
}

// Fails with the first few entries outside the bound.
export function assertWithin(actual, ref, what) {
  const bad = outside(actual, ref);
  if (bad.length) {
    const first = bad.slice(0, 3).map((b) => `[${b.index}] ${b.actual} vs ${b.value} ± ${b.bound.toExponential(2)}`).join('; ');
    throw new Error(`${what}: ${bad.length} of ${ref.value.length} entries outside the float32 error bound: ${first}`);
  }
}
