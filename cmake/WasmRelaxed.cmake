# ATTN_WASM_RELAXED_SIMD (Emscripten only; preset wasm-relaxed): the second WebAssembly build, whose
# SIMD kernel multiplies-and-adds with relaxed SIMD's f32x4.relaxed_madd (fused where the CPU has FMA).
# clang 14 emits the prototype opcode for it, so every executable that links the engine rewrites its
# .wasm after the link (scripts/wasm_relaxed_opcodes.mjs, run under a node that validates the result).
# The loaders (web/lib/index.mjs, the page) pick this build where WebAssembly.validate accepts a
# relaxed_madd, the plain one elsewhere.
option(ATTN_WASM_RELAXED_SIMD "WebAssembly: the SIMD kernel uses relaxed SIMD (f32x4.relaxed_madd)" OFF)
# The plain web build also ships the relaxed twins of its two modules (attnlab_relaxed_lib,
# attnlab_relaxed_site: cmake/BuildRelaxedWasm.cmake builds them in ATTN_RELAXED_BUILD_DIR).
if(EMSCRIPTEN AND attn_is_top_level AND NOT ATTN_WASM_RELAXED_SIMD)
  set(attn_default_with_relaxed ON)
else()
  set(attn_default_with_relaxed OFF)
endif()
option(ATTN_WASM_WITH_RELAXED "Web build: also build the relaxed-SIMD wasm the loaders pick where supported"
       ${attn_default_with_relaxed})
set(ATTN_RELAXED_BUILD_DIR "${PROJECT_SOURCE_DIR}/build/wasm-relaxed" CACHE PATH
    "Where ATTN_WASM_WITH_RELAXED builds the relaxed-SIMD twin (preset wasm-relaxed's directory)")
if(ATTN_WASM_RELAXED_SIMD AND NOT EMSCRIPTEN)
  message(FATAL_ERROR "ATTN_WASM_RELAXED_SIMD is for the Emscripten build (preset wasm-relaxed)")
endif()
if(ATTN_WASM_RELAXED_SIMD)
  find_program(ATTN_NODE_FOR_WASM node REQUIRED)
  # binaryen's wasm-opt (emscripten's dependency) counts the prototype opcodes independently.
  find_program(ATTN_WASM_OPT wasm-opt)
  if(ATTN_WASM_OPT)
    set(attn_wasm_opt_check --wasm-opt ${ATTN_WASM_OPT})
  endif()
endif()

# attn_wasm_relaxed_post_link(TARGET): after TARGET links, its .wasm (beside its .js/.mjs, same
# base name) gets the standard opcode. Does nothing in the plain build.
function(attn_wasm_relaxed_post_link target)
  if(NOT ATTN_WASM_RELAXED_SIMD)
    return()
  endif()
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${ATTN_NODE_FOR_WASM} --experimental-wasm-relaxed-simd
            ${PROJECT_SOURCE_DIR}/scripts/wasm_relaxed_opcodes.mjs ${attn_wasm_opt_check}
            $<TARGET_FILE_DIR:${target}>/$<TARGET_FILE_BASE_NAME:${target}>.wasm
    VERBATIM)
endfunction()
