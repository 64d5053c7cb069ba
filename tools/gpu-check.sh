#!/bin/sh
# GPU test suite, run on a machine with an NVIDIA GPU from a tree built
# elsewhere: CUDA against the CPU reference (tests/backendcheck), the same
# under compute-sanitizer, OpenCL against the CPU reference through NVIDIA's
# OpenCL, and the filter end to end with device=cuda and device=opencl.
# Results go to ${OUT:-build/gpu-check}.
#
# usage: tools/gpu-check.sh [BUILDDIR]
set -u

b=${1:-build}
out=${OUT:-$b/gpu-check}
mkdir -p "$out"
fails=0
note() { echo "$*" | tee -a "$out/summary.txt"; }
run() { # NAME CMD...
    name=$1; shift
    if "$@" > "$out/$name.log" 2>&1; then r=ok; else r=FAIL; fails=$((fails + 1)); fi
    note "$r $name: $(tail -n 1 "$out/$name.log")"
}

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/device.txt"
real="--real=$b/real/cockatoo-320x240.gray:320x240:4"
run backendcheck "$b/tests/backendcheck" "$real"
run backendcheck-720p "$b/tests/backendcheck" --real="$b/real/cockatoo-1280x720.gray:1280x720:3" --filter=real
if command -v compute-sanitizer >/dev/null; then
    run memcheck compute-sanitizer --tool memcheck --error-exitcode 1 --leak-check full \
        "$b/tests/backendcheck" --quick "$real"
    run racecheck compute-sanitizer --tool racecheck --error-exitcode 1 \
        "$b/tests/backendcheck" --quick --filter=64x64
    run synccheck compute-sanitizer --tool synccheck --error-exitcode 1 \
        "$b/tests/backendcheck" --quick --filter=127x65
else
    note "skipped: compute-sanitizer not found"
fi
ff="$b/ffmpeg/ffmpeg -hide_banner -nostats"
# OpenCL on the NVIDIA GPU: a vendors directory of our own names NVIDIA's
# library, for machines (containers) without /etc/OpenCL/vendors/nvidia.icd
icd=$(mktemp -d)
echo libnvidia-opencl.so.1 > "$icd/nvidia.icd"
run backendcheck-opencl env OCL_ICD_VENDORS="$icd" "$b/tests/backendcheck" --backend=opencl "$real"
run filter-opencl env OCL_ICD_VENDORS="$icd" $ff -i "$b/clips/cockatoo.mp4" -an \
    -vf gpume=device=opencl,codecview=mv=pf -f null -
rm -rf "$icd"
run filter-cuda $ff -i "$b/clips/cockatoo.mp4" -an -vf gpume=device=cuda,codecview=mv=pf -f null -
run filter-cuda-frames $ff -init_hw_device cuda=gpu -filter_hw_device gpu -i "$b/clips/cockatoo.mp4" \
    -an -vf format=nv12,hwupload,gpume=dir=bi,hwdownload,format=nv12 -f null -
# long run: host and device memory must stay flat
soak() {
    src="testsrc2=s=640x360:r=1000"
    for n in 1000 10000; do
        /usr/bin/time -f %M -o "$out/rss-$n.txt" $ff -v error -f lavfi -i "$src" -frames:v $n \
            -vf gpume=device=cuda:dir=bi -f null - &
        pid=$!
        : > "$out/gpumem-$n.txt"
        while kill -0 $pid 2>/dev/null; do
            nvidia-smi --query-compute-apps=used_memory --format=csv,noheader,nounits >> "$out/gpumem-$n.txt"
            sleep 1
        done
        wait $pid || return 1
    done
    r1=$(tail -n 1 "$out/rss-1000.txt") r2=$(tail -n 1 "$out/rss-10000.txt")
    g=$(grep -E '^[0-9]+$' "$out/gpumem-10000.txt" | sort -n | uniq | tr '\n' ' ')
    echo "max RSS ${r1} KiB after 1000 frames, ${r2} KiB after 10000; device MiB seen: $g"
    [ $((r2 - r1)) -lt 4096 ] && [ "$(echo $g | wc -w)" -le 1 ]
}
run soak soak
note "$fails failed"
exit $((fails > 0))
