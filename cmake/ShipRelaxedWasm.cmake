# cmake -DPLAIN=DIR/BASE -DRELAXED=TWIN_DIR/BASE -P ShipRelaxedWasm.cmake (cmake/WasmRelaxed.cmake,
# attn_wasm_relaxed_ship): checks that the relaxed twin's JavaScript glue (RELAXED.mjs) is byte for
# byte the plain build's (PLAIN.mjs), so one glue loads either wasm, and copies RELAXED.wasm to
# PLAIN-relaxed.wasm (attnlab-relaxed.wasm beside attnlab.wasm).
file(SHA256 "${RELAXED}.mjs" relaxed_glue)
file(SHA256 "${PLAIN}.mjs" plain_glue)
if(NOT relaxed_glue STREQUAL plain_glue)
  message(FATAL_ERROR "${RELAXED}.mjs differs from ${PLAIN}.mjs: the two builds must share one glue "
                      "(the same objects and link flags but the kernel's)")
endif()
file(COPY_FILE "${RELAXED}.wasm" "${PLAIN}-relaxed.wasm" ONLY_IF_DIFFERENT)
