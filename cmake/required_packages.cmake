# The four libraries every build needs, found with a message of tessera's own when one is missing:
# which package to install on the system the build runs on, and the one command that installs all
# four there (docs/howto/install.md lists the same commands; tests/install/missing_dependency.cmake
# hides a package and checks the message).
#
# The package names per system, as the distributions spell them:
#   system        fmt          nlohmann_json   hwy            CLI11
#   apt           libfmt-dev   nlohmann-json3-dev libhwy-dev  libcli11-dev
#   dnf           fmt-devel    json-devel      highway-devel  cli11-devel
#   pacman        fmt          nlohmann-json   highway        cli11
#   brew          fmt          nlohmann-json   highway        cli11
#   conda         fmt          nlohmann_json   libhwy         cli11
set(_tessera_systems apt dnf pacman brew conda)
set(_tessera_packages_fmt libfmt-dev fmt-devel fmt fmt fmt)
set(_tessera_packages_nlohmann_json nlohmann-json3-dev json-devel nlohmann-json nlohmann-json
    nlohmann_json)
set(_tessera_packages_hwy libhwy-dev highway-devel highway highway libhwy)
set(_tessera_packages_CLI11 libcli11-dev cli11-devel cli11 cli11 cli11)
set(_tessera_library_fmt "fmt")
set(_tessera_library_nlohmann_json "nlohmann-json")
set(_tessera_library_hwy "Highway")
set(_tessera_library_CLI11 "CLI11")
set(_tessera_install_apt "sudo apt-get install")
set(_tessera_install_dnf "sudo dnf install")
set(_tessera_install_pacman "sudo pacman -S")
set(_tessera_install_brew "brew install")
set(_tessera_install_conda "conda install -c conda-forge")

# TESSERA_PACKAGE_SYSTEM names the system to give commands for (apt, dnf, pacman, brew, conda);
# empty: detected here. An active conda environment wins (its packages are the ones CMake finds
# first), then Homebrew on macOS, then /etc/os-release's ID and ID_LIKE.
set(TESSERA_PACKAGE_SYSTEM "" CACHE STRING
    "Package manager named in missing-dependency messages: apt, dnf, pacman, brew, conda (empty: detect)")

function(_tessera_detect_package_system out)
  if(TESSERA_PACKAGE_SYSTEM)
    if(NOT TESSERA_PACKAGE_SYSTEM IN_LIST _tessera_systems)
      message(FATAL_ERROR "TESSERA_PACKAGE_SYSTEM=${TESSERA_PACKAGE_SYSTEM}: expected one of "
                          "apt, dnf, pacman, brew, conda")
    endif()
    set(${out} ${TESSERA_PACKAGE_SYSTEM} PARENT_SCOPE)
    return()
  endif()
  if(DEFINED ENV{CONDA_PREFIX})
    set(${out} conda PARENT_SCOPE)
    return()
  endif()
  if(APPLE)
    set(${out} brew PARENT_SCOPE)
    return()
  endif()
  set(ids "")
  if(EXISTS /etc/os-release)
    file(STRINGS /etc/os-release lines REGEX "^(ID|ID_LIKE)=")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^[A-Z_]+=\"?([^\"]*)\"?$" "\\1" value "${line}")
      string(REPLACE " " ";" value "${value}")
      list(APPEND ids ${value})
    endforeach()
  endif()
  foreach(id IN LISTS ids)
    if(id MATCHES "^(debian|ubuntu)$")
      set(${out} apt PARENT_SCOPE)
      return()
    elseif(id MATCHES "^(fedora|rhel|centos)$")
      set(${out} dnf PARENT_SCOPE)
      return()
    elseif(id MATCHES "^(arch|manjaro)$")
      set(${out} pacman PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out} "" PARENT_SCOPE)
endfunction()

# The package name of `package` (fmt, nlohmann_json, hwy, CLI11) on `system`.
function(_tessera_package_name package system out)
  list(FIND _tessera_systems "${system}" index)
  list(GET _tessera_packages_${package} ${index} name)
  set(${out} ${name} PARENT_SCOPE)
endfunction()

# find_package(<package> [version]) for one of the four; a FATAL_ERROR naming what to install.
function(tessera_require_package package)
  find_package(${package} ${ARGN} QUIET)
  if(${package}_FOUND)
    return()
  endif()
  _tessera_detect_package_system(system)
  set(what "${_tessera_library_${package}} (CMake package ${package}")
  if(ARGN)
    string(APPEND what " ${ARGN}")
  endif()
  string(APPEND what ")")
  set(all "")
  foreach(each fmt nlohmann_json hwy CLI11)
    if(system)
      _tessera_package_name(${each} ${system} name)
      string(APPEND all " ${name}")
    endif()
  endforeach()
  if(system)
    _tessera_package_name(${package} ${system} name)
    message(FATAL_ERROR
            "tessera needs ${what}, which CMake did not find: install the package ${name}. "
            "All four libraries tessera needs are installed by\n"
            "  ${_tessera_install_${system}}${all}\n"
            "(other systems: docs/howto/install.md). If it is installed somewhere CMake does not "
            "look, pass -DCMAKE_PREFIX_PATH=<its prefix>.")
  endif()
  message(FATAL_ERROR
          "tessera needs ${what}, which CMake did not find. Install fmt, nlohmann-json, "
          "Highway and CLI11 with your system's package manager (the commands for Debian/Ubuntu, "
          "Fedora, Arch, Homebrew and conda-forge: docs/howto/install.md), or pass "
          "-DCMAKE_PREFIX_PATH=<where they are installed>.")
endfunction()
