# `cmake --install`: attn::engine (the static library, with every ISA's kernel objects), its headers
# and the attn CMake package, so that a project writes
#   find_package(attn CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE attn::engine)
# Only the engine: attn::case_io (nlohmann-json), attn::train and attn::lessons serve the CLI, the
# tests and the page, and stay in the build tree.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(attn_cmake_install_dir "${CMAKE_INSTALL_LIBDIR}/cmake/attn")

install(TARGETS attn_engine EXPORT attnTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/engine/include/attn DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
# The MIT licence asks for its notice in every copy: share/doc/attnlab/LICENSE.
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(EXPORT attnTargets NAMESPACE attn:: DESTINATION ${attn_cmake_install_dir})

# The Eigen the engine was built against is the least a consumer's find_dependency accepts.
set(attn_eigen_version ${Eigen3_VERSION})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/attnConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/attnConfig.cmake
                              INSTALL_DESTINATION ${attn_cmake_install_dir})
# 0.x: a minor release may change the API, so 0.1.x accepts only requests for 0.1 (or 0.1.y).
write_basic_package_version_file(${PROJECT_BINARY_DIR}/attnConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/attnConfig.cmake ${PROJECT_BINARY_DIR}/attnConfigVersion.cmake
        DESTINATION ${attn_cmake_install_dir})
