// How the training commands (train_commands.cpp, lm_commands.cpp) read their flags: a spec per
// flag that the parser and the help both read, so the help's ranges are the ones checked.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cli_support.h"

namespace attnlab_cli {

// An integer flag: its name, the placeholder the help shows, its range and what it sets. The
// parser and the help read the same spec, so the help's ranges are the ones checked.
struct IntFlag {
  const char* name;
  const char* arg;
  int lo, hi;
  const char* what;
};
struct FloatFlag {
  const char* name;
  const char* arg;
  float lo, hi;
  const char* what;
};

// "0.001", "1e-06": a float as short as it reads.
std::string Number(float value);

// A help line for an integer flag with its range and default.
std::string IntFlagHelp(const IntFlag& flag, const std::string& default_value);

// Flags of the form "--name value" or "--switch"; every lookup removes what it used, so what is
// left at the end is what nobody asked for (an unknown flag).
class Flags {
 public:
  Flags(int argc, char** argv) : args_(argv, argv + argc) {}

  // The value after the flag; false on a missing or malformed value (the message says which).
  bool Int(const IntFlag& flag, int* out) {
    std::string text;
    if (!Take(flag.name, &text)) return error_.empty();
    int64_t v = 0;
    if (!ParseInteger(text.c_str(), flag.lo, flag.hi, &v))
      return Fail(flag.name, text, std::to_string(flag.lo) + "–" + std::to_string(flag.hi), true);
    *out = static_cast<int>(v);
    return true;
  }
  bool Float(const FloatFlag& flag, float* out) {
    std::string text;
    if (!Take(flag.name, &text)) return error_.empty();
    float v = 0;
    if (!ParseFinite(text.c_str(), &v) || !(v >= flag.lo && v <= flag.hi))
      return Fail(flag.name, text, Number(flag.lo) + " to " + Number(flag.hi));
    *out = v;
    return true;
  }
  // "--sizes 16,64,256": at least one integer, each in [lo, hi].
  bool IntList(const IntFlag& flag, std::vector<int>* out) {
    const char* name = flag.name;
    const int lo = flag.lo, hi = flag.hi;
    std::string text;
    if (!Take(name, &text)) return error_.empty();
    std::vector<int> values;
    for (size_t at = 0; at <= text.size();) {
      const size_t comma = std::min(text.find(',', at), text.size());
      const std::string item = text.substr(at, comma - at);
      int64_t v = 0;
      if (!ParseInteger(item.c_str(), lo, hi, &v))
        return Fail(name, text, "integers " + std::to_string(lo) + "–" + std::to_string(hi) + " separated by commas",
                    ParseInteger(item.c_str(), INT64_MIN, INT64_MAX, &v));
      values.push_back(static_cast<int>(v));
      at = comma + 1;
    }
    *out = values;
    return true;
  }
  bool Text(const char* name, std::string* out) { return Take(name, out) || error_.empty(); }
  bool Switch(const char* name) {
    for (size_t i = 0; i < args_.size(); ++i) {
      if (args_[i] == name) {
        args_.erase(args_.begin() + i);
        if (std::find(args_.begin() + i, args_.end(), name) != args_.end() && error_.empty())
          error_ = std::string("invalid_argument: ") + name + ": given twice";
        return true;
      }
    }
    return false;
  }
  // After every lookup: the first argument nobody took, as an error.
  bool Finish() {
    if (!error_.empty()) return false;
    if (args_.empty()) return true;
    error_ = "unknown_option: unknown flag '" + Excerpt(args_[0].c_str()) + "'";
    return false;
  }
  // `integer`: the flag takes integers (2.5 is then invalid_argument, not out_of_range).
  bool Fail(const char* name, const std::string& got, const std::string& expected, bool integer = false) {
    error_ = std::string(FlagValueCode(got.c_str(), integer)) + ": " + name + ": expected " + expected + ", got '" +
             Excerpt(got.c_str()) + "'";
    return false;
  }
  const std::string& error() const { return error_; }

 private:
  bool Take(const char* name, std::string* value) {
    for (size_t i = 0; i < args_.size(); ++i) {
      if (args_[i] != name) continue;
      if (i + 1 >= args_.size()) {
        error_ = std::string("invalid_argument: ") + name + ": missing value";
        return false;
      }
      *value = args_[i + 1];
      args_.erase(args_.begin() + i, args_.begin() + i + 2);
      for (size_t j = i; j < args_.size(); ++j) {  // "--steps 2 --steps 3": which one was meant?
        if (args_[j] != name) continue;
        error_ = std::string("invalid_argument: ") + name + ": given twice ('" + Excerpt(value->c_str()) + "' and '" +
                 (j + 1 < args_.size() ? Excerpt(args_[j + 1].c_str()) : std::string()) + "')";
        return false;
      }
      return true;
    }
    return false;
  }
  std::vector<std::string> args_;
  std::string error_;
};

// "none, learned, sinusoidal or rope": the names a flag takes, for messages and the help.
template <size_t N>
std::string OneOf(const char* const (&names)[N]) {
  std::string text = names[0];
  for (size_t i = 1; i < N; ++i) text += std::string(i + 1 == N ? " or " : ", ") + names[i];
  return text;
}

template <typename Enum, size_t N>
bool ParseName(const char* const (&names)[N], const std::string& name, Enum* out) {
  for (size_t i = 0; i < N; ++i) {
    if (name == names[i]) return *out = static_cast<Enum>(i), true;
  }
  return false;
}

}  // namespace attnlab_cli
