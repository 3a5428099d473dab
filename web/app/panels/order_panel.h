// View 2: order has no influence. Shuffling the words shuffles the outputs the same way, until a
// positional encoding is added.
#pragma once

#include "lessons/views/order.h"
#include "panels/panel.h"

namespace attnlab {

class OrderPanel : public Panel {
 public:
  lessons::ViewId id() const override { return lessons::ViewId::kOrder; }
  const char* title() const override { return "2 Order"; }
  void Draw(PanelContext& ctx) override;
  const char* takeaway() const override {
    return "Without positions, attention ignores order: shuffling the words only shuffles the outputs.";
  }

 private:
  Memo<lessons::OrderModel> memo_;
};

}  // namespace attnlab
