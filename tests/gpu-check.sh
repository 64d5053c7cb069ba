#!/bin/sh
# GPU test suite, for a machine with an NVIDIA GPU: CUDA against the CPU
# reference (tests/backendcheck for gpume, tests/mcfps-backendcheck for
# mcfps), the same under compute-sanitizer, OpenCL against the CPU reference
# through NVIDIA's OpenCL, the filters end to end with device=cuda and
# device=opencl (mcfps's output compared with its CPU output, software and
# hardware frames, yuv420p and nv12, NVDEC's CUDA frames), the fuzz targets'
# inputs on CUDA and OpenCL (tests/gpu-fuzz.sh), a soak test of host and
# device memory, and (not a pass or fail) the speed of
# gpume=device=cuda:dir=bi,mcfps=fps=60 on 1080p30. Results go to
# ${OUT:-BUILDDIR/gpu-check}; the last line is "N failed", the exit status 1
# on a failure.
#
# It builds what it needs: tests/backendcheck through tests/tests.mak where
# the FFmpeg build is present (on a machine without one, e.g. a GPU machine
# that got the tree built elsewhere, the binary must already be there), and
# the real test frames from BUILDDIR/clips/cockatoo.mp4 with BUILDDIR's ffmpeg.
# Without an NVIDIA GPU it prints "skipped: ..." after that and exits 0.
#
# usage: tests/gpu-check.sh [BUILDDIR]
set -u

b=${1:-build}
tests=$(dirname "$0")
out=${OUT:-$b/gpu-check}
mkdir -p "$out"
fails=0
note() { echo "$*" | tee -a "$out/summary.txt"; }
run() { # NAME CMD...
    name=$1; shift
    if "$@" > "$out/$name.log" 2>&1; then r=ok; else r=FAIL; fails=$((fails + 1)); fi
    note "$r $name: $(tail -n 1 "$out/$name.log")"
}
die() { note "FAIL $*"; note "1 failed"; exit 1; }
: > "$out/summary.txt"

# backendcheck: (re)built where FFmpeg's build is here, with the backends it has
fb=$b/ffmpeg
if [ -f "$fb/ffbuild/config.mak" ] && [ -f "$fb/libavutil/libavutil.a" ]; then
    cuda=$(grep -q '^CONFIG_CUDA_LLVM=yes\|^CONFIG_CUDA_NVCC=yes' "$fb/ffbuild/config.mak" && echo yes || echo no)
    opencl=$(grep -q '^CONFIG_OPENCL=yes' "$fb/ffbuild/config.mak" && echo yes || echo no)
    make --no-print-directory -f "$tests/tests.mak" BUILDDIR="$b" FFMPEG_TREE="$b/ffmpeg-tree" \
        FFMPEG_BUILD="$fb" GPUME_CUDA="$cuda" GPUME_OPENCL="$opencl" "$b/tests/backendcheck" \
        "$b/tests/mcfps-backendcheck" "$b/tests/target_gpume_fuzzer-replay" "$b/tests/target_mcfps_fuzzer-replay" \
        > "$out/build.log" 2>&1 || die "building $b/tests/backendcheck: $(tail -n 2 "$out/build.log" | tr '\n' ' ')"
fi
[ -x "$b/tests/backendcheck" ] || die "no $b/tests/backendcheck and no FFmpeg build in $fb to build it"
[ -x "$b/tests/mcfps-backendcheck" ] || die "no $b/tests/mcfps-backendcheck and no FFmpeg build in $fb to build it"
ff="$b/ffmpeg/ffmpeg -hide_banner -nostats"
[ -x "$b/ffmpeg/ffmpeg" ] || die "no $b/ffmpeg/ffmpeg (make)"
[ -f "$b/clips/cockatoo.mp4" ] || die "no $b/clips/cockatoo.mp4 (make clips)"

