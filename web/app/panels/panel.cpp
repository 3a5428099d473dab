#include "panels/panel.h"

#include "imgui.h"

namespace attnlab {

void DrawStatusLine(const std::string& error) {
  if (!error.empty()) ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.35f, 1.0f), "%s", error.c_str());
}

void DrawExplanation(const char* what_you_see, const char* try_this) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.85f, 0.87f, 0.9f, 1.0f));
  ImGui::TextWrapped("%s", what_you_see);
  ImGui::PopStyleColor();
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.55f, 0.8f, 1.0f, 1.0f));
  ImGui::TextWrapped("Try this: %s", try_this);
  ImGui::PopStyleColor();
  ImGui::Spacing();
}

}  // namespace attnlab
