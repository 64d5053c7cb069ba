#!/bin/sh
# GPU benchmark, run on the GPU machine from a tree built elsewhere:
# per-frame device time of the CUDA backend (CUDA events, median over
# many frames after warm-up) and whole-command frames per second of ffmpeg
# with gpume beside mestimate, on the same clip (cockatoo.mp4, scaled), and
# the start-up of the CUDA backend (tools/startup-bench.sh).
# Writes $OUT/bench.txt (or build/bench/bench.txt).
#
# usage: tools/bench-gpu.sh [BUILDDIR] [quick]
set -u

b=${1:-build}
mode=${2:-full}
out=${OUT:-$b/bench}
tmp=${TMPDIR:-/tmp}/gpume-bench
mkdir -p "$out" "$tmp"
ff="$b/ffmpeg/ffmpeg -hide_banner -nostats"
bench=$b/tools/bench-backend
res=$out/bench.txt
: > "$res"
say() { echo "$*" | tee -a "$res"; }

say "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo none)"
say "host: $(nproc) cores, $(uname -m)"
for s in 1280x720 1920x1080 3840x2160; do
    n=8; [ "$s" = 3840x2160 ] && n=4
    $ff -v error -i "$b/clips/cockatoo.mp4" -an -vf "select='between(n\,40\,$((39 + n)))',scale=$s:flags=bicubic,format=gray" \
        -fps_mode passthrough -f rawvideo -y "$tmp/$s.gray" || exit 1
    eval "frames_$s=$n"
done

say ""
say "== device time per frame (CUDA events; estimate only, and upload+estimate)"
bk() { # SIZE ARGS...
    s=$1; shift
    eval "n=\$frames_$s"
    "$bench" --backend=cuda --frames="$tmp/$s.gray:$s:$n" "$@" | tee -a "$res"
}
bk 1920x1080 --algo=full --range=16 --iters=100
bk 1920x1080 --algo=full --range=32 --iters=50
bk 1920x1080 --algo=full --range=32 --block=auto --iters=50
[ "$mode" = quick ] || bk 1920x1080 --algo=full --range=64 --iters=20
for s in 1280x720 1920x1080 3840x2160; do
    bk $s --algo=hme --range=16
    bk $s --algo=hme --range=32 --block=auto
    bk $s --algo=lfs --range=16
done
bk 1920x1080 --algo=hme --range=16 --block=8     # the defaults
bk 1920x1080 --algo=hme --range=64

say ""
say "== start-up: time to first vectors, kernels as PTX and as the build embeds them"
if [ -x "$b/tools/bench-backend-ptx" ]; then
    sh "$(dirname "$0")/startup-bench.sh" "$b" 5 | tee -a "$res"
else
    say "skipped: no $b/tools/bench-backend-ptx"
fi

say ""
say "== OpenCL (NVIDIA's OpenCL driver) beside CUDA on the same GPU"
vendors=$tmp/vendors
mkdir -p "$vendors"
echo libnvidia-opencl.so.1 > "$vendors/nvidia.icd"
for cfg in "1920x1080 --algo=hme --range=16" "1920x1080 --algo=full --range=16" \
           "1920x1080 --algo=lfs --range=16"; do
    set -- $cfg
    s=$1; shift
    eval "n=\$frames_$s"
    OCL_ICD_VENDORS=$vendors "$bench" --backend=opencl --frames="$tmp/$s.gray:$s:$n" --iters=50 "$@" | tee -a "$res"
    "$bench" --backend=cuda --frames="$tmp/$s.gray:$s:$n" --iters=50 "$@" | tee -a "$res"
done

say ""
say "== whole command: ffmpeg -i 1080p.y4m (software frames) -vf FILTER -f null -"
$ff -v error -i "$b/clips/cockatoo.mp4" -an -vf "scale=1920:1080:flags=bicubic,format=yuv420p" \
    -frames:v 200 -y "$tmp/1080p.y4m" || exit 1
# median wall time of three runs over FRAMES frames (the 200-frame file looped)
cmd() { # FRAMES FILTER
    for r in 1 2 3; do
        { /usr/bin/time -f %e $ff -v error -stream_loop -1 -i "$tmp/1080p.y4m" -frames:v "$1" \
              -an -vf "$2" -f null - 2>&1 >/dev/null; } 2>&1 | tail -n 1
    done > "$tmp/times"
    t=$(sort -n "$tmp/times" | sed -n 2p)
    fps=$(echo "$1 $t" | awk '{ printf "%.1f", $1 / $2 }')
    say "$(printf '%-60s %5d frames %8.2f s %9s fps' "$2" "$1" "$t" "$fps")"
}
cmd 1000 null
cmd 1000 gpume=device=cuda:algo=hme:block=16
cmd 1000 gpume=device=cuda:algo=lfs:block=16
cmd 1000 gpume=device=cuda:algo=full:range=16:block=16
cmd 1000 gpume=device=cuda:algo=full:range=32:block=auto
cmd 1000 gpume=device=cuda:algo=hme:block=16:dir=bi
(export OCL_ICD_VENDORS=$vendors; cmd 300 "gpume=device=opencl:algo=hme:block=16")
cmd 20 gpume=device=cpu:algo=hme:block=16
cmd 5 gpume=device=cpu:algo=full:range=16:block=16
for m in esa epzs hexbs umh; do
    cmd 5 mestimate=method=$m:mb_size=16:search_param=16
done
