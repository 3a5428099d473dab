// Long work handed to the page's Web Workers, so the page keeps drawing while it runs (issue 26: a
// forward at n = 8192 held the main thread for over a second; issue 29: the data-size grid's runs
// spread over every core). Each worker (web/bindings/job_worker.mjs) instantiates the page's own
// compiled module without starting the app and answers one job at a time with the same C++
// (page_js.cpp's runJob), so its numbers are the ones the main thread would get. job_host.mjs
// installs Module.postJob and its pool (navigator.hardwareConcurrency − 1 workers, at least one);
// where there is no Worker (or one failed), Available() is false and the caller runs the work on the
// main thread, a slice per frame.
#pragma once

#include <string>

#include "lessons/job.h"

namespace attnlab::offload {

struct Result {
  bool ok = false;
  std::string error;      // "" when ok; the status text or why the worker failed
  bool worker_failed = false;  // the worker itself stopped (not the job): later work stays on the page
  double value = 0;       // a job unit's result (lessons::RunJobUnit): a value
  std::string bytes;      // or bytes
};

// True while a worker can take jobs (mount.js installed one, and it has not failed).
bool Available();
// How many workers the pool has (0 while none can take work): how many units are worth having out.
int Workers();
// Posts a job's unit (lessons::RunJobUnit in the worker); its ticket, or 0 when no worker can take it.
int PostUnit(const lessons::JobUnit& unit);
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