# real frames: FRAMES consecutive frames of cockatoo.mp4 from frame 40, scaled, gray8
real_frames() { # SIZE FRAMES
    $ff -v error -i "$b/clips/cockatoo.mp4" -an \
        -vf "select='gte(n\,40)',scale=$1:flags=bicubic,format=gray" -fps_mode passthrough \
        -frames:v "$2" -f rawvideo -y "$out/cockatoo-$1.gray" ||
        die "cannot make $out/cockatoo-$1.gray"
}
real_frames 320x240 4
real_frames 1280x720 3
# the same as yuv420p for mcfps-backendcheck
real_yuv() { # SIZE FRAMES
    $ff -v error -i "$b/clips/cockatoo.mp4" -an \
        -vf "select='gte(n\,40)',scale=$1:flags=bicubic,format=yuv420p" -fps_mode passthrough \
        -frames:v "$2" -f rawvideo -y "$out/cockatoo-$1.yuv" ||
        die "cannot make $out/cockatoo-$1.yuv"
}
real_yuv 320x240 4
real_yuv 1920x1080 3

if ! nvidia-smi > /dev/null 2>&1; then
    note "skipped: no NVIDIA GPU (nvidia-smi failed)"
    note "0 failed"
    exit 0
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/device.txt"
real="--real=$out/cockatoo-320x240.gray:320x240:4"
run backendcheck "$b/tests/backendcheck" "$real"
run backendcheck-720p "$b/tests/backendcheck" --real="$out/cockatoo-1280x720.gray:1280x720:3" --filter=real
if command -v compute-sanitizer >/dev/null; then
    run memcheck compute-sanitizer --tool memcheck --error-exitcode 1 --leak-check full \
        "$b/tests/backendcheck" --quick "$real"
    run racecheck compute-sanitizer --tool racecheck --error-exitcode 1 \
        "$b/tests/backendcheck" --quick --filter=64x64
    run synccheck compute-sanitizer --tool synccheck --error-exitcode 1 \
        "$b/tests/backendcheck" --quick --filter=127x65
    run initcheck compute-sanitizer --tool initcheck --error-exitcode 1 \
        "$b/tests/backendcheck" --quick "$real"
else
    note "skipped: compute-sanitizer not found"
fi
# mcfps: CUDA against the CPU, the same under compute-sanitizer
mreal="--real=$out/cockatoo-320x240.yuv:320x240:4"
run mcfps-backendcheck "$b/tests/mcfps-backendcheck" "$mreal"
run mcfps-backendcheck-1080p "$b/tests/mcfps-backendcheck" \
    --real="$out/cockatoo-1920x1080.yuv:1920x1080:3" --filter=real
if command -v compute-sanitizer >/dev/null; then
    run mcfps-memcheck compute-sanitizer --tool memcheck --error-exitcode 1 --leak-check full \
        "$b/tests/mcfps-backendcheck" --quick "$mreal"
    run mcfps-racecheck compute-sanitizer --tool racecheck --error-exitcode 1 \
        "$b/tests/mcfps-backendcheck" --quick --filter=96x64
    run mcfps-synccheck compute-sanitizer --tool synccheck --error-exitcode 1 \
        "$b/tests/mcfps-backendcheck" --quick --filter=127x65
    # not the copies' reads: the test's downloads of FFmpeg's CUDA frames
    # read the rows' padding of the frames' pool, which nothing writes
    run mcfps-initcheck compute-sanitizer --tool initcheck --check-api-memory-access no \
        --error-exitcode 1 "$b/tests/mcfps-backendcheck" --quick "$mreal"
    # the whole command, its copies' reads included
    for algo in hme dis; do
        run initcheck-chain-$algo compute-sanitizer --tool initcheck --error-exitcode 1 \
            $ff -v error -i "$b/clips/cockatoo.mp4" -an -frames:v 6 \
            -vf scale=333:203,gpume=device=cuda:dir=bi:algo=$algo,mcfps=fps=60:device=cuda -f null -
    done
