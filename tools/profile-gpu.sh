#!/bin/sh
# Per-kernel device time of the CUDA backend with Nsight Compute, for one
# configuration: tools/profile-gpu.sh BUILDDIR SIZE BENCH-ARGS...
# (frames come from tools/bench-gpu.sh's temporary folder)
set -u
b=$1 s=$2
shift 2
tmp=${TMPDIR:-/tmp}/gpume-bench
eval "n=\$(( \$(stat -c %s $tmp/$s.gray) / ($(echo $s | tr x '*')) ))"
command -v ncu >/dev/null || { echo "skipped: ncu not found"; exit 0; }
ncu --kernel-name regex:gpume --launch-skip 20 --launch-count 12 \
    --metrics gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_shared_mem \
    "$b/tools/bench-backend" --backend=cuda --frames="$tmp/$s.gray:$s:$n" --iters=3 "$@" 2>&1 |
    grep -E "gpume_|gpu__time|warps_active|registers|occupancy_limit" | head -60
