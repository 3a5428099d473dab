#include "widgets/prose.h"

#include <cstdarg>
#include <cfloat>
#include <cstdio>
#include <vector>

namespace attnlab {
namespace {

Published* g_sink = nullptr;

float Width(std::string_view s) { return ImGui::CalcTextSize(s.data(), s.data() + s.size()).x; }

// The longest prefix of `word` (at least one whole UTF-8 character) that fits `width`.
size_t FittingPrefix(std::string_view word, float width) {
  size_t fit = 0;
  for (size_t i = 0; i < word.size();) {
    size_t next = i + 1;
    while (next < word.size() && (static_cast<unsigned char>(word[next]) & 0xC0) == 0x80) ++next;
    if (fit > 0 && Width(word.substr(0, next)) > width) break;
    fit = i = next;
  }
  return fit;
}

}  // namespace

void SetProseSink(Published* published) { g_sink = published; }

// Each word is measured once and a line's width kept as a running sum: Prose runs for every sentence
// in every frame (ImGui's glyph advances add up; CalcTextSize only rounds the total up).
std::string WrapAtSpaces(std::string_view text, float width) {
  ImFont* font = ImGui::GetFont();
  const float size = ImGui::GetFontSize();
  const auto advance = [&](std::string_view s) { return font->CalcTextSizeA(size, FLT_MAX, 0.0f, s.data(), s.data() + s.size()).x; };
  const float space = advance(" ");
  std::string out;
  size_t paragraph_start = 0;
  while (paragraph_start <= text.size()) {
    size_t paragraph_end = text.find('\n', paragraph_start);
    if (paragraph_end == std::string_view::npos) paragraph_end = text.size();
    std::string_view paragraph = text.substr(paragraph_start, paragraph_end - paragraph_start);
    bool line_empty = true;
    float line_width = 0;
    size_t at = 0;
    while (at < paragraph.size()) {
      size_t end = paragraph.find(' ', at);
      if (end == std::string_view::npos) end = paragraph.size();
      std::string_view word = paragraph.substr(at, end - at);
      at = end + 1;
      const float word_width = advance(word);
      if (line_width + (line_empty ? 0.0f : space) + word_width <= width) {
        if (!line_empty) out += ' ';
        out += word;
        line_width += (line_empty ? 0.0f : space) + word_width;
        line_empty = false;
        continue;
      }
      if (!line_empty) out += '\n';
      while (Width(word) > width) {  // longer than a whole line: cut it
        const size_t cut = FittingPrefix(word, width);
        out += std::string(word.substr(0, cut)) + "\n";
        word.remove_prefix(cut);
      }
      out += word;
      line_width = advance(word);
      line_empty = false;
    }
    if (paragraph_end == text.size()) break;
    out += '\n';
    paragraph_start = paragraph_end + 1;
  }
  return out;
}

void ProseText(std::string_view text) {
  const float width = ImGui::GetContentRegionAvail().x;
  const std::string wrapped = WrapAtSpaces(text, width > 1.0f ? width : 1.0f);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::TextUnformatted(wrapped.data(), wrapped.data() + wrapped.size());
  if (!g_sink) return;
  PublishedText published{std::string(text), {}, {}};
  const float line_height = ImGui::GetTextLineHeight();
  size_t start = 0;
  for (int k = 0; start <= wrapped.size(); ++k) {
    size_t end = wrapped.find('\n', start);
    if (end == std::string::npos) end = wrapped.size();
    const std::string_view line(wrapped.data() + start, end - start);
    published.lines.push_back({origin.x, origin.y + k * line_height, Width(line), line_height});
    published.line_texts.emplace_back(line);
    if (end == wrapped.size()) break;
    start = end + 1;
  }
  g_sink->Text(std::move(published));
}

void ProseV(const char* fmt, va_list args) {
  va_list measure;
  va_copy(measure, args);
  const int n = std::vsnprintf(nullptr, 0, fmt, measure);
  va_end(measure);
  if (n <= 0) return;
  std::string text(static_cast<size_t>(n), '\0');
  std::vsnprintf(text.data(), text.size() + 1, fmt, args);
  ProseText(text);
}

void Prose(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  ProseV(fmt, args);
  va_end(args);
}

void ProseColored(const ImVec4& color, const char* fmt, ...) {
  ImGui::PushStyleColor(ImGuiCol_Text, color);
  va_list args;
  va_start(args, fmt);
  ProseV(fmt, args);
  va_end(args);
  ImGui::PopStyleColor();
}

}  // namespace attnlab
