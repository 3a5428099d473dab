// The bounded JSON parser (attn/train/bounded_json.h): recursive descent with a depth counter, a
// value counter and byte offsets in every error.
#include "attn/train/bounded_json.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <new>

namespace attn::train {
namespace {

static_assert(sizeof(JsonValue) <= 128, "bounded_json.h states a value's bookkeeping is at most 128 bytes");

class Parser {
 public:
  Parser(const char* text, size_t size) : s_(text), n_(size) {}

  Status Parse(JsonValue* out) {
    if (n_ > kJsonMaxTextBytes)
      return Status(StatusCode::kResourceExhausted, "json: text of " + std::to_string(n_) + " bytes, more than the " +
                                                        std::to_string(kJsonMaxTextBytes) + " allowed");
    SkipSpace();
    ATTN_RETURN_IF_ERROR(Value(out, 0));
    SkipSpace();
    if (at_ != n_) return Fail("expected the end of the text after the value");
    return Status::Ok();
  }

 private:
  Status Fail(const std::string& what) const {
    return Status(StatusCode::kParseError, "json: " + what + " (at byte " + std::to_string(at_) + ")");
  }
  void SkipSpace() {
    while (at_ < n_ && (s_[at_] == ' ' || s_[at_] == '\t' || s_[at_] == '\n' || s_[at_] == '\r')) ++at_;
  }
  bool Literal(const char* word) {
    size_t k = 0;
    while (word[k]) {
      if (at_ + k >= n_ || s_[at_ + k] != word[k]) return false;
      ++k;
    }
    at_ += k;
    return true;
  }

  Status Value(JsonValue* v, int depth) {
    if (++values_ > kJsonMaxValues)
      return Status(StatusCode::kResourceExhausted, "json: more than " + std::to_string(kJsonMaxValues) + " values");
    if (at_ >= n_) return Fail("expected a value, got the end of the text");
    const char c = s_[at_];
    if (c == '{' || c == '[') {
      if (depth >= kJsonMaxDepth) return Fail("nested deeper than " + std::to_string(kJsonMaxDepth) + " levels");
      return c == '{' ? Object(v, depth + 1) : Array(v, depth + 1);
    }
    if (c == '"') {
      v->kind = JsonValue::Kind::kString;
      return String(&v->text);
    }
    if (c == '-' || (c >= '0' && c <= '9')) return Number(v);
    if (Literal("true")) {
      v->kind = JsonValue::Kind::kBool;
      v->boolean = true;
      return Status::Ok();
    }
    if (Literal("false")) {
      v->kind = JsonValue::Kind::kBool;
      return Status::Ok();
    }
    if (Literal("null")) {
      v->kind = JsonValue::Kind::kNull;
      return Status::Ok();
    }
    return Fail(std::string("expected a value, got '") + (c >= 32 && c < 127 ? std::string(1, c) : "?") + "'");
  }

  // Steps over `c` when it is next.
  bool Consume(char c) {
    if (at_ >= n_ || s_[at_] != c) return false;
    ++at_;
    return true;
  }

  Status Object(JsonValue* v, int depth) {
    v->kind = JsonValue::Kind::kObject;
    ++at_;  // {
    SkipSpace();
    if (Consume('}')) return Status::Ok();
    while (true) {
      SkipSpace();
      if (at_ >= n_ || s_[at_] != '"') return Fail("expected an object key (a string)");
      std::string key;
      ATTN_RETURN_IF_ERROR(String(&key));
      SkipSpace();
      if (at_ >= n_ || s_[at_] != ':') return Fail("expected ':' after an object key");
      ++at_;
      SkipSpace();
      v->members.emplace_back(std::move(key), JsonValue());
      ATTN_RETURN_IF_ERROR(Value(&v->members.back().second, depth));
      SkipSpace();
      if (Consume(',')) continue;
      if (Consume('}')) return CheckUniqueKeys(*v);
      return Fail("expected ',' or '}' in an object");
    }
  }

  // Sorted once per object (a linear search per key would be quadratic in a hostile object's size).
  Status CheckUniqueKeys(const JsonValue& v) const {
    std::vector<const std::string*> keys;
    keys.reserve(v.members.size());
    for (const auto& m : v.members) keys.push_back(&m.first);
    std::sort(keys.begin(), keys.end(), [](const std::string* a, const std::string* b) { return *a < *b; });
    for (size_t i = 1; i < keys.size(); ++i)
      if (*keys[i] == *keys[i - 1]) return Fail("duplicate key \"" + keys[i]->substr(0, 64) + "\" in the object ending here");
    return Status::Ok();
  }

  Status Array(JsonValue* v, int depth) {
    v->kind = JsonValue::Kind::kArray;
    ++at_;  // [
    SkipSpace();
    if (Consume(']')) return Status::Ok();
    while (true) {
      SkipSpace();
      v->items.emplace_back();
      ATTN_RETURN_IF_ERROR(Value(&v->items.back(), depth));
      SkipSpace();
      if (Consume(',')) continue;
      if (Consume(']')) return Status::Ok();
      return Fail("expected ',' or ']' in an array");
    }
  }

