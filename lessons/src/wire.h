// The byte writer and reader of the messages between the page and its workers (lm_wire.h,
// learn_wire.h): little-endian on every target attnlab builds for (x86-64, wasm32), so a value is a
// memcpy of its native bytes. The reader trusts nothing: every read checks the bytes left, a count is
// checked against them before anything is allocated, and the first failure is a kParseError naming
// the message, the field and the byte. The work is out of line (wire.cpp): the page's wasm carries
// one copy of it, not one per field read.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lessons/common.h"

namespace lessons::wire {

class Writer {
 public:
  template <typename T>
  void Put(T value) { Bytes(&value, sizeof(T)); }
  void String(const std::string& s);
  template <typename T>
  void Values(const std::vector<T>& v) {
    Put<uint32_t>(static_cast<uint32_t>(v.size()));
    Bytes(v.data(), v.size() * sizeof(T));
  }
  void Floats(const std::vector<float>& v) { Values(v); }
  void MatrixValues(const Matrix& m);
  void Bytes(const void* data, size_t size);
  std::string out;
};

// Every read checks the bytes left; a count is checked against them before anything is allocated.
class Reader {
 public:
  // `message` names the message in errors ("lm message").
  Reader(std::string_view bytes, const char* message) : bytes_(bytes), message_(message) {}
  template <typename T>
  bool Get(const char* what, T* value) { return Take(what, value, sizeof(T)); }
  // A count of items of at least `min_bytes` each (in 64 bits: wasm32's size_t would wrap).
  bool Count(const char* what, uint64_t min_bytes, uint32_t* count);
  bool String(const char* what, std::string* s);
  template <typename T>
  bool Values(const char* what, std::vector<T>* v) {
    uint32_t size = 0;
    if (!Count(what, sizeof(T), &size)) return false;
    v->resize(size);
    return Take(what, v->data(), size * sizeof(T));
  }
  bool Floats(const char* what, std::vector<float>* v) { return Values(what, v); }
  // A side past 65,536 is no map the view draws (and would overflow wasm32's Eigen::Index with the other 0).
  bool MatrixValues(const char* what, Matrix* m);
  // A value read whole but out of its range: fails the read (returns false) naming it.
  bool Invalid(const char* what, const std::string& expected, const std::string& got);
  bool AtEnd(const char* what);
  Status status() const { return status_; }

 private:
  // `size` bytes into `out` (nothing when 0: `out` may be null then).
  bool Take(const char* what, void* out, size_t size);
  bool Need(const char* what, uint64_t n);
  void Fail(const char* what, const std::string& expected, const std::string& got);
  std::string_view bytes_;
  const char* message_;
  size_t at_ = 0;
  Status status_;
};

}  // namespace lessons::wire
