// Compiled twice (web/CMakeLists.txt): into attnlab.wasm as written, into attnlab-lite.wasm with
// ATTNLAB_LITE. Nothing else differs between the two modules, so the linker leaves the training
// code (attn::train's trainer, view 8's runner, view 11's lab and microscope, view 12's panel) out
// of the lite one.
#include "module_views.h"

#include "lessons/format.h"
#include "lessons/timing_job.h"
#include "panels/cnn_panel.h"
#include "panels/heads_panel.h"
#include "panels/masks_panel.h"
#include "panels/order_panel.h"
#include "panels/prices_panel.h"
#include "panels/qkv_panel.h"
#include "panels/relevance_panel.h"
#include "panels/retrieval_panel.h"
#include "panels/rnn_panel.h"
#include "panels/speed_panel.h"
#include "panels/words_panel.h"
#ifndef ATTNLAB_LITE
#include "panels/data_size_panel.h"
#include "panels/learn_panel.h"
#include "panels/lm_panel.h"
#endif

namespace attnlab {

std::vector<std::unique_ptr<Panel>> MakePanels() {
  std::vector<std::unique_ptr<Panel>> panels;
  panels.push_back(std::make_unique<WordsPanel>());
  panels.push_back(std::make_unique<OrderPanel>());
  panels.push_back(std::make_unique<QkvPanel>());
  panels.push_back(std::make_unique<RelevancePanel>());
  panels.push_back(std::make_unique<HeadsPanel>());
  panels.push_back(std::make_unique<MasksPanel>());
  panels.push_back(std::make_unique<CnnPanel>());
#ifndef ATTNLAB_LITE
  panels.push_back(std::make_unique<DataSizePanel>());
#endif
  panels.push_back(std::make_unique<RnnPanel>());
  panels.push_back(std::make_unique<RetrievalPanel>());
#ifndef ATTNLAB_LITE
  panels.push_back(std::make_unique<LearnPanel>());
  panels.push_back(std::make_unique<LmPanel>());
#endif
  panels.push_back(std::make_unique<PricesPanel>());
  panels.push_back(std::make_unique<SpeedPanel>());
  return panels;
}

bool ModuleHasView(lessons::ViewId view) {
#ifdef ATTNLAB_LITE
  return view != lessons::ViewId::kDataSize && view != lessons::ViewId::kLearn && view != lessons::ViewId::kLm;
#else
  return view >= lessons::ViewId::kWords && view < lessons::ViewId::kCount;
#endif
}

attn::Status RunModuleJobUnit(const lessons::JobUnit& unit, lessons::JobAnswer* answer) {
#ifdef ATTNLAB_LITE
  if (unit.kind != lessons::JobUnitKind::kTimingBatch)
    return attn::Status(attn::StatusCode::kUnknownOption,
                        lessons::Format("unit kind: expected 3 (a timing batch: this module, attnlab-lite.wasm, trains "
                                        "nothing), got %d", static_cast<int>(unit.kind)));
  return lessons::RunTimingUnit(unit, answer);
#else
  return lessons::RunJobUnit(unit, answer);
#endif
}

}  // namespace attnlab
