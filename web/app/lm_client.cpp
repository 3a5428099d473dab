#include "lm_client.h"

#include <emscripten/emscripten.h>

// Module.lmPost(ticket, bytes) is web/bindings/lm_host.mjs's; 0 when the page has none (a module
// started without attnlab.js).
EM_JS(int, attnlab_lm_post, (int ticket, const char* data, int size), {
  if (!Module.lmPost) return 0;
  return Module.lmPost(ticket, HEAPU8.slice(data, data + size)) ? 1 : 0;
});

// Module.lmControl(kind) is attnlab.js's (it loads lm_host.mjs); nothing without it.
EM_JS(void, attnlab_lm_control, (const char* kind), {
  if (Module.lmControl) Module.lmControl(UTF8ToString(kind));
});

namespace attnlab {

LmClient& TheLmClient() {
  static LmClient client;
  return client;
}

void LmClient::Want(const std::string& key, const lessons::LmRequest& request) {
  if (key == asked_key_) return;
  asked_key_ = key;
  waiting_ = lessons::WriteLmRequest(request);
  waiting_key_ = key;
  if (!in_flight_) Send();
}

void LmClient::Control(const char* kind) {
  if (std::string(kind) == "reset") opening_ = "the built-in model";
  open_error_.clear();
  attnlab_lm_control(kind);
}

void LmClient::Send() {
  if (waiting_.empty()) return;
  const int ticket = next_ticket_++;
  if (!attnlab_lm_post(ticket, waiting_.data(), static_cast<int>(waiting_.size()))) {
    error_ = "the language model cannot run here: the page has no way to load it";
    waiting_.clear();
    return;
  }
  in_flight_ = ticket;
  in_flight_key_ = waiting_key_;
  waiting_.clear();
}

void LmClient::Deliver(int ticket, const std::string& bytes) {
  if (ticket != in_flight_) return;
  in_flight_ = 0;
  ++answers_;
  lessons::LmViewModel model;
  const attn::Status status = lessons::ReadLmAnswer(bytes, &model);
  if (status.ok()) {
    model_ = std::move(model);
    ++version_;
    shown_key_ = in_flight_key_;
    error_.clear();
  } else {
    error_ = status.ToString();  // the last good model stays drawn below the error
  }
  Send();
}

void LmClient::Failed(int ticket, const std::string& why) {
  if (ticket != in_flight_) return;
  in_flight_ = 0;
  ++answers_;
  error_ = "the language model could not run: " + why.substr(0, 300);
  // Asking again for the same key would fail the same way: a new key (another state) tries again.
  Send();
}

}  // namespace attnlab
