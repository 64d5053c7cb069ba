#!/bin/sh
# Write a git-format patch series that adds this repository's filters to a
# clean FFmpeg source tree, the way FFmpeg adds a filter: the sources in
# libavfilter/ (kernels as libavfilter/X.cu and libavfilter/opencl/X.cl),
# the declarations in allfilters.c, the objects in libavfilter/Makefile
# (CUDA objects only with cuda_llvm or cuda_nvcc, OpenCL objects only with
# opencl) and the Changelog's line, the documentation in doc/filters.texi,
# the checkasm tests of the x86 functions and the FATE tests.
# The series is what tools/overlay.sh does to a copy of the tree.
#
# usage: make-patch.sh GPUME_ROOT SRC_TREE OUTDIR WORK
#   SRC_TREE  a clean FFmpeg 7.1, 8.x or 9.0 source tree (not modified)
#   OUTDIR    receives 0001-....patch, 0002-..., ...
#   WORK      scratch folder (a git copy of SRC_TREE)
# Apply with: cd ffmpeg && git am OUTDIR/*.patch (or patch -p1 < each)
set -eu

die() { echo "make-patch: $*" >&2; exit 1; }
[ $# -eq 4 ] || die "usage: make-patch.sh GPUME_ROOT SRC_TREE OUTDIR WORK"
root=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
out=$3
work=$4
command -v git >/dev/null || die "git not found"

v=$(cat "$src/RELEASE" 2>/dev/null || cat "$src/VERSION" 2>/dev/null || echo unknown)
rm -rf "$work" "$out"
mkdir -p "$work" "$out"
work=$(cd "$work" && pwd)
tree=$work/ffmpeg
cp -a "$src" "$tree"
echo "$src" > "$tree/.gpume-source"          # overlay.sh works in place
g() { git -C "$tree" -c user.name="$name" -c user.email="$email" -c commit.gpgsign=false "$@"; }
name=$(git -C "$root" log -1 --format=%an 2>/dev/null || echo gpume)
email=$(git -C "$root" log -1 --format=%ae 2>/dev/null || echo gpume@localhost)
g init -q
printf '%s\n' '/.gpume-*' > "$tree/.git/info/exclude"
g add -A -f . >/dev/null
g reset -q -- .gpume-source 2>/dev/null || true
g commit -q -m "FFmpeg $v" --no-verify

sh "$root/tools/overlay.sh" "$src" "$root" "$tree" >/dev/null
filters=$(cat "$tree/.gpume-filters")
list=$(echo "$filters" | sed 's/ /, /g')
plural=
if [ "$(echo "$filters" | wc -w)" -gt 1 ]; then plural=s; fi

g add -A libavfilter Changelog
g commit -q --no-verify -F - <<EOT
lavfi: add the $list filter$plural

$(for n in $filters; do
    case $n in
    gpume) echo "gpume estimates block motion (full search, hierarchical, local full search,
dense inverse search, Intel VME) on CUDA, OpenCL or the CPU and exports the
vectors as AV_FRAME_DATA_MOTION_VECTORS side data. The CPU backend is the
reference: the GPU backends give the same vectors bit for bit.
" ;;
    mcfps) echo "mcfps converts the frame rate with the motion vectors of the frames (gpume's,
with dir=bi): output timestamps as the fps filter gives them, each frame
between two inputs made by bidirectional overlapped-block motion
compensation along the vectors projected onto it, with occlusion handling,
a fade towards the average where the vectors match poorly, and no
interpolation across scene cuts. It runs on CUDA, OpenCL or the CPU, and
every backend writes the same bytes.
" ;;
    *) echo "$n: see doc/filters.texi.
" ;;
    esac
done)

The CUDA kernels build with cuda_llvm or cuda_nvcc, the OpenCL kernels with
opencl; without them the filters run on the CPU.
EOT
if ! g diff --quiet -- doc; then
    g add -A doc
    g commit -q --no-verify -m "doc/filters: document the $list filter$plural"
fi
if [ -n "$(g status --porcelain -- tests/checkasm tests/fate/checkasm.mak)" ]; then
    g add -A tests/checkasm tests/fate/checkasm.mak
    g commit -q --no-verify -m "checkasm: add tests for the $list filter$plural' x86 functions"
fi
if ! g diff --quiet -- tests || [ -n "$(g status --porcelain -- tests)" ]; then
    g add -A tests
    g commit -q --no-verify -m "fate: add tests for the $list filter$plural"
fi
[ -z "$(g status --porcelain)" ] || die "files left out of the series: $(g status --porcelain | head -n 5)"
g format-patch -q -o "$(cd "$out" && pwd)" "$(g rev-list --max-parents=0 HEAD)"..HEAD
echo "make-patch: FFmpeg $v: $(ls "$out" | wc -l) patches in $out"
