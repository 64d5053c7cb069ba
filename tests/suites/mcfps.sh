#!/bin/sh
# The mcfps filter: unit tests of its steps (tests/mcfpscheck.c, under ASan
# and UBSan) and end-to-end robustness through ffmpeg:
#  - no vectors at all: a clear error at the first pair, non-zero exit;
#  - forward vectors only, backward only: converted, every tick out;
#  - output ticks: the count the output rate gives for the stream's duration
#    (up, down, x4, NTSC), timestamps 0, 1, 2, ... in 1/fps; the timestamps
#    of the fps filter on random input, and with mode=dup its frames
#    (tests/tickcheck.c);
#  - a frame size change mid-stream: a warning, restart, every tick out;
#  - streams of 0, 1 and 2 frames; odd sizes (1x1, 2x2, 17x9, 33x1);
#  - 10-bit input (converted to 8 bit before gpume): correct output;
#  - nv12 and nv21: the output of yuv420p interleaved, on slice threads;
#    formats it does not read (p010, 10 bit, nv24) refused at negotiation;
#  - timestamp gaps and non-increasing timestamps;
#  - the motion check: it changes the pairs with a frame before them in the
#    run and no other (not the first pair, not the pair after a cut);
#  - the bend of the trajectories: likewise;
#  - runtime commands: a valid one takes effect from the next pair, one that
#    breaks rel_lo < rel_hi is refused;
#  - bad option values: non-zero exit and a message naming the option;
#  - side data: no output frame carries motion vectors or lavfi.gpume.* keys;
#  - valgrind memcheck of a conversion with a size change (when installed).
# environment (tests/run.sh): FFMPEG FFPROBE BUILDDIR FFMPEG_TREE FFMPEG_BUILD
set -u

: "${BUILDDIR:=build}" "${FFMPEG:=$BUILDDIR/ffmpeg/ffmpeg}" "${FFPROBE:=$BUILDDIR/ffmpeg/ffprobe}"
: "${FFMPEG_TREE:=$BUILDDIR/ffmpeg-tree}" "${FFMPEG_BUILD:=$BUILDDIR/ffmpeg}"
pass=0 fail=0 skip=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcfps.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

ok()      { pass=$((pass + 1)); echo "ok $1"; }
bad()     { fail=$((fail + 1)); echo "FAIL $1: $2"; }
skipped() { skip=$((skip + 1)); echo "skipped: $1"; }
tailof()  { grep -v '^\s*$' "$1" | tail -n 2 | tr '\n' ' ' | cut -c1-300; }

# ff NAME ARGS...: ffmpeg with ARGS; stdout/stderr in $tmp/NAME.out/.err, status in $rc
ff() {
    name=$1
    shift
    timeout 120 "$FFMPEG" -nostdin -hide_banner -nostats "$@" > "$tmp/$name.out" 2> "$tmp/$name.err"
    rc=$?
}
crashed() { [ "$rc" -eq 124 ] || { [ "$rc" -gt 128 ] && [ "$rc" -lt 160 ]; }; }
nframes() { grep -vc '^#' "$1"; }

# frames NAME GRAPH WANT: GRAPH (lavfi) succeeds with WANT output frames whose
# timestamps are 0, 1, ..., WANT-1
frames() {
    ff "$1" -f lavfi -i "$2" -f framecrc -
    if [ "$rc" -ne 0 ]; then
        bad "$1" "exit status $rc: $(tailof "$tmp/$1.err")"
        return
    fi
    n=$(nframes "$tmp/$1.out")
    pts=$(grep -v '^#' "$tmp/$1.out" | awk -F, '{ printf "%d ", $2 }')
    want=$(awk -v n="$3" 'BEGIN { for (i = 0; i < n; i++) printf "%d ", i }')
    if [ "$n" -ne "$3" ]; then
        bad "$1" "$n frames, want $3"
    elif [ "$pts" != "$want" ]; then
        bad "$1" "timestamps $pts"
    else
        ok "$1"
    fi
}

# refused NAME PATTERN ARGS...: ffmpeg fails (no crash) and stderr matches PATTERN
refused() {
    n=$1 pat=$2
    shift 2
    ff "$n" "$@"
    if crashed; then
        bad "$n" "crashed (status $rc)"
    elif [ "$rc" -eq 0 ]; then
        bad "$n" "succeeded"
    elif ! grep -q "$pat" "$tmp/$n.err"; then
        bad "$n" "no message matching '$pat': $(tailof "$tmp/$n.err")"
    else
        ok "$n"
    fi
}

