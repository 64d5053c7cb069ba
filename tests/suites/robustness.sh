#!/bin/sh
# Robustness of the gpume filter (docs SPEC §5 "Robustness"), on the CPU
# backend unless a check is about backends:
#  - odd and extreme sizes (1x1, 2x2, 17x9, 33x1, 1x65, 4095x2161) with every
#    search: success, one frame out per frame in, and the exported blocks of
#    each frame and direction tile the frame exactly (count and area);
#  - a frame size change mid-stream: every frame out, a warning, estimation
#    restarted at the new size;
#  - unsupported pixel formats: refused at negotiation, non-zero exit;
#  - bad option values: non-zero exit and a message naming the option;
#  - range=auto: the range each size and algorithm takes, and a pan beyond
#    16 pixels a frame that the default follows;
#  - backends: device=cuda without a GPU fails clearly, device=auto falls back
#    and logs the backend it uses, a hidden OpenCL platform is reported;
#  - the one-frame delay of dir=bwd/bi: no frame lost at the end of the stream,
#    none on streams of 0, 1 and 2 frames;
#  - valgrind memcheck of the CPU path (every search, odd sizes, a size change,
#    failure paths);
#  - gpume-mv after a failure mid-stream: the frames made before it dumped.
# Vector counts come from $BUILDDIR/gpume-mv (tools/gpume-mv/, built here
# through tools/gpume-mv/gpume-mv.mak when needed); without it, those checks fall back to
# frame counts and the presence of the side data (ffprobe).
#
# environment (tests/run.sh): FFMPEG FFPROBE BUILDDIR GPUME_CUDA. Prints
# "FAIL name: detail" per failure, "skipped: reason" per skipped check and
# "N passed, N failed, N skipped" last; exit status 1 on a failure.
set -u

: "${BUILDDIR:=build}" "${FFMPEG:=$BUILDDIR/ffmpeg/ffmpeg}" "${FFPROBE:=$BUILDDIR/ffmpeg/ffprobe}"
: "${GPUME_CUDA:=no}" "${POCL_CACHE_DIR:=$BUILDDIR/pocl-cache}"
export POCL_CACHE_DIR
MV=$BUILDDIR/gpume-mv
pass=0 fail=0 skip=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpume-robustness.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

ok()      { pass=$((pass + 1)); echo "ok $1"; }
bad()     { fail=$((fail + 1)); echo "FAIL $1: $2"; }
skipped() { skip=$((skip + 1)); echo "skipped: $1"; }

# one line of the end of a log, for FAIL messages
tailof() { grep -v '^\s*$' "$1" | tail -n "${2:-2}" | tr '\n' ' ' | cut -c1-300; }

# ff NAME ARGS...: run ffmpeg (bounded in time) with ARGS and the environment
# assignments of $FFENV; stdout in $tmp/NAME.out, stderr in $tmp/NAME.err,
# exit status in $rc
FFENV=
ff() {
    name=$1
    shift
    # shellcheck disable=SC2086 # FFENV: words of VAR=VALUE
    timeout 120 env $FFENV "$FFMPEG" -nostdin -hide_banner -nostats "$@" > "$tmp/$name.out" 2> "$tmp/$name.err"
    rc=$?
}

# crashed: $rc says killed by a signal or by the time limit (ffmpeg's own
# errors exit with the low byte of a negative AVERROR: 234 EINVAL, 218 ENOSYS...)
crashed() { [ "$rc" -eq 124 ] || { [ "$rc" -gt 128 ] && [ "$rc" -lt 160 ]; }; }

# nframes FILE: the frames of a framecrc output
nframes() { grep -vc '^#' "$1"; }

# has_gpu: the build has the CUDA backend and this machine a working NVIDIA driver
has_gpu() { [ "$GPUME_CUDA" = yes ] && nvidia-smi > /dev/null 2>&1; }

# gpume-mv: build or update it (a no-op when it is up to date). A tree
# with its source that cannot build or run it fails; the checks then fall
# back to frames and the presence of side data.
have_mv=no
if [ -f tools/gpume-mv/gpume-mv.mak ]; then
    make --no-print-directory -f tools/gpume-mv/gpume-mv.mak BUILDDIR="$BUILDDIR" "$MV" > "$tmp/build.log" 2>&1 ||
        echo "note: building $MV failed: $(tailof "$tmp/build.log")"
fi
if [ -x "$MV" ] && "$MV" dump -f csv lavfi:testsrc2=s=16x16:d=0.04 > "$tmp/mv-probe.log" 2>&1; then
    have_mv=yes
elif [ -f tools/gpume-mv/gpume-mv.mak ]; then
    bad gpume-mv "$MV cannot be built or run: $(tailof "$tmp/mv-probe.log" 2>/dev/null)"
else
    echo "note: $MV unavailable: vector counts are not checked, only frames and the presence of side data"
fi

