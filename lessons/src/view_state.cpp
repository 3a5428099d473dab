#include "lessons/view_state.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "attn/text.h"

namespace lessons {
namespace {

bool Unreserved(unsigned char c) { return std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~'; }

std::string PercentEncode(const std::string& s) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (Unreserved(c)) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// '+' is a space, as in query strings. False on a truncated or non-hex escape.
bool PercentDecode(const std::string& s, std::string* out) {
  out->clear();
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out->push_back(' ');
    } else if (s[i] != '%') {
      out->push_back(s[i]);
    } else {
      if (i + 2 >= s.size()) return false;
      const int hi = HexValue(s[i + 1]), lo = HexValue(s[i + 2]);
      if (hi < 0 || lo < 0) return false;
      out->push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    }
  }
  return true;
}

// The byte where `s` stops being text a view can show: not UTF-8 (a stray continuation byte, an
// overlong or truncated sequence, a surrogate, past U+10FFFF) or a control character other than
// tab and newline (a NUL, say). s.size() when it is all text.
size_t FirstNonText(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F) return i;
      ++i;
      continue;
    }
    const int extra = c >= 0xC2 && c <= 0xDF ? 1 : c >= 0xE0 && c <= 0xEF ? 2 : c >= 0xF0 && c <= 0xF4 ? 3 : -1;
    if (extra < 0 || i + extra >= s.size()) return i;  // not a lead byte, or cut short
    unsigned cp = c & (extra == 1 ? 0x1F : extra == 2 ? 0x0F : 0x07);
    for (int k = 1; k <= extra; ++k) {
      const unsigned char t = static_cast<unsigned char>(s[i + k]);
      if ((t & 0xC0) != 0x80) return i;
      cp = cp << 6 | (t & 0x3F);
    }
    if ((extra == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (extra == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
      return i;
    i += extra + 1;
  }
  return s.size();
}

// Every field as (key, encoded value), in visiting order.
class Collector : public FieldVisitor {
 public:
  void Int(const IntField& f, int& value) override { Add(f.key, std::to_string(value)); }
  void Float(const FloatField& f, float& value) override { Add(f.key, attn::ShortestNumberText(value)); }
  void Bool(const BoolField& f, bool& value) override { Add(f.key, value ? "1" : "0"); }
  void String(const TextField& f, std::string& value) override { Add(f.key, PercentEncode(value)); }
  void ChoiceIndex(const ChoiceField& f, int& index) override { Add(f.key, f.names[index]); }
  std::vector<std::pair<std::string, std::string>> fields;

 private:
  void Add(const char* key, std::string value) { fields.emplace_back(key, std::move(value)); }
};

// Reads fields from parsed key=value pairs. Out-of-range numbers are clamped, anything else that is
// wrong is skipped; every problem is noted for the report.
class Reader : public FieldVisitor {
 public:
  explicit Reader(std::map<std::string, std::string> values) : values_(std::move(values)) {}

  void Int(const IntField& f, int& value) override {
    const std::string* text = Take(f.key);
    if (!text) return;
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(text->c_str(), &end, 10);
    if (text->empty() || *end != '\0' || errno == ERANGE)
      return Fail(attn::StatusCode::kParseError, f.key, "expected an integer, got '" + *text + "'");
    value = static_cast<int>(std::clamp<long long>(v, f.min, f.max));
    if (value != v)
      Fail(attn::StatusCode::kOutOfRange, f.key, "expected " + std::to_string(f.min) + ".." + std::to_string(f.max) +
                                                     ", got " + *text + ": used " + std::to_string(value));
  }
  void Float(const FloatField& f, float& value) override {
    const std::string* text = Take(f.key);
    if (!text) return;
    char* end = nullptr;
    const float v = std::strtof(text->c_str(), &end);
    if (text->empty() || *end != '\0' || std::isnan(v))
      return Fail(attn::StatusCode::kParseError, f.key, "expected a finite number, got '" + *text + "'");
    value = f.Clamp(v);  // ±inf clamps to the ends of the range
    if (value != v)
      Fail(attn::StatusCode::kOutOfRange, f.key,
           "expected " + attn::ShortestNumberText(f.min) + ".." + attn::ShortestNumberText(f.max) + ", got " + *text +
               ": used " + attn::ShortestNumberText(value));
  }
  void Bool(const BoolField& f, bool& value) override {
    const std::string* text = Take(f.key);
    if (!text) return;
    if (*text != "0" && *text != "1") return Fail(attn::StatusCode::kParseError, f.key, "expected 0 or 1, got '" + *text + "'");
    value = *text == "1";
  }
  void String(const TextField& f, std::string& value) override {
    const std::string* text = Take(f.key);
    if (!text) return;
    std::string decoded;
    if (!PercentDecode(*text, &decoded)) return Fail(attn::StatusCode::kParseError, f.key, "bad %-escape");
    if (decoded.size() > f.max_bytes)
      return Fail(attn::StatusCode::kOutOfRange, f.key, "longer than " + std::to_string(f.max_bytes) + " bytes");
    const size_t bad = FirstNonText(decoded);
    if (bad < decoded.size())
      return Fail(attn::StatusCode::kParseError, f.key,
                  "expected UTF-8 text, got byte " + std::to_string(static_cast<unsigned char>(decoded[bad])) + " at " +
                      std::to_string(bad));
    value = std::move(decoded);
  }
  // A name, or the integer of a link made before the names.
  void ChoiceIndex(const ChoiceField& f, int& index) override {
    const std::string* text = Take(f.key);
    if (!text) return;
    for (int k = 0; k < f.count; ++k)
      if (*text == f.names[k]) {
        index = k;
        return;
      }
    char* end = nullptr;
    const long v = std::strtol(text->c_str(), &end, 10);
    if (!text->empty() && *end == '\0' && v >= 0 && v < (f.numbered_names ? f.numbered_count : f.count)) {
      if (!f.numbered_names) {
        index = static_cast<int>(v);
        return;
      }
      for (int k = 0; k < f.count; ++k)
        if (std::string(f.names[k]) == f.numbered_names[v]) {
          index = k;
          return;
        }
    }
    std::string names;
    for (int k = 0; k < f.count; ++k) names += std::string(k ? ", " : "") + f.names[k];
    Fail(attn::StatusCode::kParseError, f.key, "expected one of " + names + ", got '" + *text + "'");
  }

  // Keys nobody asked for.
  void ReportUnknownKeys() {
    for (const auto& kv : values_)
      if (!taken_.count(kv.first)) Fail(attn::StatusCode::kParseError, kv.first.c_str(), "unknown key");
  }
  // Whether the text gave this key (read or not yet read).
  bool Given(const char* key) const { return values_.count(key) > 0; }
  void Fail(attn::StatusCode code, const char* key, const std::string& what) {
    if (code_ == attn::StatusCode::kOk) code_ = code;
    constexpr size_t kMaxMessage = 400;  // a hostile link may hold thousands of bad keys
    if (message_.size() > kMaxMessage) return;
    if (!message_.empty()) message_ += "; ";
    message_ += "state '" + std::string(key).substr(0, 40) + "': " + what.substr(0, 240);  // room for the longest choice list and a quoted value
    if (message_.size() > kMaxMessage) message_ += "; …";
  }
  attn::Status status() const { return code_ == attn::StatusCode::kOk ? attn::Status::Ok() : attn::Status(code_, message_); }

 private:
  const std::string* Take(const char* key) {
    const auto it = values_.find(key);
    if (it == values_.end()) return nullptr;
    taken_.insert(key);
    return &it->second;
  }
  std::map<std::string, std::string> values_;
  std::set<std::string> taken_;
  attn::StatusCode code_ = attn::StatusCode::kOk;
  std::string message_;
};

// Fields that only the seeded (untrained) projections have, as d_k or the number of heads, per view
// with a "trained on English" box. A link that gives one of them without the box asks for seeded
// projections, since on the trained ones it would do nothing: <attn-lab view="heads" state="h.n=8">
// shows 8 seeded heads. SerializeState writes the box (=1) beside such a field when the trained
// projections are shown, so a state round-trips.
struct SeededOnlyFields {
  const BoolField& trained;
  std::vector<const char*> keys;
  bool& (*flag)(ViewState&);
};
const std::vector<SeededOnlyFields>& SeededOnly() {
  static const std::vector<SeededOnlyFields> fields = {
      {QkvState::kTrained,
       {QkvState::kDk.key, QkvState::kDv.key, QkvState::kSeed.key, QkvState::kScale.key, QkvState::kIdentity.key},
       [](ViewState& s) -> bool& { return s.qkv.trained; }},
      {HeadsState::kTrained, {HeadsState::kHeads.key, HeadsState::kKvHeads.key, HeadsState::kSeed.key},
       [](ViewState& s) -> bool& { return s.heads.trained; }},
  };
  return fields;
}

}  // namespace

