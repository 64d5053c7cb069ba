#!/bin/sh
# What the gpume filter does with input it cannot estimate, and the truth of
# what it leaves on frames (docs/RELIABILITY.md):
#  - a frame whose pixel format changes without a new filter graph
#    (ffmpeg -reinit_filter 0): refused with an error naming both formats, no
#    out-of-bounds read (valgrind, when installed);
#  - frames over the 16383-pixel limit: an error that says what and why;
#  - side data: frames without vectors carry no lavfi.gpume.* key, no vectors
#    and pict_type I, whatever an earlier filter set; with dir=bi the metadata
#    describe the forward vectors on every frame (none on the first);
#  - a frame whose search takes seconds is announced at info level, with the
#    option that makes it fast; a small one is not;
#  - -filter_hw_device: device=auto runs on the filter graph's OpenCL device
#    (PoCL here) and says so.
# Each check failed before the change it guards.
#
# environment (tests/run.sh): FFMPEG FFPROBE BUILDDIR GPUME_OPENCL. Prints
# "FAIL name: detail" per failure, "skipped: reason" per skipped check and
# "N passed, N failed, N skipped" last; exit status 1 on a failure.
set -u

: "${BUILDDIR:=build}" "${FFMPEG:=$BUILDDIR/ffmpeg/ffmpeg}" "${FFPROBE:=$BUILDDIR/ffmpeg/ffprobe}"
: "${GPUME_OPENCL:=no}" "${POCL_CACHE_DIR:=$BUILDDIR/pocl-cache}"
export POCL_CACHE_DIR
pass=0 fail=0 skip=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpume-reliability.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

ok()      { pass=$((pass + 1)); echo "ok $1"; }
bad()     { fail=$((fail + 1)); echo "FAIL $1: $2"; }
skipped() { skip=$((skip + 1)); echo "skipped: $1"; }
tailof()  { grep -v '^\s*$' "$1" | tail -n "${2:-2}" | tr '\n' ' ' | cut -c1-300; }

# ff NAME ARGS...: ffmpeg ARGS (bounded in time, prefixed by $WRAP), stderr in
# $tmp/NAME.err, exit status in $rc
WRAP=
ff() {
    name=$1
    shift
    # shellcheck disable=SC2086 # WRAP: words of a command prefix
    timeout 300 $WRAP "$FFMPEG" -nostdin -hide_banner -nostats "$@" > "$tmp/$name.out" 2> "$tmp/$name.err"
    rc=$?
}
# killed by a signal or the time limit (ffmpeg's own errors exit with 1..255 minus those)
crashed() { [ "$rc" -eq 124 ] || { [ "$rc" -gt 128 ] && [ "$rc" -lt 160 ]; }; }

# probe NAME GRAPH: ffprobe's frames of the lavfi GRAPH, one line each:
# pict_type, lavfi.gpume.* tags, side data types
probe() {
    "$FFPROBE" -v error -of compact=p=0 -show_entries \
        frame=pict_type:frame_tags:frame_side_data=side_data_type -f lavfi "$2" \
        > "$tmp/$1.txt" 2> "$tmp/$1.err"
}

# --- a format change without a new graph -------------------------------------------
# PNGs of one size decode to gray, monob or rgb24; with -reinit_filter 0 the
# ffmpeg CLI sends each frame into the graph configured for the first
png() { # NAME FORMAT
    "$FFMPEG" -v error -y -f lavfi -i "testsrc2=s=640x480:d=0.04,format=$2" -frames:v 1 -update 1 "$tmp/$1" ||
        bad "png-$2" "making $1 failed"
}
mkdir -p "$tmp/mono" "$tmp/rgb"
png mono/f01.png gray; png mono/f02.png monob; png mono/f03.png monob; png mono/f04.png gray
png rgb/f01.png gray;  png rgb/f02.png rgb24;  png rgb/f03.png gray

# refused NAME DIR NEWFMT: the run fails (not a crash) with an error naming
# NEWFMT and gray; under valgrind, no invalid read
refused() {
    name=$1
    ff "$name" -reinit_filter 0 -i "$tmp/$2/f%02d.png" -vf gpume=device=cpu -f null -
    if crashed; then
        bad "$name" "exit status $rc: $(tailof "$tmp/$name.err")"
    elif grep -q 'Invalid read\|Invalid write\|uninitialised' "$tmp/$name.err"; then
        bad "$name" "valgrind: $(grep -m1 -A3 'Invalid\|uninitialised' "$tmp/$name.err" | tr '\n' ' ' | cut -c1-300)"
    elif [ "$rc" -eq 0 ]; then
        bad "$name" "a $3 frame in a gray graph was accepted"
    elif ! grep -q "gpume.*a $3 frame followed gray frames" "$tmp/$name.err"; then
        bad "$name" "no error naming $3 and gray: $(tailof "$tmp/$name.err")"
    else
        ok "$name"
    fi
}
if command -v valgrind > /dev/null 2>&1; then
    WRAP="valgrind -q --error-exitcode=100"
else
    skipped "valgrind not installed (format-monob runs without it)"
fi
refused format-monob mono monob
WRAP=
refused format-rgb24 rgb rgb24

# --- the size limit -------------------------------------------------------------------
name=size-16384
ff "$name" -f lavfi -i color=s=16384x16:d=0.04 -vf gpume=device=cpu -f null -
if crashed || [ "$rc" -eq 0 ]; then
    bad "$name" "exit status $rc, an error expected: $(tailof "$tmp/$name.err")"
elif ! grep -q 'gpume.*16384x16.*at most 16383.*16-bit' "$tmp/$name.err"; then
    bad "$name" "the error does not give the limit and its reason: $(tailof "$tmp/$name.err")"
else
    ok "$name"
