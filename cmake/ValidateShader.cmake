# cmake -DGLSLANG=... -DSHADER=path/x.frag -DOUT=build/x.frag -P ValidateShader.cmake
# Prepends the loader's "#version 300 es" line and compiles with glslangValidator.
file(READ "${SHADER}" body)
file(WRITE "${OUT}" "#version 300 es\n${body}")
execute_process(COMMAND "${GLSLANG}" "${OUT}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${SHADER} does not compile as GLSL ES 3.0:\n${out}${err}")
endif()
