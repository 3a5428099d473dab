// Where a heatmap's cell sits on the page, from the rectangle the app published.
export function cellCentre(rect, rows, cols, i, j) {
  return { x: rect.x + (j + 0.5) * (rect.width / cols), y: rect.y + (i + 0.5) * (rect.height / rows) };
}
