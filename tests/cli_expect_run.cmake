# expect_run(description expected_code stdout_regex stderr_regex COMMAND...): runs the command and
# fails the script when the exit code or either stream is not what the contract says; the command's
# stdout is left in `expect_run_out` for the caller.
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
  set(expect_run_out "${out}" PARENT_SCOPE)
endfunction()
