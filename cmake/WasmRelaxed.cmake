# Relaxed SIMD (Emscripten): the second WebAssembly build, whose SIMD kernel multiplies-and-adds with
# relaxed SIMD's f32x4.relaxed_madd (fused where the CPU has FMA). A module that holds a relaxed
# opcode does not validate where relaxed SIMD is absent, so the page, the npm package, the tests and
# the bench each come twice: the plain executable, and its relaxed twin (attn_wasm_relaxed_twin) that
# links the same objects but the kernel's relaxed build (engine/CMakeLists.txt: attn_simd_wasm_relaxed,
# picked by the twin's ATTN_WASM_RELAXED_SIMD property). Nothing but that one file is compiled twice.
# clang 14 emits the prototype opcode for relaxed_madd, so every twin rewrites its .wasm after the
# link (scripts/wasm_relaxed_opcodes.mjs, run under a node that validates the result).
# The loaders (web/lib/index.mjs, the page) pick the relaxed build where WebAssembly.validate accepts
# a relaxed_madd, the plain one elsewhere.
if(EMSCRIPTEN)
  find_program(ATTN_NODE_FOR_WASM node REQUIRED)
  # binaryen's wasm-opt (emscripten's dependency) counts the prototype opcodes independently.
  find_program(ATTN_WASM_OPT wasm-opt)
  if(ATTN_WASM_OPT)
    set(attn_wasm_opt_check --wasm-opt ${ATTN_WASM_OPT})
  endif()
  # How the tests' twins run under ctest: node 20 has relaxed SIMD behind a flag.
  set(ATTN_WASM_RELAXED_EMULATOR ${ATTN_NODE_FOR_WASM} --no-experimental-fetch --experimental-wasm-relaxed-simd)
endif()

# attn_wasm_relaxed_twin(TARGET [OUTPUT_DIRECTORY DIR]): TARGET_relaxed, the relaxed-SIMD build of the
# executable TARGET: TARGET's objects, link libraries and options, its output name, written to DIR
# (default: a relaxed/ directory beside TARGET's), run by ctest under node with relaxed SIMD. Call it
# once TARGET's link settings are complete. Does nothing outside Emscripten.
function(attn_wasm_relaxed_twin target)
  if(NOT EMSCRIPTEN)
    return()
  endif()
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "OUTPUT_DIRECTORY" "")
  set(twin ${target}_relaxed)
  add_executable(${twin} $<TARGET_OBJECTS:${target}>)
  foreach(property LINK_LIBRARIES LINK_OPTIONS OUTPUT_NAME SUFFIX)
    get_target_property(value ${target} ${property})
    if(value)
      set_property(TARGET ${twin} PROPERTY ${property} "${value}")
    endif()
  endforeach()
  get_target_property(name ${target} OUTPUT_NAME)
  if(NOT name)
    set_property(TARGET ${twin} PROPERTY OUTPUT_NAME ${target})
  endif()
  if(NOT arg_OUTPUT_DIRECTORY)
    get_target_property(dir ${target} RUNTIME_OUTPUT_DIRECTORY)
    if(NOT dir)
      get_target_property(dir ${target} BINARY_DIR)
    endif()
    set(arg_OUTPUT_DIRECTORY ${dir}/relaxed)
  endif()
  set_target_properties(${twin} PROPERTIES
    ATTN_WASM_RELAXED_SIMD ON
    RUNTIME_OUTPUT_DIRECTORY ${arg_OUTPUT_DIRECTORY}
    CROSSCOMPILING_EMULATOR "${ATTN_WASM_RELAXED_EMULATOR}")
  add_custom_command(TARGET ${twin} POST_BUILD
    COMMAND ${ATTN_NODE_FOR_WASM} --experimental-wasm-relaxed-simd
            ${PROJECT_SOURCE_DIR}/scripts/wasm_relaxed_opcodes.mjs ${attn_wasm_opt_check}
            $<TARGET_FILE_DIR:${twin}>/$<TARGET_FILE_BASE_NAME:${twin}>.wasm
    VERBATIM)
endfunction()

# attn_wasm_relaxed_ship(TARGET DIR BASE): after TARGET's twin links, its BASE.wasm goes beside
# TARGET's as DIR/BASE-relaxed.wasm, once the twin's JavaScript glue is checked to be byte for byte
# TARGET's (so one glue loads either wasm). The twin builds with TARGET (both in ALL, or both not).
function(attn_wasm_relaxed_ship target dir base)
  add_custom_command(TARGET ${target}_relaxed POST_BUILD
    COMMAND ${CMAKE_COMMAND} -DPLAIN=${dir}/${base} -DRELAXED=$<TARGET_FILE_DIR:${target}_relaxed>/${base}
            -P ${PROJECT_SOURCE_DIR}/cmake/ShipRelaxedWasm.cmake
    VERBATIM)
  add_dependencies(${target}_relaxed ${target})  # the plain glue is there to compare with
endfunction()
