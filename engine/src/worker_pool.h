// Independent work items spread over a few threads: the caller and up to threads − 1 workers of one
// process-wide pool, started on first use and kept until exit (so each worker's kernel scratch,
// a grow-only block per thread, stays allocated and warm between calls). std::thread only.
//
// Which thread runs which item varies from call to call: an item's result must depend on its
// index alone (the engine's callers split work along fixed boundaries, so the results are
// bit-identical for every thread count).
//
// Builds without threads (WebAssembly without pthreads) run every item on the caller.
#pragma once

#include <functional>

namespace attn::parallel {

// Calls task(i) once for every i in [0, items), on up to `threads` threads (the caller among them),
// and returns when every call has returned. A second caller while the pool is busy, or a worker the
// system refuses to start, means fewer threads, never a failure. Returns false when some task threw
// (the exception is caught and dropped; the remaining items still run); nothing escapes.
//   threads >= 1, items >= 0
bool ForEach(int threads, int items, const std::function<void(int)>& task);

// Rows [0, rows) in at most `threads` contiguous blocks of at least min_rows rows each (one block,
// on the caller, when rows < 2·min_rows), block(begin, end) once per block, as ForEach runs items.
//   threads >= 1, rows >= 0, min_rows >= 1
bool ForRowBlocks(int threads, int rows, int min_rows, const std::function<void(int begin, int end)>& block);

// Wakes up to threads − 1 workers now, to spin for the next 5 ms between ForEach calls instead of
// sleeping: a call made of several parallel steps with serial work between them calls it first, so
// the workers are running when each step's items arrive instead of waiting for the scheduler (about a
// millisecond when the other cores are busy). Does nothing without threads or when threads <= 1.
void Prewarm(int threads);

// Whether this build can run more than one thread (false: ForEach runs everything on the caller).
bool ThreadsAvailable();

}  // namespace attn::parallel
