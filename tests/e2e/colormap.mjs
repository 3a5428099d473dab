// The heatmap shader's colour maps (shaders/heatmap.frag) in JS, so a test can say which colour a
// cell must have for the engine's value and compare it with the pixel on screen.
const VIRIDIS = [
  [0.267004, 0.004874, 0.329415], [0.282623, 0.140926, 0.457517], [0.253935, 0.265254, 0.529983],
  [0.206756, 0.371758, 0.553117], [0.163625, 0.471133, 0.558148], [0.127568, 0.566949, 0.550556],
  [0.134692, 0.658636, 0.517649], [0.477504, 0.821444, 0.318195], [0.993248, 0.906157, 0.143936],
];
const mix = (a, b, t) => a.map((v, k) => v + (b[k] - v) * t);
const clamp01 = (t) => Math.min(1, Math.max(0, t));

export function viridis(t) {
  const x = clamp01(t) * 8;
  const i = Math.min(Math.floor(x), 7);
  return mix(VIRIDIS[i], VIRIDIS[i + 1], x - i);
}

export function diverging(t) {
  const blue = [0.129, 0.4, 0.674], white = [0.969, 0.969, 0.969], red = [0.698, 0.094, 0.169];
  const x = clamp01(t);
  return x < 0.5 ? mix(blue, white, x * 2) : mix(white, red, x * 2 - 1);
}

// The 8-bit RGB the shader writes for `value` on [lo, hi] with the named map.
export function cellColour(value, lo, hi, map = 'diverging') {
  const t = (value - lo) / Math.max(hi - lo, 1e-30);
  return (map === 'viridis' ? viridis(t) : diverging(t)).map((c) => Math.round(c * 255));
}

// DivergingStyle's range: symmetric about 0, the largest finite |value|.
export function divergingBound(data) {
  let bound = 0;
  for (const v of data) if (Number.isFinite(v)) bound = Math.max(bound, Math.abs(v));
  return bound > 1e-6 ? bound : 1;
}

export const colourDistance = (a, b) => Math.max(...[0, 1, 2].map((k) => Math.abs(a[k] - b[k])));
