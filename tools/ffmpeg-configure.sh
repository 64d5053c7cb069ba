#!/bin/sh
# Configure FFmpeg out of tree in BUILDDIR/ffmpeg from the overlaid tree: the
# full FFmpeg (default), or with MINIMAL=yes the small set of components the
# filters, their tests and the demo need. FFmpeg's
# configure only runs again when its command line or the tree's component
# lists change. Backends set to auto are resolved here, after install-deps.
#
# usage: ffmpeg-configure.sh BUILDDIR TREE
# environment (from config.mak): FFMPEG_CC CCACHE CUDA OPENCL MINIMAL PREFIX
#   NVCCFLAGS CUBIN_ARCHS PTXAS FATBINARY EXTRA_FFMPEG_FLAGS
set -eu

builddir=$1
tree=$2
cuda=${CUDA:-auto}
opencl=${OPENCL:-auto}

die() { echo "ffmpeg-configure: $*" >&2; exit 1; }

builddir=$(cd "$builddir" && pwd)
tree=$(cd "$tree" && pwd)
out=$builddir/ffmpeg
root=$(cd "$(dirname "$0")/.." && pwd)

# ffnvcodec from install-deps, ahead of any system copy
nvpc=$(cat "$builddir/deps/nvenc/.done" 2>/dev/null || true)
PKG_CONFIG_PATH=${nvpc}${nvpc:+${PKG_CONFIG_PATH:+:}}${PKG_CONFIG_PATH:-}
export PKG_CONFIG_PATH

