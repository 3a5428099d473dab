// View 10: attention as retrieval. A key–value store of GloVe word pairs asked by one query word,
// soft retrieval against hard, the nearest words to the answer; then cross-attention between the
// shared sentence A and a second sentence B typed in a second box.
#pragma once

#include "lessons/retrieval.h"
#include "lessons/views/retrieval.h"
#include "panels/panel.h"

namespace attnlab {

class RetrievalPanel : public Panel {
 public:
  lessons::ViewId id() const override { return lessons::ViewId::kRetrieval; }
  const char* title() const override { return "10 Retrieval"; }
  void Draw(PanelContext& ctx) override;
  const char* takeaway() const override {
    return "Attention is a soft dictionary lookup: a query scored against keys, softmax, a weighted sum of values; "
           "as τ falls it becomes a database's exact match, and its gradient vanishes.";
  }

 private:
  void DrawStoreControls(PanelContext& ctx);
  void DrawStore(PanelContext& ctx);
  void DrawCross(PanelContext& ctx);

  lessons::VocabularyIndex index_;  // the GloVe vocabulary as unit rows, built once it arrives
  int index_version_ = -1;          // ctx.word_vectors_version it was built from
  Memo<lessons::StoreModel> store_;
  Memo<lessons::StoreAccuracy> accuracy_;  // every key asked: re-run for a new table, score or τ, not query
  Memo<lessons::CrossModel> cross_;
};

}  // namespace attnlab
