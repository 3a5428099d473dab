#include "timing_runner.h"

#include <algorithm>

#include "memo.h"
#include "panels/panel.h"

namespace attnlab {

bool TimingRunner::InWorker(const offload::TimingBatch& batch, double flops) const {
  if (!offload::Available()) return false;
  const auto seen = slowest_gflops_.find(Layer(batch));
  if (seen == slowest_gflops_.end()) return batch.n > kWarmUpN;  // its first batch here tells the speed
  return std::max(flops / seen->second * 1e-6, batch.min_ms) > kMainThreadCallMs;
}

bool TimingRunner::TakeFrameCall(PanelContext& ctx) {
  if (calls_this_frame_ > 0) {
    if (ctx.wants_another_frame) *ctx.wants_another_frame = true;  // the refused call, next frame
    return false;
  }
  ++calls_this_frame_;
  return true;
}

bool TimingRunner::RunHere(PanelContext& ctx, const offload::TimingBatch& batch, offload::Result* result) {
  if (!TakeFrameCall(ctx)) return false;
  if (ctx.wants_another_frame) *ctx.wants_another_frame = true;  // the batch after this one, if the caller wants one
  ++EngineRuns();
  *result = offload::RunTimingBatch(batch);
  return true;
}

void TimingRunner::Learn(const offload::TimingBatch& batch, double flops, const offload::Result& result) {
  if (!result.ok || !(result.us > 0)) return;
  const double gflops = flops / result.us * 1e-3;
  auto [it, fresh] = slowest_gflops_.emplace(Layer(batch), gflops);
  if (!fresh) it->second = std::min(it->second, gflops);
}

bool TimingRunner::Start(PanelContext& ctx, const offload::TimingBatch& batch, double flops, Done* done, bool* finished_now) {
  *finished_now = false;
  if (ticket_) return false;  // one call in flight
  const bool in_worker = InWorker(batch, flops);
  offload::TimingBatch warm_up = batch;
  warm_up.n = std::min(batch.n, kWarmUpN);
  warm_up.want_output = false;
  const bool cold = !warmed_[in_worker ? 1 : 0].count(Layer(batch));
  const offload::TimingBatch& call = cold ? warm_up : batch;
  if (in_worker) {
    const int ticket = offload::Post(call);
    if (ticket) {
      ++EngineRuns();
      ticket_ = ticket, in_flight_ = call, in_flight_flops_ = cold ? 0.0 : flops;
      return !cold;
    }
  }
  offload::Result result;
  if (!RunHere(ctx, call, &result)) return false;
  if (cold) {
    if (result.ok) warmed_[0].insert(Layer(batch));
    return false;  // the batch itself runs in the next frame
  }
  Learn(batch, flops, result);
  *done = {batch, std::move(result), false};
  *finished_now = true;
  return true;
}

bool TimingRunner::TakeDone(Done* done) {
  offload::Result result;
  if (!ticket_ || !offload::Take(ticket_, &result)) return false;
  ticket_ = 0;
  if (result.worker_failed) return false;
  if (in_flight_flops_ == 0) {  // a warm-up
    if (result.ok) warmed_[1].insert(Layer(in_flight_));
    return false;
  }
  Learn(in_flight_, in_flight_flops_, result);
  *done = {in_flight_, std::move(result), true};
  return true;
}

}  // namespace attnlab
