#pragma once
// Which WebAssembly build the running test executable is (tests/CMakeLists.txt links one of two
// builds of support/wasm_build.cpp, as the engine links one of the kernel's two builds): true in the
// relaxed-SIMD twin. Defined under Emscripten only.
bool TestBuildIsRelaxedSimd();
