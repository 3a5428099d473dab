#include "widgets/export_menu.h"

#include "imgui.h"
#include "widgets/flow_layout.h"

namespace attnlab {
namespace {

std::vector<ExportRequest> g_requests;

std::string PopupId(const std::string& name) { return "export##" + name; }

}  // namespace

void OpenExportMenuOnRightClick(const std::string& name) {
  ImGui::OpenPopupOnItemClick(PopupId(name).c_str(), ImGuiPopupFlags_MouseButtonRight);
}

void DrawExportMenu(const std::string& name, const LayoutRect& figure, const std::function<std::string()>& csv,
                    Published& published, bool button) {
  const std::string id = PopupId(name);
  const auto publish = [&](const std::string& key) {
    published.Rect(key, LastItemRect());
  };
  if (button) {
    ImGui::PushID(name.c_str());
    const bool pressed = ImGui::SmallButton("⋯");
    ImGui::SetItemTooltip("save as PNG, copy as CSV");
    ImGui::PopID();
    if (pressed) ImGui::OpenPopup(id.c_str());  // outside the button's ID scope, where BeginPopup looks
    publish(name + ".menu");
  }
  if (ImGui::BeginPopup(id.c_str())) {
    if (ImGui::MenuItem("Save as PNG (2×)")) g_requests.push_back({ExportRequest::Kind::kPng, name, figure, ""});
    publish(name + ".menu.png");
    if (ImGui::MenuItem("Copy the numbers as CSV")) g_requests.push_back({ExportRequest::Kind::kCsv, name, {}, csv()});
    publish(name + ".menu.csv");
    ImGui::EndPopup();
  }
}

std::vector<ExportRequest> TakeExportRequests() {
  std::vector<ExportRequest> out;
  out.swap(g_requests);
  return out;
}

void RequestPng(const std::string& name, const LayoutRect& rect) {
  g_requests.push_back({ExportRequest::Kind::kPng, name, rect, ""});
}

}  // namespace attnlab
