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

// Wakes up to threads − 1 workers now, to spin (for at most a few milliseconds) until the next
// ForEach: a caller that first does serial work (the projections) calls it so that the workers are
// running when the items arrive, instead of waiting for the scheduler (about a millisecond, when the
// other cores are busy) after ForEach wakes them. Does nothing without threads or when threads <= 1.
void Prewarm(int threads);

// Whether this build can run more than one thread (false: ForEach runs everything on the caller).
bool ThreadsAvailable();

}  // namespace attn::parallel
