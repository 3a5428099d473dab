// View 12's language model runs in its own module (web/bindings/lm_js.cpp), in a Web Worker where
// one can start: the page's module never links the model's code or loads its 1.4 MB of weights
// unless the view is shown. The client sends the view's request (lessons/lm_wire.h) and keeps the
// last answer: a request goes out when its key changes, one at a time; a newer one waiting replaces
// the one before it, so a dragged slider asks for its last value, not every step.
// web/bindings/lm_host.mjs installs Module.lmPost and Module.lmControl; page_js.cpp's lmDone /
// lmFailed and lmModelEvent deliver here.
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

  // The model itself: the built-in one, or a checkpoint the reader opens (lm_host.mjs reads the files).
  // `kind`: "pick" (the file picker), "reset" (the built-in model again), "save" (Export weights).
  void Control(const char* kind);
  void Opening(const std::string& what) { opening_ = what, open_error_.clear(); }
  // A new model is in the module: the view's request goes out again (the generation is in its key).
  void ModelChanged() { ++generation_, opening_.clear(), open_error_.clear(); }
  void OpenFailed(const std::string& why) { opening_.clear(), open_error_ = why.substr(0, 400); }
  const std::string& opening() const { return opening_; }        // "" or the file being opened
  const std::string& open_error() const { return open_error_; }  // "" or why the last file did not open
  int generation() const { return generation_; }

 private:
  void Send();
  int in_flight_ = 0, next_ticket_ = 1;
  std::string asked_key_, in_flight_key_, shown_key_, waiting_key_;
  std::string waiting_;  // the request waiting for the one in flight, as bytes ("" when none)
  lessons::LmViewModel model_;
  int version_ = 0, answers_ = 0;
  std::string error_;
  int generation_ = 0;
  std::string opening_, open_error_;
};

LmClient& TheLmClient();

}  // namespace attnlab
