// Which views this module carries. attnlab.wasm has every view; attnlab-lite.wasm (the same sources
// with ATTNLAB_LITE, web/CMakeLists.txt) has the views that train nothing — all but 8 Data size,
// 11 Learn and 12 Language model — so an embed of another view downloads no training code (66 KB
// of gzipped wasm: an embed's budget is 500 KB). web/public/mount.js picks the lite module for an
// embed whose view it carries.
#pragma once

#include <memory>
#include <vector>

#include "lessons/job.h"
#include "lessons/view_state.h"
#include "panels/panel.h"

namespace attnlab {

// The module's panels, in the order of the views.
std::vector<std::unique_ptr<Panel>> MakePanels();

// Whether this module carries `view` (the lite one lacks the views that train).
bool ModuleHasView(lessons::ViewId view);

// A unit of a job a Web Worker runs on this module (page_js.cpp's runJob): lessons::RunJobUnit, or
// in the lite module the timing batches only (its views post no other kind).
attn::Status RunModuleJobUnit(const lessons::JobUnit& unit, lessons::JobAnswer* answer);

}  // namespace attnlab
