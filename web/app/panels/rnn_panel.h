// View 9 (being built, issue 15).
#pragma once

#include "lessons/views/rnn.h"
#include "panels/panel.h"

namespace attnlab {

class RnnPanel : public Panel {
 public:
  lessons::ViewId id() const override { return lessons::ViewId::kRnn; }
  const char* title() const override { return "9 RNN"; }
  void Draw(PanelContext& ctx) override;
  const char* takeaway() const override { return ""; }
};

}  // namespace attnlab
