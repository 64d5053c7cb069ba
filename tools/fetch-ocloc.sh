#!/bin/sh
# Unpack Intel's offline OpenCL compiler (ocloc, from Debian bookworm's
# intel-opencl-icd) and the libraries it loads under BUILDDIR/deps/intel,
# with a private apt configuration: nothing is installed, no OpenCL driver
# is registered. tests/suites/vme.sh compiles the VME kernels with it
# (LD_LIBRARY_PATH into the unpacked tree).
#
# usage: fetch-ocloc.sh BUILDDIR
# environment: GPUME_OCLOC_SUITE (bookworm), GPUME_DEBIAN_MIRROR (the
# Debian archive; default: the one the system's apt configuration names)
# Exit status 0 with BUILDDIR/deps/intel/.done naming the ocloc binary, or
# 1 with a message saying why (the vme suite then reports "skipped").
set -eu

builddir=${1:-build}
suite=${GPUME_OCLOC_SUITE:-bookworm}
# ocloc's package and every library it loads that a minimal Debian lacks
debs="intel-opencl-icd libigc1 libigdfcl1 libigdgmm12 libopencl-clang14 libllvmspirvlib14 libllvm14"

die() { echo "fetch-ocloc: $*" >&2; exit 1; }
. "$(dirname "$0")/private-apt.sh"

dest=$builddir/deps/intel
[ -f "$dest/.done" ] && exit 0
command -v apt-get >/dev/null || die "apt-get not found (ocloc comes from Debian packages)"
command -v dpkg-deb >/dev/null || die "dpkg-deb not found"

work=$builddir/deps/apt-$suite
private_apt "$work" "deb $suite"
work=$pa_work
mkdir -p "$work/deb"
rm -f "$work"/deb/*.deb
# shellcheck disable=SC2086
(cd "$work/deb" && apt-get -q $aptopts download $debs >/dev/null) ||
    die "could not download $debs from $suite"
rm -rf "$dest"
mkdir -p "$dest"
for d in "$work"/deb/*.deb; do
    dpkg-deb -x "$d" "$dest" || die "could not unpack ${d##*/}"
done
dest=$(cd "$dest" && pwd)
# ocloc disasm loads the disassembler as libiga64.so; libigc1 ships libiga64.so.1
iga=$(find "$dest" -name 'libiga64.so.1' | head -n 1)
[ -n "$iga" ] || die "no libiga64.so.1 in libigc1 ($suite): ocloc disasm would not work"
ln -sf libiga64.so.1 "${iga%.1}"
ocloc=$(find "$dest" -name 'ocloc*' -type f | head -n 1)
[ -n "$ocloc" ] || die "no ocloc in intel-opencl-icd ($suite)"
libs=$(find "$dest" -name '*.so*' -printf '%h\n' | sort -u | tr '\n' ':')
LD_LIBRARY_PATH=$libs "$ocloc" --help >/dev/null 2>&1 ||
LD_LIBRARY_PATH=$libs "$ocloc" compile --help >/dev/null 2>&1 ||
    die "$ocloc does not run (LD_LIBRARY_PATH=$libs)"
printf 'OCLOC=%s\nOCLOC_LIBS=%s\n' "$ocloc" "$libs" > "$dest/.done"
echo "fetch-ocloc: $ocloc"
