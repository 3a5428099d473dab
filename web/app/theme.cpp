#include "theme.h"

namespace attnlab {
namespace {

const Theme kDark = {
    /*highlight=*/IM_COL32(255, 196, 61, 255),
    /*highlight_faint=*/IM_COL32(255, 196, 61, 90),
    /*hover_outline=*/IM_COL32(255, 255, 255, 255),
    /*unknown_word=*/IM_COL32(255, 170, 80, 255),
    /*inactive_node=*/IM_COL32(120, 125, 140, 255),
    /*hatch_fill=*/IM_COL32(40, 40, 46, 255),
    /*hatch_line=*/IM_COL32(150, 150, 160, 200),
    /*bar_positive=*/IM_COL32(94, 201, 98, 255),
    /*bar_negative=*/IM_COL32(120, 150, 230, 255),
    /*bar_zero_line=*/IM_COL32(200, 200, 200, 160),
    /*plot_background=*/IM_COL32(24, 26, 32, 255),
    /*plot_grid=*/IM_COL32(70, 74, 84, 255),
    /*plot_frame=*/IM_COL32(110, 115, 128, 255),
    /*plot_marker=*/IM_COL32(255, 255, 255, 140),
    /*plot_grid_open=*/IM_COL32(255, 255, 255, 40),
    /*plot_frame_open=*/IM_COL32(255, 255, 255, 90),
    /*plot_tick=*/IM_COL32(255, 255, 255, 120),
    /*plot_hover_line=*/IM_COL32(255, 255, 255, 160),
    /*weight_bars=*/IM_COL32(255, 196, 61, 110),
    /*series=*/{IM_COL32(170, 175, 190, 255), IM_COL32(120, 150, 230, 255), IM_COL32(94, 201, 98, 255),
                IM_COL32(255, 140, 60, 255)},
    /*compared=*/{IM_COL32(255, 140, 60, 255), IM_COL32(90, 170, 255, 255)},
    /*heads=*/{IM_COL32(255, 196, 61, 255), IM_COL32(86, 180, 233, 255), IM_COL32(240, 110, 110, 255),
               IM_COL32(120, 220, 120, 255), IM_COL32(204, 121, 247, 255), IM_COL32(255, 140, 40, 255),
               IM_COL32(60, 220, 210, 255), IM_COL32(250, 130, 200, 255), IM_COL32(190, 190, 90, 255),
               IM_COL32(140, 150, 255, 255), IM_COL32(255, 90, 60, 255), IM_COL32(160, 255, 200, 255),
               IM_COL32(230, 180, 140, 255), IM_COL32(100, 160, 120, 255), IM_COL32(255, 255, 150, 255),
               IM_COL32(180, 120, 160, 255)},
    /*error_text=*/ImVec4(1.0f, 0.45f, 0.35f, 1.0f),
    /*explanation_text=*/ImVec4(0.85f, 0.87f, 0.9f, 1.0f),
    /*try_this_text=*/ImVec4(0.55f, 0.8f, 1.0f, 1.0f),
    /*good_text=*/ImVec4(0.45f, 0.9f, 0.5f, 1.0f),
    /*warning_text=*/ImVec4(1.0f, 0.65f, 0.3f, 1.0f),
    /*padded_button=*/ImVec4(0.45f, 0.45f, 0.45f, 1.0f),
};

// On white, the accents darken so that lines and outlines keep their contrast; the heatmaps'
// colour maps (shaders/) are the same in both themes.
const Theme kLight = {
    /*highlight=*/IM_COL32(214, 120, 0, 255),
    /*highlight_faint=*/IM_COL32(214, 120, 0, 90),
    /*hover_outline=*/IM_COL32(0, 0, 0, 255),
    /*unknown_word=*/IM_COL32(190, 90, 0, 255),
    /*inactive_node=*/IM_COL32(150, 155, 165, 255),
    /*hatch_fill=*/IM_COL32(232, 232, 238, 255),
    /*hatch_line=*/IM_COL32(110, 110, 120, 220),
    /*bar_positive=*/IM_COL32(40, 150, 60, 255),
    /*bar_negative=*/IM_COL32(60, 90, 200, 255),
    /*bar_zero_line=*/IM_COL32(60, 60, 60, 160),
    /*plot_background=*/IM_COL32(250, 250, 252, 255),
    /*plot_grid=*/IM_COL32(215, 218, 225, 255),
    /*plot_frame=*/IM_COL32(140, 145, 155, 255),
    /*plot_marker=*/IM_COL32(0, 0, 0, 140),
    /*plot_grid_open=*/IM_COL32(0, 0, 0, 40),
    /*plot_frame_open=*/IM_COL32(0, 0, 0, 90),
    /*plot_tick=*/IM_COL32(0, 0, 0, 120),
    /*plot_hover_line=*/IM_COL32(0, 0, 0, 160),
    /*weight_bars=*/IM_COL32(214, 120, 0, 110),
    /*series=*/{IM_COL32(110, 115, 130, 255), IM_COL32(60, 90, 200, 255), IM_COL32(40, 150, 60, 255),
                IM_COL32(230, 100, 20, 255)},
    /*compared=*/{IM_COL32(230, 100, 20, 255), IM_COL32(30, 110, 210, 255)},
    /*heads=*/{IM_COL32(214, 120, 0, 255), IM_COL32(0, 114, 178, 255), IM_COL32(200, 50, 50, 255),
               IM_COL32(30, 140, 60, 255), IM_COL32(150, 60, 200, 255), IM_COL32(220, 90, 0, 255),
               IM_COL32(0, 150, 140, 255), IM_COL32(200, 60, 140, 255), IM_COL32(130, 130, 20, 255),
               IM_COL32(70, 80, 220, 255), IM_COL32(220, 50, 20, 255), IM_COL32(20, 160, 110, 255),
               IM_COL32(160, 100, 60, 255), IM_COL32(60, 110, 80, 255), IM_COL32(170, 150, 0, 255),
               IM_COL32(130, 60, 110, 255)},
    /*error_text=*/ImVec4(0.75f, 0.12f, 0.08f, 1.0f),
    /*explanation_text=*/ImVec4(0.12f, 0.13f, 0.16f, 1.0f),
    /*try_this_text=*/ImVec4(0.05f, 0.35f, 0.7f, 1.0f),
    /*good_text=*/ImVec4(0.1f, 0.5f, 0.15f, 1.0f),
    /*warning_text=*/ImVec4(0.7f, 0.35f, 0.0f, 1.0f),
    /*padded_button=*/ImVec4(0.6f, 0.6f, 0.6f, 1.0f),
};

const Theme* g_theme = &kDark;

}  // namespace

const Theme& CurrentTheme() { return *g_theme; }
bool LightTheme() { return g_theme == &kLight; }

void ApplyTheme(bool light) {
  g_theme = light ? &kLight : &kDark;
  if (!ImGui::GetCurrentContext()) return;  // chosen before start: Start() applies it
  if (light) ImGui::StyleColorsLight();
  else ImGui::StyleColorsDark();
}

}  // namespace attnlab
