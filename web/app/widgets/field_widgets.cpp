#include "widgets/field_widgets.h"

#include <algorithm>

#include "imgui.h"

namespace attnlab {

bool SliderField(const lessons::FloatField& f, float* value) {
  const bool changed =
      ImGui::SliderFloat(f.label, value, f.min, f.max, f.format, f.logarithmic ? ImGuiSliderFlags_Logarithmic : 0);
  *value = f.Clamp(*value);  // Ctrl+click can type any value
  return changed;
}

bool SliderField(const lessons::IntField& f, int* value, int max, const char* format) {
  const int hi = std::clamp(max, f.min, f.max);
  const bool changed = ImGui::SliderInt(f.label, value, f.min, hi, format ? format : f.format);
  *value = std::clamp(*value, f.min, hi);
  return changed;
}

bool SliderField(const lessons::IntField& f, int* value) { return SliderField(f, value, f.max); }

bool CheckboxField(const lessons::BoolField& f, bool* value) { return ImGui::Checkbox(f.label, value); }

bool StepperField(const lessons::IntField& f, int* value) {
  const bool changed = ImGui::InputInt(f.label, value, 1, 10, ImGuiInputTextFlags_ReadOnly);
  *value = f.Clamp(*value);
  return changed;
}

bool ChoiceCombo(const char* label, const char* const* names, int count, int* index) {
  bool changed = false;
  ImGui::SetNextItemWidth(std::min(220.0f, ImGui::GetContentRegionAvail().x * 0.6f));
  if (ImGui::BeginCombo(label, names[*index])) {
    for (int k = 0; k < count; ++k)
      if (ImGui::Selectable(names[k], k == *index)) {
        *index = k;
        changed = true;
      }
    ImGui::EndCombo();
  }
  return changed;
}

}  // namespace attnlab
