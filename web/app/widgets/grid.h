// Several equal panels in a row on a desktop, one under the other on a phone.
#pragma once

namespace attnlab {

// Starts a table of as many equal columns as fit at `min_column_width` each (1..max_columns).
// Call ImGui::TableNextColumn() before each cell, then EndGrid(). Returns false when there is
// nothing to draw into (then do not call EndGrid()).
bool BeginGrid(const char* id, int max_columns, float min_column_width);
void EndGrid();

}  // namespace attnlab
