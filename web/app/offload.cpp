#include "offload.h"

#include <emscripten.h>

#include <map>
#include <set>
#include <utility>

#include "platform_html5.h"

// Module.postJob(ticket, job) is web/bindings/job_host.mjs's: it starts the worker on first use and returns false
// when there is none (no Worker in this browser, a cross-origin embed, a worker that failed).
EM_JS(int, attnlab_post_job_unit, (int ticket, int kind, const int* settings, int count, const char* text, int index,
                                  int sticky), {
  if (!Module.postJob) return 0;
  const s = HEAP32.slice(settings >> 2, (settings >> 2) + count);
  return Module.postJob(ticket, {unit: kind, settings: s, text: UTF8ToString(text), index: index, sticky: !!sticky}) ? 1 : 0;
});

EM_JS(int, attnlab_job_workers, (), { return Module.jobWorkers ? Module.jobWorkers() : 0; });

// EM_JS, not EM_ASM: an EM_ASM's glue is keyed by a data address, which differs between the SIMD128
// and the relaxed-SIMD builds, and the two must share one glue (cmake/ShipRelaxedWasm.cmake).
EM_JS(int, attnlab_has_job_worker, (), { return Module.postJob ? 1 : 0; });

namespace attnlab::offload {
namespace {

int g_next_ticket = 1;
bool g_failed = false;  // the worker stopped: everything runs on the page's thread from then on
std::string g_failure;  // why
std::set<int> g_posted;  // posted, not answered yet
std::map<int, Result> g_done;

}  // namespace

bool Available() { return !g_failed && attnlab_has_job_worker() != 0; }

int Workers() { return Available() ? attnlab_job_workers() : 0; }

namespace {

// `post(ticket)` hands the job to job_host.mjs; false: no worker could start here, and the page does
// the work from now on.
template <typename PostFn>
int PostWith(PostFn post) {
  if (g_failed) return 0;
  const int ticket = g_next_ticket++;
  if (!post(ticket)) {
    g_failed = true;
    if (g_failure.empty()) g_failure = "no Web Worker could start here";
    return 0;
  }
  g_posted.insert(ticket);
  return ticket;
}

}  // namespace

int PostUnit(const lessons::JobUnit& unit) {
  return PostWith([&](int ticket) {
    return attnlab_post_job_unit(ticket, static_cast<int>(unit.kind), unit.settings.data(),
                                 static_cast<int>(unit.settings.size()), unit.text.c_str(), unit.index, unit.sticky()) != 0;
  });
}

bool Take(int ticket, Result* out) {
  const auto it = g_done.find(ticket);
  if (it == g_done.end()) return false;
  *out = std::move(it->second);
  g_done.erase(it);
  return true;
}

void Deliver(int ticket, Result result) {
  if (result.worker_failed) {
    g_failed = true;
    if (g_failure.empty()) g_failure = result.error;
    platform::MarkChanged();  // a frame to say so
  }
  if (!g_posted.erase(ticket)) return;  // not ours (a stale or forged ticket)
  g_done[ticket] = std::move(result);
  platform::MarkChanged();  // a frame to show it
}

const std::string& Failure() { return g_failure; }

bool Busy() { return !g_posted.empty(); }


}  // namespace attnlab::offload
