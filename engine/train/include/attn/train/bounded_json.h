// A small JSON parser for untrusted headers (safetensors' JSON header, a checkpoint's config.json):
// the engine is C++17 on Eigen only and is compiled to WebAssembly, so no JSON library. It reads
// RFC 8259 JSON (objects, arrays, strings with every escape including \uXXXX surrogate pairs, numbers,
// true/false/null) under stated bounds, and never throws:
//   - text at most kJsonMaxTextBytes (16 MiB);
//   - nesting at most kJsonMaxDepth (64) — recursion is bounded by it, so a "[[[[…" file cannot
//     overflow the stack;
//   - at most kJsonMaxValues (1,000,000) values: with sizeof(JsonValue) ≤ 128 bytes and strings no
//     longer than the text, a parse holds at most 128 MB + 2 × the text;
//   - duplicate object keys are refused (which one a reader takes is ambiguous).
// Errors are kParseError "json: expected ':' after an object key (at byte 17)".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "attn/status.h"

namespace attn::train {

constexpr size_t kJsonMaxTextBytes = size_t{16} << 20;
constexpr int kJsonMaxDepth = 64;
constexpr size_t kJsonMaxValues = 1000000;

struct JsonValue {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  double number = 0;          // kNumber: the value as a double
  bool integral = false;      // kNumber: written without fraction or exponent and fits int64
  int64_t integer = 0;        // kNumber with integral: the exact value
  std::string text;           // kString: decoded UTF-8
  std::vector<JsonValue> items;                            // kArray
  std::vector<std::pair<std::string, JsonValue>> members;  // kObject, in the text's order

  // The member named `key` of an object, or nullptr.
  const JsonValue* Find(const std::string& key) const;
};

// Parses all of `text` (whitespace around the one value allowed) into `out`.
Status ParseJson(const char* text, size_t size, JsonValue* out);

// Appends `s` as a JSON string literal (quotes, escapes for '"', '\\' and control characters).
void AppendJsonString(const std::string& s, std::string* out);

}  // namespace attn::train
