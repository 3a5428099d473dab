# One consumer test (tests/CMakeLists.txt registers them): configures, builds and runs the project
# tests/consumers/${CONSUMER} in ${WORK_DIR}/build, from scratch every time.
#   -DCONSUMER=find_package|add_subdirectory|fetchcontent
#   -DATTNLAB_SOURCE_DIR=<this checkout>
#   -DATTNLAB_BUILD_DIR=<its build, installed for find_package>
#   -DWORK_DIR=<scratch, in the build tree>  -DGENERATOR=  -DMAKE_PROGRAM=  -DCXX_COMPILER=
#   -DBUILD_TYPE=  -DCOMPILER_LAUNCHER=<optional; the environment's CMAKE_CXX_COMPILER_LAUNCHER
#   (ccache) passes through as it is>
#   -DEXPECTED_LINKED=<every library and executable the consumer's build may contain>
cmake_minimum_required(VERSION 3.20)

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "${CONSUMER}: ${what} failed (${code}):\n${out}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

# The text of README.md's first fenced block that opens with `fence` (e.g. ```cpp), into `out`.
function(readme_block fence out)
  file(READ "${ATTNLAB_SOURCE_DIR}/README.md" readme)
  string(FIND "${readme}" "${fence}\n" start)
  if(start LESS 0)
    message(FATAL_ERROR "${CONSUMER}: README.md has no ${fence} block")
  endif()
  string(LENGTH "${fence}\n" skip)
  math(EXPR start "${start} + ${skip}")
  string(SUBSTRING "${readme}" ${start} -1 rest)
  string(FIND "${rest}" "\n```" end)
  math(EXPR end "${end} + 1")
  string(SUBSTRING "${rest}" 0 ${end} block)
  set(${out} "${block}" PARENT_SCOPE)
endfunction()

set(build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

set(args -S "${CMAKE_CURRENT_LIST_DIR}/${CONSUMER}" -B "${build}" -G "${GENERATOR}"
         "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
         "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}"
         # The engine alone needs neither: configuring fails if attnlab asks for them.
         -DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON)
if(COMPILER_LAUNCHER)
  list(APPEND args "-DCMAKE_CXX_COMPILER_LAUNCHER=${COMPILER_LAUNCHER}")
endif()

if(CONSUMER STREQUAL "find_package")
  set(prefix "${WORK_DIR}/prefix")
  run("cmake --install" ${CMAKE_COMMAND} --install "${ATTNLAB_BUILD_DIR}" --prefix "${prefix}")
  # The install holds the engine and nothing else: its headers, the library, the package files.
  file(GLOB_RECURSE installed RELATIVE "${prefix}" "${prefix}/*")
  string(CONCAT engine_files "^(include/attn/.+\\.h|lib[^/]*/(.+/)?libattn_engine\\.a"
                              "|lib[^/]*/(.+/)?cmake/attn/attn[A-Za-z-]*\\.cmake|share/doc/attnlab/LICENSE)$")
  set(unexpected ${installed})
  list(FILTER unexpected EXCLUDE REGEX "${engine_files}")
  if(unexpected OR NOT installed MATCHES "include/attn/attention\\.h"
     OR NOT installed MATCHES "libattn_engine\\.a" OR NOT installed MATCHES "share/doc/attnlab/LICENSE")
    message(FATAL_ERROR "${CONSUMER}: the install should be the engine's headers, library, "
                        "package and licence; it has: ${installed}")
  endif()
  list(APPEND args "-DCMAKE_PREFIX_PATH=${prefix}")
elseif(CONSUMER STREQUAL "add_subdirectory")
  # README's C++ example, the first ```cpp block, exactly as printed.
  readme_block("```cpp" cpp)
  file(WRITE "${WORK_DIR}/readme_example.cpp" "${cpp}")
  list(APPEND args "-DATTNLAB_SOURCE_DIR=${ATTNLAB_SOURCE_DIR}" "-DREADME_EXAMPLE=${WORK_DIR}/readme_example.cpp")
elseif(CONSUMER STREQUAL "fetchcontent")
  # README's FetchContent_Declare line with its GIT_TAG; only the repository becomes this checkout.
  file(STRINGS "${ATTNLAB_SOURCE_DIR}/README.md" declare REGEX "^FetchContent_Declare\\(attnlab ")
  if(NOT declare MATCHES "GIT_TAG ([0-9a-f]+)\\)")
    message(FATAL_ERROR "${CONSUMER}: README's FetchContent_Declare should pin a commit (GIT_TAG <hash>): '${declare}'")
  endif()
  string(REGEX REPLACE "GIT_REPOSITORY [^ ]+" "GIT_REPOSITORY \"${ATTNLAB_SOURCE_DIR}\"" declare "${declare}")
  file(WRITE "${WORK_DIR}/readme_fetch.cmake" "${declare}\n")
  list(APPEND args "-DREADME_FETCH=${WORK_DIR}/readme_fetch.cmake")
else()
  message(FATAL_ERROR "unknown CONSUMER '${CONSUMER}'")
endif()

run("configure" ${CMAKE_COMMAND} ${args})

# Everything the consumer's build can link, `all` or not (Ninja: one rule per linked target):
# attnlab must bring attn_engine and nothing else (no test, bench, CLI, web, fuzz or other library).
file(READ "${build}/build.ninja" ninja)
string(CONCAT link_rule "CXX_(STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|EXECUTABLE)_LINKER__"
              "[A-Za-z0-9_]+")
string(REGEX MATCHALL "${link_rule}" rules "${ninja}")
set(linked)
foreach(rule ${rules})
  # CXX_STATIC_LIBRARY_LINKER__attn_engine_Release: the target, then the configuration.
  string(REGEX REPLACE "^CXX_[A-Z_]+_LINKER__" "" target "${rule}")
  string(REGEX REPLACE "_${BUILD_TYPE}$" "" target "${target}")
  list(APPEND linked ${target})
endforeach()
list(REMOVE_DUPLICATES linked)
list(SORT linked)
set(expected ${EXPECTED_LINKED})
list(SORT expected)
if(NOT linked STREQUAL expected)
  message(FATAL_ERROR "${CONSUMER}: the build defines the linked targets '${linked}', "
                      "expected only '${expected}'")
endif()
message(STATUS "${CONSUMER}: linked targets: ${linked}")

run("build" ${CMAKE_COMMAND} --build "${build}")
run("the forward check" "${build}/consumer")
message(STATUS "${CONSUMER}: ${run_output}")
if(CONSUMER STREQUAL "add_subdirectory")
  run("README's C++ example" "${build}/readme_example")
  # It prints the second head's weights (a 5×5 causal matrix: 25 numbers) and the fused output.
  string(REGEX MATCHALL "[-0-9.e]+" numbers "${run_output}")
  list(LENGTH numbers count)
  if(count LESS 25)
    message(FATAL_ERROR "${CONSUMER}: README's C++ example printed too little:\n${run_output}")
  endif()
  message(STATUS "${CONSUMER}: README's example printed:\n${run_output}")
endif()
