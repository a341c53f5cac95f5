# Optional pieces. oneDNN (Debian's libdnnl-dev) is only a benchmark peer: BM_OneDNN/<case> in
# tessera_bench runs its reorder when it is installed (bench/CMakeLists.txt links it).
if(TESSERA_BUILD_BENCHMARKS)
  find_package(dnnl CONFIG QUIET)
  if(TARGET DNNL::dnnl)
    message(STATUS "oneDNN found: tessera_bench gets BM_OneDNN peers")
  endif()
endif()
