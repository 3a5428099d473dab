// See counting_malloc.h.
#include "support/counting_malloc.h"

#include <malloc.h>

#include <atomic>
#include <cstddef>

extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* p, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
}

namespace {
std::atomic<long> calls{0};
std::atomic<long long> bytes{0};

void Count(size_t size) {
  calls.fetch_add(1, std::memory_order_relaxed);
  bytes.fetch_add(static_cast<long long>(size), std::memory_order_relaxed);
}
}  // namespace

extern "C" {
void* malloc(size_t size) {
  Count(size);
  return __libc_malloc(size);
}
void* calloc(size_t count, size_t size) {
  Count(count * size);
  return __libc_calloc(count, size);
}
void* realloc(void* p, size_t size) {
  Count(size);
  return __libc_realloc(p, size);
}
void* memalign(size_t alignment, size_t size) {
  Count(size);
  return __libc_memalign(alignment, size);
}
void* aligned_alloc(size_t alignment, size_t size) {
  Count(size);
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, size_t alignment, size_t size) {
  Count(size);
  *out = __libc_memalign(alignment, size);
  return *out ? 0 : 12;  // ENOMEM
}
}

namespace attn::testing {

Allocated AllocatedDuring(const std::function<void()>& run) {
  const long calls_before = calls.load();
  const long long bytes_before = bytes.load();
  run();
  return {calls.load() - calls_before, bytes.load() - bytes_before};
}

}  // namespace attn::testing
