#!/bin/sh
# Whole ffmpeg commands at the start and once running: the wall time of 10,
# 1000 and 5000 output frames of 1080p30 .y4m software frames (the median of
# three runs each), and the steady rate 4000 / (t5000 - t1000), which leaves
# out what a command spends once (opening the device, loading the kernels,
# the first frames), so that a filter's rate compares with null's.
#
# usage: tools/steady-bench.sh [BUILDDIR] [FILTER...]
#   FILTERs default to null, gpume=device=cuda, gpume=device=cuda:dir=bi
set -u

b=${1:-build}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- null gpume=device=cuda gpume=device=cuda:dir=bi
tmp=${TMPDIR:-/tmp}/gpume-steady.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
ff="$b/ffmpeg/ffmpeg -hide_banner -nostats -v error"

$ff -i "$b/clips/cockatoo.mp4" -an -vf "scale=1920:1080:flags=bicubic,format=yuv420p" \
    -frames:v 200 -y "$tmp/1080p.y4m" || exit 1

median() { # N FILTER: median wall seconds of three runs
    for r in 1 2 3; do
        /usr/bin/time -f %e -o "$tmp/time" $ff -stream_loop -1 -i "$tmp/1080p.y4m" -frames:v "$1" \
            -an -vf "$2" -f null - > /dev/null 2> "$tmp/stderr" ||
            { cp "$tmp/stderr" "$tmp/error"; echo failed; continue; }
        tail -n 1 "$tmp/time"
    done | sort -n | sed -n 2p
}
printf '%-44s %8s %8s %8s %10s %10s\n' FILTER 10 1000 5000 "5000 fps" "steady fps"
for f in "$@"; do
    t10=$(median 10 "$f") t1k=$(median 1000 "$f") t5k=$(median 5000 "$f")
    case "$t10$t1k$t5k" in *failed*)
        echo "$f: failed: $(head -n 1 "$tmp/error")"; continue;;
    esac
    echo "$f $t10 $t1k $t5k" | awk '{ printf "%-44s %7.2fs %7.2fs %7.2fs %10.0f %10.0f\n",
                                      $1, $2, $3, $4, 5000 / $4, 4000 / ($4 - $3) }'
done
