# The ODR check: a ctest test ("odr_check") that fails when two translation units of the web app
# define the same C++ name differently (a One Definition Rule violation).
#
# Why it exists: attnlab::PlotSeries was once defined twice with different layouts (in two plot
# widgets). Nothing complained: each file compiled, the page linked, and the linker silently kept
# one copy of the inline members of std::vector<PlotSeries>, chosen by link order. Only GCC's
# link-time optimisation compares the definitions across files (-Wodr), so here every web/app
# translation unit that compiles with g++ (new files are picked up by the glob) is built with
# -flto -Werror=odr and linked into a shared object, where the ImGui, GL and engine symbols may
# stay unresolved. The page itself is built by emcc and needs no part of this.
#
# Left out: frame_loop.cpp, platform_html5.cpp, offload.cpp and lm_client.cpp (Emscripten's html5.h, EM_JS), and web/bindings (embind).
# Needs Dear ImGui's headers (ATTN_IMGUI_DIR) and the GLES3 headers (Debian: libgles-dev).
if(EMSCRIPTEN OR NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU" OR ATTN_SANITIZE)
  # -Wodr is GCC's; the native release build runs the check (a property of the sources, so the
  # sanitizer build, which would compile the web app a third time, does not repeat it)
  return()
endif()

file(GLOB_RECURSE attn_odr_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/web/app/*.cpp)
list(FILTER attn_odr_sources EXCLUDE REGEX "/web/app/(frame_loop|platform_html5|offload|lm_client)\\.cpp$")

find_path(ATTN_GLES3_INCLUDE_DIR GLES3/gl3.h)
set(attn_odr_missing)
if(NOT EXISTS "${ATTN_IMGUI_DIR}/imgui.h")
  list(APPEND attn_odr_missing "Dear ImGui in ${ATTN_IMGUI_DIR} (run scripts/setup.sh, or set IMGUI_DIR)")
endif()
if(NOT ATTN_GLES3_INCLUDE_DIR)
  list(APPEND attn_odr_missing "GLES3/gl3.h (apt-get install libgles-dev)")
endif()
if(attn_odr_missing)
  # Say so as a failing test rather than skip silently: a skipped check catches nothing.
  list(JOIN attn_odr_missing "; " attn_odr_missing)
  add_test(NAME odr_check COMMAND ${CMAKE_COMMAND} -E echo "odr_check cannot run, missing: ${attn_odr_missing}")
  set_tests_properties(odr_check PROPERTIES WILL_FAIL ON)
  return()
endif()

add_library(attnlab_odr_check SHARED EXCLUDE_FROM_ALL ${attn_odr_sources})
target_include_directories(attnlab_odr_check PRIVATE
  ${PROJECT_SOURCE_DIR}/web/app
  $<TARGET_PROPERTY:attn_lessons,INTERFACE_INCLUDE_DIRECTORIES>
  $<TARGET_PROPERTY:attn_engine,INTERFACE_INCLUDE_DIRECTORIES>)
target_include_directories(attnlab_odr_check SYSTEM PRIVATE ${ATTN_IMGUI_DIR} ${ATTN_GLES3_INCLUDE_DIR})
# The definitions the page's ImGui is built with (web/CMakeLists.txt): they change ImGui's types.
target_compile_definitions(attnlab_odr_check PRIVATE IMGUI_DISABLE_FILE_FUNCTIONS
                           IMGUI_DISABLE_OBSOLETE_FUNCTIONS IMGUI_IMPL_OPENGL_ES3)
target_link_libraries(attnlab_odr_check PRIVATE Eigen3::Eigen)
# -O0 is enough: the ODR comparison happens when LTO merges the types, before any optimisation.
target_compile_options(attnlab_odr_check PRIVATE -O0 -flto -Wodr -Werror=odr)
target_link_options(attnlab_odr_check PRIVATE -O0 -flto=auto -Wodr -Werror=odr)

# The test builds the target: its error output is the test's output.
add_test(NAME odr_check
         COMMAND ${CMAKE_COMMAND} --build ${PROJECT_BINARY_DIR} --target attnlab_odr_check)
