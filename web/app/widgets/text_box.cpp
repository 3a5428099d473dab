#include "widgets/text_box.h"

#include <algorithm>

#include "imgui.h"

namespace attnlab {
namespace {

constexpr int kCount = static_cast<int>(TextBoxId::kCount);
TextBoxPlace g_places[kCount];
float g_heights[kCount] = {};
bool g_capturing = false;

}  // namespace

void HideTextBoxes() {
  for (TextBoxPlace& p : g_places) p.shown = false;
}

void TextBoxSlot(TextBoxId id, const std::string& text, Published& published, const std::string& name, float width) {
  const int k = static_cast<int>(id);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float avail = ImGui::GetContentRegionAvail().x;
  const ImVec2 size(width > 0.0f ? std::min(width, avail) : avail, std::max(ImGui::GetFrameHeight(), g_heights[k]));
  ImGui::Dummy(size);
  const ImVec2 p1(p0.x + size.x, p0.y + size.y);
  ImGui::GetWindowDrawList()->AddRectFilled(p0, p1, ImGui::GetColorU32(ImGuiCol_FrameBg), ImGui::GetStyle().FrameRounding);
  g_places[k] = {true, p0.x, p0.y, size.x, size.y};
  if (g_capturing) {
    const ImVec2 pad = ImGui::GetStyle().FramePadding;
    ImGui::GetWindowDrawList()->AddText(nullptr, 0.0f, ImVec2(p0.x + pad.x, p0.y + pad.y), ImGui::GetColorU32(ImGuiCol_Text),
                                        text.c_str(), nullptr, size.x - 2 * pad.x);
  }
  published.Rect(name, {p0.x, p0.y, size.x, size.y});
}

void SetTextBoxesCapturing(bool capturing) { g_capturing = capturing; }

void SetTextBoxHeight(TextBoxId id, float px) {
  const int k = static_cast<int>(id);
  if (k < 0 || k >= kCount || !(px >= 0.0f && px < 4096.0f)) return;
  g_heights[k] = px;
}

const TextBoxPlace& TextBoxPlaceOf(TextBoxId id) { return g_places[static_cast<int>(id)]; }

const char* TextBoxLabel(TextBoxId id) {
  switch (id) {
    case TextBoxId::kSentenceB: return "Sentence B: the keys and values of the cross-attention";
    case TextBoxId::kQuery: return "The query word";
    default: return "The sentence every view uses";
  }
}

}  // namespace attnlab
