// View 12's language model runs in its own module (web/bindings/lm_js.cpp), in a Web Worker where
// one can start: the page's module never links the model's code or loads its 1.4 MB of weights
// unless the view is shown. The client sends the view's request (lessons/lm_wire.h) and keeps the
// last answer: a request goes out when its key changes, one at a time; a newer one waiting replaces
// the one before it, so a dragged slider asks for its last value, not every step.
// web/bindings/lm_host.mjs installs Module.lmPost; page_js.cpp's lmDone / lmFailed deliver here.
#pragma once

#include <string>

#include "lessons/lm_wire.h"
#include "lessons/views/lm.h"

namespace attnlab {

class LmClient {
 public:
  // Asks for the model of `request` unless `key` is the one last asked for.
  void Want(const std::string& key, const lessons::LmRequest& request);
  // An answer (or the model's failure) for `ticket`.
  void Deliver(int ticket, const std::string& bytes);
  void Failed(int ticket, const std::string& why);

  bool busy() const { return in_flight_ != 0; }
  bool has_model() const { return version_ > 0; }
  const lessons::LmViewModel& model() const { return model_; }
  // Bumps with each model that arrives (heatmap textures key on it).
  int version() const { return version_; }
  // "" or why the last answer is not a model (the model's status, or why it could not run).
  const std::string& error() const { return error_; }
  // Answers received, for the tests (a click that only redraws asks for none).
  int answers() const { return answers_; }
  // The key of the model shown (empty before the first).
  const std::string& shown_key() const { return shown_key_; }

 private:
  void Send();
  int in_flight_ = 0, next_ticket_ = 1;
  std::string asked_key_, in_flight_key_, shown_key_, waiting_key_;
  std::string waiting_;  // the request waiting for the one in flight, as bytes ("" when none)
  lessons::LmViewModel model_;
  int version_ = 0, answers_ = 0;
  std::string error_;
};

LmClient& TheLmClient();

}  // namespace attnlab
