// Deterministic test matrices for the engine's JavaScript API: { rows, cols, data } with float32
// values in [-scale, scale] from a linear congruential generator (Numerical Recipes' constants), so
// a test's inputs are the same on every run and every machine.
export function seededMatrix(rows, cols, seed, scale = 1) {
  let s = seed >>> 0;
  const data = Array.from({ length: rows * cols }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return Math.fround(((s / 2 ** 32) * 2 - 1) * scale);
  });
  return { rows, cols, data };
}
