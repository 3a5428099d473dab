# The language model against PyTorch, regenerated: where Debian's python3-torch is installed, runs
# tests/torch/lm_reference.py on the shipped asset and compares attnlab's logits with its fresh
# output (ShippedLm.LogitsEqualAnIndependentPyTorchImplementationWithinTheFloat32Bound reads it from
# ATTN_LM_TORCH_LOGITS); elsewhere says "torch skipped" and ctest reports the test skipped (the
# committed golden file keeps the comparison in every run of attn_train_tests).
#   cmake -DPYTHON=/usr/bin/python3 -DTESTS=path/to/attn_train_tests -DSOURCE=repo -DSCRATCH=dir -P lm_torch_test.cmake
execute_process(COMMAND ${PYTHON} -c "import torch" RESULT_VARIABLE no_torch OUTPUT_QUIET ERROR_QUIET)
if(no_torch)
  message("torch skipped: ${PYTHON} cannot import torch (apt-get install python3-torch)")
  return()
endif()
set(fresh ${SCRATCH}/lm-brown-torch-logits.txt)
execute_process(COMMAND ${PYTHON} ${SOURCE}/tests/torch/lm_reference.py ${SOURCE}/web/assets/lm-brown.bin
                        ${SOURCE}/tests/data/lm-brown-held-out-sample.txt ${fresh}
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "lm_reference.py failed (${code}):\n${out}${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env ATTN_LM_TORCH_LOGITS=${fresh}
                        ${TESTS} --gtest_filter=ShippedLm.LogitsEqualAnIndependentPyTorchImplementationWithinTheFloat32Bound
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "attnlab's logits against the fresh PyTorch ones:\n${out}${err}")
endif()
message("${out}")
