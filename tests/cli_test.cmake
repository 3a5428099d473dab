# The attnlab CLI's contract: `run` prints {"outputs": ...} and exits 0; bad input gives one line
# on stderr and exit code 2 (a usage error adds "see attnlab help COMMAND"); `check` ends with
# "N passed, M failed" and exits 1 if a case failed, 2 if one could not be read or run.
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
expect_run("run without a case" 2 "^$" "^attnlab run: invalid_argument: expected a case file\nsee attnlab help run\n$" ${ATTNLAB} run)
expect_run("run with two cases" 2 "^$" "^attnlab run: invalid_argument: expected one case file, got 2\nsee attnlab help run\n$"
           ${ATTNLAB} run ${good} ${good})
expect_run("an unknown kernel" 2 "^$"
           "^attnlab check: unknown_option: --kernel: expected one of [^\n]*, got 'avx9000'\nsee attnlab help check\n$"
           ${ATTNLAB} check --kernel avx9000 ${good})
expect_run("check with one case that cannot be checked" 2
           "\nERROR [^\n]*/cli_bad_shape.json  the case lists no expected outputs\n1 passed, 0 failed, 1 error\n$" "^$"
           ${ATTNLAB} check ${good} "${SCRATCH}/cli_bad_shape.json")
expect_run("check with the reference kernel" 0 "\n1 passed, 0 failed\n$" "^$"
           ${ATTNLAB} check --kernel reference ${good})
# A case whose output is off by 1000 fails (exit 1), named, with the first element that differs.
file(READ "${good}" good_text)
string(JSON off_by_1000 SET "${good_text}" outputs Y data 0 1000)
file(WRITE "${SCRATCH}/cli_failing.json" "${off_by_1000}")
expect_run("check with a failing case" 1
           "^PASS [^\n]*\nFAIL test_attention_4d_gqa_with_past_and_present  max_abs_err [0-9.e+]+ \\(Y\\)  Y\\[0\\]: [^\n]* vs expected 1000 \\(rtol 0.001, atol 1e-05\\)\n1 passed, 1 failed\n$"
           "^$" ${ATTNLAB} check ${good} "${SCRATCH}/cli_failing.json")
expect_run("check on a good case" 0 "^PASS test_attention_4d_gqa_with_past_and_present  max_abs_err [^\n]*\n1 passed, 0 failed\n$"
           "^$" ${ATTNLAB} check ${good})