# program PROGRAM [NAME [ARGS...]]: build the test program PROGRAM and run
# it with ARGS, whose last line is "N passed, N failed[, N skipped]", and
# count its results under NAME (PROGRAM where not given)
program() {
    p=$1 n=${2:-$1}
    shift
    [ $# -gt 0 ] && shift
    if make --no-print-directory -f tests/tests.mak BUILDDIR="$BUILDDIR" FFMPEG_TREE="$FFMPEG_TREE" \
            FFMPEG_BUILD="$FFMPEG_BUILD" "$BUILDDIR/tests/$p" > "$tmp/$n-build.log" 2>&1; then
        "$BUILDDIR/tests/$p" "$@" > "$tmp/$n.log" 2>&1
        rc=$?
        grep '^\(FAIL\|skipped\)' "$tmp/$n.log"
        u=$(tail -n 1 "$tmp/$n.log")
        up=$(echo "$u" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
        uf=$(echo "$u" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
        us=$(echo "$u" | sed -n 's/.* \([0-9]*\) skipped.*/\1/p')
        if [ -z "$up" ] || { [ "$rc" -ne 0 ] && [ "${uf:-0}" -eq 0 ]; }; then
            bad "$n" "exit status $rc: $(tailof "$tmp/$n.log")"
        else
            pass=$((pass + up)) fail=$((fail + uf)) skip=$((skip + ${us:-0}))
            echo "$n: $u"
        fi
    else
        bad "$n" "build failed: $(tailof "$tmp/$n-build.log")"
    fi
}
# unit tests of the steps
program mcfpscheck
# the filters in a graph driven through the public API: captions, frames
# pushed and drained without requests, gpume and mcfps after a refused
# frame, mcfps's end at negative timestamps, frames of another device,
# gpume on a new frames context of the same device, mcfps on OpenCL
# frames and then software ones
program graphcheck
# ... and after an OpenCL call that fails mid-stream (tests/clshim.c):
# gpume after a failed wait (of a result; in the timeline's flush; for a
# frame's slot before its upload, the 3rd; in the flush of a restart at
# frame 8, the 12th), gpume after a failed upload mid-stream (the 18th
# clEnqueueWriteBuffer, a frame's luma) and estimate (the 19th, its
# predictors), mcfps after a frame it could not load, and after frames gpume
# could not upload (frame 0, the 3rd clEnqueueWriteBuffer after the two of
# its set-up, and frame 1)
if ${CC:-cc} -O2 -shared -fPIC -o "$tmp/clshim.so" "$(dirname "$0")/../clshim.c" -ldl \
        > "$tmp/clshim.log" 2>&1 && [ -x "$BUILDDIR/tests/graphcheck" ]; then
    for c in opencl-wait:clWaitForEvents:2 opencl-wait-timeline:clWaitForEvents:1 \
             opencl-wait-upload:clWaitForEvents:3 opencl-wait-restart:clWaitForEvents:12 \
             opencl-wait:clEnqueueWriteBuffer:18 opencl-wait:clEnqueueWriteBuffer:19 \
             opencl-load:clEnqueueWriteBufferRect:1 opencl-upload:clEnqueueWriteBuffer:3 \
             opencl-upload:clEnqueueWriteBuffer:4; do
        k=${c%%:*} log="$tmp/graphcheck-${c%%:*}-${c##*:}.log"
        LD_PRELOAD="$tmp/clshim.so" CLSHIM_FAIL="${c#*:}" "$BUILDDIR/tests/graphcheck" "$k" > "$log" 2>&1
        rc=$?
        if grep -q '^skipped' "$log"; then
            skipped "graphcheck $k: $(grep '^skipped' "$log")"
        elif [ "$rc" -eq 0 ] && [ "$(tail -n 1 "$log")" = "1 passed, 0 failed, 0 skipped" ]; then
            ok "graphcheck-$k (${c#*:})"
        else
            bad "graphcheck-$k (${c#*:})" "exit status $rc: $(grep '^FAIL' "$log" | head -n 1)"
        fi
    done
else
    skipped "graphcheck opencl-wait, opencl-wait-timeline, opencl-wait-upload, opencl-wait-restart, opencl-load, opencl-upload: tests/clshim.c does not build here ($(tailof "$tmp/clshim.log" 1))"
fi
# the ticks of fps on 300 random inputs, and with mode=dup its frames: rates,
# time bases, offsets, gaps, frames on and near ticks, size and format
# changes, ends (tests/tickcheck.c)
program tickcheck

SRC="testsrc2=s=96x64:r=25:d=0.4,crop=80:48:x=n:y=n/2"

# no vectors: the first pair fails, with the way out in the message
refused no-vectors "no motion vectors between the frames" -f lavfi -i "$SRC" -vf mcfps=fps=50 -f null -
ff no-vectors-at-once -f lavfi -i "$SRC" -vf mcfps=fps=50 -f framecrc -
if [ "$(nframes "$tmp/no-vectors-at-once.out")" -ne 0 ]; then
    bad no-vectors-at-once "frames went out before the error"
else
    ok no-vectors-at-once
fi

# directions, rates: 0.4 s of input
frames bi-50       "$SRC,gpume=device=cpu:dir=bi,mcfps=fps=50" 20
frames fwd-only    "$SRC,gpume=device=cpu:dir=fwd,mcfps=fps=50" 20
frames bwd-only    "$SRC,gpume=device=cpu:dir=bwd,mcfps=fps=50" 20
frames up-60       "$SRC,gpume=device=cpu:dir=bi,mcfps=fps=60" 24
frames x4          "$SRC,gpume=device=cpu:dir=bi,mcfps=fps=100" 40
frames ntsc        "$SRC,gpume=device=cpu:dir=bi,mcfps=fps=ntsc" 12
frames down-60-25  "testsrc2=s=96x64:r=60:d=0.4,gpume=device=cpu:dir=bi,mcfps=fps=25" 10
frames rational    "$SRC,gpume=device=cpu:dir=bi,mcfps=fps=60000/1001" 24
# an expression of the input's rate, as fps takes it
frames source-x2   "$SRC,gpume=device=cpu:dir=bi,mcfps=fps=source_fps*2" 20

# streams of 0, 1, 2 frames (the last frame lasts until the end of the
# stream, 0.04 s: 2.4 ticks at 60 fps, 2 rounded to nearest as fps=60 makes)
frames zero-frames "testsrc2=s=32x32:r=25:d=0,gpume=device=cpu:dir=bi,mcfps=fps=50" 0
frames one-frame   "testsrc2=s=32x32:r=25:d=0.04,gpume=device=cpu:dir=bi,mcfps=fps=60" 2
frames two-frames  "testsrc2=s=32x32:r=25:d=0.08,gpume=device=cpu:dir=bi,mcfps=fps=50" 4

# the ticks the fps filter makes (rounding to nearest, its default) where
# the first frame or the end lies between ticks: the same time base,
# timestamps and frame sizes
ticks_of() {
    awk -F, '/^#tb/ { printf "%s ", $0 } !/^#/ { printf "%d:%d ", $2, $5 }' "$1"
}
like_fps() {
    ff "$1-fps" -filter_complex "$2,fps=${4:-$3}" -fps_mode passthrough -f framecrc -
    rc_fps=$rc
    want=$(ticks_of "$tmp/$1-fps.out")
    ff "$1" -filter_complex "$2,gpume=device=cpu:dir=bi,mcfps=fps=$3" -fps_mode passthrough -f framecrc -
    got=$(ticks_of "$tmp/$1.out")
    if [ "$rc" -ne 0 ] || [ "$rc_fps" -ne 0 ] || [ "$got" != "$want" ]; then
        bad "$1" "status $rc, timestamps $got, fps=${4:-$3} gives $want"
    else
        ok "$1"
    fi
}
like_fps like-fps-end    "testsrc2=s=32x32:r=25:d=1.12" 60
like_fps like-fps-down   "testsrc2=s=32x32:r=25:d=1.12" 10
like_fps like-fps-start  "testsrc2=s=32x32:r=25:d=1,setpts=PTS+0.005/TB" 60
like_fps like-fps-late   "testsrc2=s=32x32:r=25:d=1,setpts=PTS+0.01/TB" 60
like_fps like-fps-60to7  "testsrc2=s=32x32:r=60:d=1" 7
like_fps like-fps-ntsc   "testsrc2=s=32x32:r=24000/1001:d=1.3" ntsc
like_fps like-fps-expr   "testsrc2=s=32x32:r=24000/1001:d=1.3" "source_fps*5/2"
# a decimal rounded to a denominator of at most 1001000, as -r rounds it
like_fps like-fps-decimal  "testsrc2=s=32x32:r=24000/1001:d=1.3" 23.976
like_fps like-fps-decimal2 "testsrc2=s=32x32:r=25:d=1" 24.000001 24
# integers and fractions as they are, beyond the terms of at most 1001000
# that FFmpeg's rate syntax rounds to: the time base and frames of fps
# and expressions and decimals above the 1001000 at which that syntax caps
for r in 1200000/1001 1/2000000 3000017 2e6 '1000000*2' 1001000.5 '1/(2000000)' '(1200000/1001)' 5e-7 600000.5; do
    n="exact-rate-$(echo "$r" | tr -c '0-9a-z\n' _)"
    ff "$n" -f lavfi -i color=s=16x16:r=25:d=0.04 -vf "mcfps=mode=dup:fps=$r" -f framecrc -
    rc_m=$rc
    ff "$n-fps" -f lavfi -i color=s=16x16:r=25:d=0.04 -vf "fps=$r" -f framecrc -
    if [ "$rc_m" -ne 0 ] || [ "$rc" -ne 0 ] || ! cmp -s "$tmp/$n.out" "$tmp/$n-fps.out"; then
        bad "$n" "fps=$r: $(grep '^#tb' "$tmp/$n.out"), $(nframes "$tmp/$n.out") frames; fps: $(grep '^#tb' "$tmp/$n-fps.out"), $(nframes "$tmp/$n-fps.out") frames"
    else
        ok "$n"
    fi
done
# a frame of another size at the instant of the one before it takes its
# place, as fps keeps the last frame of an instant
like_fps like-fps-resize-instant "testsrc2=s=64x48:r=25:d=0.4,scale=w='if(lt(n,6),64,96)':h=48:eval=frame,settb=1/100000,setpts='if(lt(N,5),N*4000,if(eq(N,5),16001,N*4000))'" 25
# two frames less than 1/256 of an output frame apart, on either side of a
# half tick (1.49975 and 1.5 ticks), of two sizes: fps shows the first on
# tick 1 and the second from tick 2 on; mcfps the same ticks, and the first
# frame unchanged on tick 1, not the second in its place
n=like-fps-straddle
S2="testsrc2=s=48x32:r=25:d=0.12,scale=w='if(gte(n,2),48,32)':h='if(gte(n,2),16,32)':eval=frame,settb=1/100000,setpts='if(eq(N,0),5999,if(eq(N,1),6000,10000))'"
like_fps "$n" "$S2" 25
if [ "$(grep -v '^#' "$tmp/$n.out" | head -n 1)" != "$(grep -v '^#' "$tmp/$n-fps.out" | head -n 1)" ]; then
    bad "$n-first" "tick 1: $(grep -v '^#' "$tmp/$n.out" | head -n 1), fps: $(grep -v '^#' "$tmp/$n-fps.out" | head -n 1)"
else
    ok "$n-first"
fi
# the last frames and the end all round to the tick after the last made
like_fps like-fps-fast   "testsrc2=s=32x32:r=30:d=3.06" 1
# two frames 5 ms apart, the end 5 ms later: no tick at all at 25 fps
like_fps like-fps-none   "testsrc2=s=32x32:r=25:d=1,trim=end_frame=2,settb=1/1000,setpts='if(lt(N,2),5*N,10)'" 25
# a frame on tick 1 (40 ms) and one 10 us after it: the later one shows
# there unchanged, as fps keeps the last frame of an instant
n=same-instant-after
S="testsrc2=s=32x32:r=25:d=1,trim=end_frame=4,settb=1/100000,setpts='if(lt(N,4),eq(N,1)*4000+eq(N,2)*4001+eq(N,3)*8000,12000)'"
ff $n -filter_complex "$S,gpume=device=cpu:dir=bi,mcfps=fps=25" -fps_mode passthrough -f framemd5 -
ff $n-ref -filter_complex "$S" -fps_mode passthrough -f framemd5 -
got=$(grep -v '^#' "$tmp/$n.out" | awk -F, 'NR == 2 { print $6 }')
want=$(grep -v '^#' "$tmp/$n-ref.out" | awk -F, 'NR == 3 { print $6 }')
if [ "$rc" -ne 0 ] || [ "$(nframes "$tmp/$n.out")" -ne 3 ] || [ -z "$want" ] || [ "$got" != "$want" ]; then
    bad "$n" "$(nframes "$tmp/$n.out") frames, tick 1 $got, input frame 2 $want"
else
    ok "$n"
fi

# odd sizes
for s in 1x1 2x2 17x9 33x1 1x65; do
    frames "size-$s" "testsrc2=s=$s:r=25:d=0.2,format=gray,gpume=device=cpu:dir=bi,mcfps=fps=50" 10
done
frames size-17x9-yuv "testsrc2=s=17x9:r=25:d=0.2,format=yuv420p,gpume=device=cpu:dir=bi,mcfps=fps=50" 10

# a size change mid-stream: gpume and mcfps restart, every tick still goes out
frames size-change "testsrc2=s=64x48:r=25:d=0.4,scale=w='if(lt(n,5),64,96)':h='if(lt(n,5),48,40)':eval=frame,gpume=device=cpu:dir=bi,mcfps=fps=50" 20
if grep -q "mcfps.*size or format changed from 64x48" "$tmp/size-change.err"; then
    ok size-change-warning
else
    bad size-change-warning "no restart warning: $(tailof "$tmp/size-change.err")"
fi

# 10-bit input: converted to 8 bit ahead of gpume by the graph
frames 10bit "testsrc2=s=64x48:r=25:d=0.2,format=yuv420p10le,gpume=device=cpu:dir=bi,mcfps=fps=50" 10

# nv12, nv21 (NVDEC's nv12): by definition yuv420p's output with the chroma
# interleaved (docs/ALGORITHMS.md M3), on three slice threads
for f in nv12 nv21; do
    ff "$f-planar" -filter_threads 3 -f lavfi \
        -i "$SRC,format=yuv420p,gpume=device=cpu:dir=bi,mcfps=fps=60,format=$f" -f framemd5 -
    ff "$f" -filter_threads 3 -f lavfi -i "$SRC,format=$f,gpume=device=cpu:dir=bi,mcfps=fps=60" -f framemd5 -
    if [ "$rc" -ne 0 ]; then
        bad "$f" "exit status $rc: $(tailof "$tmp/$f.err")"
    elif [ "$(nframes "$tmp/$f.out")" -ne 24 ] || ! cmp -s "$tmp/$f-planar.out" "$tmp/$f.out"; then
        bad "$f" "not yuv420p's output: $(diff "$tmp/$f-planar.out" "$tmp/$f.out" | head -n 2 | tr '\n' ' ')"
    else
        ok "$f"
    fi
done
# a pair's vectors read in runs on several slice threads (three runs a
# frame of 12288 vectors, two of them within one direction): the fields,
# so the frames, of one thread
runs="testsrc2=s=832x512:r=25:d=0.4,crop=768:512:x=4*n"
for m in mc blend; do
    ff "runs-$m-1" -f lavfi -i "$runs" -filter_threads 1 -vf "gpume=device=cpu:dir=bi,mcfps=fps=50:mode=$m" \
        -f framemd5 -
    rc1=$rc
    ff "runs-$m" -v debug -f lavfi -i "$runs" -filter_threads 8 -vf "gpume=device=cpu:dir=bi,mcfps=fps=50:mode=$m" \
        -f framemd5 -
    if [ "$rc1" -ne 0 ] || [ "$rc" -ne 0 ]; then
        bad "runs-$m" "exit status $rc1, $rc: $(tailof "$tmp/runs-$m-1.err") $(tailof "$tmp/runs-$m.err")"
    elif ! grep -q "mcfps.*the pair's vectors in 3 runs a frame" "$tmp/runs-$m.err"; then
        bad "runs-$m" "the vectors were not read in three runs"
    elif [ "$(nframes "$tmp/runs-$m.out")" -ne 20 ] || ! cmp -s "$tmp/runs-$m-1.out" "$tmp/runs-$m.out"; then
        bad "runs-$m" "not one thread's output: $(diff "$tmp/runs-$m-1.out" "$tmp/runs-$m.out" | head -n 2 | tr '\n' ' ')"
    else
        ok "runs-$m"
    fi
done
# what it does not read: refused at negotiation, naming mcfps
for f in p010le yuv420p10le nv24; do
    refused "format-$f" "mcfps.* do not have a common format" -noauto_conversion_filters -f lavfi -i "$SRC" \
        -vf "scale,format=$f,mcfps=fps=50:mode=blend" -f null -
done

# a gap of 0.2 s after frame 4: ticks in it are interpolated across it
frames gap "$SRC,setpts='PTS+gte(N,5)*0.2/TB',gpume=device=cpu:dir=bi,mcfps=fps=50" 30
# a gap of 200 s: its 10000 ticks are made a frame at a time as the output
# asks for them, never all at once (1.1 GB of 320x240 frames), within 800 MB
# of address space (two malloc arenas: glibc reserves 64 MB for each); in
# ffmpeg's own graph, which runs until no filter is ready
n=long-gap
(ulimit -v 800000 && MALLOC_ARENA_MAX=2 exec timeout 120 "$FFMPEG" -nostdin -hide_banner -nostats -f lavfi \
    -i "testsrc2=s=320x240:r=25:d=0.4,setpts='PTS+gte(N,5)*200/TB'" \
    -vf gpume=device=cpu:dir=bi,mcfps=fps=50:mode=blend -f framecrc -) > "$tmp/$n.out" 2> "$tmp/$n.err"
rc=$?
pts=$(grep -v '^#' "$tmp/$n.out" | awk -F, '$2 != NR - 1 { print "tick " NR - 1 " has pts " $2; exit }')
if [ "$rc" -ne 0 ]; then
    bad "$n" "exit status $rc: $(tailof "$tmp/$n.err")"
elif [ "$(nframes "$tmp/$n.out")" -ne 10020 ] || [ -n "$pts" ]; then
    bad "$n" "$(nframes "$tmp/$n.out") frames, want 10020 $pts"
else
    ok "$n"
fi
# the same gap before the last frame: the stream's end is known while its
# ticks are made, and they are still made as the output asks for them
# (20020 of them, as fps=50 gives: ffmpeg ends the last frame as far after
# it as the one before it lies before it)
n=long-gap-end
(ulimit -v 800000 && MALLOC_ARENA_MAX=2 exec timeout 120 "$FFMPEG" -nostdin -hide_banner -nostats -f lavfi \
    -i "testsrc2=s=320x240:r=25:d=0.4,setpts='PTS+gte(N,9)*200/TB'" \
    -vf gpume=device=cpu:dir=bi,mcfps=fps=50:mode=blend -f framecrc -) > "$tmp/$n.out" 2> "$tmp/$n.err"
rc=$?
if [ "$rc" -ne 0 ]; then
    bad "$n" "exit status $rc: $(tailof "$tmp/$n.err")"
elif [ "$(nframes "$tmp/$n.out")" -ne 20020 ]; then
    bad "$n" "$(nframes "$tmp/$n.out") frames, want 20020"
else
    ok "$n"
fi
# frames beyond the range of timestamps are dropped, and so is the end
# time after them: the last kept frame (at 0.16 s, tick 8) lasts its own
# duration, here unknown, so that the stream has no end time and, as fps
# makes none then, no tick from the last frame's on; not 4e11 s of them
frames end-out-of-range "$SRC,setpts='if(gte(N,5),PTS+1e13,PTS)',gpume=device=cpu:dir=bi,mcfps=fps=50" 8
# input frames closer than 1/256 of an output frame: the later one takes
# the earlier one's place, as the fps filter keeps the last; here input
# frame 400 lies on output tick 1 (16 s) and passes unchanged
n=same-instant
ff $n -f lavfi -i testsrc2=s=64x48:r=25:d=24 -vf gpume=device=cpu:dir=bi,mcfps=fps=1/16 -f framemd5 -
ff $n-ref -f lavfi -i testsrc2=s=64x48:r=25:d=24 -vf "select='eq(n\,400)'" -f framemd5 -
got=$(grep -v '^#' "$tmp/$n.out" | awk -F, 'NR == 2 { print $6 }')
want=$(grep -v '^#' "$tmp/$n-ref.out" | awk -F, 'NR == 1 { print $6 }')
if [ "$rc" -ne 0 ] || [ "$(nframes "$tmp/$n.out")" -ne 2 ] || [ -z "$want" ] || [ "$got" != "$want" ]; then
    bad "$n" "$(nframes "$tmp/$n.out") frames, tick 1 $got, input frame 400 $want"
elif grep -q "dropped" "$tmp/$n.err"; then
    bad "$n" "frames dropped: $(tailof "$tmp/$n.err")"
else
    ok "$n"
fi
# once vectors came, a pair without them (gpume's timeline off for frames
# 4 to 6) is blended, with one warning, and the run goes on
# one_warning NAME: the run NAME warned once of pairs without vectors
one_warning() {
    n=$(grep -c "no motion vectors between" "$tmp/$1.err")
    if [ "$n" -ne 1 ]; then
        bad "$1-warning" "$n warnings, want 1: $(tailof "$tmp/$1.err")"
    else
        ok "$1-warning"
    fi
}
frames no-vectors-later "$SRC,gpume=device=cpu:dir=bi:enable='not(between(t,0.15,0.25))',mcfps=fps=50" 20
one_warning no-vectors-later
# frames gpume's timeline leaves out carry lavfi.gpume.disabled, so that the
# pairs of them are blended from the start on: with gpume off for input
# frames 0 to 3, output frames 0 to 8 are those of mode=blend, one warning
# says so, and later pairs are motion-compensated (some frame differs from
# the blend's)
frames no-vectors-first "$SRC,gpume=device=cpu:dir=bi:enable='gte(n,4)',mcfps=fps=50" 20
ff no-vectors-first-blend -f lavfi -i "$SRC,mcfps=fps=50:mode=blend" -f framecrc -
crcs() { grep -v '^#' "$1" | awk -F, -v a="$2" -v b="$3" 'NR > a && NR <= b { print $6 }'; }
n=$(grep -c "no motion vectors between" "$tmp/no-vectors-first.err")
if [ "$(crcs "$tmp/no-vectors-first.out" 0 9)" != "$(crcs "$tmp/no-vectors-first-blend.out" 0 9)" ] ||
   [ "$(crcs "$tmp/no-vectors-first.out" 9 20)" = "$(crcs "$tmp/no-vectors-first-blend.out" 9 20)" ] ||
   [ "$n" -ne 1 ]; then
    bad no-vectors-first-blend "$n warnings, or frames 0 to 8 not the blend's, or all later ones: $(tailof "$tmp/no-vectors-first.err")"
else
    ok no-vectors-first-blend
fi
# a command that restarts gpume at its second frame: frame 1 carries
# lavfi.gpume.restart, so that the pair without vectors is blended, not an
# error; all 24 frames, one warning
CMD="mandelbrot=s=64x48:r=25,trim=end_frame=10,format=yuv420p,sendcmd=c='0.04 gpume range 32'"
frames no-vectors-restart "$CMD,gpume=device=cpu:dir=bi,mcfps=device=cpu:fps=60" 24
one_warning no-vectors-restart
# vectors of frames of another size (scaled down or up after gpume): one
# warning that says so; gpume right before mcfps: none
for size in 40x24 160x96; do
    ff vectors-elsewhere-$size -f lavfi -i "$SRC" -vf "gpume=device=cpu:dir=bi,scale=$size,mcfps=fps=50" -f null -
    n=$(grep -c "do not fit the $size frame" "$tmp/vectors-elsewhere-$size.err")
    ff vectors-here-$size -f lavfi -i "$SRC" -vf "scale=$size,gpume=device=cpu:dir=bi,mcfps=fps=50" -f null -
    if [ "$n" -ne 1 ] || grep -q "do not fit" "$tmp/vectors-here-$size.err"; then
        bad vectors-elsewhere-$size "$n warnings with scale after gpume, want 1; before it: $(tailof "$tmp/vectors-here-$size.err")"
    else
        ok vectors-elsewhere-$size
    fi
done
# what describes the stream (here a display matrix) stays on every output
# frame, the interpolated ones too
ff sidedata-global -display_rotation 90 -noautorotate -f lavfi -i "$SRC" \
    -vf "gpume=device=cpu:dir=bi,mcfps=fps=50,showinfo" -f null -
n=$(grep -c "side data - .*displaymatrix" "$tmp/sidedata-global.err")
if [ "$rc" -ne 0 ] || [ "$n" -ne 20 ]; then
    bad sidedata-global "status $rc, $n of 20 frames with the display matrix"
else
    ok sidedata-global
fi
# frames in twos on one timestamp: the later of each takes the earlier's
# place, as in fps, without a warning; it passes unchanged on its tick
ff equal-pts -f lavfi -i "testsrc2=s=64x48:r=10:d=1.2,noise=alls=50:allf=t+u,setpts=floor(N/2)*2/TB/10" \
    -vf "gpume=device=cpu:dir=bi,mcfps=fps=10" -f framecrc -
ff equal-pts-fps -f lavfi -i "testsrc2=s=64x48:r=10:d=1.2,noise=alls=50:allf=t+u,setpts=floor(N/2)*2/TB/10" \
    -vf fps=10 -f framecrc -
got=$(grep -v '^#' "$tmp/equal-pts.out" | awk -F, '$2 % 2 == 0 { print $2, $NF }')
want=$(grep -v '^#' "$tmp/equal-pts-fps.out" | awk -F, '$2 % 2 == 0 { print $2, $NF }')
if [ "$rc" -ne 0 ] || [ "$(nframes "$tmp/equal-pts.out")" -ne 11 ] || [ -z "$want" ]; then
    bad equal-pts "$(nframes "$tmp/equal-pts.out") frames: $(tailof "$tmp/equal-pts.err")"
elif grep -q "does not follow" "$tmp/equal-pts.err"; then
    bad equal-pts "a frame dropped: $(tailof "$tmp/equal-pts.err")"
elif [ "$got" != "$want" ]; then
    bad equal-pts "the even ticks are not fps's (the later frame of each timestamp)"
else
    ok equal-pts
fi
# a timestamp that goes back: that frame is dropped with a warning
frames backwards "$SRC,setpts='if(eq(N,5),PTS-3,PTS)',gpume=device=cpu:dir=bi,mcfps=fps=50" 20
if grep -q "does not follow" "$tmp/backwards.err"; then ok backwards-warning; else bad backwards-warning "no warning"; fi
# frames without a timestamp, first and later, are dropped as fps drops them:
# one warning, the rest at verbose level, and the count at the end
frames no-pts "$SRC,setpts='if(lt(N\,2)+eq(N\,6)+eq(N\,7),NAN,PTS)',gpume=device=cpu:dir=bi,mcfps=fps=50" 16
n=$(grep -c "without timestamp dropped" "$tmp/no-pts.err")
if [ "$n" -ne 1 ] || ! grep -q "4 input frames dropped" "$tmp/no-pts.err"; then
    bad no-pts-warning "$n warnings, want 1 and the count of 4"
else
    ok no-pts-warning
fi
# a source that repeats frames: noted once, naming the way around it; a
# moving source is not
frames repeats "testsrc2=s=64x48:r=25:d=0.4,select='not(mod(n\,2))',fps=25,gpume=device=cpu:dir=bi,mcfps=fps=50" 20
n=$(grep -c "mcfps.*are the same picture.*mpdecimate before gpume" "$tmp/repeats.err")
if [ "$n" -ne 1 ]; then
    bad repeats-note "$n notes of the repeated frames, want 1"
elif grep -q "same picture" "$tmp/gap.err"; then
    bad repeats-note "a note on a moving source"
else
    ok repeats-note
fi

# the motion check (check=1, the default) changes the pairs that have a
# frame before them in the run, and no other: at 50 fps from 25, output
# 2n + 1 is the pair (n, n + 1); the first pair has no frame before it, the
# pair (3, 4) is a cut (no interpolation) and (4, 5) follows it
# md5s NAME ARGS...: ffmpeg ARGS -f framemd5; each output frame's MD5, a line
# each, in $tmp/NAME.md5
md5s() {
    n=$1
    shift
    ff "$n" "$@" -f framemd5 -
    grep -v '^#' "$tmp/$n.out" | awk -F, '{ print $NF }' > "$tmp/$n.md5"
}
# pairs_changed OPTION SOURCE: the output frames (50 fps from 25) in which
# mcfps with OPTION=1 and OPTION=0 differ must be those of the pairs with a
# pair before them in the run: not the first, the cut (3, 4) or (4, 5)
pairs_changed() {
    for v in 1 0; do
        md5s "$1-$v" -f lavfi -i "$2,gpume=device=cpu:dir=bi,mcfps=fps=50:$1=$v"
    done
    changed=$(paste -d' ' "$tmp/$1-1.md5" "$tmp/$1-0.md5" | awk '$1 != $2 { printf "%d ", NR - 1 }')
    if [ "$(nframes "$tmp/$1-1.out")" -ne 20 ] || [ "$(nframes "$tmp/$1-0.out")" -ne 20 ]; then
        bad "$1" "$(nframes "$tmp/$1-1.out") and $(nframes "$tmp/$1-0.out") frames, want 20"
    elif [ "$changed" != "3 5 11 13 15 17 " ]; then
        bad "$1" "$1=0 and $1=1 differ in output frames '$changed', want '3 5 11 13 15 17 '"
    else
        ok "$1"
    fi
}
CUT="testsrc2=s=320x240:r=25:d=0.4,crop=160:120:x='if(lt(n,4),3*n,150)':y='if(lt(n,4),n,110)'"
pairs_changed check "$CUT"
# the bend (bend=1, the default) likewise; the motion speeds up before the cut
pairs_changed bend "testsrc2=s=320x240:r=25:d=0.4,crop=160:120:x='if(lt(n,4),2*n*n,150)':y='if(lt(n,4),n,110)'"

# a cut between pictures of low contrast stays under the scene score (0.14)
# but the mean SAD jumps (0.3 to 17): the frame between the input frames 4
# and 5 (output 9 at 50 fps) is input 4 itself, and with scene_sad=0 a frame
# made from both
LOWCUT="testsrc2=s=320x240:r=25:d=0.4,crop=160:120:x='if(lt(n,5),0,150)':y='if(lt(n,5),0,110)'[v];color=c=gray@0.5:s=160x120:r=25:d=0.4,format=yuva420p[g];[v][g]overlay"
md5s low-cut-in -f lavfi -i "$LOWCUT"
md5s low-cut-10 -f lavfi -i "$LOWCUT,gpume=device=cpu:dir=bi,mcfps=fps=50"
md5s low-cut-0 -f lavfi -i "$LOWCUT,gpume=device=cpu:dir=bi,mcfps=fps=50:scene_sad=0"
in4=$(sed -n 5p "$tmp/low-cut-in.md5")
in5=$(sed -n 6p "$tmp/low-cut-in.md5")
cut9=$(sed -n 10p "$tmp/low-cut-10.md5")
made9=$(sed -n 10p "$tmp/low-cut-0.md5")
if [ "$(nframes "$tmp/low-cut-10.out")" -ne 20 ] || [ -z "$in4" ]; then
    bad scene-sad "$(nframes "$tmp/low-cut-10.out") frames: $(tailof "$tmp/low-cut-10.err")"
elif [ "$cut9" != "$in4" ]; then
    bad scene-sad "output 9 is not input frame 4"
elif [ "$made9" = "$in4" ] || [ "$made9" = "$in5" ]; then
    bad scene-sad "with scene_sad=0, output 9 is an input frame"
else
    ok scene-sad
fi

# a pair without vectors (a gpume command restarts estimation) leaves no
# mean SAD to compare with: the first pair after it, searched with other
# options, is no cut
ff sad-after-restart -v verbose -f lavfi -i "testsrc2=s=160x120:r=25:d=1.2,crop=128:96:x=3*n:y=n" \
    -vf "sendcmd=c='0.5 gpume range 1;0.5 gpume subpel 0',gpume=device=cpu:dir=bi,mcfps=fps=50:scene_sad=1.5" \
    -f null -
if [ "$rc" -ne 0 ] || ! grep -q "no motion vectors between" "$tmp/sad-after-restart.err"; then
    bad sad-after-restart "status $rc, no pair without vectors: $(tailof "$tmp/sad-after-restart.err")"
elif grep -q "scene cut" "$tmp/sad-after-restart.err"; then
    bad sad-after-restart "$(grep -m1 "scene cut" "$tmp/sad-after-restart.err")"
else
    ok sad-after-restart
fi

# mode=dup shows what fps shows: the later frame of a pair from its tick
# rounded to nearest, also where it lies just under half a tick after it
# (1.4999 ticks), or half a tick before zero (-copyts keeps it there); where
# frames round to one tick, the last of them (60 to 25 fps, frames in twos a
# few ms apart, frames in twos a few µs apart, on one instant)
dup_like_fps() { # NAME SOURCE RATE
    for f in "fps=$3" "mcfps=fps=$3:mode=dup"; do
        ff "$1-${f%%=*}" -copyts -f lavfi -i "$2" -vf "$f" -f framecrc -
        grep -v '^#' "$tmp/$1-${f%%=*}.out" | awk -F, '{ print $2, $NF }' > "$tmp/$1-${f%%=*}.crc"
    done
    if [ "$(grep -c . "$tmp/$1-fps.crc")" -lt 4 ]; then
        bad "$1" "fps=$3: $(tailof "$tmp/$1-fps.err")"
    elif ! cmp -s "$tmp/$1-fps.crc" "$tmp/$1-mcfps.crc"; then
        bad "$1" "the frames differ from fps=$3's at ticks $(paste -d' ' "$tmp/$1-fps.crc" "$tmp/$1-mcfps.crc" |
            awk '$1 != $3 || $2 != $4 { printf "%s ", $1 }')"
    else
        ok "$1"
    fi
}
dup_like_fps dup-like-fps-24 "testsrc2=s=64x48:r=24:d=0.5" 60
dup_like_fps dup-like-fps-half "testsrc2=s=64x48:r=10:d=0.8,settb=1/10000,setpts=N*1500-mod(N\\,2)" 10
dup_like_fps dup-like-fps-negative "testsrc2=s=64x48:r=10:d=0.6,settb=1/20,setpts=2*N-3" 10
dup_like_fps dup-like-fps-equal "testsrc2=s=32x24:r=10:d=1,noise=alls=50:allf=t+u,setpts=floor(N/2)*2/TB/10" 10
dup_like_fps dup-like-fps-down "testsrc2=s=32x24:r=60:d=0.5,noise=alls=50:allf=t+u" 25
dup_like_fps dup-like-fps-twos "testsrc2=s=32x24:r=10:d=2,noise=alls=50:allf=t+u,settb=1/100000,setpts=floor(N/2)*3000+mod(N\\,2)*mod(N*217\\,1000)" 24000/1001
dup_like_fps dup-like-fps-instant "testsrc2=s=32x24:r=10:d=2,noise=alls=50:allf=t+u,settb=1/1000000,setpts=floor(N/2)*100000+mod(N\\,2)*(1+mod(N\\,3))+mod(floor(N/2)*7919\\,50000)" 60

# a cut across a gap (frame 4 at 0.4 s, frame 5 at 1.5 s): each tick a
# copy of the nearer frame, 4 up to 0.9 s and 5 from 1.0 s on; the other
# ticks those of fps=10 (no picture that neither shows)
GAPCUT="testsrc2=s=160x120:r=10:d=0.5,format=yuv420p[a];smptebars=s=160x120:r=10:d=0.5,format=yuv420p[b];[a][b]concat,setpts=PTS+gte(N\\,5)/TB"
md5s gap-cut-fps -f lavfi -i "$GAPCUT" -vf fps=10
awk '{ l[NR] = $0 } END { for (i = 1; i <= NR; i++) print (i >= 11 && i <= 15 ? l[16] : l[i]) }' \
    "$tmp/gap-cut-fps.md5" > "$tmp/gap-cut-want.md5"
md5s gap-cut -f lavfi -i "$GAPCUT" -vf gpume=device=cpu:dir=bi,mcfps=fps=10
if [ "$(nframes "$tmp/gap-cut.out")" -ne 20 ] || [ "$(wc -l < "$tmp/gap-cut-fps.md5")" -ne 20 ]; then
    bad gap-cut "$(nframes "$tmp/gap-cut.out") frames: $(tailof "$tmp/gap-cut.err")"
elif ! cmp -s "$tmp/gap-cut.md5" "$tmp/gap-cut-want.md5"; then
    bad gap-cut "not the nearer frame in output frames $(paste -d' ' "$tmp/gap-cut.md5" \
        "$tmp/gap-cut-want.md5" | awk '$1 != $2 { printf "%d ", NR - 1 }')"
else
    ok gap-cut
fi

# runtime commands (sendcmd just before mcfps): one changes the frames from
# the pair its frame ends (the frame of 0.2 s ends the pair (4, 5), whose
# frame at 50 fps is output 9), none before; one that would put rel_lo at
# or above rel_hi is refused, changing nothing
for c in none "0.2 mcfps rel_hi 200" "0.2 mcfps rel_lo 900"; do
    n=cmd-$(echo "$c" | tr -c 'a-z0-9\n' '-')
    g="mcfps=fps=50"
    [ "$c" = none ] || g="sendcmd=c='$c',$g"
    md5s "$n" -f lavfi -i "$SRC,gpume=device=cpu:dir=bi,$g"
done
first=$(paste -d' ' "$tmp/cmd-none.md5" "$tmp/cmd-0-2-mcfps-rel-hi-200.md5" | awk '$1 != $2 { print NR - 1; exit }')
if [ "$(wc -l < "$tmp/cmd-none.md5")" -ne 20 ] || [ "${first:-none}" != 9 ]; then
    bad command "rel_hi at 0.2 s: first changed output frame '${first:-none}', want 9 (of $(wc -l < "$tmp/cmd-none.md5"))"
elif ! cmp -s "$tmp/cmd-none.md5" "$tmp/cmd-0-2-mcfps-rel-lo-900.md5" ||
     ! grep -q "rel_lo=900 must be below rel_hi=640; command ignored" "$tmp/cmd-0-2-mcfps-rel-lo-900.err"; then
    bad command "rel_lo 900 not refused, or the output changed: $(tailof "$tmp/cmd-0-2-mcfps-rel-lo-900.err")"
else
    ok command
fi

# bad options
refused opt-fps "Invalid value\|fps" -f lavfi -i "$SRC" -vf "gpume,mcfps=fps=0" -f null -
refused opt-fps-expr "fps=2\*fast: not a rate or an expression of source_fps" -f lavfi -i "$SRC" \
    -vf "gpume,mcfps=fps=2*fast" -f null -
# beyond the numerator mcfps can time: refused, not capped, and not called a negative rate
refused opt-fps-large "fps=1e9: 1000000000, a fraction whose numerator is above 8388607" -f lavfi -i "$SRC" \
    -vf "gpume,mcfps=fps=1e9" -f null -
refused opt-fps-huge "fps=4294967296: 4294967296, a fraction whose numerator is above 8388607" -f lavfi -i "$SRC" \
    -vf "gpume,mcfps=fps=4294967296" -f null -
# setpts leaves the frame rate unknown: source_fps is refused, with the reason
refused opt-fps-unknown "the input's frame rate is unknown" -f lavfi -i "$SRC" \
    -vf "setpts=PTS+0.013/TB,gpume,mcfps=fps=source_fps*2" -f null -
refused opt-rel "rel_lo" -f lavfi -i "$SRC" -vf "gpume,mcfps=rel_lo=100:rel_hi=50" -f null -
refused opt-mode "mode" -f lavfi -i "$SRC" -vf "gpume,mcfps=mode=fast" -f null -
refused opt-scene "scene" -f lavfi -i "$SRC" -vf "gpume,mcfps=scene=2" -f null -
refused opt-scene-sad "scene_sad" -f lavfi -i "$SRC" -vf "gpume,mcfps=scene_sad=-1" -f null -

# side data of the output: none of the inputs' vectors, keys or picture
# types; the key-frame flag (testsrc2's frames are key frames, 25 a second)
# on the ticks the inputs' times round to, and on no other: the input frames
# on their ticks, the first of mode=dup's copies, frames made between two
key_frames() { # NAME RATE FILTER
    timeout 120 "$FFPROBE" -v error -of compact=p=0 \
        -show_entries frame=key_frame,pts,pict_type:frame_tags:frame_side_data=side_data_type \
        -f lavfi "$SRC,$3" > "$tmp/probe.out" 2> "$tmp/probe.err"
    want=$(timeout 120 "$FFPROBE" -v error -of csv=p=0 -show_entries frame=pts -f lavfi "$SRC,fps=$2" | grep -c .)
    # (an error of awk's counts as a wrong flag)
    wrong=$(awk -F'|' -v r="$2" 'BEGIN { for (i = 0; i < 10; i++) key[int(i * r / 25 + 0.5)] = 1 }
                                  { split($1, k, "="); split($2, p, "=");
                                    if ((k[2] == 1) != (p[2] in key)) print }' "$tmp/probe.out" 2>&1 ||
            echo "awk failed")
    if [ "$(grep -c . "$tmp/probe.out")" -ne "$want" ]; then
        bad "$1" "$(grep -c . "$tmp/probe.out") frames, fps=$2 makes $want; ffprobe: $(tailof "$tmp/probe.err")"
    elif grep -q -i "motion\|gpume\|pict_type=[IPB]" "$tmp/probe.out"; then
        bad "$1" "$(grep -i -m1 "motion\|gpume\|pict_type=[IPB]" "$tmp/probe.out")"
    elif [ -n "$wrong" ]; then
        bad "$1" "key-frame flag: $(echo "$wrong" | head -n 1)"
    else
        ok "$1"
    fi
}
key_frames sidedata 50 "gpume=device=cpu:dir=bi,mcfps=fps=50"
key_frames sidedata-dup 75 "gpume=device=cpu:dir=bi,mcfps=fps=75:mode=dup"
key_frames sidedata-60 60 "gpume=device=cpu:dir=bi,mcfps=fps=60"
key_frames sidedata-10 10 "gpume=device=cpu:dir=bi,mcfps=fps=10"

# interlaced input: every output frame has its field order, the made ones too
timeout 120 "$FFPROBE" -v error -of csv=p=0 -show_entries frame=interlaced_frame,top_field_first \
    -f lavfi "$SRC,setfield=tff,gpume=device=cpu:dir=bi,mcfps=fps=60" > "$tmp/field.out" 2> "$tmp/field.err"
if [ "$(grep -c . "$tmp/field.out")" -ne 24 ] || [ "$(sort -u "$tmp/field.out")" != "1,1" ]; then
    bad field-order "$(sort "$tmp/field.out" | uniq -c | tr '\n' ' ') $(tailof "$tmp/field.err")"
else
    ok field-order
fi

# devices: device=auto names its choice in one info line; device=cuda with
# no driver fails clearly; where OpenCL runs (PoCL here, in make check), the
# OpenCL backend's output is the CPU's byte for byte, from software frames
# and from OpenCL frames (kept on the device: hwdownload takes them)
ff device-auto -f lavfi -i "$SRC" -vf gpume=device=cpu:dir=bi,mcfps=fps=50 -f null -
if [ "$rc" -ne 0 ]; then
    bad device-auto "exit status $rc: $(tailof "$tmp/device-auto.err")"
elif [ "$(grep -c 'mcfps.*using the .* backend' "$tmp/device-auto.err")" -ne 1 ] ||
     grep -q 'mcfps.*\(error\|Error\)' "$tmp/device-auto.err"; then
    bad device-auto "not one info line: $(grep mcfps "$tmp/device-auto.err" | head -n 3 | tr '\n' ' ')"
else
    ok device-auto
fi
if [ -e /dev/nvidia0 ] || [ -e /dev/nvidiactl ]; then
    skipped "device-cuda-missing: this machine has an NVIDIA device"
else
    refused device-cuda-missing "device=cuda: no CUDA" -f lavfi -i "$SRC" \
        -vf gpume=device=cpu:dir=bi,mcfps=fps=50:device=cuda -f null -
fi
# same NAME GRAPH [OPENCL-GRAPH [FFMPEG OPTIONS]]: GRAPH with @DEV@ as
# device=cpu, and OPENCL-GRAPH (default GRAPH with device=opencl), give the
# same framemd5; the second runs on the OpenCL backend
same() {
    n=$1 g=$2 og=${3:-}
    shift 2
    [ $# -gt 0 ] && shift
    [ -n "$og" ] || og=$(echo "$g" | sed 's/@DEV@/device=opencl/')
    ff "$n-cpu" -f lavfi -i "$SRC" -vf "$(echo "$g" | sed 's/@DEV@/device=cpu/')" -f framemd5 -
    cp "$tmp/$n-cpu.out" "$tmp/$n.ref"
    ff "$n" -v verbose "$@" -f lavfi -i "$SRC" -vf "$og" -f framemd5 -
    if [ "$rc" -ne 0 ]; then
        bad "$n" "exit status $rc: $(tailof "$tmp/$n.err")"
    elif [ "$(nframes "$tmp/$n.ref")" -lt 10 ] || ! cmp -s "$tmp/$n.ref" "$tmp/$n.out"; then
        bad "$n" "output differs from device=cpu: $(diff "$tmp/$n.ref" "$tmp/$n.out" | head -n 2 | tr '\n' ' ')"
    elif ! grep -q 'mcfps.*using the opencl backend' "$tmp/$n.err"; then
        bad "$n" "not on the OpenCL backend: $(grep 'using the' "$tmp/$n.err" | tr '\n' ' ')"
    else
        ok "$n"
    fi
}
if [ "${GPUME_OPENCL:-no}" != yes ]; then
    skipped "opencl: no OpenCL in this build"
elif ! "$FFMPEG" -v error -init_hw_device opencl=ocl -f lavfi -i color=s=16x16:d=0.04 -f null - > /dev/null 2>&1; then
    skipped "opencl: no OpenCL device"
else
    same opencl-mc    "gpume=device=cpu:dir=bi,mcfps=fps=60:@DEV@"
    same opencl-fwd   "gpume=device=cpu:dir=fwd,mcfps=fps=60:lambda=8:@DEV@"
    same opencl-bwd   "gpume=device=cpu:dir=bwd,mcfps=fps=100:@DEV@"
    same opencl-nocheck "gpume=device=cpu:dir=bi,mcfps=fps=60:check=0:@DEV@"
    same opencl-blend "gpume=device=cpu:dir=bi,mcfps=fps=60:mode=blend:@DEV@"
    same opencl-gray  "format=gray,gpume=device=cpu:dir=bi,mcfps=fps=50:@DEV@"
    same opencl-444   "format=yuv444p,gpume=device=cpu:dir=bi,mcfps=fps=50:rel_lo=0:rel_hi=1:@DEV@"
    same opencl-nv12  "format=nv12,gpume=device=cpu:dir=bi,mcfps=fps=60:@DEV@"
    same opencl-size-change "scale=w='if(lt(n,5),80,64)':h='if(lt(n,5),48,40)':eval=frame,gpume=device=cpu:dir=bi,mcfps=fps=50:@DEV@"
    # OpenCL frames in, OpenCL frames of the same frames context out
    # (hwdownload takes nothing else): every mode
    for m in mc blend dup; do
        same "opencl-frames-$m" "format=yuv420p,gpume=device=cpu:dir=bi,mcfps=fps=60:mode=$m:@DEV@" \
            "format=yuv420p,hwupload,gpume=dir=bi,mcfps=fps=60:mode=$m,hwdownload,format=yuv420p" \
            -init_hw_device opencl=ocl -filter_hw_device ocl
    done
    # nv12 OpenCL frames (CL_RG images for the chroma) where the device has them
    if "$FFMPEG" -v error -init_hw_device opencl=ocl -filter_hw_device ocl -f lavfi -i color=s=16x16:d=0.04 \
            -vf format=nv12,hwupload,hwdownload,format=nv12 -f null - > /dev/null 2>&1; then
        same opencl-frames-nv12 "format=nv12,gpume=device=cpu:dir=bi,mcfps=fps=60:@DEV@" \
            "format=nv12,hwupload,gpume=dir=bi,mcfps=fps=60,hwdownload,format=nv12" \
            -init_hw_device opencl=ocl -filter_hw_device ocl
    else
        skipped "opencl-frames-nv12: the OpenCL device has no nv12 frames"
    fi
    # tickcheck with mcfps on OpenCL, whose frames wait in a queue while the
    # device renders them: fps's ticks, dup's frames and captions on 100
    # random inputs
    export TICKCHECK_DEVICE=opencl
    program tickcheck tickcheck-opencl 100
    unset TICKCHECK_DEVICE
    # hardware frames of a format mcfps does not read: a clear error
    refused opencl-frames-10bit "unsupported hardware frames" -init_hw_device opencl=ocl -filter_hw_device ocl \
        -f lavfi -i "$SRC" -vf "format=yuv420p10le,hwupload,mcfps=fps=50:mode=blend" -f null -
fi

# valgrind: a conversion with a size change and the failure path, mcfps's
# own code on the CPU backend (with device=auto the OpenCL probe dlopens the
# platforms, PoCL, and where the heap lays a string out so, valgrind reports
# glibc's dynamic loader reading 8 bytes past one: strncmp from is_dst() of
# dl-load.c on decompose_rpath()'s strdup); a failure shows the error's stack
if command -v valgrind > /dev/null; then
    # the second graph has no vectors: mcfps's error, and ffmpeg fails
    for g in "scale=w='if(lt(n,3),40,24)':h=16:eval=frame,gpume=device=cpu:dir=bi,mcfps=fps=60:device=cpu" \
             "mcfps=fps=60:device=cpu"; do
        timeout -s KILL 300 valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
            "$FFMPEG" -nostdin -v error -f lavfi -i testsrc2=s=40x24:r=25:d=0.24 -vf "$g" -f null - \
            > "$tmp/vg.out" 2> "$tmp/vg.err"
        rc=$?
        if [ "$rc" -eq 99 ] || crashed; then
            bad valgrind "$g: $(grep -m1 -A12 -E '^==[0-9]+== (Invalid|.*definitely lost)' "$tmp/vg.err" | tr '\n' ' ')"
        elif case $g in mcfps*) [ "$rc" -eq 0 ] || ! grep -q 'no motion vectors' "$tmp/vg.err" ;;
                        *) [ "$rc" -ne 0 ] ;; esac; then
            bad valgrind "$g: exit status $rc: $(grep -v '^==' "$tmp/vg.err" | tail -n 2 | tr '\n' ' ')"
        else
            ok "valgrind ${g##*,}"
        fi
    done
else
    skipped "valgrind not installed"
fi

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
