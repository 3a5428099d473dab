// Every function bound for JS runs inside Guarded<&F>::Call: a C++ exception that escaped the
// checks (std::bad_alloc from a size nobody foresaw, say) becomes the function's ordinary failure
// ({ok: false, code: "resource_exhausted", ...} for the engine's API, an error string for the page's
// hooks) instead of reaching JS as a bare number. engine_js.cpp and the link use -fexceptions for
// this (web/CMakeLists.txt); in a file compiled without (the page's hooks, which allocate nothing a
// caller sizes) Guarded is a plain call. The engine itself is compiled without, so its frames are not
// unwound: the checks before each call are what keep memory bounded, this is the last line.
#pragma once

#include <emscripten/val.h>

#include <cmath>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "attn/status.h"
#include "js_convert.h"

namespace attnjs {

// What a function of return type R gives back when it failed with `status`.
template <typename R>
R FailureOf(const attn::Status& status) {
  if constexpr (std::is_void_v<R>) {
    (void)status;
  } else if constexpr (std::is_same_v<R, emscripten::val>) {
    return ErrorObject(status);
  } else if constexpr (std::is_same_v<R, std::string>) {
    return status.ToString();
  } else if constexpr (std::is_floating_point_v<R>) {
    (void)status;
    return NAN;
  } else {
    (void)status;
    return R{};
  }
}

template <auto F>
struct Guarded;

template <typename R, typename... Args, R (*F)(Args...)>
struct Guarded<F> {
  static R Call(Args... args) {
#if defined(__cpp_exceptions)
    try {
      return F(std::forward<Args>(args)...);
    } catch (const std::bad_alloc&) {
      return FailureOf<R>(attn::Status(attn::StatusCode::kResourceExhausted, "out of memory (the call was abandoned)"));
    } catch (const std::length_error& e) {  // a container asked for more than max_size(): too big, as bad_alloc
      return FailureOf<R>(attn::Status(attn::StatusCode::kResourceExhausted, std::string("too large: ") + e.what()));
    } catch (const std::exception& e) {
      return FailureOf<R>(attn::Status(attn::StatusCode::kInvalidArgument, std::string("internal error: ") + e.what()));
    } catch (...) {
      return FailureOf<R>(attn::Status(attn::StatusCode::kInvalidArgument, "internal error"));
    }
#else
    return F(std::forward<Args>(args)...);
#endif
  }
};

}  // namespace attnjs

// Binds `fn` under `name` inside Guarded (EMSCRIPTEN_BINDINGS blocks use it for every function).
#define ATTNJS_FUNCTION(name, fn) emscripten::function(name, &::attnjs::Guarded<fn>::Call)
