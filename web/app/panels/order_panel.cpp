// View 2. The reader shuffles the words and sees the output rows move with them (difference 0);
// with sinusoidal or learned positions the outputs change instead.
#include "panels/order_panel.h"

#include <algorithm>

#include "lessons/explain.h"
#include "attn/positions.h"
#include "imgui.h"
#include "widgets/matrix_view.h"

namespace attnlab {
namespace {

attn::PositionEncoding EngineEncoding(lessons::OrderEncoding e) {
  switch (e) {
    case lessons::OrderEncoding::kSinusoidal: return attn::PositionEncoding::kSinusoidal;
    case lessons::OrderEncoding::kLearned: return attn::PositionEncoding::kLearned;
    default: return attn::PositionEncoding::kNone;
  }
}

}  // namespace

void OrderPanel::Recompute(PanelContext& ctx) {
  const lessons::OrderState& s = ctx.state.order;
  const SentenceInputs& in = ctx.sentence;
  changed_ = false;
  if (in.version == 0) return;
  if (in.version == computed_version_ && s.shuffle == computed_.shuffle && s.encoding == computed_.encoding) return;
  computed_version_ = in.version;
  computed_ = s;
  const int n = static_cast<int>(in.tokens.size());
  attn::AttentionConfig config;  // parameter-free self-attention, as in view 1
  config.position = EngineEncoding(s.encoding);
  config.seed = 1;  // the learned table is seeded: the same table for both orders
  std::vector<int> order = lessons::SeededPermutation(n, static_cast<unsigned>(s.shuffle));
  attn::AttentionInputs original, shuffled;
  original.query = in.x;
  attn::AttentionResult a, b;
  attn::Status status = lessons::PermuteRows(in.x, order, &shuffled.query);
  if (status.ok()) {
    ++*ctx.engine_runs;
    status = attn::Forward(config, original, &a);
  }
  if (status.ok()) {
    ++*ctx.engine_runs;
    status = attn::Forward(config, shuffled, &b);
  }
  attn::Matrix permuted;
  if (status.ok()) status = lessons::PermuteRows(a.output, order, &permuted);
  float difference = 0;
  if (status.ok()) status = lessons::MaxAbsDifference(b.output, permuted, &difference);
  if (!KeepStatus(status, &error_)) return;
  order_ = std::move(order);
  shuffled_tokens_.resize(n);
  shuffled_known_.resize(n);
  for (int i = 0; i < n; ++i) {
    shuffled_tokens_[i] = in.tokens[order_[i]];
    shuffled_known_[i] = in.known[order_[i]];
  }
  output_ = std::move(a.output);
  shuffled_output_ = std::move(b.output);
  permuted_output_ = std::move(permuted);
  difference_ = difference;
  const int d = static_cast<int>(in.x.cols());
  if (s.encoding == lessons::OrderEncoding::kSinusoidal) {
    encoding_ = attn::SinusoidalEncoding<float>(n, d, 0, config.position_base);
  } else if (s.encoding == lessons::OrderEncoding::kLearned) {
    encoding_ = a.parameters.position_table.topRows(n);  // the rows of the seeded table in use
  } else {
    encoding_.resize(0, 0);
  }
  changed_ = true;
}

void OrderPanel::Draw(PanelContext& ctx) {
  DrawExplanation(
      "Self-attention without parameters has no idea of order: every word is compared with every word, "
      "wherever it stands. Shuffle the words and each word's output is exactly what it was, only in its "
      "new place: permuting the inputs permutes the outputs the same way (permutation equivariance), and "
      "no position is privileged. To use order, position must be added to the vectors: xᵢ + eᵢ, with a "
      "sinusoidal or a learned encoding eᵢ.",
      "shuffle a few times and watch the largest difference stay 0; then switch on an encoding and shuffle "
      "again.");
  lessons::OrderState& s = ctx.state.order;
  if (ImGui::Button("Shuffle the words")) s.shuffle = s.shuffle % 999 + 1;
  const ImVec2 b0 = ImGui::GetItemRectMin(), b1 = ImGui::GetItemRectMax();
  ctx.published.Rect("order.shuffle", {b0.x, b0.y, b1.x - b0.x, b1.y - b0.y});
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

  Recompute(ctx);
  DrawStatusLine(error_);
  if (output_.size() == 0) return;
  const SentenceInputs& in = ctx.sentence;

  std::string shuffled;
  for (const auto& t : shuffled_tokens_) shuffled += (shuffled.empty() ? "" : " ") + t;
  ImGui::TextWrapped("Shuffled: %s", shuffled.c_str());
  // Float sums taken in another order may differ in the last bits; more than that is real.
  const float rounding = 1e-5f * std::max(1.0f, output_.cwiseAbs().maxCoeff());
  const bool equal = difference_ <= rounding;
  ImGui::PushStyleColor(ImGuiCol_Text, equal ? ImVec4(0.45f, 0.9f, 0.5f, 1.0f) : ImVec4(1.0f, 0.65f, 0.3f, 1.0f));
  ImGui::TextWrapped("Largest difference between the shuffled outputs and the original outputs, shuffled: %.3g",
                     difference_);
  ImGui::PopStyleColor();
  ImGui::TextDisabled("%s", equal ? (difference_ == 0.0f ? "Exactly 0: order had no influence."
                                                         : "0 up to float32 rounding (the same sums, added in another "
                                                           "order): order had no influence.")
                                  : "Not 0: with positions added, where a word stands changes what it becomes.");
  ctx.published.Scalar("order.difference", difference_);

  // Both with Y's colour scale, so equal rows look equal.
  MatrixViewOptions original = TokenRowsOptions("y", DivergingStyle(output_), MatrixLabels{&in.tokens, &in.known});
  original.max_width = 420.0f;
  MatrixViewOptions shuffled_options = original;
  shuffled_options.rows = MatrixLabels{&shuffled_tokens_, &shuffled_known_};
  DrawSideBySide(
      "order",
      [&] {
        ImGui::SeparatorText("Outputs Y, words in their order");
        DrawMatrix("order.Y", output_map_, output_, changed_, original, ctx.published);
      },
      [&] {
        ImGui::SeparatorText("Outputs of the shuffled words");
        DrawMatrix("order.Yshuffled", shuffled_map_, shuffled_output_, changed_, shuffled_options, ctx.published);
      });
  ctx.published.Matrix("order.Ypermuted", permuted_output_);
  if (encoding_.size() > 0) {
    ImGui::SeparatorText(s.encoding == lessons::OrderEncoding::kSinusoidal
                             ? "Sinusoidal encoding: eₚ,₂ₜ = sin(p / 10000^(2t/d)), eₚ,₂ₜ₊₁ = cos(...)"
                             : "Learned encoding: one seeded row per position (trained in a real model)");
    std::vector<std::string> positions(encoding_.rows());
    for (size_t p = 0; p < positions.size(); ++p) positions[p] = "pos " + std::to_string(p);
    DrawMatrix("order.PE", encoding_map_, encoding_, changed_,
               TokenRowsOptions("e", DivergingStyle(encoding_), MatrixLabels{&positions, nullptr}), ctx.published);
  }
}

}  // namespace attnlab
