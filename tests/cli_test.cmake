# The attnlab CLI's contract: `run` prints {"outputs": ...} and exits 0; bad input gives one line
# on stderr and exit code 2; `check` ends with "N passed, M failed" and exits 1 if any failed.
#   cmake -DATTNLAB=path/to/attnlab -DDATA=tests/data -DSCRATCH=build/dir -P cli_test.cmake

include(${CMAKE_CURRENT_LIST_DIR}/cli_expect_run.cmake)

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
expect_run("run without a case" 2 "^$" "^attnlab run: expected a case file\nusage: " ${ATTNLAB} run)
expect_run("an unknown kernel" 2 "^$" "^attnlab check: --kernel: expected one of [^\n]*, got 'avx9000'\nusage: "
           ${ATTNLAB} check --kernel avx9000 ${good})
expect_run("check with one bad case" 1 "\nFAIL [^\n]*cli_bad_shape[^\n]*\n1 passed, 1 failed\n$" "^$"
           ${ATTNLAB} check ${good} "${SCRATCH}/cli_bad_shape.json")
expect_run("check with the reference kernel" 0 "\n1 passed, 0 failed\n$" "^$"
           ${ATTNLAB} check --kernel reference ${good})
expect_run("check on a good case" 0 "^PASS test_attention_4d_gqa_with_past_and_present  max_abs_err [^\n]*\n1 passed, 0 failed\n$"
           "^$" ${ATTNLAB} check ${good})
