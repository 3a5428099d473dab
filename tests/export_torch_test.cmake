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

function(run description)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "${description}: exit code ${code}\n${out}${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

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
  run("attnlab train ${flags} --save" ${ATTNLAB} train ${flags} --seed ${seed} --eval ${eval} --json
      --save ${dir}/${name}.safetensors)
  string(REGEX MATCH "{\"final\":true[^\n]*" final "${out}")
  file(WRITE ${dir}/${name}.train.json "${final}")
  run("attn_learn_probe ${name}" ${PROBE} ${dir}/${name}.safetensors ${dir}/${name}.config.json ${seed} ${eval}
      ${dir}/${name}.probe.safetensors)
  list(APPEND names ${name})
endforeach()

set(ids 12,7,310,44,5,981,23,2,77,1500,9,64,3,4000,18,256,31,700,11,2048,6,95,142,8)
run("attnlab lm --save" ${ATTNLAB} lm --model ${SOURCE}/web/assets/lm-brown.bin --save ${dir}/lm-brown.safetensors)
run("attnlab lm --json" ${ATTNLAB} lm --model ${SOURCE}/web/assets/lm-brown.bin --ids ${ids} --top 100 --json)
file(WRITE ${dir}/lm-brown.lm.json "${out}")

run("export_check.py" ${PYTHON} ${SOURCE}/tests/torch/export_check.py ${SOURCE} ${dir} --learn ${names} --lm lm-brown)
message("${out}")
