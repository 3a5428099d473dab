# The attnlab CLI against hostile case files and flags (issue 13): every one gives exit code 2 and
# one short line (`check` reports a bad case as an ERROR line), never a crash, a hang or an echo of
# the bad value; `check` prints each verdict it has before a later case goes wrong.
# The hostile inputs are generated here, at run time, into SCRATCH.
#   cmake -DATTNLAB=path/to/attnlab -DDATA=tests/data -DSCRATCH=build/dir [-DSANITIZED=1]
#         -P cli_hostile_test.cmake

include(${CMAKE_CURRENT_LIST_DIR}/cli_expect_run.cmake)

# expect_short(description expected_code stdout_regex stderr_regex COMMAND...): expect_run, within
# 60 s (a file read without end is a failure, not a hang), and stderr at most 1000 bytes.
function(expect_short description expected_code stdout_regex stderr_regex)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err
                  TIMEOUT 60)
  string(LENGTH "${err}" err_length)
  string(SUBSTRING "${err}" 0 1000 err_start)
  if(NOT code EQUAL expected_code)
    message(FATAL_ERROR "${description}: exit code ${code}, expected ${expected_code}\n${err_start}")
  endif()
  if(err_length GREATER 1000)
    message(FATAL_ERROR "${description}: stderr is ${err_length} bytes:\n${err_start}...")
  endif()
  if(NOT out MATCHES "${stdout_regex}")
    string(SUBSTRING "${out}" 0 2000 out_start)
    message(FATAL_ERROR "${description}: stdout does not match '${stdout_regex}':\n${out_start}")
  endif()
  if(NOT err MATCHES "${stderr_regex}")
    message(FATAL_ERROR "${description}: stderr does not match '${stderr_regex}':\n${err}")
  endif()
endfunction()

set(good "${DATA}/onnx-attention/test_attention_4d.json")
set(good2 "${DATA}/onnx-attention/test_attention_4d_causal.json")

# 100 000 nested arrays in data, dims and attributes (a recursive dump() of them overflowed the
# stack: SIGSEGV, and `check` lost the verdicts it had buffered).
string(REPEAT "[" 100000 open)
string(REPEAT "]" 100000 close)
set(deep "${open}${close}")
file(WRITE "${SCRATCH}/cli_deep_data.json"
     "{\"inputs\":{\"Q\":{\"dims\":[1],\"dtype\":\"float32\",\"data\":[${deep}]}}}")
file(WRITE "${SCRATCH}/cli_deep_dims.json"
     "{\"inputs\":{\"Q\":{\"dims\":${deep},\"dtype\":\"float32\",\"data\":[1]}}}")
file(WRITE "${SCRATCH}/cli_deep_attributes.json" "{\"attributes\":{\"scale\":${deep}},\"inputs\":{}}")
foreach(field data dims attributes)
  expect_short("run on 100000 levels in ${field}" 2 "^$"
               "^attnlab: parse_error: [^\n]*: case: nesting deeper than 64 levels at byte [0-9]+\n$"
               ${ATTNLAB} run "${SCRATCH}/cli_deep_${field}.json")
endforeach()
expect_short("check prints each verdict before a bad case's" 2
             "^PASS test_attention_4d  [^\n]*\nERROR [^\n]*cli_deep_data.json  parse_error: [^\n]*nesting deeper than 64 levels[^\n]*\nPASS test_attention_4d_causal  [^\n]*\n2 passed, 0 failed, 1 error\n$"
             "^$" ${ATTNLAB} check ${good} "${SCRATCH}/cli_deep_data.json" ${good2})

# A 1 MiB bad element is quoted as an excerpt, not echoed.
string(REPEAT "x" 1048576 long_text)
file(WRITE "${SCRATCH}/cli_long_element.json"
     "{\"inputs\":{\"Q\":{\"dims\":[1],\"dtype\":\"float32\",\"data\":[\"${long_text}\"]}}}")
expect_short("run on a 1 MiB bad element" 2 "^$"
             "^attnlab: parse_error: [^\n]*inputs.Q.data\\[0\\]: expected a number [^\n]*\"xxxx[^\n]*\\.\\.\\. \\(1048576 bytes\\)\n$"
             ${ATTNLAB} run "${SCRATCH}/cli_long_element.json")

# L = M = 100 000, d = 1: 300 KB of input, (100 000)^2 scores. Was 40 GB asked for and an uncaught
# std::bad_alloc (abort); now refused before anything is allocated.
string(REPEAT "0.5," 99999 values)
set(tensor "{\"dims\":[1,1,100000,1],\"dtype\":\"float32\",\"data\":[${values}0.5]}")
file(WRITE "${SCRATCH}/cli_long_sequence.json"
     "{\"inputs\":{\"Q\":${tensor},\"K\":${tensor},\"V\":${tensor}}}")
expect_short("run on L = M = 100000" 2 "^$"
             "^attnlab: resource_exhausted: scores of one batch item \\(Hq, L, M\\): \\(1, 100000, 100000\\) is more than the limit of 16777216 elements \\(max_elements\\)\n$"
             ${ATTNLAB} run "${SCRATCH}/cli_long_sequence.json")
expect_short("--max-elements tightens the limit" 2 "^$"
             "^attnlab: resource_exhausted: [^\n]*limit of 100 elements \\(max_elements\\)\n$"
             ${ATTNLAB} run --max-elements 100 ${good})

