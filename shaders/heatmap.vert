// Heatmap quad: maps a unit square onto the cell rectangle, given in ImGui display coordinates.
precision highp float;

layout(location = 0) in vec2 a_unit;  // (0,0)..(1,1)

uniform vec4 u_rect;     // x0, y0, x1, y1 in display coordinates
uniform vec4 u_display;  // display x, y, width, height (ImGui's DisplayPos and DisplaySize)

out vec2 v_uv;  // (0,0) top-left .. (1,1) bottom-right of the matrix

void main() {
  vec2 p = mix(u_rect.xy, u_rect.zw, a_unit);
  vec2 ndc = (p - u_display.xy) / u_display.zw * 2.0 - 1.0;
  gl_Position = vec4(ndc.x, -ndc.y, 0.0, 1.0);
  v_uv = a_unit;
}
