#include "panels/panel.h"

#include <cstdarg>

#include "imgui.h"
#include "theme.h"

namespace attnlab {

void DrawStatusLine(const std::string& error) {
  if (!error.empty()) ImGui::TextColored(CurrentTheme().error_text, "%s", error.c_str());
}

void DrawNote(const char* fmt, ...) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  va_list args;
  va_start(args, fmt);
  ImGui::TextWrappedV(fmt, args);
  va_end(args);
  ImGui::PopStyleColor();
}

void DrawExplanation(const PanelContext& ctx, const char* what_you_see, const char* try_this) {
  if (ctx.embedded) return;
  ImGui::PushStyleColor(ImGuiCol_Text, CurrentTheme().explanation_text);
  ImGui::TextWrapped("%s", what_you_see);
  ImGui::PopStyleColor();
  ImGui::PushStyleColor(ImGuiCol_Text, CurrentTheme().try_this_text);
  ImGui::TextWrapped("Try this: %s", try_this);
  ImGui::PopStyleColor();
  ImGui::Spacing();
}

}  // namespace attnlab
