#include "item_log.h"

#include <cstdio>
#include <map>

#include "imgui.h"
#include "imgui_internal.h"

namespace attnlab {
namespace {

std::vector<LoggedItem> g_items;
// Labels by ID, kept across frames: ImGui gives an item's label only in a frame where it is
// visible, and an item scrolled out of view is still laid out (and still must fit the screen).
std::map<unsigned, std::string> g_labels;
constexpr size_t kMaxRememberedLabels = 8192;  // a long session with many views stays bounded

}  // namespace

void BeginItemLog() {
  g_items.clear();
  if (g_labels.size() > kMaxRememberedLabels) g_labels.clear();
  ImGui::GetCurrentContext()->TestEngineHookItems = true;
}

const std::vector<LoggedItem>& LoggedItems() { return g_items; }

std::vector<std::pair<std::string, LayoutRect>> NamedControls() {
  std::vector<std::pair<std::string, LayoutRect>> named;
  std::map<std::string, int> seen;
  for (const LoggedItem& item : g_items) {
    std::string label = item.label;
    if (label.empty()) {  // clipped this frame: the label it had when seen, or its ID
      const auto known = g_labels.find(item.id);
      char id[16];
      std::snprintf(id, sizeof(id), "#%08x", item.id);
      label = known == g_labels.end() ? std::string(id) : known->second;
    }
    const int k = ++seen[label];
    named.emplace_back("control." + label + (k > 1 ? "#" + std::to_string(k) : ""), item.rect);
  }
  return named;
}

}  // namespace attnlab

// ---- Dear ImGui's test-engine hooks (imgui_internal.h) ---------------------------------------

// Every item with an ID, before ImGui's clipping test: its full rectangle, visible or not.
void ImGuiTestEngineHook_ItemAdd(ImGuiContext*, ImGuiID id, const ImRect& bb, const ImGuiLastItemData*) {
  attnlab::g_items.push_back({id, "", {bb.Min.x, bb.Min.y, bb.GetWidth(), bb.GetHeight()}});
}

// The label of an item just added, from the widget itself (only while the item is visible).
void ImGuiTestEngineHook_ItemInfo(ImGuiContext*, ImGuiID id, const char* label, ImGuiItemStatusFlags) {
  if (!label) return;
  const std::string visible(label, ImGui::FindRenderedTextEnd(label));
  if (!visible.empty()) {
    std::string& known = attnlab::g_labels[id];
    if (known != visible) known = visible;  // most frames: the label it already had
  }
  for (auto it = attnlab::g_items.rbegin(); it != attnlab::g_items.rend(); ++it)
    if (it->id == id) {
      it->label = visible;
      return;
    }
}

void ImGuiTestEngineHook_Log(ImGuiContext*, const char*, ...) {}
const char* ImGuiTestEngine_FindItemDebugLabel(ImGuiContext*, ImGuiID) { return nullptr; }
