#include "lessons/job.h"

#include "lessons/format.h"
#include "lessons/views/data_size.h"
#include "lessons/timing_job.h"
#include "lessons/views/learn.h"

namespace lessons {

TimeSlice::TimeSlice(double budget_ms) : budget_ms_(budget_ms), start_(Clock::now()), piece_start_(start_) {}

bool TimeSlice::Next() {
  const Clock::time_point now = Clock::now();
  if (pieces_ > 0) last_piece_ms_ = std::chrono::duration<double, std::milli>(now - piece_start_).count();
  if (pieces_ > 0 && elapsed_ms() + last_piece_ms_ > budget_ms_) return false;
  ++pieces_;
  piece_start_ = now;
  return true;
}

double TimeSlice::elapsed_ms() const {
  return std::chrono::duration<double, std::milli>(Clock::now() - start_).count();
}

Status RunJobUnit(const JobUnit& unit, JobAnswer* answer) {
  switch (unit.kind) {
    case JobUnitKind::kDataSizeRun:
      return RunDataSizeUnit(unit, &answer->value);
    case JobUnitKind::kLearnSlice:
      return RunLearnSlice(unit, &answer->bytes);
    case JobUnitKind::kTimingBatch:
      return RunTimingUnit(unit, answer);
  }
  return Status(attn::StatusCode::kUnknownOption,
                Format("unit kind: expected 1 (a data-size run), 2 (a learn slice) or 3 (a timing batch), got %d", static_cast<int>(unit.kind)));
}

}  // namespace lessons
