#include "panels/retrieval_panel.h"

namespace attnlab {

void RetrievalPanel::Draw(PanelContext&) {}

}  // namespace attnlab
