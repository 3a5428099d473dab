# cmake -DWHAT=lib|site -DSOURCE_DIR=... -DRELAXED_DIR=... -DOUT_DIR=... -DTOOLCHAIN=... -P BuildRelaxedWasm.cmake
# Builds the relaxed-SIMD twin of the npm package's engine (WHAT=lib: target attnlab_lib) or of the
# page's module (WHAT=site: attnlab_web) in RELAXED_DIR (configured here if it is not yet), checks
# that its JavaScript glue is byte for byte the plain build's in OUT_DIR (so one glue loads either
# wasm), and copies its wasm into OUT_DIR as attnlab-engine-relaxed.wasm / attnlab-relaxed.wasm.
if(WHAT STREQUAL "lib")
  set(target attnlab_lib)
  set(sub lib)
  set(base attnlab-engine)
elseif(WHAT STREQUAL "site")
  set(target attnlab_web)
  set(sub site)
  set(base attnlab)
else()
  message(FATAL_ERROR "BuildRelaxedWasm.cmake: WHAT must be lib or site, got '${WHAT}'")
endif()

if(NOT EXISTS "${RELAXED_DIR}/CMakeCache.txt")
  # The settings of preset wasm-relaxed (CMakePresets.json), which builds the same directory.
  execute_process(
    COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${RELAXED_DIR} -G Ninja -DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN}
            -DCMAKE_BUILD_TYPE=Release -DATTN_BUILD_WEB=ON -DATTN_WASM_RELAXED_SIMD=ON
            "-DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node;--no-experimental-fetch;--experimental-wasm-relaxed-simd"
    RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "configuring the relaxed-SIMD build in ${RELAXED_DIR} failed")
  endif()
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${RELAXED_DIR} --target ${target} RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "building ${target} in the relaxed-SIMD build (${RELAXED_DIR}) failed")
endif()

file(SHA256 "${RELAXED_DIR}/${sub}/${base}.mjs" relaxed_glue)
file(SHA256 "${OUT_DIR}/${base}.mjs" plain_glue)
if(NOT relaxed_glue STREQUAL plain_glue)
  message(FATAL_ERROR "${RELAXED_DIR}/${sub}/${base}.mjs differs from ${OUT_DIR}/${base}.mjs: the two builds "
                      "must share one glue (same sources and link flags but the kernel's)")
endif()
file(COPY_FILE "${RELAXED_DIR}/${sub}/${base}.wasm" "${OUT_DIR}/${base}-relaxed.wasm" ONLY_IF_DIFFERENT)
