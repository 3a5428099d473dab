// Advances the panels' jobs (lessons/job.h) every frame, whichever view is shown, so training goes on
// while the reader looks elsewhere. A job whose work comes in units has them handed to the page's Web
// Workers (offload.h), one per worker at a time, their answers given back to it; what no worker takes
// is stepped here, in one slice of the frame shared by the jobs. Where no worker can start, or after
// one died (its units come back and run here), everything runs here. Panels start, pause and draw
// their jobs; they step none.
#pragma once

#include <utility>
#include <vector>

#include "lessons/job.h"

namespace attnlab {

class JobScheduler {
 public:
  // The page's share of a frame for jobs, all of them together: with drawing, a frame stays near 16 ms.
  static constexpr double kSliceMs = 10.0;

  // One frame's work: answers in, units out, a slice here. True when a job ran here (the next frame
  // is wanted). Units out in workers want no frames: an answer asks for one when it arrives
  // (offload::Deliver), so the page does not draw beside a timing batch for nothing.
  bool Frame(const std::vector<lessons::Job*>& jobs);
  // Units out in workers now, all of them or `job`'s.
  int units_out() const { return static_cast<int>(out_.size()); }
  bool has_units_out(const lessons::Job* job) const;
  // A job that runs and has nothing out: the next frame steps it (a job a view started this frame).
  bool wants_frame(const lessons::Job* job) const { return job->running() && !has_units_out(job); }

 private:
  struct Out {
    lessons::Job* job;
    lessons::JobUnit unit;
  };
  void TakeAnswers();
  std::vector<std::pair<int, Out>> out_;  // (ticket, the unit a worker computes)
};

}  // namespace attnlab