fi
name=size-16383
ff "$name" -f lavfi -i color=s=16383x16:d=0.08 -vf gpume=device=cpu -f null -
if [ "$rc" -eq 0 ]; then ok "$name"; else bad "$name" "exit status $rc: $(tailof "$tmp/$name.err")"; fi

# --- side data of frames without vectors ---------------------------------------------------
SRC="testsrc2=s=96x64:r=25:d=0.2"
# the first frame of gpume=dir=bwd,gpume has no vectors of the second
# instance: no vectors, no key, pict_type I (not the first instance's B)
name=stale-chain
if probe "$name" "$SRC,gpume=device=cpu:dir=bwd,gpume=device=cpu"; then
    first=$(head -n 1 "$tmp/$name.txt")
    second=$(sed -n 2p "$tmp/$name.txt")
    case "$first" in
    *lavfi.gpume*|*"Motion vectors"*|*pict_type=[PB]*) bad "$name" "frame 0: $first" ;;
    *pict_type=I*)
        case "$second" in
        *pict_type=P*lavfi.gpume.mean_sad=*"Motion vectors"*) ok "$name" ;;
        *) bad "$name" "frame 1: $second" ;;
        esac ;;
    *) bad "$name" "frame 0: $first" ;;
    esac
else
    bad "$name" "ffprobe failed: $(tailof "$tmp/$name.err")"
fi
# keys of the lavfi.gpume. namespace set upstream do not survive
name=stale-keys
if probe "$name" "$SRC,metadata=add:key=lavfi.gpume.mean_sad:value=99,metadata=add:key=lavfi.gpume.other:value=1,gpume=device=cpu"; then
    if grep -q 'lavfi.gpume.other\|mean_sad=99' "$tmp/$name.txt"; then
        bad "$name" "$(grep -m1 'lavfi.gpume.other\|mean_sad=99' "$tmp/$name.txt")"
    elif [ "$(grep -c 'lavfi.gpume.mean_sad=' "$tmp/$name.txt")" -ne 4 ]; then
        bad "$name" "$(grep -c 'lavfi.gpume.mean_sad=' "$tmp/$name.txt") frames with mean_sad, 4 expected"
    else
        ok "$name"
    fi
else
    bad "$name" "ffprobe failed: $(tailof "$tmp/$name.err")"
fi
# dir=bi: the metadata are those of dir=fwd on every frame (none on the first)
name=bi-metadata
if probe "$name-fwd" "$SRC,gpume=device=cpu:algo=full" && probe "$name" "$SRC,gpume=device=cpu:algo=full:dir=bi"; then
    f=$(sed 's/.*\(mean_sad=[^|]*\).*\(scene_score=[^|]*\).*/\1 \2/;t;s/.*/-/' "$tmp/$name-fwd.txt" | tr '\n' ' ')
    b=$(sed 's/.*\(mean_sad=[^|]*\).*\(scene_score=[^|]*\).*/\1 \2/;t;s/.*/-/' "$tmp/$name.txt" | tr '\n' ' ')
    # the first frame without keys, every later one with both
    rest=" ${f#- }"
    if [ "$f" = "$b" ] && [ "${f%% *}" = - ] && [ "$rest" != " " ] && [ "${rest#* - }" = "$rest" ]; then
        ok "$name"
    else
        bad "$name" "dir=fwd: $f; dir=bi: $b"
    fi
else
    bad "$name" "ffprobe failed: $(tailof "$tmp/$name-fwd.err" 1) $(tailof "$tmp/$name.err" 1)"
fi

# --- long frames ----------------------------------------------------------------------------
# one frame loads but is not searched (it has no previous frame), so this is quick
name=cost-warning
ff "$name" -filter_threads 1 -f lavfi -i color=s=4096x2160:d=0.04 -vf gpume=device=cpu:algo=full:range=64 -f null -
if [ "$rc" -ne 0 ]; then
    bad "$name" "exit status $rc: $(tailof "$tmp/$name.err")"
elif ! grep -q 'gpume.*4096x2160, algo=full, range=64: about [0-9]* s of search per frame.*cannot be interrupted.*algo=hme' "$tmp/$name.err"; then
    bad "$name" "no info line announcing the cost: $(tailof "$tmp/$name.err")"
else
    ok "$name"
fi
name=cost-quiet
ff "$name" -f lavfi -i testsrc2=s=1920x1080:d=0.04 -vf gpume=device=cpu -f null -
if [ "$rc" -ne 0 ]; then
    bad "$name" "exit status $rc: $(tailof "$tmp/$name.err")"
elif grep -q 'cannot be interrupted' "$tmp/$name.err"; then
    bad "$name" "a cost warning for 1080p hme: $(grep -m1 'cannot be interrupted' "$tmp/$name.err")"
else
    ok "$name"
fi

# --- the filter graph's device ------------------------------------------------------------------
name=filter-hw-device-opencl
if [ "$GPUME_OPENCL" != yes ]; then
    skipped "this build has no OpenCL ($name)"
elif ! "$FFMPEG" -v error -init_hw_device opencl=ocl -f lavfi -i color=s=16x16:d=0.04 -f null - > /dev/null 2>&1; then
    skipped "no OpenCL platform on this machine ($name)"
else
    ff "$name" -init_hw_device opencl=ocl -filter_hw_device ocl -f lavfi -i testsrc2=s=64x48:r=25:d=0.12 -vf gpume -f null -
    if [ "$rc" -ne 0 ]; then
        bad "$name" "exit status $rc: $(tailof "$tmp/$name.err")"
    elif ! grep -q "gpume.*using the opencl backend on the filter graph's device" "$tmp/$name.err"; then
        bad "$name" "not on the graph's OpenCL device: $(grep -m1 'using the' "$tmp/$name.err")"
    else
        ok "$name"
    fi
fi

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
