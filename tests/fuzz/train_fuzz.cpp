// Training configs decoded from bytes: attn::train::TrainingBytes must bound what Init, a step,
// Evaluate and MeasureHeadRoles allocate (counted through ASan's malloc hooks: the peak of live
// bytes while the trainer exists), and a config over attn::Limits is refused by Init before it
// allocates. Sizes stay small enough for many runs a second (d ≤ 64, batch ≤ 16).
#include <sanitizer/allocator_interface.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "attn/train/head_roles.h"
#include "attn/train/trainer.h"
#include "support/fuzz_input.h"

namespace {

std::atomic<long long> live{0}, peak{0};

void OnMalloc(const volatile void*, size_t size) {
  const long long now = live.fetch_add(static_cast<long long>(size)) + static_cast<long long>(size);
  for (long long seen = peak.load(); now > seen && !peak.compare_exchange_weak(seen, now);) {
  }
}
void OnFree(const volatile void* p) {
  if (p) live.fetch_sub(static_cast<long long>(__sanitizer_get_allocated_size(const_cast<const void*>(p))));
}

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "train_fuzz: %s\n", what.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  __sanitizer_install_malloc_and_free_hooks(OnMalloc, OnFree);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace attn::train;
  attn::fuzz::Bytes in(data, size);
  TrainConfig config = DefaultTrainConfig(static_cast<TaskKind>(in.Below(static_cast<int>(TaskKind::kCount))));
  config.model.kind = in.Bool() ? ModelKind::kCnn : ModelKind::kTransformer;
  config.model.heads = 1 + in.Below(4);
  config.model.d_model = config.model.heads * (1 + in.Below(16));
  config.model.layers = 1 + in.Below(3);
  config.model.mlp = in.Bool();
  config.model.layer_norm = in.Bool();
  config.model.positions = static_cast<Positions>(in.Below(static_cast<int>(Positions::kCount)));
  config.model.kernel_size = 1 + 2 * in.Below(3);
  config.model.pooled = in.Bool();
  config.batch_size = 1 + in.Below(16);
  config.train_set_size = in.Bool() ? in.Below(300) : 0;
  config.seed = in.Byte();
  TrainConfig resolved;
  if (!ResolveTrainConfig(config, &resolved).ok()) return 0;
  const long long estimate = TrainingBytes(resolved);
  const long long before = live.load();
  peak.store(before);
  {
    Trainer trainer;
    if (!trainer.Init(config).ok()) Fail("Init refused a config ResolveTrainConfig accepted");
    StepStats stats;
    if (trainer.Step(&stats).ok()) {
      Evaluation eval;
      (void)trainer.Evaluate(1 + in.Below(300), &eval);
      std::vector<HeadRole> roles;
      if (config.model.kind == ModelKind::kTransformer) (void)MeasureHeadRoles(trainer, 1 + in.Below(kMaxAttendSequences), &roles);
    }
  }
  const long long used = peak.load() - before;
  if (used > estimate)
    Fail("peak " + std::to_string(used) + " bytes over the estimate " + std::to_string(estimate) + " (d_model " +
         std::to_string(config.model.d_model) + ", heads " + std::to_string(config.model.heads) + ", layers " +
         std::to_string(config.model.layers) + ", batch " + std::to_string(config.batch_size) + ")");
  return 0;
}