# tiling NAME GRAPH SRC W H NFRAMES DIR: the graph GRAPH (containing gpume) on
# the lavfi source SRC of W x H, NFRAMES frames, direction DIR (fwd, bwd, bi),
# runs, outputs NFRAMES frames, and for every frame and source (-1, +1) the
# blocks tile the frame: their clipped areas add up to W*H, each lies inside
# the frame, and the directions present are those the frame position allows
# (no -1 on the first frame, no +1 on the last).
tiling() {
    name=$1 graph=$2 src=$3 w=$4 h=$5 n=$6 dir=$7
    if [ "$have_mv" = yes ]; then
        if ! timeout 120 "$MV" dump -f csv -vf "$graph" "lavfi:$src" > "$tmp/$name.csv" 2> "$tmp/$name.err"; then
            bad "$name" "gpume-mv dump -vf '$graph' lavfi:$src failed: $(tailof "$tmp/$name.err")"
            return
        fi
        # csv: 1 frame 2 pts 3 pict_type 4 count 5 source 6 w 7 h 8 src_x 9 src_y 10 dst_x 11 dst_y
        if msg=$(awk -F, -v W="$w" -v H="$h" -v N="$n" -v D="$dir" '
            function die(m) { print m; bad = 1; exit 1 }
            NR == 1 { next }
            { frames[$1] = 1 }
            $4 > 0 {
                x = $10 - int($6 / 2); y = $11 - int($7 / 2)
                if (x < 0 || y < 0 || x + $6 > W || y + $7 > H || $6 < 1 || $7 < 1)
                    die("frame " $1 ": block " $6 "x" $7 " at " x "," y " outside " W "x" H)
                area[$1 "," $5] += $6 * $7
                cnt[$1 "," $5]++
            }
            END {
                if (bad) exit 1
                nf = 0; for (f in frames) nf++
                if (nf != N) die(nf " frames out, " N " in")
                for (f = 0; f < N; f++) {
                    want_f = (D != "bwd") && f > 0
                    want_b = (D != "fwd") && f < N - 1
                    if (!want_f && ((f ",-1") in area)) die("frame " f ": unexpected source -1 vectors")
                    if (!want_b && ((f ",1") in area)) die("frame " f ": unexpected source +1 vectors")
                    if (want_f && area[f ",-1"] != W * H)
                        die("frame " f ": source -1 blocks cover " area[f ",-1"] + 0 " of " W * H " pixels")
                    if (want_b && area[f ",1"] != W * H)
                        die("frame " f ": source +1 blocks cover " area[f ",1"] + 0 " of " W * H " pixels")
                }
                printf "%d vectors on frame 1", cnt["1,-1"] + cnt["1,1"]
            }' "$tmp/$name.csv"); then
            ok "$name ($msg)"
        else
            bad "$name" "$msg"
        fi
    else
        ff "$name" -lavfi "$src,$graph" -f framecrc -
        if [ "$rc" -ne 0 ]; then
            bad "$name" "exit status $rc: $(tailof "$tmp/$name.err")"
        elif [ "$(nframes "$tmp/$name.out")" -ne "$n" ]; then
            bad "$name" "$(nframes "$tmp/$name.out") frames out, $n in"
        elif [ "$n" -gt 1 ] && ! timeout 120 "$FFPROBE" -v error -show_entries frame_side_data=side_data_type \
                 -of csv=p=0 -f lavfi "$src,$graph" 2>&1 | grep -q 'Motion vectors'; then
            bad "$name" "no frame carries motion vectors"
        else
            ok "$name (frames and side data; counts unchecked without gpume-mv)"
        fi
    fi
}

G=gpume=device=cpu:block=16

# --- sizes -------------------------------------------------------------------
# testsrc2 rounds odd sizes to its chroma subsampling, so odd yuv420p frames
# come from an exact crop, gray and yuv444p ones from the source itself
tiling size-1x1-gray        "$G"             "testsrc2=s=1x1:r=25:d=0.12,format=gray" 1 1 3 fwd
tiling size-2x2-yuv420p     "$G"             "testsrc2=s=2x2:r=25:d=0.12,format=yuv420p" 2 2 3 fwd
tiling size-17x9-yuv420p    "$G"             "testsrc2=s=32x16:r=25:d=0.12,format=yuv420p,crop=17:9:exact=1" 17 9 3 fwd
tiling size-17x9-yuv444p    "$G:algo=full"   "testsrc2=s=17x9:r=25:d=0.12,format=yuv444p" 17 9 3 fwd
tiling size-4095x2161       "$G:algo=lfs:range=4" \
                            "testsrc2=s=4096x2162:r=25:d=0.08,format=yuv420p,crop=4095:2161:exact=1" 4095 2161 2 fwd
# every search and export mode on sizes smaller than a block, a CTU, the pyramid
for s in 1x1 17x9 33x1 1x65; do
    w=${s%x*} h=${s#*x}
    for o in algo=full algo=hme algo=lfs:subpel=1 algo=full:block=auto algo=hme:block=auto:ctu=64 \
             algo=hme:dir=bi:pred=temporal algo=lfs:block=8:ctu=16:dir=bwd; do
        case $o in *dir=bi*) d=bi ;; *dir=bwd*) d=bwd ;; *) d=fwd ;; esac
        tiling "size-$s-$(echo "$o" | tr ':=' '-_')" "$G:$o" "testsrc2=s=$s:r=25:d=0.16,format=gray" "$w" "$h" 4 "$d"
    done
done

