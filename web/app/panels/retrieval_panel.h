// View 10 (being built, issue 15).
#pragma once

#include "lessons/views/retrieval.h"
#include "panels/panel.h"

namespace attnlab {

class RetrievalPanel : public Panel {
 public:
  lessons::ViewId id() const override { return lessons::ViewId::kRetrieval; }
  const char* title() const override { return "10 Retrieval"; }
  void Draw(PanelContext& ctx) override;
  const char* takeaway() const override { return ""; }
};

}  // namespace attnlab
