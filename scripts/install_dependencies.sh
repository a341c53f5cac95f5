#!/usr/bin/env bash
# Installs what tessera needs and is missing: Debian packages via apt-get, Python packages via
# pip. Idempotent and quiet when everything is present.
set -euo pipefail

apt_packages=(
  cmake ninja-build g++ clang libclang-rt-14-dev ccache
  libcli11-dev nlohmann-json3-dev libfmt-dev libgtest-dev libgmock-dev libbenchmark-dev
  libhwy-dev libdnnl-dev
  chromium  # headless browser for tests/browser (pictures rendered and screenshotted)
)
# Extra Debian packages a step needs (e.g. chromium for the browser tests) can be added with
# TESSERA_EXTRA_APT="pkg1 pkg2".
read -r -a extra <<< "${TESSERA_EXTRA_APT:-}"
apt_packages+=("${extra[@]}")

# Once another architecture's copy is installed too (scripts/test_aarch64.sh adds arm64 ones),
# `dpkg -s libfmt-dev` fails as ambiguous: ask for this machine's architecture then, or every
# run would call apt-get again (and need the network and apt's lock).
native="$(dpkg --print-architecture)"
missing=()
for p in "${apt_packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || dpkg -s "$p:$native" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing Debian packages: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  # Another apt-get (a CI run or scripts/main.sh started beside this one on a fresh machine) may
  # hold apt's locks: wait for it rather than fail. `install` waits by itself with
  # DPkg::Lock::Timeout; `update` ignores that option for its lists lock, so it is retried.
  for attempt in $(seq 1 90); do
    if update_log=$($sudo_cmd apt-get update -qq 2>&1); then break; fi
    if ! grep -q "Could not get lock" <<<"$update_log" || ((attempt == 90)); then
      echo "$update_log" >&2
      exit 1
    fi
    echo "apt-get update: another apt-get holds its lock; waiting (${attempt}/90)"
    sleep 10
  done
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get -o DPkg::Lock::Timeout=900 install -y -qq \
    "${missing[@]}" >/dev/null
fi

python=${PYTHON:-python3}
# jsonschema: the tests validate every --json output against docs/reference/json/; mkdocs: the
# documentation site, built strictly by scripts/test.sh.
pip_packages=(pytest hypothesis numpy ml_dtypes jsonschema mkdocs)
read -r -a extra_pip <<< "${TESSERA_EXTRA_PIP:-}"
pip_packages+=("${extra_pip[@]}")
missing_pip=()
for p in "${pip_packages[@]}"; do
  module=${p//-/_}
  "$python" -c "import ${module}" >/dev/null 2>&1 || missing_pip+=("$p")
done
if ((${#missing_pip[@]})); then
  echo "installing Python packages: ${missing_pip[*]}"
  "$python" -m pip install -q "${missing_pip[@]}"
fi
