# One version in one place: package.json's "version", the CMake project version (project(attnlab
# VERSION ...), which attn::Version() is compiled from) and `attnlab --version` agree.
#   cmake -DATTNLAB=path/to/attnlab -DPACKAGE_JSON=package.json -DPROJECT_VERSION=x.y.z
#         -P cli_version_test.cmake
cmake_policy(VERSION 3.20)

file(READ "${PACKAGE_JSON}" package)
string(JSON package_version ERROR_VARIABLE error GET "${package}" version)
if(NOT error STREQUAL "NOTFOUND")
  message(FATAL_ERROR "${PACKAGE_JSON}: no \"version\" (${error})")
endif()
if(NOT package_version STREQUAL PROJECT_VERSION)
  message(FATAL_ERROR "package.json says version ${package_version}, CMakeLists.txt's project() ${PROJECT_VERSION}: "
                      "change both")
endif()

execute_process(COMMAND ${ATTNLAB} --version RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0 OR NOT err STREQUAL "" OR NOT out STREQUAL "attnlab ${PROJECT_VERSION}\n")
  message(FATAL_ERROR "attnlab --version: exit ${code}, printed '${out}' '${err}', expected 'attnlab ${PROJECT_VERSION}'")
endif()
