#!/bin/sh
# Install the Debian packages the build needs, and unpack Debian trixie's
# ffnvcodec headers (bookworm's are too old for FFmpeg 7.1) under
# BUILDDIR/deps/nvenc and bookworm's ocloc under BUILDDIR/deps/intel
# (tools/fetch-ocloc.sh), using private apt configurations so that the
# system's apt sources are left untouched.
#
# usage: install-deps.sh BUILDDIR
# environment: CUDA=no or OPENCL=no skip that backend's requirements;
#   MINIMAL=yes skips the external codec libraries of the full build;
#   GPUME_OCLOC=no skips ocloc
set -eu

builddir=${1:-build}
suite=${GPUME_DEBIAN_SUITE:-trixie}

die() { echo "install-deps: $*" >&2; exit 1; }
. "$(dirname "$0")/private-apt.sh"

# command or file that proves each package is present
pkgs="
gcc:gcc
make:make
nasm:nasm
pkg-config:pkg-config
dpkg-dev:dpkg-source
xz-utils:xz
debian-archive-keyring:$keyring
zlib1g-dev:/usr/include/zlib.h
valgrind:valgrind
gnuplot-nox:gnuplot
ccache:ccache
patch:patch
git:git
texinfo:makeinfo
"
# the external libraries of the full build (tools/ffmpeg-configure.sh)
inc=/usr/include
[ "${MINIMAL:-no}" = yes ] || pkgs="$pkgs
libx264-dev:$inc/x264.h
libx265-dev:$inc/x265.h
libdav1d-dev:$inc/dav1d/dav1d.h
libvpx-dev:$inc/vpx/vpx_encoder.h
libopus-dev:$inc/opus/opus.h
libmp3lame-dev:$inc/lame/lame.h
libfreetype-dev:$inc/freetype2/ft2build.h
libfontconfig-dev:$inc/fontconfig/fontconfig.h
libass-dev:$inc/ass/ass.h"
[ "${CUDA:-auto}" = no ] || pkgs="$pkgs clang:clang"
[ "${OPENCL:-auto}" = no ] || pkgs="$pkgs
opencl-headers:/usr/include/CL/cl.h
ocl-icd-opencl-dev:/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)/libOpenCL.so
pocl-opencl-icd:/etc/OpenCL/vendors/pocl.icd"

missing=
for p in $pkgs; do
    name=${p%%:*}
    probe=${p#*:}
    case "$probe" in
    /*) [ -e "$probe" ] ;;
    *)  command -v "$probe" >/dev/null 2>&1 ;;
    esac || missing="$missing $name"
done

if [ -n "$missing" ]; then
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
        die "missing packages:$missing (install them as root: apt-get install$missing)"
    fi
    echo "install-deps: installing$missing"
    apt-get -q update ||
        die "apt-get update failed (no network?); missing packages:$missing"
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get -q install -y --no-install-recommends $missing ||
        die "apt-get install failed; missing packages:$missing"
fi

# Intel's offline OpenCL compiler (ocloc) for tests/suites/vme.sh, unpacked
# from Debian bookworm, never installed (tools/fetch-ocloc.sh). Optional: on
# failure the reason goes to deps/intel.failed and the suite skips its ocloc
# checks. GPUME_OCLOC=no leaves it out.
if [ "${GPUME_OCLOC:-auto}" != no ] && [ ! -f "$builddir/deps/intel/.done" ]; then
    mkdir -p "$builddir/deps"
    if sh "${0%/*}/fetch-ocloc.sh" "$builddir" 2> "$builddir/deps/intel.failed"; then
        rm -f "$builddir/deps/intel.failed"
    else
        echo "install-deps: warning: no ocloc, the vme suite will skip its offline compiles:" \
             "$(cat "$builddir/deps/intel.failed")" >&2
    fi
fi

# ffnvcodec headers >= 12: arch-independent package, unpacked, never installed
nvenc=$builddir/deps/nvenc
if [ "${CUDA:-auto}" = no ] || [ -f "$nvenc/.done" ]; then
    exit 0
fi
command -v dpkg-deb >/dev/null || die "dpkg-deb not found"
private_apt "$builddir/deps/apt" "deb $suite"
work=$pa_work
mkdir -p "$work/deb"
rm -f "$work"/deb/*.deb
# shellcheck disable=SC2086
(cd "$work/deb" && apt-get -q $aptopts download libffmpeg-nvenc-dev) ||
    die "could not download libffmpeg-nvenc-dev from $suite"
rm -rf "$nvenc"
mkdir -p "$nvenc"
dpkg-deb -x "$work"/deb/libffmpeg-nvenc-dev_*.deb "$nvenc"
nvenc=$(cd "$nvenc" && pwd)
pc=$(find "$nvenc" -name ffnvcodec.pc | head -n 1)
[ -n "$pc" ] || die "ffnvcodec.pc not found in libffmpeg-nvenc-dev"
sed -i "s|^prefix=.*|prefix=$nvenc/usr|" "$pc"
PKG_CONFIG_PATH=${pc%/*} pkg-config --atleast-version=12 ffnvcodec ||
    die "ffnvcodec headers in $suite are older than 12"
echo "${pc%/*}" > "$nvenc/.done"
echo "install-deps: ffnvcodec $(PKG_CONFIG_PATH=${pc%/*} pkg-config --modversion ffnvcodec) in $nvenc"
