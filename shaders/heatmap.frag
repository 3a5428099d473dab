// Heatmap cells: one float texel per matrix element, coloured here so the data stays exact.
// Sequential maps use viridis (colour-blind safe); signed values use a blue-white-red diverging map.
// Masked cells (−inf in the values or in the optional mask texture) are hatched, in no colour of either map.
precision highp float;
precision highp sampler2D;

in vec2 v_uv;
out vec4 frag_color;

uniform sampler2D u_values;  // R32F, width = columns, height = rows
uniform vec2 u_range;        // value at the bottom and the top of the colour map
uniform int u_colormap;      // 0 viridis, 1 diverging
uniform float u_gap;         // gap between cells as a fraction of a cell (0 = none)
uniform vec4 u_gap_color;
uniform sampler2D u_mask;    // R32F like u_values: −inf marks a masked cell (used when u_has_mask = 1)
uniform int u_has_mask;

// viridis sampled at 9 evenly spaced points (matplotlib's table).
const vec3 kViridis[9] = vec3[9](
    vec3(0.267004, 0.004874, 0.329415), vec3(0.282623, 0.140926, 0.457517),
    vec3(0.253935, 0.265254, 0.529983), vec3(0.206756, 0.371758, 0.553117),
    vec3(0.163625, 0.471133, 0.558148), vec3(0.127568, 0.566949, 0.550556),
    vec3(0.134692, 0.658636, 0.517649), vec3(0.477504, 0.821444, 0.318195),
    vec3(0.993248, 0.906157, 0.143936));

vec3 Viridis(float t) {
  float x = clamp(t, 0.0, 1.0) * 8.0;
  int i = min(int(floor(x)), 7);
  return mix(kViridis[i], kViridis[i + 1], x - float(i));
}

vec3 Diverging(float t) {  // t in [0,1], 0.5 = zero
  vec3 blue = vec3(0.129, 0.400, 0.674), white = vec3(0.969, 0.969, 0.969), red = vec3(0.698, 0.094, 0.169);
  float x = clamp(t, 0.0, 1.0);
  return x < 0.5 ? mix(blue, white, x * 2.0) : mix(white, red, x * 2.0 - 1.0);
}

void main() {
  ivec2 size = textureSize(u_values, 0);
  vec2 cell = v_uv * vec2(size);
  ivec2 ij = clamp(ivec2(floor(cell)), ivec2(0), size - 1);
  vec2 inside = fract(cell);
  if (u_gap > 0.0 && (inside.x < u_gap || inside.y < u_gap)) {
    frag_color = u_gap_color;
    return;
  }
  float value = texelFetch(u_values, ij, 0).r;
  float mask = u_has_mask == 1 ? texelFetch(u_mask, ij, 0).r : 0.0;
  bool masked = (isinf(value) && value < 0.0) || (isinf(mask) && mask < 0.0);
  if (masked) {  // blocked by a mask (score −inf, weight 0): grey diagonal hatch on the background
    bool stripe = fract((inside.x + inside.y - 1.0) * 2.5 + 0.2) < 0.4;  // the cell's centre is on a stripe
    frag_color = stripe ? vec4(0.62, 0.62, 0.62, 1.0) : u_gap_color;
    return;
  }
  if (isnan(value) || isinf(value)) {  // never expected; drawn loudly if it ever happens
    frag_color = vec4(1.0, 0.0, 1.0, 1.0);
    return;
  }
  float t = (value - u_range.x) / max(u_range.y - u_range.x, 1e-30);
  frag_color = vec4(u_colormap == 1 ? Diverging(t) : Viridis(t), 1.0);
}
