#include "job_scheduler.h"

#include <algorithm>

#include "memo.h"
#include "offload.h"

namespace attnlab {

void JobScheduler::TakeAnswers() {
  for (auto it = out_.begin(); it != out_.end();) {
    offload::Result result;
    if (!offload::Take(it->first, &result)) {
      ++it;
      continue;
    }
    if (result.worker_failed) {
      it->second.job->Release(it->second.unit);  // it runs here from now on
    } else {
      it->second.job->Finish(it->second.unit, lessons::JobAnswer{result.ok ? std::string() : result.error, result.value,
                                                                std::move(result.bytes)});
    }
    it = out_.erase(it);
  }
}

bool JobScheduler::Frame(const std::vector<lessons::Job*>& jobs) {
  TakeAnswers();
  // Units out, one per worker at a time (a worker holding two would leave another idle at the end);
  // a sticky unit (a training slice, one per job) goes to its worker whatever else it holds.
  const int workers = offload::Workers();
  const auto spread_out = [&] {
    return static_cast<int>(std::count_if(out_.begin(), out_.end(), [](const auto& o) { return !o.second.unit.sticky(); }));
  };
  for (lessons::Job* job : jobs) {
    lessons::JobUnit unit;
    while (job->running() && workers > 0 && job->Claim(&unit)) {
      if (!unit.sticky() && spread_out() >= workers) {
        job->Release(unit);
        break;
      }
      const int ticket = offload::PostUnit(unit);
      if (ticket == 0) {
        job->Release(unit);
        break;
      }
      ++EngineRuns();  // run in a worker, for the page
      out_.push_back({ticket, Out{job, unit}});
    }
  }
  // The rest runs here, the slice shared by the jobs that run — but not a job whose units the workers
  // have: a run begun here at a slice per frame would finish long after theirs, and the page's frames
  // stay short.
  std::vector<lessons::Job*> here;
  for (lessons::Job* job : jobs)
    if (wants_frame(job)) here.push_back(job);
  for (lessons::Job* job : here) {
    ++EngineRuns();
    job->Step(kSliceMs / static_cast<double>(here.size()));  // a failure stops the job; its panel shows it
  }
  return !here.empty();
}

bool JobScheduler::has_units_out(const lessons::Job* job) const {
  return std::any_of(out_.begin(), out_.end(), [&](const auto& o) { return o.second.job == job; });
}

}  // namespace attnlab
