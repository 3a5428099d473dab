#include "panels/panel.h"

#include <cstdarg>

#include "imgui.h"
#include "theme.h"
#include "widgets/prose.h"

namespace attnlab {

void DrawStatusLine(const std::string& error) {
  if (!error.empty()) ProseColored(CurrentTheme().error_text, "%s", error.c_str());
}

void DrawNote(const char* fmt, ...) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  va_list args;
  va_start(args, fmt);
  ProseV(fmt, args);
  va_end(args);
  ImGui::PopStyleColor();
}

void DrawExplanation(const PanelContext& ctx, const char* what_you_see, const char* try_this) {
  if (ctx.embedded || !ctx.state.display.prose) return;  // lecture mode: the figures alone
  ImGui::PushStyleColor(ImGuiCol_Text, CurrentTheme().explanation_text);
  Prose("%s", what_you_see);
  ImGui::PopStyleColor();
  ImGui::PushStyleColor(ImGuiCol_Text, CurrentTheme().try_this_text);
  Prose("Try this: %s", try_this);
  ImGui::PopStyleColor();
  ImGui::Spacing();
}

}  // namespace attnlab
