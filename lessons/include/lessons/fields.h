// Every control is described once, as a field spec: its key in the state string, the label its
// widget shows, its range and its number format. The same spec then writes the state string, reads
// it back (rejecting values out of range), draws the slider and clamps what was typed into it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>

namespace lessons {

struct IntField {
  const char* key;    // short and unique across the whole state ("w.sp")
  const char* label;  // the widget's label
  int min, max;       // inclusive
  const char* format = "%d";
  int Clamp(int v) const { return std::clamp(v, min, max); }
};

struct FloatField {
  const char* key;
  const char* label;
  float min, max;  // inclusive
  const char* format = "%.2f";
  bool logarithmic = false;  // the slider moves in ratios (temperatures, scales)
  float Clamp(float v) const { return std::clamp(v, min, max); }
};

struct BoolField {
  const char* key;
  const char* label;
};

struct TextField {
  const char* key;
  size_t max_bytes;
};

// An enum in [0, count). In the state string it is written by name ("v=masks") and read by name or,
// for links made before the names, by its integer value.
struct ChoiceField {
  const char* key;
  int count;
  const char* const* names;  // count names, URL-safe (letters, digits, '-', '_')
  // Links made before the names held an index into this list (its names are among `names`); empty:
  // an index into `names`.
  const char* const* numbered_names = nullptr;
  int numbered_count = 0;
};

class FieldVisitor {
 public:
  virtual ~FieldVisitor() = default;
  virtual void Int(const IntField& field, int& value) = 0;
  virtual void Float(const FloatField& field, float& value) = 0;
  virtual void Bool(const BoolField& field, bool& value) = 0;
  virtual void String(const TextField& field, std::string& value) = 0;

  // By default a choice is visited as the integer it is stored as.
  virtual void ChoiceIndex(const ChoiceField& field, int& index) { Int(IntField{field.key, field.key, 0, field.count - 1}, index); }

  template <typename Enum>
  void Choice(const ChoiceField& field, Enum& value) {
    int v = static_cast<int>(value);
    ChoiceIndex(field, v);
    value = static_cast<Enum>(v);
  }
};

// Writes every field as "key=value&…" (defaults included): the key of what a model was computed
// from, so a cache re-runs exactly when one of them changed.
class KeyWriter : public FieldVisitor {
 public:
  void Int(const IntField& field, int& value) override;
  void Float(const FloatField& field, float& value) override;
  void Bool(const BoolField& field, bool& value) override;
  void String(const TextField& field, std::string& value) override;
  std::string text;
};

template <typename Part>
std::string FieldsKey(Part part) {  // by value: Visit() takes its fields by reference
  KeyWriter writer;
  part.Visit(writer);
  return writer.text;
}

}  // namespace lessons
