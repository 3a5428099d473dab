#include "wire.h"

#include <cstring>

namespace lessons::wire {

void Writer::Bytes(const void* data, size_t size) {
  if (size) out.append(static_cast<const char*>(data), size);
}

void Writer::String(const std::string& s) {
  Put<uint32_t>(static_cast<uint32_t>(s.size()));
  out += s;
}

void Writer::MatrixValues(const Matrix& m) {
  Put<uint32_t>(static_cast<uint32_t>(m.rows()));
  Put<uint32_t>(static_cast<uint32_t>(m.cols()));
  Bytes(m.data(), static_cast<size_t>(m.size()) * sizeof(float));
}

bool Reader::Take(const char* what, void* out, size_t size) {
  if (!Need(what, size)) return false;
  if (size) std::memcpy(out, bytes_.data() + at_, size);
  at_ += size;
  return true;
}

bool Reader::Count(const char* what, uint64_t min_bytes, uint32_t* count) {
  if (!Get(what, count)) return false;
  return Need(what, uint64_t{*count} * min_bytes);
}

bool Reader::String(const char* what, std::string* s) {
  uint32_t size = 0;
  if (!Count(what, 1, &size)) return false;
  s->assign(bytes_.data() + at_, size);
  at_ += size;
  return true;
}

bool Reader::MatrixValues(const char* what, Matrix* m) {
  uint32_t rows = 0, cols = 0;
  if (!Get(what, &rows) || !Get(what, &cols)) return false;
  if (rows > 65536 || cols > 65536)
    return Invalid(what, "at most 65536 rows and columns", std::to_string(rows) + " × " + std::to_string(cols));
  if (!Need(what, uint64_t{rows} * cols * sizeof(float))) return false;
  m->resize(rows, cols);
  return Take(what, m->data(), static_cast<size_t>(rows) * cols * sizeof(float));
}

bool Reader::Invalid(const char* what, const std::string& expected, const std::string& got) {
  Fail(what, expected, got);
  return false;
}

bool Reader::AtEnd(const char* what) {
  if (at_ == bytes_.size()) return true;
  return Invalid(what, "the end", std::to_string(bytes_.size() - at_) + " more bytes");
}

bool Reader::Need(const char* what, uint64_t n) {
  if (uint64_t{bytes_.size() - at_} >= n) return true;
  Fail(what, std::to_string(n) + " bytes", std::to_string(bytes_.size() - at_));
  return false;
}

void Reader::Fail(const char* what, const std::string& expected, const std::string& got) {
  if (status_.ok())
    status_ = Status(StatusCode::kParseError, std::string(message_) + ": " + what + ": expected " + expected + ", got " +
                                                  got + " (at byte " + std::to_string(at_) + ")");
}

}  // namespace lessons::wire
