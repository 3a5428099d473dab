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

  // One frame's work: answers in, units out, a slice here. True while any job runs or has units out
  // (the next frame is wanted).
  bool Frame(const std::vector<lessons::Job*>& jobs);
  // Units out in workers now.
  int units_out() const { return static_cast<int>(out_.size()); }

 private:
  struct Out {
    lessons::Job* job;
    lessons::JobUnit unit;
  };
  void TakeAnswers();
  std::vector<std::pair<int, Out>> out_;  // (ticket, the unit a worker computes)
};

}  // namespace attnlab