void KeyWriter::Int(const IntField& f, int& value) { text += std::string(f.key) + "=" + std::to_string(value) + "&"; }
void KeyWriter::Float(const FloatField& f, float& value) { text += std::string(f.key) + "=" + attn::ShortestNumberText(value) + "&"; }
void KeyWriter::Bool(const BoolField& f, bool& value) { text += std::string(f.key) + (value ? "=1&" : "=0&"); }
void KeyWriter::String(const TextField& f, std::string& value) { text += std::string(f.key) + "=" + PercentEncode(value) + "&"; }

std::string SerializeState(const ViewState& state) {
  ViewState defaults, copy = state;
  Collector d, s;
  defaults.Visit(d);
  copy.Visit(s);
  std::string out;
  for (size_t i = 0; i < s.fields.size(); ++i) {
    if (s.fields[i].second == d.fields[i].second) continue;
    if (!out.empty()) out.push_back('&');
    out += s.fields[i].first + "=" + s.fields[i].second;
  }
  for (const SeededOnlyFields& f : SeededOnly()) {
    if (!f.flag(copy)) continue;  // "=0" is written already (the default is trained)
    const bool any = std::any_of(f.keys.begin(), f.keys.end(), [&](const char* k) {
      return out.find(std::string(k) + "=") == 0 || out.find("&" + std::string(k) + "=") != std::string::npos;
    });
    if (any) out += "&" + std::string(f.trained.key) + "=1";
  }
  return out;
}

