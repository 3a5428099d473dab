#include "gfx/heatmap_store.h"

#include <memory>
#include <unordered_map>

namespace attnlab::gfx {
namespace {

struct Entry {
  std::unique_ptr<Heatmap> map = std::make_unique<Heatmap>();
  int version = -1;
  const float* data = nullptr;
  const float* mask = nullptr;
  int last_frame = 0;
};

// Frames a texture survives undrawn: a view switched away and back within this keeps its textures.
constexpr int kKeepFrames = 600;

std::unordered_map<ImGuiID, Entry>& Store() {
  static std::unordered_map<ImGuiID, Entry> store;
  return store;
}

}  // namespace

Heatmap& HeatmapFor(ImGuiID id, const attn::Matrix& m, const attn::Matrix* mask, int version) {
  Entry& e = Store()[id];
  const float* mask_data = mask ? mask->data() : nullptr;
  const bool stale = e.version != version || e.data != m.data() || e.mask != mask_data ||
                     e.map->rows() != m.rows() || e.map->cols() != m.cols();
  if (stale) {
    e.map->Upload(m, mask);
    e.version = version;
    e.data = m.data();
    e.mask = mask_data;
  }
  e.last_frame = ImGui::GetFrameCount();
  return *e.map;
}

void CollectUnusedHeatmaps() {
  const int now = ImGui::GetFrameCount();
  auto& store = Store();
  for (auto it = store.begin(); it != store.end();) {
    if (now - it->second.last_frame > kKeepFrames) it = store.erase(it);
    else ++it;
  }
}

void ForgetHeatmapTextures() { Store().clear(); }

}  // namespace attnlab::gfx
