// View 2. The reader shuffles the words and sees the output rows move with them (difference 0);
// with sinusoidal or learned positions the outputs change instead.
#include "panels/order_panel.h"

#include <algorithm>

#include "lessons/explain.h"
#include "attn/positions.h"
#include "imgui.h"
#include "theme.h"
#include "widgets/flow_layout.h"
#include "widgets/matrix_view.h"
#include "widgets/prose.h"

namespace attnlab {

void OrderPanel::Draw(PanelContext& ctx) {
  DrawExplanation(ctx,
      "Self-attention without parameters has no idea of order: every word is compared with every word, "
      "wherever it stands. Shuffle the words and each word's output is exactly what it was, only in its "
      "new place: permuting the inputs permutes the outputs the same way (permutation equivariance), and "
      "no position is privileged. To use order, position must be added to the vectors: xᵢ + eᵢ, with a "
      "sinusoidal or a learned encoding eᵢ.",
      "shuffle a few times and watch the largest difference stay 0; then switch on an encoding and shuffle "
      "again.");
  lessons::OrderState& s = ctx.state.order;
  if (ImGui::Button("Shuffle the words")) s.shuffle = s.shuffle % s.kShuffle.max + 1;
  ctx.published.Rect("order.shuffle", LastItemRect());
  ImGui::SameLine();
  ImGui::BeginDisabled(s.shuffle == 0);
  if (ImGui::Button("Original order")) s.shuffle = 0;
  ImGui::EndDisabled();
  int encoding = static_cast<int>(s.encoding);
  ImGui::RadioButton("no position", &encoding, static_cast<int>(lessons::OrderEncoding::kNone));
  ImGui::SameLine();
  ImGui::RadioButton("sinusoidal", &encoding, static_cast<int>(lessons::OrderEncoding::kSinusoidal));
  ImGui::SameLine();
  ImGui::RadioButton("learned (seeded)", &encoding, static_cast<int>(lessons::OrderEncoding::kLearned));
  s.encoding = static_cast<lessons::OrderEncoding>(encoding);

  if (ctx.sentence_version == 0) return;
  const lessons::Sentence& in = ctx.sentence;
  memo_.Update(SentenceKey(ctx, s), [&](lessons::OrderModel* m) { return lessons::ComputeOrder(in, s, m); });
  DrawStatusLine(memo_.error());
  if (!memo_.has_model()) return;
  const lessons::OrderModel& m = memo_.model();
  const int version = memo_.version();

  std::string shuffled;
  for (const auto& t : m.shuffled_tokens) shuffled += (shuffled.empty() ? "" : " ") + t;
  if (s.shuffle == 0)
    Prose("In the order typed (press \"Shuffle the words\" to permute it): %s", shuffled.c_str());
  else if (m.shuffled_tokens == in.tokens)
    Prose("Shuffle %d happens to leave the words where they were: %s", s.shuffle, shuffled.c_str());
  else
    Prose("Shuffled: %s", shuffled.c_str());
  const bool equal = m.equal;
  const float difference = m.difference;
  ImGui::PushStyleColor(ImGuiCol_Text, equal ? CurrentTheme().good_text : CurrentTheme().warning_text);
  Prose("Largest difference between the shuffled outputs and the original outputs, shuffled: %.3g",
                     difference);
  ImGui::PopStyleColor();
  DrawNote("%s", equal ? (difference == 0.0f ? "Exactly 0: order had no influence."
                                                         : "0 up to float32 rounding (the same sums, added in another "
                                                           "order): order had no influence.")
                                  : "Not 0: with positions added, where a word stands changes what it becomes.");
  ctx.published.Scalar("order.difference", difference);
  char summary[128];
  std::snprintf(summary, sizeof(summary), "Order: largest difference between the shuffled and original outputs %.3g",
                static_cast<double>(difference));
  ctx.summary = summary;

  // Both with Y's colour scale, so equal rows look equal.
  MatrixViewOptions original = TokenRowsOptions("y", DivergingStyle(m.output), MatrixLabels{&in.tokens, &in.known});
  original.max_width = 420.0f;
  MatrixViewOptions shuffled_options = original;
  shuffled_options.rows = MatrixLabels{&m.shuffled_tokens, &m.shuffled_known};
  DrawSideBySide(
      "order",
      [&] {
        ImGui::SeparatorText("Outputs Y, words in their order");
        DrawMatrix("order.Y", m.output, version, original, ctx.published);
      },
      [&] {
        ImGui::SeparatorText("Outputs of the shuffled words");
        DrawMatrix("order.Yshuffled", m.shuffled_output, version, shuffled_options, ctx.published);
      });
  ctx.published.Matrix("order.Ypermuted", m.permuted_output);
  if (m.encoding.size() > 0) {
    ImGui::SeparatorText(s.encoding == lessons::OrderEncoding::kSinusoidal
                             ? "Sinusoidal encoding: eₚ,₂ₜ = sin(p / 10000^(2t/d)), eₚ,₂ₜ₊₁ = cos(...)"
                             : "Learned encoding: one seeded row per position (trained in a real model)");
    std::vector<std::string> positions(m.encoding.rows());
    for (size_t p = 0; p < positions.size(); ++p) positions[p] = "pos " + std::to_string(p);
    DrawMatrix("order.PE", m.encoding, version,
               TokenRowsOptions("e", DivergingStyle(m.encoding), MatrixLabels{&positions, nullptr}), ctx.published);
  }
}

}  // namespace attnlab
