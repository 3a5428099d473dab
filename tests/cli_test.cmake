# The attnlab CLI's contract: `run` prints {"outputs": ...} and exits 0; bad input gives one line
# on stderr and exit code 2; `check` ends with "N passed, M failed" and exits 1 if any failed.
#   cmake -DATTNLAB=path/to/attnlab -DDATA=tests/data -DSCRATCH=build/dir -P cli_test.cmake

function(expect_run description expected_code stdout_regex stderr_regex)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT code EQUAL expected_code)
    message(FATAL_ERROR "${description}: exit code ${code}, expected ${expected_code}\n${out}${err}")
  endif()
  if(NOT out MATCHES "${stdout_regex}")
    message(FATAL_ERROR "${description}: stdout does not match '${stdout_regex}':\n${out}")
  endif()
  if(NOT err MATCHES "${stderr_regex}")
    message(FATAL_ERROR "${description}: stderr does not match '${stderr_regex}':\n${err}")
  endif()
endfunction()

set(good "${DATA}/onnx-attention/test_attention_4d_gqa_with_past_and_present.json")
file(WRITE "${SCRATCH}/cli_bad_shape.json"
     [[{"inputs":{"Q":{"dims":[2],"dtype":"float32","data":[1,2]},
                  "K":{"dims":[2],"dtype":"float32","data":[1,2]},
                  "V":{"dims":[2],"dtype":"float32","data":[1,2]}}}]])
file(WRITE "${SCRATCH}/cli_bad_json.json" "{\"inputs\": [")

expect_run("run on a good case" 0
           "^{\"outputs\":{\"Y\":{\"dims\":\\[2,9,4,8\\],\"dtype\":\"float32\",\"data\":\\[.*\"present_value\""
           "^$" ${ATTNLAB} run ${good})
expect_run("run on a missing file" 2 "^$" "^attnlab: parse_error: [^\n]*cannot open file\n$"
           ${ATTNLAB} run "${SCRATCH}/no_such_case.json")
expect_run("run on malformed JSON" 2 "^$" "^attnlab: parse_error: [^\n]*not valid JSON\n$"
           ${ATTNLAB} run "${SCRATCH}/cli_bad_json.json")
expect_run("run on a bad shape" 2 "^$" "^attnlab: shape_mismatch: [^\n]*\n$"
           ${ATTNLAB} run "${SCRATCH}/cli_bad_shape.json")
expect_run("run without a case" 2 "^$" "^usage: " ${ATTNLAB} run)
expect_run("an unknown kernel" 2 "^$" "^usage: " ${ATTNLAB} check --kernel avx9000 ${good})
expect_run("check with one bad case" 1 "\nFAIL [^\n]*cli_bad_shape[^\n]*\n1 passed, 1 failed\n$" "^$"
           ${ATTNLAB} check ${good} "${SCRATCH}/cli_bad_shape.json")
expect_run("check with the reference kernel" 0 "\n1 passed, 0 failed\n$" "^$"
           ${ATTNLAB} check --kernel reference ${good})
expect_run("check on a good case" 0 "^PASS test_attention_4d_gqa_with_past_and_present  max_abs_err [^\n]*\n1 passed, 0 failed\n$"
           "^$" ${ATTNLAB} check ${good})

# attnlab datasize: a bad flag gives its name, what it expects and what it got, then the usage; a
# tiny run prints one JSON line per (model, N), then the final line.
expect_run("datasize with a malformed --sizes" 2 "^$"
           "^attnlab datasize: --sizes: expected integers 1–1048576 separated by commas, got 'x'\nusage: attnlab datasize "
           ${ATTNLAB} datasize --sizes x)
expect_run("datasize with sizes out of order" 2 "^$"
           "^attnlab datasize: sizes\\[1\\]: expected ascending, above 64, got 16\nusage: "
           ${ATTNLAB} datasize --sizes 64,16)
expect_run("datasize with an unknown task" 2 "^$" "^attnlab datasize: task: expected previous, [^\n]*, got 'nope'\n"
           ${ATTNLAB} datasize --task nope)
expect_run("datasize with an unknown flag" 2 "^$" "^attnlab datasize: unknown flag '--size'\n"
           ${ATTNLAB} datasize --size 16)
expect_run("a tiny datasize run" 0
           "^{\"model\":\"transformer\",\"size\":4,\"accuracy\":\\[[0-9.e-]+\\],\"mean\":[^\n]*}\n{\"model\":\"cnn\",\"size\":4,[^\n]*\n{\"model\":\"transformer\",\"size\":8,[^\n]*\n{\"model\":\"cnn\",\"size\":8,[^\n]*\n{\"final\":true,\"task\":\"copy\",[^\n]*\"crossover\":[0-9]+,[^\n]*}\n$"
           "^$" ${ATTNLAB} datasize --task copy --sizes 4,8 --seeds 1 --steps 2 --eval 4 --json)
