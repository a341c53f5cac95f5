# Run by ctest (tests/install/CMakeLists.txt) with SOURCE_DIR and WORK_DIR: tessera configured with
# one required library hidden (CMAKE_DISABLE_FIND_PACKAGE_<name>) must stop with its own message
# naming the package to install on the system named, and the command that installs all four.
function(expect_message package system expected_package expected_command)
  set(build ${WORK_DIR}/${package}-${system})
  file(REMOVE_RECURSE ${build})
  set(system_option "")
  if(system)
    set(system_option -DTESSERA_PACKAGE_SYSTEM=${system})
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${build}
                          -DCMAKE_DISABLE_FIND_PACKAGE_${package}=TRUE ${system_option}
                          -DTESSERA_BUILD_TESTS=OFF -DTESSERA_BUILD_BENCHMARKS=OFF
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  # CMake wraps a message's lines: compare with the white space collapsed.
  string(REGEX REPLACE "[ \n]+" " " err "${err}")
  if(status EQUAL 0)
    message(FATAL_ERROR "configuring without ${package} succeeded")
  endif()
  foreach(expected "tessera needs" "install the package ${expected_package}."
          "${expected_command}")
    string(FIND "${err}" "${expected}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "without ${package} (${system}): expected '${expected}' in:\n${err}")
    endif()
  endforeach()
  file(REMOVE_RECURSE ${build})
endfunction()

expect_message(hwy apt libhwy-dev
               "sudo apt-get install libfmt-dev nlohmann-json3-dev libhwy-dev libcli11-dev")
expect_message(nlohmann_json dnf json-devel
               "sudo dnf install fmt-devel json-devel highway-devel cli11-devel")
expect_message(CLI11 pacman cli11 "sudo pacman -S fmt nlohmann-json highway cli11")
expect_message(fmt brew fmt "brew install fmt nlohmann-json highway cli11")
expect_message(hwy conda libhwy "conda install -c conda-forge fmt nlohmann_json libhwy cli11")

# Detected from /etc/os-release where that says Debian and no conda environment is active.
if(EXISTS /etc/os-release AND NOT DEFINED ENV{CONDA_PREFIX})
  file(STRINGS /etc/os-release debian REGEX "^ID=\"?debian\"?$")
  if(debian)
    expect_message(CLI11 "" libcli11-dev "sudo apt-get install")
  endif()
endif()
