#!/bin/sh
# Start-up of the CUDA backend: time to first vectors (device open, backend
# init with its kernels, the first frame pair's search and readback), each
# the median of RUNS fresh processes, with the kernels
#   - as PTX (build/tools/bench-backend-ptx), JIT-compiled by the driver with
#     its JIT cache off (CUDA_CACHE_DISABLE=1), as on a fresh machine;
#   - as PTX, JIT cache warm (a cache of its own, filled by a first run);
#   - as the build embeds them (build/tools/bench-backend: cubins and PTX
#     when configure found ptxas and fatbinary), JIT cache off;
#   - the same, the driver told to ignore the cubins (CUDA_FORCE_PTX_JIT=1);
# then, with BUILDDIR/ffmpeg/ffmpeg, the wall time of a whole two-frame
# ffmpeg command with gpume=device=cuda, the kernels as built and as PTX.
# Frames: cockatoo.mp4 at 1920x1080 when ffmpeg and the clip are there,
# else random ones.
#
# usage: tools/startup-bench.sh [BUILDDIR] [RUNS] [BENCH-ARGS...]
#   BENCH-ARGS default to --algo=hme --range=16
set -u

b=${1:-build}
runs=${2:-5}
if [ $# -gt 2 ]; then shift 2; args="$*"; else args="--algo=hme --range=16"; fi
tmp=${TMPDIR:-/tmp}/gpume-startup.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT

for p in bench-backend bench-backend-ptx; do
    [ -x "$b/tools/$p" ] || { echo "startup-bench: no $b/tools/$p (make -f tools/bench-backend.mak ... $b/tools/$p)" >&2; exit 1; }
done

s=1920x1080
frames=$tmp/$s.gray
if [ -x "$b/ffmpeg/ffmpeg" ] && [ -f "$b/clips/cockatoo.mp4" ]; then
    "$b/ffmpeg/ffmpeg" -nostdin -v error -i "$b/clips/cockatoo.mp4" -an \
        -vf "select='between(n\,40\,41)',scale=$s:flags=bicubic,format=gray" \
        -fps_mode passthrough -f rawvideo -y "$frames" || exit 1
    src="cockatoo.mp4 frames 40-41"
else
    head -c $((1920 * 1080 * 2)) /dev/urandom > "$frames"
    src="random frames"
fi

# one run: "total open init pair" on stdout, the kernels' form in $tmp/form
one() { # PROGRAM [VAR=VALUE...]
    prog=$1; shift
    # shellcheck disable=SC2086 # one benchmark argument per word
    out=$(env "$@" "$b/tools/$prog" --backend=cuda --frames="$frames:$s:2" --startup $args 2>&1)
    line=$(echo "$out" | grep 'time to first vectors') || {
        echo "startup-bench: $prog failed: $(echo "$out" | tail -n 1)" >&2
        return 1
    }
    echo "$line" | sed -n 's/.*vectors: \([0-9.]*\) ms (device open \([0-9.]*\) ms, backend init \([0-9.]*\) ms, first frame pair \([0-9.]*\) ms).*/\1 \2 \3 \4/p'
    echo "$line" | sed -n 's/.*kernels: \([^;]*\).*/\1/p' > "$tmp/form"
}
median() { # COLUMN
    sort -n -k"$1" "$tmp/runs" | awk -v c="$1" -v n="$runs" 'NR == int((n + 1) / 2) { print $c }'
}
row() { # LABEL PROGRAM [VAR=VALUE...]
    label=$1; shift
    : > "$tmp/runs"
    i=0
    while [ $i -lt "$runs" ]; do
        one "$@" >> "$tmp/runs" || return 1
        i=$((i + 1))
    done
    printf '%-40s %10s %10s %10s %10s  %s\n' "$label" "$(median 1)" "$(median 2)" "$(median 3)" "$(median 4)" "$(cat "$tmp/form")"
}

echo "device: $(nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader 2>/dev/null || echo unknown)"
echo "time to first vectors, ms: bench-backend --startup $args, $s ($src), median of $runs processes"
printf '%-40s %10s %10s %10s %10s  %s\n' "" "first" "open" "init" "pair" "embedded"
# a JIT cache of our own: the user's stays untouched, the warm row is warm
cache=$tmp/cuda-cache
row "PTX, JIT cache off (fresh machine)" bench-backend-ptx CUDA_CACHE_DISABLE=1 || exit 1
one bench-backend-ptx CUDA_CACHE_PATH="$cache" > /dev/null || exit 1
row "PTX, JIT cache warm" bench-backend-ptx CUDA_CACHE_PATH="$cache" || exit 1
row "as built, JIT cache off" bench-backend CUDA_CACHE_DISABLE=1 || exit 1
row "as built, cubins ignored, JIT cache off" bench-backend CUDA_CACHE_DISABLE=1 CUDA_FORCE_PTX_JIT=1 || exit 1
echo "first = open + init + pair: device open, backend init (module load: JIT or cubin), first frame pair"

# the whole command as a user starts it: wall time of ffmpeg for two frames
ff=$b/ffmpeg/ffmpeg
[ -x "$ff" ] || exit 0
wall() { # [VAR=VALUE...]
    : > "$tmp/runs"
    i=0
    while [ $i -lt "$runs" ]; do
        t0=$(date +%s%N)
        env "$@" "$ff" -nostdin -v error -f lavfi -i testsrc2=s=$s:r=25 -frames:v 2 \
            -vf gpume=device=cuda -f null - || return 1
        echo $(( ($(date +%s%N) - t0) / 1000000 )) >> "$tmp/runs"
        i=$((i + 1))
    done
    sort -n "$tmp/runs" | awk -v n="$runs" 'NR == int((n + 1) / 2)'
}
echo ""
echo "ffmpeg -f lavfi -i testsrc2=s=$s -frames:v 2 -vf gpume=device=cuda -f null -, JIT cache off, wall ms:"
echo "  kernels as built:      $(wall CUDA_CACHE_DISABLE=1)"
echo "  cubins ignored (PTX):  $(wall CUDA_CACHE_DISABLE=1 CUDA_FORCE_PTX_JIT=1)"