fi
# OpenCL on the NVIDIA GPU: a vendors directory of our own names NVIDIA's
# library, for machines (containers) without /etc/OpenCL/vendors/nvidia.icd
icd=$(mktemp -d)
echo libnvidia-opencl.so.1 > "$icd/nvidia.icd"
run backendcheck-opencl env OCL_ICD_VENDORS="$icd" "$b/tests/backendcheck" --backend=opencl "$real"
run filter-opencl env OCL_ICD_VENDORS="$icd" $ff -i "$b/clips/cockatoo.mp4" -an \
    -vf gpume=device=opencl,codecview=mv=pf -f null -
run mcfps-backendcheck-opencl env OCL_ICD_VENDORS="$icd" "$b/tests/mcfps-backendcheck" --backend=opencl "$mreal"
# mcfps end to end: the output of every path is the CPU's, byte for byte
mcfps_md5() { # NAME DEVICE-OPTIONS... : framemd5 of 90 output frames
    n=$1; shift
    env OCL_ICD_VENDORS="$icd" $ff -v verbose "$@" -an -frames:v 90 -f framemd5 "$out/$n.md5" \
        > "$out/$n.err" 2>&1 || { echo "exit status $?: $(tail -n 2 "$out/$n.err" | tr '\n' ' ')"; return 1; }
    grep -h "Parsed_mcfps.*using the" "$out/$n.err" | head -n 1
}
mcfps_same_as() { # REF NAME DEVICE-OPTIONS...: NAME's framemd5 equals REF's
    r=$1; shift
    mcfps_md5 "$@" || return 1
    if ! cmp -s "$out/$r.md5" "$out/$1.md5"; then
        echo "output differs from $r: $(diff "$out/$r.md5" "$out/$1.md5" | head -n 3 | tr '\n' ' ')"
        return 1
    fi
    echo "same bytes as $r"
}
mcfps_same() { mcfps_same_as mcfps-cpu "$@"; } # NAME DEVICE-OPTIONS...: the CPU's yuv420p output
clip="$b/clips/cockatoo.mp4"
run mcfps-cpu mcfps_md5 mcfps-cpu -i "$clip" -vf format=yuv420p,gpume=device=cpu:dir=bi,mcfps=fps=60:device=cpu
run mcfps-cuda mcfps_same mcfps-cuda -i "$clip" \
    -vf format=yuv420p,gpume=device=cuda:dir=bi,mcfps=fps=60:device=cuda
# mcfps's device=auto takes gpume's device: the same bytes, and from CUDA,
# not from a CPU that fell back and compared itself with itself
mcfps_auto_cuda() {
    mcfps_same "$@" || return 1
    grep -q "Parsed_mcfps.*using the cuda backend" "$out/$1.err" ||
        { echo "mcfps did not take the cuda backend"; return 1; }
}
run mcfps-auto mcfps_auto_cuda mcfps-auto -i "$clip" -vf format=yuv420p,gpume=device=cuda:dir=bi,mcfps=fps=60
run mcfps-cuda-frames mcfps_same mcfps-cuda-frames -init_hw_device cuda=gpu -filter_hw_device gpu -i "$clip" \
    -vf format=yuv420p,hwupload,gpume=dir=bi,mcfps=fps=60,hwdownload,format=yuv420p
# the GPU among OpenCL's devices: FFmpeg refuses to choose where a CPU
# platform (PoCL) is installed beside it
ocl_gpu="opencl=ocl:,device_type=gpu"
run mcfps-opencl mcfps_same mcfps-opencl -i "$clip" \
    -vf format=yuv420p,gpume=device=opencl:dir=bi,mcfps=fps=60:device=opencl
run mcfps-opencl-frames mcfps_same mcfps-opencl-frames -init_hw_device "$ocl_gpu" -filter_hw_device ocl \
    -i "$clip" -vf format=yuv420p,hwupload,gpume=dir=bi,mcfps=fps=60,hwdownload,format=yuv420p
