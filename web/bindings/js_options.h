// Strict reading of the values JS callers pass: an options object may hold only the keys a call
// knows ("numHeds: unknown option (did you mean numHeads?)"), each of the type it expects
// ("numHeads: expected an integer, got the string \"two\""), integers within int's range
// ("numHeads: expected an integer in 1..65536, got 10000000000"). Nothing is converted before it
// is checked, and whatever may run a caller's code (getters, Proxies) runs in JS inside try/catch
// (js_options.cpp), so no value a caller passes can abort the module or leak its memory.
#pragma once

#include <emscripten/val.h>

#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "attn/status.h"

namespace attnjs {

using emscripten::val;

// How a value reads in a message: the string "two", the number 2.7, null, an array, a Float32Array.
std::string DescribeJsValue(const val& v);
// undefined or null: the caller left an optional argument out.
bool IsAbsent(const val& v);
// A plain object (not null, an array, a typed array or a function).
bool IsPlainObject(const val& v);

// `o`'s own enumerable keys and their values, copied once into a prototype-less object (*own) whose
// reads run no caller code: inherited keys are ignored, a getter or Proxy that throws is
// kInvalidArgument naming `what`.
attn::Status OwnFields(const val& o, const std::string& what, val* own);

// `what` must be a plain object (or absent when `optional`) whose own keys are all in `known`;
// *own is OwnFields' copy (undefined when absent), the only object the caller reads from then.
// kInvalidArgument for another type; kUnknownOption naming the key and the nearest known one.
attn::Status CheckOptions(const val& o, const std::string& what, const std::vector<const char*>& known, bool optional,
                          val* own);

// One field of a checked options object, or a positional argument (`name` is used in messages).
// An absent value (undefined) leaves *out as it is. kInvalidArgument on a wrong type; kOutOfRange
// for an integer outside the target type or a number outside float's range.
// ReadInt: an integer in lo..hi (the documented range of the option, int's by default).
attn::Status ReadInt(const val& v, const std::string& name, int* out, int lo = INT_MIN, int hi = INT_MAX);
attn::Status ReadUint32(const val& v, const std::string& name, uint32_t* out);
attn::Status ReadFloat(const val& v, const std::string& name, float* out);
attn::Status ReadBool(const val& v, const std::string& name, bool* out);
attn::Status ReadString(const val& v, const std::string& name, size_t max_bytes, std::string* out);

}  // namespace attnjs
