#!/usr/bin/env bash
# Compiles every header alone (-fsyntax-only): the unity builds compile sources in batches, where
# a header that forgets an include can borrow it from a batch-mate, so this is where a missing
# include is caught (the library's, the CLI's; a test header only affects the tests). Needs a
# configured build directory for the generated version header.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
cxx=${CXX:-c++}
flags=(-std=c++20 -fsyntax-only -DFMT_HEADER_ONLY=1 -Iinclude -I"$build/include" -Isrc -Itools/cli
  -Werror -Wall -Wextra)
check() {
  local header=$1 include=$1
  for root in include/ src/ tools/cli/; do include=${include#"$root"}; done
  printf '#include "%s"\n' "$include" | "$cxx" "${flags[@]}" -x c++ - 2>&1 ||
    { echo "header does not compile alone: $header"; return 1; }
}
export -f check
export cxx
export flags_text="${flags[*]}"
find include src tools/cli -name '*.h' -not -name '*-inl.h' | sort |
  xargs -P "$(nproc)" -I{} bash -c 'flags=($flags_text); check "$1"' _ {}