# a scene cut (the window jumps at frame 4) at 60 fps from 25: tick 9, at
# phase 3/4 of the pair (3, 4), copies frame 4, on the devices' frames too
cut="testsrc2=s=320x240:r=25:d=2,crop=160:120:x='if(lt(n,4),3*n,150)':y='if(lt(n,4),n,110)',format=yuv420p"
run mcfps-cut-cpu mcfps_md5 mcfps-cut-cpu -f lavfi -i "$cut" -vf gpume=device=cpu:dir=bi,mcfps=fps=60:device=cpu
run mcfps-cut-cuda-frames mcfps_same_as mcfps-cut-cpu mcfps-cut-cuda-frames -init_hw_device cuda=gpu \
    -filter_hw_device gpu -f lavfi -i "$cut" -vf hwupload,gpume=dir=bi,mcfps=fps=60,hwdownload,format=yuv420p
run mcfps-cut-opencl-frames mcfps_same_as mcfps-cut-cpu mcfps-cut-opencl-frames -init_hw_device "$ocl_gpu" \
    -filter_hw_device ocl -f lavfi -i "$cut" -vf hwupload,gpume=dir=bi,mcfps=fps=60,hwdownload,format=yuv420p
# nv12: the CPU's output on nv12 is its yuv420p output interleaved, and every
# path gives it: CUDA from software and CUDA frames (hwupload_cuda), NVDEC's
# CUDA frames (the decoder is bit-exact), OpenCL from software and OpenCL
# frames. cockatoo.mp4 is 4:4:4: made 4:2:0 first, so that its nv12 and
# yuv420p frames hold the same samples.
nv12="format=yuv420p,format=nv12"
run mcfps-nv12-cpu mcfps_md5 mcfps-nv12-cpu -i "$clip" -vf $nv12,gpume=device=cpu:dir=bi,mcfps=fps=60:device=cpu
run mcfps-nv12-planar mcfps_same_as mcfps-nv12-cpu mcfps-nv12-planar -i "$clip" \
    -vf format=yuv420p,gpume=device=cpu:dir=bi,mcfps=fps=60:device=cpu,format=nv12
run mcfps-nv12-cuda mcfps_same_as mcfps-nv12-cpu mcfps-nv12-cuda -i "$clip" \
    -vf $nv12,gpume=device=cuda:dir=bi,mcfps=fps=60:device=cuda
run mcfps-nv12-cuda-frames mcfps_same_as mcfps-nv12-cpu mcfps-nv12-cuda-frames -i "$clip" \
    -vf $nv12,hwupload_cuda,gpume=dir=bi,mcfps=fps=60,hwdownload,format=nv12
run mcfps-nv12-opencl mcfps_same_as mcfps-nv12-cpu mcfps-nv12-opencl -i "$clip" \
    -vf $nv12,gpume=device=opencl:dir=bi,mcfps=fps=60:device=opencl
run mcfps-nv12-opencl-frames mcfps_same_as mcfps-nv12-cpu mcfps-nv12-opencl-frames \
    -init_hw_device "$ocl_gpu" -filter_hw_device ocl \
    -i "$clip" -vf $nv12,hwupload,gpume=dir=bi,mcfps=fps=60,hwdownload,format=nv12
# NVDEC does not decode 4:4:4 H.264: realshort.mp4 is 4:2:0 (its CUDA frames
# are nv12; hwdownload fails on the software frames of a failed hwaccel)
nvclip="$b/clips/realshort.mp4"
if [ -f "$nvclip" ]; then
    run mcfps-nvdec-cpu mcfps_md5 mcfps-nvdec-cpu -i "$nvclip" \
        -vf format=nv12,gpume=device=cpu:dir=bi,mcfps=fps=60:device=cpu
    run mcfps-nvdec mcfps_same_as mcfps-nvdec-cpu mcfps-nvdec -hwaccel cuda -hwaccel_output_format cuda \
        -i "$nvclip" -vf gpume=dir=bi,mcfps=fps=60,hwdownload,format=nv12