  static void AppendUtf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  bool Hex4(uint32_t* cp) {
    if (at_ + 4 > n_) return false;
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = s_[at_ + k];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= static_cast<uint32_t>(c - 'A' + 10);
      else return false;
    }
    at_ += 4;
    *cp = v;
    return true;
  }

  Status String(std::string* out) {
    ++at_;  // "
    out->clear();
    while (true) {
      if (at_ >= n_) return Fail("unterminated string");
      const unsigned char c = static_cast<unsigned char>(s_[at_]);
      if (c == '"') {
        ++at_;
        return Status::Ok();
      }
      if (c < 0x20) return Fail("control character in a string");
      if (c != '\\') {
        out->push_back(static_cast<char>(c));
        ++at_;
        continue;
      }
      if (++at_ >= n_) return Fail("unterminated escape");
      const char e = s_[at_++];
      switch (e) {
        case '"': out->push_back('"'); break;
        case '\\': out->push_back('\\'); break;
        case '/': out->push_back('/'); break;
        case 'b': out->push_back('\b'); break;
        case 'f': out->push_back('\f'); break;
        case 'n': out->push_back('\n'); break;
        case 'r': out->push_back('\r'); break;
        case 't': out->push_back('\t'); break;
        case 'u': {
          uint32_t cp = 0;
          if (!Hex4(&cp)) return Fail("expected four hex digits after \\u");
          if (cp >= 0xD800 && cp < 0xDC00) {  // a high surrogate: its low half must follow
            uint32_t low = 0;
            if (!(at_ + 2 <= n_ && s_[at_] == '\\' && s_[at_ + 1] == 'u')) return Fail("unpaired surrogate");
            at_ += 2;
            if (!Hex4(&low) || low < 0xDC00 || low >= 0xE000) return Fail("unpaired surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp < 0xE000) {
            return Fail("unpaired surrogate");
          }
          AppendUtf8(cp, out);
          break;
        }
        default: return Fail("unknown escape");
      }
    }
  }

  Status Number(JsonValue* v) {
    const size_t start = at_;
    bool negative = false, integral = true;
    if (s_[at_] == '-') negative = true, ++at_;
    if (at_ >= n_ || !(s_[at_] >= '0' && s_[at_] <= '9')) return Fail("expected a digit");
    if (s_[at_] == '0' && at_ + 1 < n_ && s_[at_ + 1] >= '0' && s_[at_ + 1] <= '9') return Fail("leading zero in a number");
    // The integer part, exactly while it fits int64 (magnitude kept as uint64).
    uint64_t magnitude = 0;
    bool fits = true;
    while (at_ < n_ && s_[at_] >= '0' && s_[at_] <= '9') {
      const uint64_t digit = static_cast<uint64_t>(s_[at_] - '0');
      if (magnitude > (UINT64_MAX - digit) / 10) fits = false;
      else magnitude = magnitude * 10 + digit;
      ++at_;
    }
    if (at_ < n_ && s_[at_] == '.') {
      integral = false;
      ++at_;
      if (at_ >= n_ || !(s_[at_] >= '0' && s_[at_] <= '9')) return Fail("expected a digit after '.'");
      while (at_ < n_ && s_[at_] >= '0' && s_[at_] <= '9') ++at_;
    }
    if (at_ < n_ && (s_[at_] == 'e' || s_[at_] == 'E')) {
      integral = false;
      ++at_;
      if (at_ < n_ && (s_[at_] == '+' || s_[at_] == '-')) ++at_;
      if (at_ >= n_ || !(s_[at_] >= '0' && s_[at_] <= '9')) return Fail("expected a digit in the exponent");
      while (at_ < n_ && s_[at_] >= '0' && s_[at_] <= '9') ++at_;
    }
    v->kind = JsonValue::Kind::kNumber;
    // strtod needs a terminated string: the number's text is short (digits are bounded by the text).
    const std::string literal(s_ + start, at_ - start);
    v->number = std::strtod(literal.c_str(), nullptr);
    const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
    v->integral = integral && fits && magnitude <= limit;
    if (v->integral)
      v->integer = negative ? (magnitude == (uint64_t{1} << 63) ? INT64_MIN : -static_cast<int64_t>(magnitude))
                            : static_cast<int64_t>(magnitude);
    return Status::Ok();
  }

  const char* s_;
  size_t n_;
  size_t at_ = 0;
  size_t values_ = 0;
};

}  // namespace

const JsonValue* JsonValue::Find(const std::string& key) const {
  for (const auto& [k, v] : members)
    if (k == key) return &v;
  return nullptr;
}

Status ParseJson(const char* text, size_t size, JsonValue* out) {
  try {
    JsonValue v;
    ATTN_RETURN_IF_ERROR(Parser(text, size).Parse(&v));
    *out = std::move(v);
    return Status::Ok();
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kResourceExhausted, "json: out of memory while parsing " + std::to_string(size) + " bytes");
  }
}

void AppendJsonString(const std::string& s, std::string* out) {
  static const char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (const char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
    } else if (c < 0x20) {
      *out += "\\u00";
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
    } else {
      out->push_back(static_cast<char>(c));
    }
  }
  out->push_back('"');
}

}  // namespace attn::train