# --- frame size change mid-stream ---------------------------------------------
# 160x120 (80 blocks of 16x16), then 320x240 (300 blocks); the filter restarts:
# the first frame at the new size has no forward vectors
RESIZE="scale=w='if(gte(n,3),320,160)':h='if(gte(n,3),240,120)':eval=frame"
for d in fwd bwd bi; do
    name=size-change-$d
    ff "$name" -lavfi "testsrc2=s=160x120:r=25:d=0.24,$RESIZE,$G:dir=$d" -f framecrc -
    if [ "$rc" -ne 0 ]; then
        bad "$name" "exit status $rc: $(tailof "$tmp/$name.err")"
    elif [ "$(nframes "$tmp/$name.out")" -ne 6 ]; then
        bad "$name" "$(nframes "$tmp/$name.out") frames out, 6 in"
    elif ! grep -q 'frame size changed from 160x120 to 320x240' "$tmp/$name.err"; then
        bad "$name" "no warning 'frame size changed from 160x120 to 320x240' in the log: $(tailof "$tmp/$name.err")"
    elif [ "$(grep -c ', *28800, ' "$tmp/$name.out")" -lt 1 ] || [ "$(grep -c ', *115200, ' "$tmp/$name.out")" -lt 1 ]; then
        bad "$name" "frames of both sizes expected in the output"
    elif [ "$have_mv" = yes ]; then
        "$MV" dump -f csv -vf "$RESIZE,$G:dir=$d" lavfi:testsrc2=s=160x120:r=25:d=0.24 > "$tmp/$name.csv" 2> /dev/null
        # per frame: count of source -1 and +1 vectors; each is 0, 80 or 300,
        # sizes never mixed in a frame, exactly one restart (a frame after the
        # first with no forward vector) for fwd and bi
        if msg=$(awk -F, -v D="$d" '
            NR == 1 { next }
            { fr[$1] = 1 } $5 == -1 { f[$1]++ } $5 == 1 { b[$1]++ }
            END {
                n = 0; for (i in fr) n++
                if (n != 6) { print n " frames"; exit 1 }
                for (i = 0; i < 6; i++) {
                    if (!(f[i] + 0 == 0 || f[i] == 80 || f[i] == 300) ||
                        !(b[i] + 0 == 0 || b[i] == 80 || b[i] == 300) ||
                        (f[i] && b[i] && f[i] != b[i])) {
                        print "frame " i ": " f[i] + 0 " forward, " b[i] + 0 " backward vectors"; exit 1
                    }
                    if (i > 0 && D != "bwd" && !f[i]) restarts++
                }
                if (D != "bwd" && restarts != 1) { print restarts + 0 " restarts of the forward estimate"; exit 1 }
            }' "$tmp/$name.csv"); then
            ok "$name"
        else
            bad "$name" "$msg"
        fi
    else
        ok "$name"
    fi
done

# --- a size change that makes the ffmpeg CLI build a new graph -----------------
# the CLI takes what the old graph has sent, not what its filters hold: on
# the CPU gpume holds no frame its vectors do not need (35 frames of
# 320x240, then 45 of 568x320, in MPEG-TS); with -reinit_filter 0 the
# filters restart themselves and mcfps makes the ticks of fps=60
new_graph() { # NAME FRAMES REINIT FILTER
    ff "$1" -reinit_filter "$3" -i "$tmp/pipe.ts" -vf "$4" -an -f framecrc -
    if [ "$rc" -ne 0 ] || [ "$(nframes "$tmp/$1.out")" -ne "$2" ]; then
        bad "$1" "status $rc, $(nframes "$tmp/$1.out") frames out, want $2: $(tailof "$tmp/$1.err")"
    else
        ok "$1"
    fi
}
ff pipe-part1 -f lavfi -i "testsrc2=s=320x240:r=30,trim=end_frame=35" -c:v mpeg2video -f mpegts "$tmp/part1.ts"
rc1=$rc
ff pipe-part2 -f lavfi -i "testsrc2=s=568x320:r=30,trim=end_frame=45" -c:v mpeg2video -f mpegts "$tmp/part2.ts"
if [ "$rc1" -eq 0 ] && [ "$rc" -eq 0 ]; then
    cat "$tmp/part1.ts" "$tmp/part2.ts" > "$tmp/pipe.ts"
    # what the CLI passes on by itself (the decoder's frames), and fps's ticks
    ff pipe-null -i "$tmp/pipe.ts" -vf null -an -f framecrc -
    n=$(nframes "$tmp/pipe-null.out")
    if [ "$rc" -eq 0 ] && [ "$n" -ge 70 ]; then
        new_graph new-graph-gpume    "$n"         1 gpume=device=cpu
        new_graph new-graph-gpume-bi "$((n - 1))" 1 gpume=device=cpu:dir=bi
    else
        bad pipe-null "status $rc, $n frames: $(tailof "$tmp/pipe-null.err")"
    fi
    ff pipe-fps -reinit_filter 0 -i "$tmp/pipe.ts" -vf fps=60 -an -f framecrc -
    ticks=$(nframes "$tmp/pipe-fps.out")
    if [ "$rc" -eq 0 ] && [ "$ticks" -ge 140 ]; then
        new_graph reinit0-mcfps "$ticks" 0 gpume=device=cpu:dir=bi,mcfps=fps=60
    else
        bad pipe-fps "status $rc, $ticks frames: $(tailof "$tmp/pipe-fps.err")"
    fi
else
    skipped "new-graph: no mpeg2video encoder or mpegts muxer ($(tailof "$tmp/pipe-part1.err") $(tailof "$tmp/pipe-part2.err"))"
fi

# --- unsupported formats --------------------------------------------------------
for fmt in rgb24 yuv420p10le gray16le; do
    name=format-$fmt
    ff "$name" -noauto_conversion_filters -lavfi "testsrc2=s=64x48:r=25:d=0.12,format=$fmt,$G" -f null -
    if [ "$rc" -eq 0 ]; then
        bad "$name" "accepted $fmt input"
    elif crashed; then
        bad "$name" "exit status $rc (a signal or a hang): $(tailof "$tmp/$name.err")"
    elif ! grep -q "gpume.*do not have a common format\|do not have a common format.*gpume" "$tmp/$name.err"; then
        bad "$name" "no negotiation error naming gpume: $(tailof "$tmp/$name.err")"
    else
        ok "$name"
    fi
done
# with FFmpeg's automatic conversion, the same graph works
name=format-rgb24-converted
ff "$name" -lavfi "testsrc2=s=64x48:r=25:d=0.12,format=rgb24,$G" -f framecrc -
if [ "$rc" -eq 0 ] && [ "$(nframes "$tmp/$name.out")" -eq 3 ]; then
    ok "$name"
else
    bad "$name" "exit status $rc, $(nframes "$tmp/$name.out") frames: $(tailof "$tmp/$name.err")"
fi

# --- bad option values ------------------------------------------------------------
# badopt NAME OPTIONS PATTERN: gpume=OPTIONS must fail with a message matching PATTERN
badopt() {
    name=$1
    ff "$name" -lavfi "testsrc2=s=64x48:r=25:d=0.12,gpume=$2" -f null -
    if [ "$rc" -eq 0 ]; then
        bad "$name" "gpume=$2 accepted"
    elif crashed; then
        bad "$name" "gpume=$2: exit status $rc (a signal or a hang)"
    elif ! grep -q -- "$3" "$tmp/$name.err"; then
        bad "$name" "gpume=$2: no message matching '$3': $(tailof "$tmp/$name.err")"
    else
        ok "$name"
    fi
}
badopt opt-algo-bogus       device=cpu:algo=bogus          "option 'algo'"
badopt opt-range-neg        device=cpu:range=-1            "parameter 'range' out of range"
badopt opt-range-65         device=cpu:range=65            "parameter 'range' out of range"
badopt opt-ctu-24           device=cpu:ctu=24              "ctu=24"
badopt opt-ctu-128          device=cpu:ctu=128             "parameter 'ctu' out of range"
badopt opt-block-12         device=cpu:block=12            "block=12"
badopt opt-block-4          device=cpu:block=4             "block=4"
badopt opt-block-gt-ctu     device=cpu:block=64:ctu=32     "block=64.*ctu=32"
badopt opt-lfs-block-auto   device=cpu:algo=lfs:block=auto "block=auto"
badopt opt-subpel-3         device=cpu:subpel=3            "parameter 'subpel' out of range"
badopt opt-lambda-neg       device=cpu:lambda=-1           "parameter 'lambda' out of range"
badopt opt-dir-bogus        device=cpu:dir=up              "option 'dir'"
badopt opt-device-bogus     device=metal                   "option 'device'"
badopt opt-unknown          device=cpu:bogus=1             "option 'bogus'.*not found"
badopt opt-vme-cpu          device=cpu:algo=vme            "algo=vme"

# algo=vme where the OpenCL device lacks cl_intel_device_side_avc_motion_estimation
name=opt-vme-auto
ff "$name" -lavfi "testsrc2=s=64x48:r=25:d=0.12,gpume=algo=vme" -f null -
if [ "$rc" -eq 0 ]; then
    if grep -q 'using the opencl backend' "$tmp/$name.err"; then
        skipped "$name: this machine runs VME"
    else
        bad "$name" "algo=vme succeeded without saying which backend: $(tailof "$tmp/$name.err")"
    fi
elif grep -q 'vme' "$tmp/$name.err"; then
    ok "$name"
else
    bad "$name" "exit status $rc without a message about vme: $(tailof "$tmp/$name.err")"
fi

# --- range=auto (the default) -------------------------------------------------
# autorange NAME SIZE OPTIONS RANGE: gpume=OPTIONS on SIZE frames logs the
# range it takes for range=auto (hme and dis: a twentieth of the longer side,
# 16 to 32; 16 for the other algorithms)
autorange() {
    name=$1
    ff "$name" -v verbose -lavfi "testsrc2=s=$2:r=25:d=0.08,gpume=device=cpu${3:+:$3}" -f null -
    if [ "$rc" -ne 0 ]; then
        bad "$name" "exit status $rc: $(tailof "$tmp/$name.err")"
    elif ! grep -q "range=auto: $4 pixels at $2" "$tmp/$name.err"; then
        bad "$name" "no 'range=auto: $4 pixels at $2' in the log: $(grep 'range=auto' "$tmp/$name.err" | head -n 1)"
    else
        ok "$name"
    fi
}
autorange range-auto-214x160   214x160   ""         16
autorange range-auto-480x270   480x270   ""         24
autorange range-auto-1280x720  1280x720  ""         32
autorange range-auto-portrait  360x500   range=auto 25
autorange range-auto-dis       1920x1080 algo=dis   32
autorange range-auto-full      1280x720  algo=full  16
autorange range-auto-lfs       1280x720  algo=lfs   16
# and again at a new size mid-stream
name=range-auto-size-change
ff "$name" -v verbose -lavfi "testsrc2=s=160x120:r=25:d=0.16,scale=w='if(gte(n,2),1280,160)':h='if(gte(n,2),720,120)':eval=frame,gpume=device=cpu" -f null -
if [ "$rc" -ne 0 ]; then
    bad "$name" "exit status $rc: $(tailof "$tmp/$name.err")"
elif ! grep -q 'range=auto: 16 pixels at 160x120' "$tmp/$name.err" ||
     ! grep -q 'range=auto: 32 pixels at 1280x720' "$tmp/$name.err"; then
    bad "$name" "not both ranges (16 at 160x120, 32 at 1280x720) in the log: $(grep 'range=auto' "$tmp/$name.err" | tr '\n' ' ')"
else
    ok "$name"
fi
# a pan of (24, 6) pixels a frame over a still, textured 1280x720 picture:
# the default range follows it, range=16 cannot
pan=range-auto-pan
if [ "$have_mv" != yes ]; then
    skipped "$pan: no $MV"
# the texture needs the noise filter, which the minimal build lacks
elif ! "$FFMPEG" -hide_banner -filters 2>/dev/null | awk '$2 == "noise" { f = 1 } END { exit !f }'; then
    skipped "$pan: this ffmpeg has no noise filter to make the textured picture"
else
    ff "$pan-still" -lavfi "testsrc2=s=1600x800,noise=alls=80:all_seed=7,format=gray" -frames:v 1 "$tmp/still.png"
    ff "$pan-clip" -loop 1 -framerate 25 -i "$tmp/still.png" -vf "crop=1280:720:x=24*n:y=6*n,format=yuv420p" \
        -frames:v 4 "$tmp/pan.y4m"
    echo '* 24 6' > "$tmp/pan-truth.txt"
    for r in auto 16; do
        "$MV" eval -truth "$tmp/pan-truth.txt" -vf "gpume=device=cpu:range=$r" "$tmp/pan.y4m" 2> "$tmp/$pan-$r.err" |
            sed -n 's/.*epe_median=\([0-9.]*\).*/\1/p' > "$tmp/$pan-$r.epe"
    done
    epe_auto=$(cat "$tmp/$pan-auto.epe") epe_16=$(cat "$tmp/$pan-16.epe")
    if [ -z "$epe_auto" ] || [ -z "$epe_16" ]; then
        bad "$pan" "no end-point error from $MV eval: $(tailof "$tmp/$pan-auto.err")"
    elif ! awk -v a="$epe_auto" -v b="$epe_16" 'BEGIN { exit !(a < 1 && b > 10) }'; then
        bad "$pan" "median end-point error $epe_auto pixels at range=auto (below 1 expected), $epe_16 at range=16 (above 10 expected)"
    else
        ok "$pan"
    fi
fi

# --- backends ------------------------------------------------------------------------
# A missing GPU, also on a machine that has one: CUDA_VISIBLE_DEVICES= hides
# NVIDIA GPUs from CUDA (and NVIDIA's OpenCL); OCL_ICD_VENDORS at an empty
# directory and OCL_ICD_FILENAMES at no file leave the OpenCL ICD loader
# without a platform (PoCL included).
mkdir -p "$tmp/no-icd"
HIDE="CUDA_VISIBLE_DEVICES= OCL_ICD_VENDORS=$tmp/no-icd OCL_ICD_FILENAMES=$tmp/no-icd/none.so"
SMALL="testsrc2=s=64x48:r=25:d=0.12"

# device=cuda without a GPU: a clear error naming the option
name=device-cuda-no-gpu
FFENV=$HIDE ff "$name" -lavfi "$SMALL,gpume=device=cuda" -f null -
FFENV=
if [ "$rc" -eq 0 ] && has_gpu; then
    skipped "GPU present ($name: CUDA_VISIBLE_DEVICES= did not hide it)"
elif [ "$rc" -eq 0 ]; then
    bad "$name" "device=cuda succeeded without a GPU"
elif crashed; then
    bad "$name" "exit status $rc (a signal or a hang): $(tailof "$tmp/$name.err")"
elif ! grep -q 'device=cuda' "$tmp/$name.err"; then
    bad "$name" "no message naming device=cuda: $(tailof "$tmp/$name.err")"
else
    ok "$name ($(grep 'device=cuda' "$tmp/$name.err" | head -n 1 | sed 's/^\[[^]]*\] //'))"
fi

# device=auto without a GPU or an OpenCL platform: the CPU, and the log says so
name=device-auto-cpu
FFENV=$HIDE ff "$name" -lavfi "$SMALL,gpume" -f framecrc -
FFENV=
if [ "$rc" -eq 0 ] && grep -q 'using the \(cuda\|opencl\) backend' "$tmp/$name.err"; then
    skipped "a GPU or an OpenCL platform could not be hidden ($name: $(grep -o 'using the [a-z]* backend' "$tmp/$name.err"))"
elif [ "$rc" -ne 0 ]; then
    bad "$name" "exit status $rc: $(tailof "$tmp/$name.err")"
elif ! grep -q 'using the cpu backend' "$tmp/$name.err"; then
    bad "$name" "no 'using the cpu backend' in the log: $(tailof "$tmp/$name.err" 4)"
elif [ "$(nframes "$tmp/$name.out")" -ne 3 ]; then
    bad "$name" "$(nframes "$tmp/$name.out") frames out, 3 in"
else
    ok "$name"
fi

# device=auto as the machine is: CUDA with a GPU, else OpenCL (PoCL) or the CPU
name=device-auto
ff "$name" -lavfi "$SMALL,gpume" -f framecrc -
if has_gpu; then want='cuda'; else want='\(cpu\|opencl\)'; fi
if [ "$rc" -eq 0 ] && grep -q "using the $want backend" "$tmp/$name.err"; then
    ok "$name ($(grep -o 'using the [a-z]* backend' "$tmp/$name.err"))"
else
    bad "$name" "exit status $rc, no 'using the $want backend': $(tailof "$tmp/$name.err" 4)"
fi

# device=auto where a GPU backend opens its device but does not start (an
# OpenCL platform whose devices all claim to be GPUs and whose compiler
# fails, tests/clshim.c): a normal fallback, so no error or warning line,
# the reason on the info line and the backend's own message at verbose
# level; the CPU's output
q=device-auto-fallback-quiet
SHIM="CUDA_VISIBLE_DEVICES= LD_PRELOAD=$tmp/clshim.so CLSHIM_GPU=1 CLSHIM_BUILD_FAIL=1"
G2="$SMALL,gpume=dir=bi,mcfps=fps=50"
if ! ${CC:-cc} -O2 -shared -fPIC -o "$tmp/clshim.so" "$(dirname "$0")/../clshim.c" -ldl \
        > "$tmp/clshim.log" 2>&1; then
    skipped "$q: tests/clshim.c does not build here ($(tailof "$tmp/clshim.log" 1))"
elif ! ldd "$FFMPEG" 2> /dev/null | grep -q 'libOpenCL'; then
    skipped "$q: this ffmpeg has no OpenCL"
else
    FFENV=$SHIM ff "$q" -loglevel level+info -lavfi "$G2" -f framecrc -
    rc_info=$rc
    FFENV=$SHIM ff "$q-verbose" -loglevel level+verbose -lavfi "$G2" -f null -
    rc_verbose=$rc
    FFENV=
    ff "$q-cpu" -lavfi "$SMALL,gpume=dir=bi:device=cpu,mcfps=fps=50:device=cpu" -f framecrc -
    started=$(grep -c 'using the cpu backend (device=auto: .*opencl backend did not start' "$tmp/$q.err")
    if [ "$started" -eq 0 ] && ! grep -q 'opencl backend did not start' "$tmp/$q.err"; then
        skipped "$q: the OpenCL backends were not tried ($(grep -o 'device=auto: .*' "$tmp/$q.err" | head -n 1))"
    elif [ "$rc_info" -ne 0 ] || [ "$rc_verbose" -ne 0 ] || [ "$rc" -ne 0 ] || [ "$started" -ne 2 ]; then
        bad "$q" "exit status $rc_info, $rc_verbose (-v verbose), $rc (device=cpu); $started of 2 filters on the CPU: $(tailof "$tmp/$q.err" 3)"
    elif grep -q '\[\(error\|warning\|fatal\)\]' "$tmp/$q.err"; then
        bad "$q" "$(grep '\[\(error\|warning\|fatal\)\]' "$tmp/$q.err" | head -n 2 | tr '\n' ' ')"
    elif [ "$(grep -c '\[opencl @ [^]]*\] \[verbose\] failed to build an OpenCL program' "$tmp/$q-verbose.err")" -ne 2 ]; then
        bad "$q" "the backends' messages are not at verbose level: $(grep 'OpenCL program' "$tmp/$q-verbose.err" | head -n 2 | tr '\n' ' ')"
    elif ! cmp -s "$tmp/$q.out" "$tmp/$q-cpu.out"; then
        bad "$q" "output differs from device=cpu's"
    else
        ok "$q"
    fi
fi

# an OpenCL GPU with too little local memory for gpume's kernels (32768
# bytes, OpenCL 1.2's least, which tests/clshim.c reports): device=auto
# takes the CPU without an error or warning line, device=opencl names the
# shortfall in its error
q=device-opencl-small-local-memory
if ! [ -f "$tmp/clshim.so" ] || ! ldd "$FFMPEG" 2> /dev/null | grep -q 'libOpenCL'; then
    skipped "$q: no tests/clshim.c or no OpenCL in this ffmpeg"
else
    SHIM="CUDA_VISIBLE_DEVICES= LD_PRELOAD=$tmp/clshim.so CLSHIM_GPU=1 CLSHIM_LOCAL_MEM=32768"
    FFENV=$SHIM ff "$q-auto" -loglevel level+info -lavfi "$SMALL,gpume" -f framecrc -
    rc_auto=$rc
    FFENV=$SHIM ff "$q" -lavfi "$SMALL,gpume=device=opencl" -f null -
    FFENV=
    if ! grep -q 'opencl backend did not start' "$tmp/$q-auto.err"; then
        skipped "$q: the OpenCL backend was not tried ($(grep -o 'using the .*' "$tmp/$q-auto.err" | head -n 1))"
    elif [ "$rc_auto" -ne 0 ] || ! grep -q 'using the cpu backend' "$tmp/$q-auto.err" ||
            grep -q '\[\(error\|warning\|fatal\)\]' "$tmp/$q-auto.err"; then
        bad "$q" "device=auto: exit status $rc_auto: $(grep 'Parsed_gpume_0' "$tmp/$q-auto.err" | head -n 3 | tr '\n' ' ')"
    elif [ "$rc" -eq 0 ] || crashed || ! grep -q 'bytes of local memory, [0-9]* needed' "$tmp/$q.err"; then
        bad "$q" "device=opencl: exit status $rc: $(tailof "$tmp/$q.err" 3)"
    else
        ok "$q"
    fi
fi

# out of memory with device=auto: one error line, which says so, and none
# that blames the devices (16000x16000 under 2 GB of address space)
name=device-auto-out-of-memory
(ulimit -v 2000000 && exec timeout 120 "$FFMPEG" -nostdin -hide_banner -nostats -loglevel level+info \
    -f lavfi -i color=s=16000x16000:d=0.04,format=gray -vf gpume -f null -) \
    > "$tmp/$name.out" 2> "$tmp/$name.err"
rc=$?
# (lavfi's own "Failed to configure input pad" line names the filter too)
errors=$(grep '\[Parsed_gpume_0 @ [^]]*\] \[error\]' "$tmp/$name.err" | grep -vc 'Failed to configure')
if [ "$rc" -eq 0 ] || ! grep -q 'Parsed_gpume_0 .*Cannot allocate memory' "$tmp/$name.err"; then
    skipped "$name: gpume did not run out of memory (exit status $rc: $(tailof "$tmp/$name.err" 1))"
elif crashed || [ "$errors" -ne 1 ]; then
    bad "$name" "exit status $rc, $errors error lines of gpume: $(grep 'Parsed_gpume_0' "$tmp/$name.err" | head -n 3 | tr '\n' ' ')"
else
    ok "$name"
fi

# device=opencl without a platform: a clear error naming the option
name=device-opencl-no-platform
FFENV=$HIDE ff "$name" -lavfi "$SMALL,gpume=device=opencl" -f null -
FFENV=
if [ "$rc" -eq 0 ]; then
    skipped "an OpenCL platform could not be hidden ($name)"
elif crashed; then
    bad "$name" "exit status $rc (a signal or a hang): $(tailof "$tmp/$name.err")"
elif ! grep -q 'device=opencl' "$tmp/$name.err"; then
    bad "$name" "no message naming device=opencl: $(tailof "$tmp/$name.err")"
else
    ok "$name"
fi

# --- the one-frame delay -------------------------------------------------------------
# 10 frames: dir=fwd, bwd and bi give 10 frames, the vectors each position
# allows (tiling checks the directions per frame)
for d in fwd bwd bi; do
    tiling "delay-$d" "$G:algo=hme:dir=$d" "testsrc2=s=320x240:r=25:d=0.4" 320 240 10 "$d"
done
# streams of 0, 1 and 2 frames: as many out
for d in fwd bwd bi; do
    for n in 0 1 2; do
        name=delay-$d-$n-frames
        ff "$name" -lavfi "testsrc2=s=64x48:r=25:d=0.2,trim=end_frame=$n,$G:dir=$d" -f framecrc -
        if [ "$rc" -ne 0 ]; then
            bad "$name" "exit status $rc: $(tailof "$tmp/$name.err")"
        elif [ "$(nframes "$tmp/$name.out")" -ne "$n" ]; then
            bad "$name" "$(nframes "$tmp/$name.out") frames out, $n in"
        else
            ok "$name"
        fi
    done
done
# the output stopping early (-frames:v) while a frame is held back
name=delay-bi-output-limit
ff "$name" -lavfi "testsrc2=s=64x48:r=25:d=0.4,$G:dir=bi" -frames:v 3 -f framecrc -
if [ "$rc" -eq 0 ] && [ "$(nframes "$tmp/$name.out")" -eq 3 ]; then
    ok "$name"
else
    bad "$name" "exit status $rc, $(nframes "$tmp/$name.out") frames out, 3 wanted: $(tailof "$tmp/$name.err")"
fi

# --- valgrind ----------------------------------------------------------------------------
# memcheck: no invalid access, no uninitialised use, no definite or indirect leak;
# exit status 99 marks a valgrind error (a failing graph keeps ffmpeg's own status)
VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"
# vg NAME EXPECT ARGS...: EXPECT ok (ffmpeg succeeds) or fail (ffmpeg fails cleanly)
vg() {
    name=$1 expect=$2
    shift 2
    # shellcheck disable=SC2086 # VG, FFENV: words
    timeout 300 env $FFENV $VG "$FFMPEG" -nostdin -hide_banner -nostats -filter_threads 2 "$@" > "$tmp/$name.out" 2> "$tmp/$name.err"
    rc=$?
    if [ "$rc" -eq 99 ] || grep -q '^==[0-9]*== [A-Z]' "$tmp/$name.err"; then
        bad "$name" "valgrind: $(grep '^==[0-9]*== [A-Z]' "$tmp/$name.err" | head -n 3 | tr '\n' ' ' | cut -c1-300)"
    elif crashed; then
        bad "$name" "exit status $rc (a signal or a hang): $(tailof "$tmp/$name.err")"
    elif [ "$expect" = ok ] && [ "$rc" -ne 0 ]; then
        bad "$name" "exit status $rc: $(tailof "$tmp/$name.err")"
    elif [ "$expect" = fail ] && [ "$rc" -eq 0 ]; then
        bad "$name" "succeeded, a failure expected"
    else
        ok "$name"
    fi
}
if ! command -v valgrind > /dev/null 2>&1; then
    skipped "valgrind not installed (valgrind checks)"
else
    for a in full hme lfs; do
        vg "valgrind-$a" ok -lavfi "testsrc2=s=64x48:r=25:d=0.12,$G:algo=$a" -f null -
    done
    vg valgrind-odd-bi-auto ok -lavfi "testsrc2=s=17x9:r=25:d=0.12,format=gray,$G:algo=full:block=auto:dir=bi:pred=temporal" -f null -
    vg valgrind-size-change ok -lavfi "testsrc2=s=48x32:r=25:d=0.16,scale=w='if(gte(n,2),64,48)':h='if(gte(n,2),48,32)':eval=frame,$G:dir=bi" -f null -
    vg valgrind-bad-option fail -lavfi "testsrc2=s=64x48:r=25:d=0.12,$G:block=64:ctu=32" -f null -
    if has_gpu; then
        skipped "GPU present (valgrind-cuda-missing)"
    else
        FFENV=$HIDE vg valgrind-cuda-missing fail -lavfi "$SMALL,gpume=device=cuda" -f null -
        FFENV=
        FFENV=$HIDE vg valgrind-auto-fallback ok -lavfi "$SMALL,gpume" -f null -
        FFENV=
    fi
fi

# gpume-mv on a movie source whose decoder (frame threads) is still working
# when the input ends (trim): the source graph is freed from its sources
# on, never with the decoder's threads writing into a freed link; before,
# most such runs aborted in the decoder
q=mv-movie-early-end
if [ "$have_mv" = no ] || [ ! -f "$BUILDDIR/clips/cockatoo.mp4" ]; then
    skipped "$q: needs gpume-mv and $BUILDDIR/clips/cockatoo.mp4"
elif ! "$FFMPEG" -nostdin -v error -f lavfi -i "movie=$BUILDDIR/clips/cockatoo.mp4" -frames:v 1 \
        -f null - > /dev/null 2>&1; then
    skipped "$q: this build cannot read $BUILDDIR/clips/cockatoo.mp4 through the movie source"
else
    n=0
    for i in 1 2 3 4 5 6; do
        "$MV" eval -vf null "lavfi:movie=$BUILDDIR/clips/cockatoo.mp4,trim=end_frame=1" \
            > "$tmp/$q.out" 2> "$tmp/$q.err" && n=$((n + 1))
    done
    if [ "$n" -eq 6 ]; then
        ok "$q"
    else
        bad "$q" "$((6 - n)) of 6 runs failed: $(tailof "$tmp/$q.err")"
    fi
fi

# gpume-mv where the graph fails mid-stream: the frames gpume sent before
# its error (here both 64x48 frames, flushed when the refused 16384x2 frame
# came) are still dumped, and the run fails
q=mv-error-mid-stream
if [ "$have_mv" = no ]; then
    skipped "$q: needs gpume-mv"
else
    "$MV" dump -f csv -vf "scale=w='if(lt(n,3),64,16384)':h='if(lt(n,3),48,2)':eval=frame,gpume=device=cpu:dir=bi" \
        lavfi:testsrc2=s=64x48:r=25:d=0.24 > "$tmp/$q.csv" 2> "$tmp/$q.err"
    rc=$?
    got=$(awk -F, 'NR > 1 { fr[$1] = 1 } END { n = 0; for (i in fr) n++; print n }' "$tmp/$q.csv")
    if [ "$rc" -eq 0 ]; then
        bad "$q" "exit status 0 after the graph failed"
    elif ! grep -q 'must be at most 16383' "$tmp/$q.err"; then
        bad "$q" "no refusal of the 16384x2 frame in the log: $(tailof "$tmp/$q.err")"
    elif [ "$got" -ne 2 ]; then
        bad "$q" "$got frames dumped, 2 went out of gpume before its error"
    else
        ok "$q"
    fi
fi

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
