# Run by ctest (tests/install/CMakeLists.txt) with BUILD_DIR, WORK_DIR, CONSUMER_DIR, CXX, GENERATOR.
# Fails (FATAL_ERROR) on the first step that does.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "failed (${status}): ${ARGN}\n${out}\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

# What a package must contain, and public headers free of fmt (a private dependency).
foreach(path include/tessera/version.h include/tessera/xla/tiled_layout.h bin/tessera
             share/man/man1/tessera.1 share/bash-completion/completions/tessera)
  if(NOT EXISTS ${prefix}/${path})
    message(FATAL_ERROR "cmake --install did not install ${path}")
  endif()
endforeach()
file(GLOB_RECURSE config_files ${prefix}/*/tesseraConfig.cmake ${prefix}/*/tesseraConfigVersion.cmake
     ${prefix}/*/tessera.pc)
list(LENGTH config_files config_count)
if(NOT config_count EQUAL 3)
  message(FATAL_ERROR "expected tesseraConfig.cmake, its version file and tessera.pc: ${config_files}")
endif()
file(GLOB_RECURSE headers ${prefix}/include/tessera/*.h)
foreach(header ${headers})
  file(STRINGS ${header} fmt_includes REGEX "#include <fmt/")
  if(fmt_includes)
    message(FATAL_ERROR "${header} includes fmt, which consumers are not given")
  endif()
endforeach()
run(${prefix}/bin/tessera --version)
message(STATUS "installed CLI: ${run_output}")

# 1. CMake: find_package(tessera 0.2 REQUIRED) and tessera::tessera.
run(${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/find_package -G ${GENERATOR}
    -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${prefix})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/find_package)
run(${WORK_DIR}/find_package/detile_weights)
message(STATUS "find_package consumer: ${run_output}")

# A version the package does not promise is refused.
file(WRITE ${WORK_DIR}/too_new/CMakeLists.txt
     "cmake_minimum_required(VERSION 3.25)\nproject(too_new LANGUAGES CXX)\nfind_package(tessera 9.0 REQUIRED)\n")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK_DIR}/too_new -B ${WORK_DIR}/too_new/build
                -DCMAKE_PREFIX_PATH=${prefix} RESULT_VARIABLE status OUTPUT_QUIET ERROR_QUIET)
if(status EQUAL 0)
  message(FATAL_ERROR "find_package(tessera 9.0) accepted an installed tessera 0.x")
endif()

# 2. pkg-config: the flags alone must build and link the same program.
file(GLOB_RECURSE pc_file ${prefix}/*/tessera.pc)
get_filename_component(pc_dir ${pc_file} DIRECTORY)
set(ENV{PKG_CONFIG_PATH} ${pc_dir})
get_filename_component(lib_dir ${pc_dir} DIRECTORY)
set(ENV{LD_LIBRARY_PATH} ${lib_dir})  # for -DBUILD_SHARED_LIBS=ON; pkg-config sets no rpath
run(pkg-config --cflags --libs tessera)
string(STRIP "${run_output}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run(${CXX} -std=c++20 ${CONSUMER_DIR}/detile_weights.cpp ${flags} -o ${WORK_DIR}/pkg_config_consumer)
run(${WORK_DIR}/pkg_config_consumer)
message(STATUS "pkg-config consumer: ${run_output}")
