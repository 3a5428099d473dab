#include "lessons/prices.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace lessons {
namespace {

attn::Status LineError(int line, const std::string& what) {
  return attn::Status(attn::StatusCode::kParseError, "prices.csv line " + std::to_string(line) + ": " + what);
}

bool IsIsoDate(const std::string& s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (int i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

}  // namespace

attn::Status ParsePrices(const std::string& text, PriceTable* out) {
  int number = 0;
  std::vector<PriceSeries> series;
  std::vector<std::vector<float>> values;
  bool header = false;
  for (size_t start = 0; start < text.size();) {  // line by line (no iostreams: their locale code is big in wasm)
    const size_t line_end = std::min(text.find('\n', start), text.size());
    std::string line = text.substr(start, line_end - start);
    start = line_end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (!header) {
      if (line != "symbol,date,price") return LineError(number, "expected the header 'symbol,date,price'");
      header = true;
      continue;
    }
    const size_t a = line.find(','), b = a == std::string::npos ? a : line.find(',', a + 1);
    if (b == std::string::npos || line.find(',', b + 1) != std::string::npos)
      return LineError(number, "expected 3 fields");
    const std::string symbol = line.substr(0, a), date = line.substr(a + 1, b - a - 1), price = line.substr(b + 1);
    if (symbol.empty()) return LineError(number, "empty symbol");
    if (!IsIsoDate(date)) return LineError(number, "bad date '" + date + "' (expected YYYY-MM-DD)");
    char* end = nullptr;
    const float value = std::strtof(price.c_str(), &end);
    if (price.empty() || *end != '\0' || !std::isfinite(value) || value <= 0.0f)
      return LineError(number, "bad price '" + price + "' (expected a finite number > 0)");
    size_t k = 0;
    while (k < series.size() && series[k].symbol != symbol) ++k;
    if (k == series.size()) {
      series.push_back(PriceSeries{symbol, {}, {}});
      values.emplace_back();
    }
    if (!series[k].dates.empty() && date <= series[k].dates.back())  // ISO dates sort as text
      return LineError(number, symbol + " dates must increase");
    series[k].dates.push_back(date);
    values[k].push_back(value);
  }
  if (!header) return attn::Status(attn::StatusCode::kParseError, "prices.csv: empty");
  if (series.empty()) return attn::Status(attn::StatusCode::kParseError, "prices.csv: no prices");
  for (size_t k = 0; k < series.size(); ++k)
    series[k].prices = Eigen::Map<const attn::Matrix>(values[k].data(), static_cast<Eigen::Index>(values[k].size()), 1);
  out->series = std::move(series);
  return attn::Status::Ok();
}

}  // namespace lessons
