# The checkpoint reader and LmAdvance on GPT-2 small's shapes (124 M parameters, issue 28) against
# PyTorch: where Debian's python3-torch is installed, tests/torch/gpt2_checkpoints.py --config 124m
# writes a random-weight F32 checkpoint and its float64 GPT-2's logits on 64 ids into SCRATCH/checkpoint-124m
# (~600 MB), attn_train_tests compares (Checkpoint124m.*, ATTN_CHECKPOINT_124M_DIR), and the directory is
# deleted; elsewhere says "torch skipped" and ctest reports the test skipped.
#   cmake -DPYTHON=/usr/bin/python3 -DTESTS=path/to/attn_train_tests -DSOURCE=repo -DSCRATCH=dir
#         [-DDTYPES=F32,F16] -P checkpoint_124m_torch_test.cmake
execute_process(COMMAND ${PYTHON} -c "import torch" RESULT_VARIABLE no_torch OUTPUT_QUIET ERROR_QUIET)
if(no_torch)
  message("torch skipped: ${PYTHON} cannot import torch (apt-get install python3-torch)")
  return()
endif()
if(NOT DTYPES)
  set(DTYPES F32)
endif()
set(fresh ${SCRATCH}/checkpoint-124m)
file(REMOVE_RECURSE ${fresh})
execute_process(COMMAND ${PYTHON} ${SOURCE}/tests/torch/gpt2_checkpoints.py ${fresh} --config 124m --dtypes ${DTYPES}
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  file(REMOVE_RECURSE ${fresh})
  message(FATAL_ERROR "gpt2_checkpoints.py --config 124m failed (${code}):\n${out}${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env ATTN_CHECKPOINT_124M_DIR=${fresh}
                        ${TESTS} --gtest_filter=Checkpoint124m.*
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(REMOVE_RECURSE ${fresh})
if(NOT code EQUAL 0 OR out MATCHES "SKIPPED")
  message(FATAL_ERROR "attnlab's logits (124 M) against the fresh PyTorch GPT-2's:\n${out}${err}")
endif()
message("${out}")
