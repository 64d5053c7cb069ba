#!/bin/sh
# Soak of host and device memory: FILTER on SECONDS (120) seconds of 640x360
# frames at 1000 a second.
#  - The C heap (tests/livemem.c, preloaded where a C compiler can build
#    it): the bytes never freed at exit must be the same after a run a
#    sixth as long. That is the leak test: a byte a frame shows 100 000.
#  - Sampled every second from the steady state on, the heap in use, the
#    resident size (which also holds the driver's mappings) and the device
#    memory the process holds. The medians of the second and the last
#    quarter of the samples are compared: the first quarter is the
#    start-up, and a median does not see a burst of frames in flight. The
#    heap and the resident size may still grow in steps where a frame pool
#    takes one more frame (346 KB here) and the allocator one more arena:
#    the ffmpeg CLI's four thread queues (demuxer to decoder, decoder to
#    filter graph, filter graph to encoder, encoder to muxer) hold 8 frames
#    each, and whether they run mostly empty or mostly full moves the median
#    by up to 32 frames, 11 MB. The limits allow that and the filter's own
#    frames in flight: 16 MiB of heap (48 frames) and 24 MiB resident. A
#    leak is what the exact count above finds. The device memory must keep
#    one value.
#
# usage: tests/gpu-soak.sh FFMPEG OUTDIR FILTER [SECONDS]
set -u

ff=$1 out=$2 filter=$3 seconds=${4:-120}
tests=$(dirname "$0")
mkdir -p "$out"
: > "$out/rss.txt"
: > "$out/heap.txt"
: > "$out/gpumem.txt"

preload=
if ${CC:-cc} -O2 -shared -fPIC -o "$out/livemem.so" "$tests/livemem.c" -ldl -lpthread 2> "$out/livemem.log"; then
    preload=$out/livemem.so
else
    echo "no heap count: cannot build tests/livemem.c ($(tail -n 1 "$out/livemem.log"))" >&2
fi

soak() { # SECONDS HEAPFILE, in a subshell: it becomes ffmpeg
    export LD_PRELOAD=$preload LIVEMEM_FILE=$2
    exec $ff -v error -nostats \
        -f lavfi -i "testsrc2=s=640x360:r=1000:d=$1" -vf "$filter" -f null -
}
if [ -n "$preload" ]; then
    : > "$out/heap-short.txt"
    (soak $((seconds / 6)) "$out/heap-short.txt") || { echo "$filter failed"; exit 1; }
fi
(soak $seconds "$out/heap.txt") &
pid=$!
# from the steady state: the buffers are allocated while it starts
sleep 2
while kill -0 $pid 2>/dev/null; do
    awk '/^VmRSS/ { print $2 }' /proc/$pid/status >> "$out/rss.txt" 2>/dev/null
    nvidia-smi --query-compute-apps=used_memory --format=csv,noheader,nounits >> "$out/gpumem.txt" 2>/dev/null
    sleep 1
done
wait $pid || { echo "$filter failed"; exit 1; }

# SAMPLES FILE: the medians of the second and the last quarter, and their
# number; the last samples may fall in the exit, while the buffers are freed
quarters() {
    grep -E '^[0-9]+$' "$1" | sed '$d' | awk '{ v[NR] = $1 }
        function median(a, b,   n, i, j, t, w) {
            n = 0
            for (i = a; i <= b; i++) w[++n] = v[i]
            for (i = 2; i <= n; i++)
                for (j = i; j > 1 && w[j - 1] > w[j]; j--) { t = w[j]; w[j] = w[j - 1]; w[j - 1] = t }
            return w[int((n + 1) / 2)]
        }
        END {
            if (NR < 8) { print 0, 0, NR; exit }
            print median(int(NR / 4) + 1, int(NR / 2)), median(int(3 * NR / 4) + 1, NR), NR
        }'
}
fail=0
set -- $(quarters "$out/rss.txt")
rss2=$1 rss4=$2 n=$3
[ "$n" -ge 8 ] || { echo "too few samples ($n)"; exit 1; }
msg="RSS median $rss2 KiB in the second quarter, $rss4 in the last ($n samples)"
[ $((rss4 - rss2)) -lt 24576 ] || fail=1
if [ -n "$preload" ]; then
    set -- $(quarters "$out/heap.txt")
    msg="$msg; heap $1 bytes, $2 in the last"
    [ "$3" -ge 8 ] && [ $(($2 - $1)) -lt 16777216 ] || fail=1
    x1=$(sed -n 's/^exit //p' "$out/heap-short.txt")
    x6=$(sed -n 's/^exit //p' "$out/heap.txt")
    msg="$msg; never freed: $x1 bytes after $((seconds * 1000 / 6)) frames, $x6 after $((seconds * 1000))"
    [ -n "$x1" ] && [ -n "$x6" ] && [ $((x6 - x1)) -lt 4096 ] || fail=1
fi
g=$(grep -E '^[0-9]+$' "$out/gpumem.txt" | sed '$d' | sort -n | uniq | tr '\n' ' ')
msg="$msg; device MiB seen: $g"
[ "$(echo $g | wc -w)" -eq 1 ] || fail=1
echo "$filter: $msg"
exit $fail
