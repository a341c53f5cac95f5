# `cmake --install` lays out tessera as a C++ package: public headers (plus the generated
# tessera/version.h), libtessera (static unless -DBUILD_SHARED_LIBS=ON), the tessera CLI with its
# man page and shell completions, lib/cmake/tessera/tesseraConfig.cmake + version file exporting
# tessera::tessera, and lib/pkgconfig/tessera.pc.
include(CMakePackageConfigHelpers)

set(TESSERA_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tessera)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tessera ${PROJECT_BINARY_DIR}/include/tessera
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(TARGETS tessera EXPORT tesseraTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT tesseraTargets NAMESPACE tessera:: DESTINATION ${TESSERA_CMAKE_DIR})

list(REMOVE_DUPLICATES TESSERA_PACKAGE_DEPENDENCIES)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tesseraConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/tesseraConfig.cmake
                              INSTALL_DESTINATION ${TESSERA_CMAKE_DIR})
# 0.x releases change the API between minor versions, so 0.2 accepts 0.2.* only; from 1.0 on,
# SameMajorVersion is the usual promise.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tesseraConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tesseraConfig.cmake ${PROJECT_BINARY_DIR}/tesseraConfigVersion.cmake
        DESTINATION ${TESSERA_CMAKE_DIR})

# pkg-config: a static libtessera needs its own link dependencies on the consumer's link line.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(TESSERA_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  set(TESSERA_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(TESSERA_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(TESSERA_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
# libhwy: the static library carries its Highway kernels (shared: harmless, already linked).
set(TESSERA_PC_REQUIRES "nlohmann_json libhwy")
if(BUILD_SHARED_LIBS)
  set(TESSERA_PC_LIBS "")
  set(TESSERA_PC_LIBS_PRIVATE "-pthread")
else()
  set(TESSERA_PC_LIBS "-pthread")
  set(TESSERA_PC_LIBS_PRIVATE "")
endif()
# The prefix is filled in at install time, so `cmake --install --prefix P` writes P, not the
# configured prefix: the first pass leaves @CMAKE_INSTALL_PREFIX@ for the second.
set(TESSERA_PC_PREFIX "@CMAKE_INSTALL_PREFIX@")
configure_file(${PROJECT_SOURCE_DIR}/cmake/tessera.pc.in ${PROJECT_BINARY_DIR}/tessera.pc.in @ONLY)
install(CODE "
  configure_file(\"${PROJECT_BINARY_DIR}/tessera.pc.in\" \"${PROJECT_BINARY_DIR}/tessera.pc\" @ONLY)
  file(INSTALL \"${PROJECT_BINARY_DIR}/tessera.pc\"
       DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig\")")

if(TARGET tessera_cli)
  install(TARGETS tessera_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  # The man page and completions are printed by the CLI itself from its command registry.
  set(TESSERA_SHELL_FILES ${PROJECT_BINARY_DIR}/share/tessera.1 ${PROJECT_BINARY_DIR}/share/tessera.bash
                          ${PROJECT_BINARY_DIR}/share/_tessera ${PROJECT_BINARY_DIR}/share/tessera.fish)
  add_custom_command(
    OUTPUT ${TESSERA_SHELL_FILES}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/share
    COMMAND tessera_cli man-page > ${PROJECT_BINARY_DIR}/share/tessera.1
    COMMAND tessera_cli completion bash > ${PROJECT_BINARY_DIR}/share/tessera.bash
    COMMAND tessera_cli completion zsh > ${PROJECT_BINARY_DIR}/share/_tessera
    COMMAND tessera_cli completion fish > ${PROJECT_BINARY_DIR}/share/tessera.fish
    DEPENDS tessera_cli VERBATIM)
  add_custom_target(tessera_shell_files ALL DEPENDS ${TESSERA_SHELL_FILES})
  install(FILES ${PROJECT_BINARY_DIR}/share/tessera.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  install(FILES ${PROJECT_BINARY_DIR}/share/tessera.bash
          DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/bash-completion/completions RENAME tessera)
  install(FILES ${PROJECT_BINARY_DIR}/share/_tessera
          DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/zsh/site-functions)
  install(FILES ${PROJECT_BINARY_DIR}/share/tessera.fish
          DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/fish/vendor_completions.d)
endif()
