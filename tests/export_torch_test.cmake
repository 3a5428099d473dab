# attnlab's exports in PyTorch (issue 28): `attnlab train --save` on four settings of the Learn
# view's model (every kind of positions, with and without LayerNorm and the MLP) and
# `attnlab lm --save` on the built-in Brown model; tests/torch/export_check.py runs docs/pytorch.md's
# snippets on the files and compares their logits with attnlab's (attn_learn_probe on the held-out
# sequences, `attnlab lm --json`'s probabilities), and their held-out accuracy with what
# `attnlab train` printed. Where /usr/bin/python3 cannot import torch: "torch skipped", and ctest
# reports the test skipped.
#   cmake -DPYTHON=/usr/bin/python3 -DATTNLAB=attnlab -DPROBE=attn_learn_probe -DSOURCE=repo -DSCRATCH=dir -P export_torch_test.cmake
execute_process(COMMAND ${PYTHON} -c "import torch" RESULT_VARIABLE no_torch OUTPUT_QUIET ERROR_QUIET)
if(no_torch)
  message("torch skipped: ${PYTHON} cannot import torch (apt-get install python3-torch)")
  return()
endif()
set(dir ${SCRATCH}/export-torch)
file(REMOVE_RECURSE ${dir})
file(MAKE_DIRECTORY ${dir})

include(${CMAKE_CURRENT_LIST_DIR}/cli_expect_run.cmake)

# name | seed | held-out sequences | the rest of `attnlab train`'s flags (separated by commas)
set(cases
    "learn-recall-learned-mlp|3|256|--task,recall,--steps,600,--mlp"
    "learn-plusminus-rope-noln|5|128|--task,plusminus,--steps,300,--positions,rope,--no-layer-norm"
    "learn-copy-sinusoidal|2|128|--task,copy,--steps,300,--positions,sinusoidal,--layers,1,--heads,4"
    "learn-previous-none-3|4|64|--task,previous,--steps,200,--positions,none,--layers,3,--mlp")
set(names)
foreach(case ${cases})
  string(REPLACE "|" ";" fields "${case}")
  list(GET fields 0 name)
  list(GET fields 1 seed)
  list(GET fields 2 eval)
  list(GET fields 3 flags)
  string(REPLACE "," ";" flags "${flags}")
  expect_run("attnlab train ${flags} --save" 0 "^" "^$"
             ${ATTNLAB} train ${flags} --seed ${seed} --eval ${eval} --json --save ${dir}/${name}.safetensors)
  string(REGEX MATCH "{\"final\":true[^\n]*" final "${expect_run_out}")
  file(WRITE ${dir}/${name}.train.json "${final}")
  expect_run("attn_learn_probe ${name}" 0 "^" "^$"
             ${PROBE} ${dir}/${name}.safetensors ${dir}/${name}.config.json ${seed} ${eval} ${dir}/${name}.probe.safetensors)
  list(APPEND names ${name})
endforeach()

set(ids 12,7,310,44,5,981,23,2,77,1500,9,64,3,4000,18,256,31,700,11,2048,6,95,142,8)
expect_run("attnlab lm --save" 0 "^" "^$" ${ATTNLAB} lm --model ${SOURCE}/web/assets/lm-brown.bin --save ${dir}/lm-brown.safetensors)
expect_run("attnlab lm --json" 0 "^" "^$" ${ATTNLAB} lm --model ${SOURCE}/web/assets/lm-brown.bin --ids ${ids} --top 100 --json)
file(WRITE ${dir}/lm-brown.lm.json "${expect_run_out}")

expect_run("export_check.py" 0 "^" "^" ${PYTHON} ${SOURCE}/tests/torch/export_check.py ${SOURCE} ${dir} --learn ${names} --lm lm-brown)
message("${expect_run_out}")
