#include "memo.h"

namespace attnlab {

int& EngineRuns() {
  static int runs = 0;
  return runs;
}

}  // namespace attnlab
