// View 12: a small GPT trained by attnlab's engine (web/assets/lm-brown.bin) reads the shared
// sentence: the next word after each word, every layer × head, the residual stream, the logit lens,
// heads knocked out, and a continuation through the KV cache. The model runs in its own module in a
// Web Worker (web/app/lm_client.h); the panel asks for the model of the state and draws the answer.
#pragma once

#include <string>
#include <vector>

#include "attn/matrix.h"
#include "panels/panel.h"

namespace attnlab {

class LmPanel : public Panel {
 public:
  lessons::ViewId id() const override { return lessons::ViewId::kLm; }
  const char* title() const override { return "12 Language model"; }
  void Draw(PanelContext& ctx) override;
  bool uses_word_vectors() const override { return false; }  // its own 4,096-word vocabulary
  const char* takeaway() const override {
    return "A language model is attention layers stacked to predict the next word: each head moves information "
           "between positions, and knocking one out changes what the model says.";
  }

 private:
  void DrawModelChoice(PanelContext& ctx);
  void DrawControls(PanelContext& ctx);
  void DrawNextWords(PanelContext& ctx);
  void DrawContinuation(PanelContext& ctx);
  void DrawHeads(PanelContext& ctx);
  void DrawAblation(PanelContext& ctx);
  void DrawResidualAndLens(PanelContext& ctx);
  void DrawInduction(PanelContext& ctx);
  // The arrays the widgets want, rebuilt when a new model arrives.
  void Refresh();

  int refreshed_ = 0;             // the client's model version the arrays below belong to
  std::vector<bool> known_;       // (n) the words' known flags as MatrixLabels wants them
  attn::Matrix norms_;            // (n, L + 1) the residual stream's norms
  std::vector<std::string> norm_columns_;  // "embedding", "block 1", …
  attn::Matrix induction_loss_;           // (1, 2R − 1) −log p of each next word of the induction demo
  std::vector<std::string> induction_predicted_;  // (2R − 1) the word each position predicts
};

}  // namespace attnlab
