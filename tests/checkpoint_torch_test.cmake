# The checkpoint reader against PyTorch, regenerated: where Debian's python3-torch is installed,
# tests/torch/gpt2_checkpoints.py writes the six GPT-2 / nanoGPT fixtures afresh (safetensors,
# config.json, its float64 GPT-2's logits) into SCRATCH, and attn_train_tests reads them from there
# (ATTN_CHECKPOINT_DIR); elsewhere says "torch skipped" and ctest reports the test skipped (the
# committed fixtures in tests/data/checkpoints keep the comparison in every run of attn_train_tests).
#   cmake -DPYTHON=/usr/bin/python3 -DTESTS=path/to/attn_train_tests -DSOURCE=repo -DSCRATCH=dir -P checkpoint_torch_test.cmake
execute_process(COMMAND ${PYTHON} -c "import torch" RESULT_VARIABLE no_torch OUTPUT_QUIET ERROR_QUIET)
if(no_torch)
  message("torch skipped: ${PYTHON} cannot import torch (apt-get install python3-torch)")
  return()
endif()
set(fresh ${SCRATCH}/checkpoints)
execute_process(COMMAND ${PYTHON} ${SOURCE}/tests/torch/gpt2_checkpoints.py ${fresh}
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "gpt2_checkpoints.py failed (${code}):\n${out}${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env ATTN_CHECKPOINT_DIR=${fresh}
                        ${TESTS} --gtest_filter=Fixtures/CheckpointFixtureTest.*:CheckpointFixture.*
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "attnlab's logits against the fresh PyTorch GPT-2's:\n${out}${err}")
endif()
message("${out}")