# Input bytes: a 2 MiB file over --max-input-mb 1 is not read.
string(REPEAT " " 2097152 padding)
file(WRITE "${SCRATCH}/cli_padded.json" "${padding}{\"inputs\":{}}")
expect_short("a file over --max-input-mb" 2 "^$"
             "^attnlab: resource_exhausted: [^\n]*cli_padded.json: 2097165 bytes is more than the limit of 1048576 bytes \\(max_input_bytes\\)\n$"
             ${ATTNLAB} run --max-input-mb 1 "${SCRATCH}/cli_padded.json")

# Non-regular files: /dev/zero and /dev/urandom were read without end.
expect_short("run on /dev/zero" 2 "^$" "^attnlab: parse_error: /dev/zero: not a regular file[^\n]*\n$"
             ${ATTNLAB} run /dev/zero)
expect_short("check on /dev/urandom" 2 "^ERROR /dev/urandom  [^\n]*not a regular file[^\n]*\n0 passed, 0 failed, 1 error\n$"
             "^$" ${ATTNLAB} check /dev/urandom)
expect_short("run on a directory" 2 "^$" "^attnlab: parse_error: [^\n]*: is a directory[^\n]*\n$"
             ${ATTNLAB} run "${SCRATCH}")

# A typo in an attribute was ignored and gave the non-causal result.
file(READ "${DATA}/onnx-attention/test_attention_4d_causal.json" causal)
string(REPLACE "is_causal" "is_casual" typo "${causal}")
file(WRITE "${SCRATCH}/cli_typo.json" "${typo}")
expect_short("run with is_casual" 2 "^$"
             "^attnlab: unknown_option: is_casual: unknown attribute of Attention \\(did you mean is_causal\\?\\)\n$"
             ${ATTNLAB} run "${SCRATCH}/cli_typo.json")

# Numeric flags: the whole value, an integer where one is expected, in range. `--dim 2.5` was 2.
foreach(bad 2.5 16x " 16" abc 0 4097 -3 99999999999999999999 1e3)
  expect_short("attend --dim '${bad}'" 2 "^$"
               "^attnlab attend: (invalid_argument|out_of_range): --dim: expected an integer 1 to 4096, got '[^\n]*'\nsee attnlab help attend\n$"
               ${ATTNLAB} attend "the cat sat" --dim "${bad}")
endforeach()
foreach(bad nan inf 1e999 0.5x)
  expect_short("attend --temperature '${bad}'" 2 "^$"
               "^attnlab attend: (invalid_argument|out_of_range): --temperature: expected a finite number, got '[^\n]*'\nsee attnlab help attend\n$"
               ${ATTNLAB} attend "the cat sat" --temperature "${bad}")
endforeach()
expect_short("attend --scale without a value" 2 "^$"
             "^attnlab attend: invalid_argument: --scale: expected a finite number, got nothing\nsee attnlab help attend\n$"
             ${ATTNLAB} attend "the cat sat" --scale)
expect_short("attend with good numbers" 0 "^tokens: the cat sat\nweights \\(3, 3\\)\n" "^$"
             ${ATTNLAB} attend "the cat sat" --dim 8 --temperature 0.5 --scale 1e-1)
foreach(flag --max-elements --max-input-mb)
  foreach(bad 1.5 0 -1 12abc 99999999999999999999)
    expect_short("check ${flag} '${bad}'" 2 "^$"
                 "^attnlab check: (invalid_argument|out_of_range): ${flag}: expected an integer 1 to [0-9]+, got '[^\n]*'\nsee attnlab help check\n$"
                 ${ATTNLAB} check ${flag} "${bad}" ${good})
  endforeach()
endforeach()
expect_short("an unknown flag of run" 2 "^$" "^attnlab run: unknown_option: unknown flag '--max-elemnts'\nsee attnlab help run\n$"
             ${ATTNLAB} run --max-elemnts 5 ${good})

# An exception inside (here std::bad_alloc under a 2 GB address-space cap, with the element limit
# raised past what fits) is reported, never an abort. Sanitizers reserve more than the cap.
if(NOT SANITIZED)
  string(REPEAT "0.5," 29999 values)
  set(tensor "{\"dims\":[1,1,30000,1],\"dtype\":\"float32\",\"data\":[${values}0.5]}")
  file(WRITE "${SCRATCH}/cli_30k.json" "{\"inputs\":{\"Q\":${tensor},\"K\":${tensor},\"V\":${tensor}}}")
  expect_short("an allocation that fails" 2 "^$" "^attnlab: resource_exhausted: [^\n]*\n$"
               sh -c "ulimit -v 2000000 && exec \"$0\" run --max-elements 2147483647 \"$1\""
               ${ATTNLAB} "${SCRATCH}/cli_30k.json")
endif()

# A case's name is printed on its verdict line: one line, cut, whatever the file says (a 1 MiB
# name with a newline in it was printed whole, over two lines).
file(READ "${good}" named)
string(REPLACE "\"name\":\"test_attention_4d\"" "\"name\":\"two\\nlines${long_text}\"" named "${named}")
file(WRITE "${SCRATCH}/cli_long_name.json" "${named}")
expect_short("check on a case with a 1 MiB name" 0
             "^PASS two\\?linesxxx[x]*\\.\\.\\. \\(1048585 bytes\\)  max_abs_err [^\n]*\n1 passed, 0 failed\n$"
             "^$" ${ATTNLAB} check "${SCRATCH}/cli_long_name.json")

# A path with a newline in it: its ERROR line stays one line (the path was printed as it is, in the
# name and again in the message, over three lines).
expect_short("check on a path with newlines" 2
             "^ERROR [^\n]*/no\\?such\\?case.json  parse_error: [^\n]*/no\\?such\\?case.json: cannot open file\n0 passed, 0 failed, 1 error\n$"
             "^$" ${ATTNLAB} check "${SCRATCH}/no\nsuch\ncase.json")
