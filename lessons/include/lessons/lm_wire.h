// The language model's view between the page and the module that runs the model (a Web Worker, or
// the page's thread where no worker can start): a request (the sentence and view 12's state) and
// its answer (LmViewModel, or the error), as bytes. Written and read by this one file in
// both modules, so the two sides cannot disagree; the reader trusts nothing (a short or corrupt
// message is a kParseError naming the field, never a crash or an unbounded allocation).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lessons/common.h"
#include "lessons/view_state.h"
#include "lessons/views/lm.h"

namespace lessons {

struct LmRequest {
  // The sentence as typed: the model's module tokenizes it (the page's words for the built-in model,
  // attn::Tokenize; a checkpoint's own tokenizer), all of it, however many words the other views take.
  std::string text;
  LmState state;
};

std::string WriteLmRequest(const LmRequest& request);
Status ReadLmRequest(std::string_view bytes, LmRequest* request);

// The answer: `status` (ok, or the model's error) and, when ok, the model.
std::string WriteLmAnswer(const Status& status, const LmViewModel& model);
// Parses an answer: ok with *model filled, the error the model module sent, or kParseError when the
// bytes are not an answer.
Status ReadLmAnswer(std::string_view bytes, LmViewModel* model);

}  // namespace lessons
