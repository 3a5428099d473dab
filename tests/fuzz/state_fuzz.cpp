// The view state string (the page's address-bar hash, an embed's `state` attribute): any text parses
// without crashing or growing without bound, and what it parses to round-trips. For every input t:
//   ParseState(t) → s1,  SerializeState(s1) → t1,  ParseState(t1) → s2 with an ok status,
//   SerializeState(s2) == t1.
// So a link the page writes always reads back cleanly, to the same state, whatever it was made from.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "lessons/view_state.h"

namespace {

[[noreturn]] void Fail(const char* what, const std::string& a, const std::string& b) {
  std::fprintf(stderr, "state_fuzz: %s\n  first:  %s\n  second: %s\n", what, a.c_str(), b.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  lessons::ViewState first;
  (void)lessons::ParseState(text, &first);  // any status: bad fields are reported and skipped
  const std::string written = lessons::SerializeState(first);

  lessons::ViewState second;
  const attn::Status status = lessons::ParseState(written, &second);
  if (!status.ok()) Fail("a serialised state does not parse cleanly", written, status.ToString());
  const std::string rewritten = lessons::SerializeState(second);
  if (rewritten != written) Fail("serialise → parse → serialise changed the string", written, rewritten);
  return 0;
}