nvcc=clang
have_cuda() {
    command -v "$nvcc" >/dev/null && pkg-config --atleast-version=12 ffnvcodec
}
have_opencl() {
    pkg-config --exists OpenCL 2>/dev/null ||
        { [ -f /usr/include/CL/cl.h ] && ls /usr/lib/*/libOpenCL.so /usr/lib/libOpenCL.so >/dev/null 2>&1; }
}
case $cuda in
auto) have_cuda && cuda=yes || cuda=no ;;
yes)  have_cuda || die "CUDA requested but clang or ffnvcodec >= 12 missing (run make deps)" ;;
esac
case $opencl in
auto) have_opencl && opencl=yes || opencl=no ;;
yes)  have_opencl || die "OpenCL requested but CL headers or loader missing (run make deps)" ;;
esac

# zlib: PNG and compressed mov headers
zlib=no
if pkg-config --exists zlib 2>/dev/null || [ -f /usr/include/zlib.h ]; then
    zlib=yes
fi

# this repository's filters (tools/overlay.sh wrote them into the tree)
ours=$(cat "$tree/.gpume-filters" 2>/dev/null) || die "no $tree/.gpume-filters: run tools/overlay.sh first"

if [ "${MINIMAL:-no}" = yes ]; then
    # the small development build: static, only what the filters, their tests
    # and the demo need; pixelutils (on in FFmpeg's default builds) gives
    # gpume's CPU backend its SIMD SADs
    # shellcheck disable=SC2086 # one filter name per word
    filters=$(echo $ours | tr ' ' ','),mestimate,minterpolate,codecview,showinfo,metadata,scale,format,null,nullsink
    filters=$filters,testsrc,testsrc2,color,crop,pad,overlay,split,hwupload,hwdownload,hwmap
    filters=$filters,fps,trim,setpts,select,aresample,anull,anullsink,sendcmd
    if [ "$cuda" = yes ]; then filters=$filters,hwupload_cuda,scale_cuda; fi
    set -- \
        --disable-everything \
        --enable-pixelutils \
        --disable-autodetect \
        --disable-doc \
        --disable-stripping \
        --enable-static --disable-shared \
        --pkg-config-flags=--static \
        --enable-ffmpeg --enable-ffprobe --disable-ffplay \
        --enable-indev=lavfi \
        --enable-protocol=file,pipe \
        --enable-demuxer=mov,mpegps,mpegvideo,m4v,h264,yuv4mpegpipe,rawvideo,image2,avi \
        --enable-decoder=h264,mpeg2video,mpeg4,msmpeg4v3,cinepak,rawvideo,png,wrapped_avframe \
        --enable-encoder=wrapped_avframe,rawvideo,pcm_s16le,png,mpeg4 \
        --enable-muxer=framecrc,framemd5,framehash,md5,crc,null,rawvideo,yuv4mpegpipe,mp4,mov,image2,matroska \
        --enable-parser=h264,mpegvideo,mpeg4video \
        --enable-filter="$filters"
    if [ "$zlib" = yes ]; then set -- "$@" --enable-zlib; fi
    # NVDEC into CUDA frames: gpume reads them without a download
    if [ "$cuda" = yes ]; then set -- "$@" --enable-nvdec --enable-hwaccel=h264_nvdec; fi
else
    # the full build: FFmpeg's default components, the external libraries
    # Debian provides (tools/install-deps.sh), shared and static libraries.
    # The programs find the shared libraries through the rpath
    # $ORIGIN/../lib: PREFIX/lib once installed, BUILDDIR/lib (links made by
    # the Makefile) in the build tree; each library finds its siblings in
    # its own directory. FFmpeg's configure evaluates the flags once and make
    # and the recipe's shell read them again: '\\\$\$' ends as '$' (library
    # rules are expanded once more: '\\\$\$\$\$').
    # shellcheck disable=SC2016 # $ORIGIN is for the dynamic loader
    set -- \
        --prefix="${PREFIX:-/usr/local}" \
        --enable-gpl \
        --enable-shared --enable-static \
        --extra-ldexeflags='-Wl,-rpath,\\\$\$ORIGIN/../lib' \
        --extra-ldsoflags='-Wl,-rpath,\\\$\$\$\$ORIGIN' \
        --disable-htmlpages --disable-podpages --disable-txtpages \
        --disable-ffplay \
        --enable-libx264 --enable-libx265 --enable-libdav1d --enable-libvpx \
        --enable-libopus --enable-libmp3lame \
        --enable-libfreetype --enable-libfontconfig --enable-libass
    if [ "$zlib" = yes ]; then set -- "$@" --enable-zlib; fi
    if [ "$cuda" = yes ]; then set -- "$@" --enable-nvdec --enable-nvenc --enable-cuvid; fi
fi
set -- "$@" --samples="$builddir/clips"

# ccache, when installed, in front of the compiler (--disable-ccache: not)
cc=${FFMPEG_CC:-}
case "${CCACHE:-auto}:$cc" in
no:*|*:ccache*) ;;
*) if command -v ccache >/dev/null; then cc="ccache ${cc:-gcc}"; fi ;;
esac
if [ -n "$cc" ]; then set -- "$@" --cc="$cc"; fi
if [ "$cuda" = yes ]; then
    set -- "$@" --enable-ffnvcodec --enable-cuda --enable-cuda-llvm --nvcc="$nvcc"
    if [ -n "${NVCCFLAGS:-}" ]; then set -- "$@" --nvccflags="$NVCCFLAGS"; fi
fi
if [ "$opencl" = yes ]; then set -- "$@" --enable-opencl; fi
# user flags last, so they win; sh quoting as given to ./configure
eval "set -- \"\$@\" ${EXTRA_FFMPEG_FLAGS:-}"

# the configuration: the command line plus what configure reads from the tree
cmd=$(for a in "$tree/configure" "$@"; do printf "'%s' " "$a"; done)
sig=$(printf '%s\n' "$cmd"; cat "$tree/configure" "$tree/libavfilter/allfilters.c" \
      "$tree/libavcodec/allcodecs.c" "$tree/libavformat/allformats.c" | cksum)
# the form of the CUDA kernels (tools/cuda-kernels.mak), read by FFmpeg's
# Makefile in $out: rewritten only when it changes, so that the kernels are
# embedded again exactly then, without configuring FFmpeg again
kernels() {
    archs=
    [ "$cuda" != yes ] || archs=${CUBIN_ARCHS:-}
    mkdir -p "$out"
    {
        echo "# written by tools/ffmpeg-configure.sh: how the CUDA kernels are embedded"
        echo "GPUME_CUBIN_ARCHS = $archs"
        echo "GPUME_PTXAS = ${archs:+${PTXAS:-}}"
        echo "GPUME_FATBINARY = ${archs:+${FATBINARY:-}}"
        echo "include $root/tools/cuda-kernels.mak"
    } > "$out/gpume-kernels.mak.tmp"
    if cmp -s "$out/gpume-kernels.mak.tmp" "$out/gpume-kernels.mak"; then
        rm -f "$out/gpume-kernels.mak.tmp"
    else
        mv "$out/gpume-kernels.mak.tmp" "$out/gpume-kernels.mak"
        [ "$cuda" != yes ] || echo "ffmpeg-configure: CUDA kernels embedded as ${archs:+cubins for $archs and }PTX"
    fi
    # FFmpeg's configure writes this Makefile anew
    if [ -f "$out/Makefile" ] && ! grep -qx 'include gpume-kernels.mak' "$out/Makefile"; then
        echo 'include gpume-kernels.mak' >> "$out/Makefile"
    fi
}

if [ -f "$out/ffbuild/config.mak" ] && [ "$(cat "$out/gpume-configure.sig" 2>/dev/null)" = "$sig" ]; then
    kernels
    exit 0
fi

mkdir -p "$out"
rm -f "$out/gpume-configure.sig"
echo "ffmpeg-configure: $([ "${MINIMAL:-no}" = yes ] && echo minimal || echo full) build, CUDA $cuda, OpenCL $opencl, zlib $zlib"
printf '%s\n' "$cmd"
(cd "$out" && "$tree/configure" "$@") > "$out/gpume-configure.log" 2>&1 || {
    tail -n 30 "$out/gpume-configure.log" >&2
    die "FFmpeg configure failed; see $out/gpume-configure.log and $out/ffbuild/config.log"
}
for n in $ours; do
    N=$(echo "$n" | tr '[:lower:]' '[:upper:]')
    grep -q "^CONFIG_${N}_FILTER=yes" "$out/ffbuild/config.mak" ||
        die "the $n filter is not enabled in FFmpeg's configuration (see $out/ffbuild/config.log)"
done
kernels
printf '%s\n' "$cmd" > "$out/gpume-configure.cmd"
printf '%s\n' "$sig" > "$out/gpume-configure.sig"
