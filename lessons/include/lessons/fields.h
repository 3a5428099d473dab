// Every control registers itself once as a named field; the same list then writes the state as a
// short URL-safe string, reads it back, and resets it. Panels describe their own fields.
#pragma once

#include <string>

namespace lessons {

class FieldVisitor {
 public:
  virtual ~FieldVisitor() = default;
  // Keys are short and unique across the whole state ("s", "w.t"); ranges are inclusive.
  virtual void Int(const char* key, int& value, int lo, int hi) = 0;
  virtual void Float(const char* key, float& value, float lo, float hi) = 0;
  virtual void Bool(const char* key, bool& value) = 0;
  virtual void String(const char* key, std::string& value, size_t max_bytes) = 0;

  // An enum stored as its integer value in [0, count).
  template <typename Enum>
  void Choice(const char* key, Enum& value, int count) {
    int v = static_cast<int>(value);
    Int(key, v, 0, count - 1);
    value = static_cast<Enum>(v);
  }
};

}  // namespace lessons