attn::Status ParseState(const std::string& text, ViewState* state) {
  std::map<std::string, std::string> values;
  std::vector<std::string> malformed;
  size_t start = text.empty() ? 0 : (text[0] == '#' || text[0] == '?' ? 1 : 0);
  while (start < text.size()) {
    size_t end = text.find('&', start);
    if (end == std::string::npos) end = text.size();
    const std::string pair = text.substr(start, end - start);
    const size_t eq = pair.find('=');
    if (!pair.empty() && eq == std::string::npos) malformed.push_back(pair);
    if (eq != std::string::npos) values[pair.substr(0, eq)] = pair.substr(eq + 1);
    start = end + 1;
  }
  Reader reader(std::move(values));
  for (const std::string& pair : malformed)
    reader.Fail(attn::StatusCode::kParseError, pair.c_str(), "expected key=value");
  state->Visit(reader);
  for (const SeededOnlyFields& f : SeededOnly())
    if (!reader.Given(f.trained.key) && std::any_of(f.keys.begin(), f.keys.end(), [&](const char* k) { return reader.Given(k); }))
      f.flag(*state) = false;
  reader.ReportUnknownKeys();
  // A kernel this build lacks (a link from a native build: sp.k=3 is avx2) runs the fastest one, and
  // the note says so.
  const int kernel = state->speed.kernel;
  if (kernel >= 0 && !attn::KernelAvailable(static_cast<attn::KernelId>(kernel))) {
    reader.Fail(attn::StatusCode::kOutOfRange, SpeedState::kKernel.key,
                std::string("kernel ") + attn::KernelName(static_cast<attn::KernelId>(kernel)) +
                    " is not in this build: used the fastest one, " + attn::KernelName(attn::FastestKernel()));
    state->speed.kernel = -1;
  }
  return reader.status();
}

namespace {

// Calls fn(head) for each number in `text` below `total` (what is not a number separates; a number
// ≥ total is skipped whatever its digits).
template <typename F>
void ForEachListedHead(const std::string& text, int total, F fn) {
  for (size_t at = 0; at < text.size();) {
    size_t end = at;
    long value = 0;
    for (; end < text.size() && text[end] >= '0' && text[end] <= '9'; ++end) value = std::min<long>(value * 10 + (text[end] - '0'), total);
    if (end > at && value < total) fn(static_cast<int>(value));
    at = std::max(end, at + 1);
  }
}

}  // namespace

std::vector<int> LmKnockedOut(const LmState& state, int total) {
  std::vector<int> heads;
  ForEachListedHead(state.ablated, total, [&](int h) { heads.push_back(h); });
  std::sort(heads.begin(), heads.end());
  heads.erase(std::unique(heads.begin(), heads.end()), heads.end());
  return heads;
}

bool LmIsKnockedOut(const LmState& state, int head) {
  bool found = false;
  ForEachListedHead(state.ablated, head + 1, [&](int h) { found = found || h == head; });
  return found;
}

void LmSetKnockedOut(LmState* state, int head, bool out) {
  // The page's module holds this: a small loop, no sort (LmKnockedOut orders the list when read).
  std::string text;
  char number[16];
  auto add = [&](int h) {
    std::snprintf(number, sizeof(number), text.empty() ? "%d" : ",%d", h);
    text += number;
  };
  ForEachListedHead(state->ablated, 1 << 20, [&](int h) {
    if (h != head) add(h);
  });
  if (out && head >= 0) add(head);
  state->ablated = text;
}

}  // namespace lessons
