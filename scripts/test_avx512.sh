#!/usr/bin/env bash
# Runs the relayout tests on an emulated AVX-512 CPU, so the Highway kernels' AVX3 code (16-lane
# transposes, interleaves, gathers, streaming copies) is executed even where no AVX-512 host is at
# hand. QEMU's TCG cannot execute AVX-512; Bochs (Debian's package) can, as its Skylake-X model.
# Bochs boots Debian's own kernel from an ISO whose initramfs holds the release build's
# tessera_tests (the build scripts/test.sh makes), its shared libraries and busybox; the guest runs
# the relayout tests with TESSERA_REQUIRE_SIMD_TARGET=AVX3 (so a guest without AVX-512 fails
# instead of passing on AVX2) and powers off. Installs what is missing. Exit status 0 when every
# test passed. scripts/test.sh runs it last.
#
#   scripts/test_avx512.sh [gtest filter]   # default: the suites of tests/relayout/*.cpp
#
# Bochs interprets (~30-40 million instructions a second here), so this proves correctness, not
# speed: minutes to boot and many more for the tests (docs/notes/2026-11-28-ci-time.md).
set -euo pipefail
cd "$(dirname "$0")/.."
# Every suite in tests/relayout/ (the other tests read files from the source tree, which the guest
# does not have); the fork test is left out as under qemu (scripts/test_aarch64.sh).
suites=$(sed -n -E 's/^TEST(_F|_P)?\(([A-Za-z0-9_]+),.*/\2.*/p' tests/relayout/*.cpp | sort -u | paste -sd:)
filter=${1:-$suites:-WorkerPool.AForkedChildStartsItsOwnHelpers}

work=build/avx512
mkdir -p "$work"
[ -f build/release/CMakeCache.txt ] ||
  cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DTESSERA_WERROR=ON -DTESSERA_UNITY_BUILD=ON >/dev/null
cmake --build build/release --target tessera_tests
tests=build/release/tests/tessera_tests

# On an AVX-512 host (Highway's AVX3 needs F, CD, VL, DQ and BW; seen on an AMD Zen 5 EPYC) the same
# tests run natively in seconds, still with AVX3 required; TESSERA_AVX512_EMULATE=1 forces Bochs.
flags=$(grep -m 1 '^flags' /proc/cpuinfo || true)
native=1
for f in avx512f avx512cd avx512vl avx512dq avx512bw; do
  [[ " $flags " == *" $f "* ]] || native=0
done
if [ "$native" = 1 ] && [ "${TESSERA_AVX512_EMULATE:-0}" != 1 ]; then
  echo "this CPU has AVX-512: the relayout tests run natively with AVX3 required"
  TESSERA_REQUIRE_SIMD_TARGET=AVX3 "$tests" --gtest_filter="$filter" --gtest_brief=1
  exit
fi

TESSERA_EXTRA_APT="bochs bochsbios vgabios isolinux syslinux-common xorriso busybox-static cpio" \
  bash scripts/install_dependencies.sh

# Debian's generic kernel, unpacked from its package (not installed on this machine).
kernel=$(ls "$work"/kernel/boot/vmlinuz-* 2>/dev/null | head -n 1 || true)
if [ -z "$kernel" ]; then
  image=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
  if [ -z "$image" ]; then  # no package lists yet (a fresh container)
    if [ "$(id -u)" -eq 0 ]; then apt-get update -qq; else sudo apt-get update -qq; fi
    image=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
  fi
  (cd "$work" && apt-get download -q "$image" 2>/dev/null) ||
    { echo "error: apt-get download $image failed" >&2; exit 1; }
  dpkg -x "$work/$image"_*.deb "$work/kernel"
  rm -f "$work/$image"_*.deb
  kernel=$(ls "$work"/kernel/boot/vmlinuz-* | head -n 1)
fi

# The initramfs: the test binary, the libraries and loader it names, busybox, and an init that
# runs the tests and powers the machine off.
root=$work/root
rm -rf "$root" "$work/iso"
mkdir -p "$root"/{bin,dev,proc,tmp,t} "$work/iso/isolinux"
cp /bin/busybox "$root/bin/"
cp "$tests" "$root/t/"
for lib in $(ldd "$tests" | awk '/=>/ {print $3} /^[ \t]*\// {print $1}'); do
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done
printf '%s\n' "$filter" >"$root/t/filter"
cat >"$root/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t devtmpfs dev /dev
/bin/busybox mount -t tmpfs tmp /tmp
echo "=== guest CPU: $(/bin/busybox grep -m1 -o -E 'avx512(f|dq|bw|vl)' /proc/cpuinfo | /bin/busybox tr '\n' ' ')"
cd /tmp
TESSERA_REQUIRE_SIMD_TARGET=AVX3 /t/tessera_tests --gtest_color=no \
  --gtest_filter="$(/bin/busybox cat /t/filter)" >/tmp/log 2>&1
rc=$?
/bin/busybox grep -v -E '^\[ (RUN|      OK) ' /tmp/log
echo "=== tessera_tests exit status $rc"
/bin/busybox sync
/bin/busybox sleep 3  # let the serial port drain before the power goes
/bin/busybox poweroff -f
EOF
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$work/iso/initrd.gz"
cp "$kernel" "$work/iso/vmlinuz"
cp /usr/lib/ISOLINUX/isolinux.bin /usr/lib/syslinux/modules/bios/ldlinux.c32 "$work/iso/isolinux/"
# clearcpuid: Bochs 2.7 reports sizes for PKRU and the compacted XSAVE format that Linux rejects,
# and Linux then turns XSAVE (and with it AVX and AVX-512) off; without them it uses the standard
# format with x87, SSE, AVX and the three AVX-512 states.
cat >"$work/iso/isolinux/isolinux.cfg" <<'EOF'
DEFAULT tessera
PROMPT 0
TIMEOUT 0
LABEL tessera
  KERNEL /vmlinuz
  APPEND initrd=/initrd.gz console=ttyS0 quiet mitigations=off nokaslr clearcpuid=pku,xsaves,xsavec
EOF
xorriso -as mkisofs -quiet -o "$work/boot.iso" -b isolinux/isolinux.bin -c isolinux/boot.cat \
  -no-emul-boot -boot-load-size 4 -boot-info-table "$work/iso" 2>/dev/null

# No display (a VNC server nobody connects to), no sound, the serial port to a file.
cat >"$work/bochsrc" <<EOF
sound: driver=dummy
speaker: enabled=0
megs: 1024
cpu: model=corei7_skylake_x, count=1, ips=200000000
romimage: file=/usr/share/bochs/BIOS-bochs-latest
vgaromimage: file=/usr/share/bochs/VGABIOS-lgpl-latest
ata0-master: type=cdrom, path=$work/boot.iso, status=inserted
boot: cdrom
com1: enabled=1, mode=file, dev=$work/serial.log
display_library: rfb, options="timeout=0"
log: $work/bochs.log
panic: action=fatal
error: action=ignore
info: action=ignore
clock: sync=none
EOF
rm -f "$work/serial.log"
echo "booting the emulated AVX-512 machine (Bochs, Skylake-X): a few minutes"
# Debian builds Bochs with its debugger, which waits for a command first: "c" continues.
printf 'c\n' | timeout 3000 bochs-bin -q -f "$work/bochsrc" >"$work/bochs.out" 2>&1 || true
sed -n '/^=== guest CPU/,$p' "$work/serial.log" | grep -v 'reboot: Power down'
grep -q '^=== guest CPU: avx512f avx512dq avx512bw avx512vl' "$work/serial.log" ||
  { echo "error: the guest did not report AVX-512 F, DQ, BW and VL (see $work/serial.log)" >&2; exit 1; }
status=$(sed -n 's/^=== tessera_tests exit status \([0-9]*\).*/\1/p' "$work/serial.log")
[ -n "$status" ] || { echo "error: the guest did not finish the tests (see $work/serial.log)" >&2; exit 1; }
exit "$status"
