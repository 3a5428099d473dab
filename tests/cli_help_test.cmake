# attnlab's help and version: `attnlab --help`, `attnlab help`, `attnlab help COMMAND` and
# `attnlab COMMAND --help` print to stdout and exit 0, name every command and, per command, its
# flags, defaults, exit codes and an example, in lines of at most 100 columns; `--version` prints
# "attnlab VERSION"; a usage error gives the reason and "see attnlab help COMMAND" on stderr, exit 2.
#   cmake -DATTNLAB=path/to/attnlab -P cli_help_test.cmake
cmake_policy(VERSION 3.20)
include(${CMAKE_CURRENT_LIST_DIR}/cli_expect_run.cmake)

set(commands run check attend train datasize generate lm-eval)
# Every flag each command's parser takes: its help must name each one.
set(flags_run --kernel --max-input-mb --max-elements --help)
set(flags_check --json --kernel --max-input-mb --max-elements --help)
set(flags_attend --dim --temperature --scale --kernel --help)
set(flags_train --task --layers --heads --dim --positions --steps --seed --batch --lr --optimizer
                --no-layer-norm --mlp --log-every --eval --save --json --help)
set(flags_datasize --task --sizes --seeds --steps --batch --eval --json --help)
set(flags_generate --prompt --tokens --temperature --seed --model --json --help)
set(flags_lm-eval --model --corpus --json --help)
# Arguments each command accepts before a flag it does not know.
set(args_run case.json)
set(args_check case.json)
set(args_attend "the cat sat")
set(args_train --task copy)
set(args_datasize)
set(args_generate --prompt "the jury")
set(args_lm-eval)

# expect_lines_within(description text): no line of `text` is longer than 100 columns.
function(expect_lines_within description text)
  while(NOT text STREQUAL "")
    string(FIND "${text}" "\n" end)
    if(end EQUAL -1)
      string(LENGTH "${text}" end)
    endif()
    string(SUBSTRING "${text}" 0 ${end} line)
    if(end GREATER 100)
      message(FATAL_ERROR "${description}: a line of ${end} columns:\n${line}")
    endif()
    string(LENGTH "${text}" length)
    if(end LESS length)
      math(EXPR end "${end} + 1")
    endif()
    string(SUBSTRING "${text}" ${end} -1 text)
  endwhile()
endfunction()

foreach(form "--help" "help" "-h")
  expect_run("attnlab ${form}" 0 "^attnlab [0-9]+\\.[0-9]+\\.[0-9]+: [^\n]*\n\nusage: attnlab COMMAND" "^$"
             ${ATTNLAB} ${form})
endforeach()
execute_process(COMMAND ${ATTNLAB} help OUTPUT_VARIABLE overview)
foreach(command IN LISTS commands)
  if(NOT overview MATCHES "\n  ${command} +[a-z]")
    message(FATAL_ERROR "attnlab help does not list ${command}:\n${overview}")
  endif()
endforeach()
foreach(code "0  " "1  " "2  bad input or usage")
  if(NOT overview MATCHES "\nexit codes[^\n]*:\n(  [^\n]*\n)*  ${code}")
    message(FATAL_ERROR "attnlab help does not give exit code '${code}':\n${overview}")
  endif()
endforeach()
expect_lines_within("attnlab help" "${overview}")

foreach(command IN LISTS commands)
  expect_run("attnlab help ${command}" 0
             "^usage: attnlab ${command} .*\n\nflags:\n.*\n\nexit codes:\n  0  [^\n]*\n.*  2  bad input or usage.*\n\nexample:\n  attnlab ${command} [^\n]*\n$"
             "^$" ${ATTNLAB} help ${command})
  execute_process(COMMAND ${ATTNLAB} help ${command} OUTPUT_VARIABLE help)
  foreach(form "--help" "-h")
    execute_process(COMMAND ${ATTNLAB} ${command} ${form} RESULT_VARIABLE code OUTPUT_VARIABLE out
                    ERROR_VARIABLE err)
    if(NOT code EQUAL 0 OR NOT out STREQUAL help OR NOT err STREQUAL "")
      message(FATAL_ERROR "attnlab ${command} ${form}: exit ${code}, not the text of attnlab help ${command}:\n${out}${err}")
    endif()
  endforeach()
  foreach(flag IN LISTS flags_${command})
    if(NOT help MATCHES "\n  ${flag}[ ,]")
      message(FATAL_ERROR "attnlab help ${command} does not describe ${flag}:\n${help}")
    endif()
  endforeach()
  if(NOT help MATCHES "default")
    message(FATAL_ERROR "attnlab help ${command} gives no default:\n${help}")
  endif()
  expect_lines_within("attnlab help ${command}" "${help}")
  expect_run("attnlab ${command} with an unknown flag" 2 "^$"
             "^attnlab ${command}: unknown_option: unknown flag '--no-such-flag'\nsee attnlab help ${command}\n$"
             ${ATTNLAB} ${command} ${args_${command}} --no-such-flag)
endforeach()

# The defaults the help gives are the parser's (a few spot checks against the headers' values).
execute_process(COMMAND ${ATTNLAB} help run OUTPUT_VARIABLE help)
foreach(expected "--max-input-mb N +[^\n]*1 to 65536; default 64\n"
                 "--max-elements N +[^\n]*\n +[^\n]*1 to 2147483647; default 16777216\n"
                 "--kernel K +[^\n]*reference, eigen[^\n]*\n[^\n]*default eigen\n")
  if(NOT help MATCHES "${expected}")
    message(FATAL_ERROR "attnlab help run does not match '${expected}':\n${help}")
  endif()
endforeach()

# A flag's --help wins over a bad value: the user asked what the flags are.
expect_run("help after a bad flag value" 0 "^usage: attnlab check " "^$"
           ${ATTNLAB} check --kernel bogus --help)

# Usage errors: the reason, then where the help is; nothing on stdout.
expect_run("no command" 2 "^$" "^attnlab: invalid_argument: expected a command\nsee attnlab help\n$" ${ATTNLAB})
expect_run("an unknown command" 2 "^$" "^attnlab: unknown_option: unknown command 'frobnicate'\nsee attnlab help\n$"
           ${ATTNLAB} frobnicate)
expect_run("help on an unknown command" 2 "^$"
           "^attnlab: unknown_option: help: unknown command 'frobnicate'\nsee attnlab help\n$" ${ATTNLAB} help frobnicate)
expect_run("attend without a sentence" 2 "^$" "^attnlab attend: invalid_argument: expected a sentence\nsee attnlab help attend\n$"
           ${ATTNLAB} attend)
expect_run("train without a task" 2 "^$" "^attnlab train: invalid_argument: --task: missing [^\n]*\nsee attnlab help train\n$"
           ${ATTNLAB} train)

expect_run("attnlab --version" 0 "^attnlab [0-9]+\\.[0-9]+\\.[0-9]+\n$" "^$" ${ATTNLAB} --version)

# Issue 26: `help help` was an unknown command, `--version extra` printed the version.
expect_run("attnlab help help" 0 "^attnlab [0-9]+\\.[0-9]+\\.[0-9]+: [^\n]*\n\nusage: attnlab COMMAND" "^$" ${ATTNLAB} help help)
expect_run("attnlab --version with an argument" 2 "^$"
           "^attnlab: invalid_argument: --version: expected nothing after it, got 'extra'\nsee attnlab help\n$"
           ${ATTNLAB} --version extra)
