#include "panels/rnn_panel.h"

namespace attnlab {

void RnnPanel::Draw(PanelContext&) {}

}  // namespace attnlab
