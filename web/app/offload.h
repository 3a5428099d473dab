// Long work handed to a Web Worker, so the page keeps drawing while it runs (issue 26: a forward at
// n = 8192 held the main thread for over a second). The worker (web/bindings/job_worker.mjs)
// instantiates the page's own compiled module without starting the app and answers one job at a
// time with the same C++ (page_js.cpp's runJob), so its numbers are the ones the main thread would
// get. mount.js installs Module.postJob; where there is no Worker (or it failed), Available() is false
// and the caller runs the work on the main thread, one call per frame.
#pragma once

#include <string>

#include "attn/matrix.h"

namespace attnlab::offload {

// A speed-view timing batch: forwards of the bench layer (lessons::SpeedLab::TimeBatch) on
// `kernel` over n words for at least min_ms.
struct SpeedBatch {
  int kernel = 0;
  int n = 0;
  double min_ms = 0;
  bool want_output = false;  // send the last forward's (n, d_model) output back
};

struct Result {
  bool ok = false;
  std::string error;      // "" when ok; the status text or why the worker failed
  bool worker_failed = false;  // the worker itself stopped (not the job): later work stays on the page
  double us = 0;          // µs per forward
  attn::Matrix output;    // (n, d_model) when asked for, else empty
};

// True while a worker can take jobs (mount.js installed one, and it has not failed).
bool Available();
// Posts the batch; returns its ticket (> 0), or 0 when no worker can take it.
int Post(const SpeedBatch& batch);
// The result of `ticket` once it arrived: true once, then it is forgotten.
bool Take(int ticket, Result* out);
// From page_js.cpp's jobDone: the worker's answer (or its failure) for `ticket`; ticket 0 with
// worker_failed: the worker died with no job out.
void Deliver(int ticket, Result result);
// Why work no longer goes to a worker ("" while it does, or before the first job): the worker
// stopped (its reason), or none could start here.
const std::string& Failure();
// True while a posted job has not been answered: what the page shows is not final yet (Idle()).
bool Busy();

}  // namespace attnlab::offload
