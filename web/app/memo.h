// The one cache between a view's state and what it draws: state in, model out. A panel hands it a
// key (every input the model is computed from, as text) and a compute function; the function runs
// only when the key changed. On success the model is replaced and its version bumps (widgets
// re-upload textures by version); on error the last good model stays and the error is kept.
#pragma once

#include <string>
#include <utility>

#include "attn/status.h"

namespace attnlab {

// Every compute run on the page, by every memo and timer: the tests check that nothing re-runs
// when nothing changed.
int& EngineRuns();

template <typename Model>
class Memo {
 public:
  // Runs compute(Model*) -> attn::Status when `key` differs from the last run's; returns true
  // when it ran. A failed run is not retried until the key changes.
  template <typename Compute>
  bool Update(const std::string& key, Compute&& compute) {
    if (ran_ && key == key_) return false;
    ran_ = true;
    key_ = key;
    ++EngineRuns();
    Model next;
    const attn::Status status = std::forward<Compute>(compute)(&next);
    status_ = status;
    if (!status.ok()) {
      error_ = status.ToString();
      return true;
    }
    error_.clear();
    model_ = std::move(next);
    ++version_;
    return true;
  }
  // Forgets the last key: the next Update runs whatever its key.
  void Invalidate() { ran_ = false; }

  bool has_model() const { return version_ > 0; }
  const Model& model() const { return model_; }
  // 0 until the first good model; bumps with every new one.
  int version() const { return version_; }
  // Empty after a good run; otherwise why the last run failed (the last good model stays).
  const std::string& error() const { return error_; }
  const attn::Status& status() const { return status_; }

 private:
  bool ran_ = false;
  std::string key_;
  Model model_;
  int version_ = 0;
  std::string error_;
  attn::Status status_;
};

}  // namespace attnlab
