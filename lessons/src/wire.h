// The byte writer and reader of the messages between the page and its workers (lm_wire.h,
// learn_wire.h): little-endian on every target attnlab builds for (x86-64, wasm32), so a value is a
// memcpy of its native bytes. The reader trusts nothing: every read checks the bytes left, a count is
// checked against them before anything is allocated, and the first failure is a kParseError naming
// the message, the field and the byte.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "lessons/common.h"

namespace lessons::wire {

class Writer {
 public:
  template <typename T>
  void Put(T value) {
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    out.append(bytes, sizeof(T));
  }
  void String(const std::string& s) {
    Put<uint32_t>(static_cast<uint32_t>(s.size()));
    out += s;
  }
  template <typename T>
  void Values(const std::vector<T>& v) {
    Put<uint32_t>(static_cast<uint32_t>(v.size()));
    out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
  void Floats(const std::vector<float>& v) { Values(v); }
  void MatrixValues(const Matrix& m) {
    Put<uint32_t>(static_cast<uint32_t>(m.rows()));
    Put<uint32_t>(static_cast<uint32_t>(m.cols()));
    out.append(reinterpret_cast<const char*>(m.data()), static_cast<size_t>(m.size()) * sizeof(float));
  }
  std::string out;
};

// Every read checks the bytes left; a count is checked against them before anything is allocated.
class Reader {
 public:
  // `message` names the message in errors ("lm message").
  Reader(std::string_view bytes, const char* message) : bytes_(bytes), message_(message) {}
  template <typename T>
  bool Get(const char* what, T* value) {
    if (!Need(what, sizeof(T))) return false;
    std::memcpy(value, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return true;
  }
  // A count of items of at least `min_bytes` each (in 64 bits: wasm32's size_t would wrap).
  bool Count(const char* what, uint64_t min_bytes, uint32_t* count) {
    if (!Get(what, count)) return false;
    return Need(what, uint64_t{*count} * min_bytes);
  }
  bool String(const char* what, std::string* s) {
    uint32_t size = 0;
    if (!Count(what, 1, &size)) return false;
    s->assign(bytes_.data() + at_, size);
    at_ += size;
    return true;
  }
  template <typename T>
  bool Values(const char* what, std::vector<T>* v) {
    uint32_t size = 0;
    if (!Count(what, sizeof(T), &size)) return false;
    v->resize(size);
    if (size) std::memcpy(v->data(), bytes_.data() + at_, size * sizeof(T));  // data() may be null when empty
    at_ += size * sizeof(T);
    return true;
  }
  bool Floats(const char* what, std::vector<float>* v) { return Values(what, v); }
  bool MatrixValues(const char* what, Matrix* m) {
    uint32_t rows = 0, cols = 0;
    if (!Get(what, &rows) || !Get(what, &cols)) return false;
    // A side past 65,536 is no map the view draws (and would overflow wasm32's Eigen::Index with the other 0).
    if (rows > 65536 || cols > 65536) {
      Fail(what, "at most 65536 rows and columns", std::to_string(rows) + " × " + std::to_string(cols));
      return false;
    }
    if (!Need(what, uint64_t{rows} * cols * sizeof(float))) return false;
    m->resize(rows, cols);
    if (m->size()) std::memcpy(m->data(), bytes_.data() + at_, static_cast<size_t>(rows) * cols * sizeof(float));
    at_ += static_cast<size_t>(rows) * cols * sizeof(float);
    return true;
  }
  // A value read whole but out of its range: fails the read (returns false) naming it.
  bool Invalid(const char* what, const std::string& expected, const std::string& got) {
    Fail(what, expected, got);
    return false;
  }
  bool AtEnd(const char* what) {
    if (at_ == bytes_.size()) return true;
    Fail(what, "the end", std::to_string(bytes_.size() - at_) + " more bytes");
    return false;
  }
  Status status() const { return status_; }

 private:
  bool Need(const char* what, uint64_t n) {
    if (uint64_t{bytes_.size() - at_} >= n) return true;
    Fail(what, std::to_string(n) + " bytes", std::to_string(bytes_.size() - at_));
    return false;
  }
  void Fail(const char* what, const std::string& expected, const std::string& got) {
    if (status_.ok())
      status_ = Status(StatusCode::kParseError, std::string(message_) + ": " + what + ": expected " + expected +
                                                    ", got " + got + " (at byte " + std::to_string(at_) + ")");
  }
  std::string_view bytes_;
  const char* message_;
  size_t at_ = 0;
  Status status_;
};

}  // namespace lessons::wire