else
    note "skipped mcfps-nvdec: no $nvclip (make clips)"
fi
rm -rf "$icd"
run filter-cuda $ff -i "$b/clips/cockatoo.mp4" -an -vf gpume=device=cuda,codecview=mv=pf -f null -
run filter-cuda-frames $ff -init_hw_device cuda=gpu -filter_hw_device gpu -i "$b/clips/cockatoo.mp4" \
    -an -vf format=nv12,hwupload,gpume=dir=bi,hwdownload,format=nv12 -f null -
# frames taller than the grid of mcfps's CUDA render allows (65535 blocks
# of 8 rows): device=cuda refuses them when it starts, saying why, and
# device=auto goes on to another backend
tall() { # DEVICE
    $ff -v error -f lavfi -i color=s=16x524288:r=10:d=0.2 -vf mcfps=fps=20:mode=blend:device=$1 \
        -f null - > "$out/tall-$1.err" 2>&1
}
tall_refused() {
    if tall cuda; then echo "device=cuda accepted 16x524288 frames"; return 1; fi
    grep -q 'more than [0-9]* rows are beyond the CUDA backend' "$out/tall-cuda.err" ||
        { echo "no reason given: $(tail -n 2 "$out/tall-cuda.err" | tr '\n' ' ')"; return 1; }
    tall auto || { echo "device=auto failed: $(tail -n 2 "$out/tall-auto.err" | tr '\n' ' ')"; return 1; }
    echo "refused on CUDA with its reason, converted with device=auto"
}
run mcfps-cuda-tall tall_refused
# the fuzz targets' seeds and regressions with the filters on CUDA and on
# OpenCL: the fuzzer's checks, the CPU's frames, memcheck (tests/gpu-fuzz.sh)
run fuzz-gpu sh "$tests/gpu-fuzz.sh" "$b" "$out/fuzz"
# long runs, gpume alone and the conversion chain: nothing more left
# unfreed at exit than after a run a sixth as long, and host heap, resident
# size and device memory flat (tests/gpu-soak.sh)
run soak sh "$tests/gpu-soak.sh" "$b/ffmpeg/ffmpeg" "$out/soak" gpume=device=cuda:dir=bi
run soak-mcfps sh "$tests/gpu-soak.sh" "$b/ffmpeg/ffmpeg" "$out/soak-mcfps" \
    gpume=device=cuda:dir=bi,mcfps=fps=2000
# speed (information, not a test): the whole command on 1080p30 yuv420p
speed() {
    $ff -v error -stream_loop 20 -i "$clip" -an -vf "scale=1920:1080,format=yuv420p,fps=30" \
        -frames:v 300 -y "$out/1080p30.y4m" || return 1
    k=0
    for g in "gpume=device=cuda:dir=bi,mcfps=fps=60" "gpume=device=cuda:dir=bi,mcfps=fps=60:check=0" \
             "gpume=device=cuda:dir=bi,mcfps=fps=60:mode=blend" \
             "gpume=device=cuda:dir=bi"; do
        k=$((k + 1))
        s0=$(date +%s.%N)
        $ff -v error -i "$out/1080p30.y4m" -vf "$g" -progress "$out/progress-$k.txt" -f null - || return 1
        s1=$(date +%s.%N)
        n=$(sed -n 's/^frame=//p' "$out/progress-$k.txt" | tail -n 1)
        awk -v g="$g" -v n="$n" -v t0="$s0" -v t1="$s1" \
            'BEGIN { printf "%s: %d frames out in %.2f s: %.0f fps\n", g, n, t1 - t0, n / (t1 - t0) }'
    done | tee "$out/speed.txt"
}
if speed > "$out/speed.log" 2>&1; then
    note "info speed: $(tr '\n' ';' < "$out/speed.txt")"
else
    note "info speed: failed ($(tail -n 1 "$out/speed.log"))"
fi
note "$fails failed"
exit $((fails > 0))
