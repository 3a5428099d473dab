// The version of attnlab: one number for the engine library, the attnlab CLI and the npm package.
// It is written in one place, the top-level CMakeLists.txt's project(attnlab VERSION ...), and
// compiled into version.cpp from there; package.json's "version" must say the same (a test checks:
// tests/cli_version_test.cmake).
#pragma once

namespace attn {

// "MAJOR.MINOR.PATCH" of the library this program links, e.g. "0.1.0". Never null.
const char* Version();

}  // namespace attn
