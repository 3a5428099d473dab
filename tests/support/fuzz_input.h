// Decoding libFuzzer bytes into attention calls, shared by forward_fuzz and differential_fuzz:
// wild integers (negative, 0, the limits, 2^30, INT_MAX) and wild floats (1e30, denormals, NaN,
// inf, FLT_MAX) picked by one byte each, so the fuzzer reaches the edges at once; small matrices.
#pragma once

#include <cfloat>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "attn/attention.h"

namespace attn::fuzz {

// Reads the fuzzer's bytes front to back; past the end every read gives 0.
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Byte() { return at_ < size_ ? data_[at_++] : 0; }
  uint32_t U32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = v << 8 | Byte();
    return v;
  }
  bool Bool() { return Byte() & 1; }
  // 0 .. count − 1
  int Below(int count) { return Byte() % count; }
  // An enum value, or now and then one past the last (an unknown option).
  template <typename Enum>
  Enum AnyEnum() {
    return static_cast<Enum>(Below(static_cast<int>(Enum::kCount) + 1));
  }
  // Small values most of the time; the limits and beyond now and then.
  int WildInt() {
    static const int kTable[] = {0, 1, 2, 3, 4, 8, -1, -2, 1 << 24, (1 << 24) + 1, 1 << 30, INT_MAX, INT_MIN, 5, 16, 64};
    const uint8_t b = Byte();
    if (b < 200) return b % 6;  // 0..5
    if (b < 248) return kTable[b % 16];
    return static_cast<int>(U32());
  }
  float WildFloat() {
    static const float kTable[] = {0.0f, 1.0f, -1.0f, 0.5f, 1e30f, -1e30f, 1e-40f, std::numeric_limits<float>::quiet_NaN(),
                                   std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(), 1e19f,
                                   1e20f, FLT_MAX, -FLT_MAX, 3.0f, 1e-30f};
    const uint8_t b = Byte();
    if (b < 160) return (static_cast<int>(b) - 80) / 16.0f;  // −5 .. 5 in sixteenths
    if (b < 240) return kTable[b % 16];
    const uint32_t bits = U32();
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  }
  // Finite values only (the differential target compares answers, not input checks).
  float FiniteFloat() {
    const float f = WildFloat();
    return std::isfinite(f) ? f : 1.0f;
  }
  // (rows, cols) of wild (or finite) values.
  Matrix Values(int rows, int cols, bool finite) {
    Matrix m(rows, cols);
    for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = finite ? FiniteFloat() : WildFloat();
    return m;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t at_ = 0;
};

}  // namespace attn::fuzz
