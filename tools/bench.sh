#!/bin/sh
# make bench: speed and quality of gpume (every backend that works here:
# cpu always, cuda / opencl when built and a device answers) against FFmpeg's
# mestimate, in one run on one machine.
#
#  - speed: whole-command frames per second of
#      ffmpeg -i CLIP.y4m -frames:v N -vf FILTER -f null -
#    (wall time; median of 3 runs for GPU backends, BENCH_CPU_REPS runs for
#    CPU-side filters) on cockatoo.mp4 at its native 1280x720 and scaled to
#    1920x1080; gpume algo=full|hme|lfs and mestimate esa|epzs|hexbs|umh at
#    ranges 8, 16, 32, block 16 (mestimate mb_size=16:search_param=RANGE);
#    GPU time per frame from build/tools/bench-backend (CUDA events) at 1080p,
#    and its time to first vectors with the driver's JIT cache off;
#  - quality: MC-PSNR (gpume-mv eval psnr_fwd) on the three natural clips,
#    end-point error against ground truth on synthetic clips with known
#    integer, fractional and per-object motion, interpolation PSNR (psnr_bi)
#    of dir=bi.
# Prints one markdown table and writes docs/bench/table-MACHINE.md,
# docs/bench/bench-MACHINE.dat and (with gnuplot) the plots
# docs/bench/speed-vs-range-MACHINE.png, docs/bench/quality-vs-speed-MACHINE.png;
# MACHINE is "cpu" without a GPU, else from the GPU's name (h100, h200, ...).
#
# usage: sh tools/bench.sh                    (environment below)
#        sh tools/bench.sh --plot FILE.dat    (plots only, from a data file)
# environment:
#   BUILDDIR FFMPEG CLIPS     build folder, ffmpeg with gpume, clips folder
#   GPUME_CUDA=yes            try the cuda backend   (GPUME_OPENCL=yes: opencl)
#   BENCH_QUICK=1             smoke run: ranges 8 16, very few frames
#   BENCH_CPU=0               skip the speed runs of gpume device=cpu
#                             (mestimate always runs, at few frames)
#   BENCH_OPENCL=0|1|auto     opencl on a machine without a GPU (pocl, on the
#                             CPU) runs only with 1; auto: only where a GPU is
#   BENCH_RANGES BENCH_JOBS BENCH_MACHINE BENCH_OUT BENCH_TMP
#   frame counts (defaults depend on the mode, see below):
#   BENCH_NF_CPU_NAT BENCH_NF_CPU_HD   CPU-side speed runs at 720p / 1080p
#   BENCH_NF_GPU                       GPU speed runs (both sizes)
#   BENCH_NF_Q BENCH_NF_SYN            quality runs: natural / synthetic clips
#   BENCH_CPU_REPS                     runs per CPU-side speed figure (median)
set -u

me=tools/bench.sh
say() { echo "bench: $*" >&2; }
die() { say "$*"; exit 1; }

# ---------------------------------------------------------------- plotting
plot() { # DATFILE MACHINE OUTDIR
    if ! command -v gnuplot >/dev/null 2>&1; then
        say "gnuplot not found: plots skipped (data in $1; on a machine with" \
            "gnuplot: sh $me --plot $1)"
        return 0
    fi
    gnuplot -e "data='$1'; machine='$2'; out1='$3/speed-vs-range-$2.png'; out2='$3/quality-vs-speed-$2.png'" \
        "$(dirname "$0")/bench-plot.gp" || { say "gnuplot failed"; return 1; }
    say "wrote $3/speed-vs-range-$2.png $3/quality-vs-speed-$2.png"
}
if [ "${1:-}" = --plot ]; then
    [ -f "${2:-}" ] || die "usage: $me --plot docs/bench/bench-MACHINE.dat"
    m=$(basename "$2" .dat); m=${m#bench-}
    plot "$2" "$m" "$(dirname "$2")"
    exit $?
fi

# ---------------------------------------------------------------- setup
B=${BUILDDIR:-build}
FF=${FFMPEG:-$B/ffmpeg/ffmpeg}
CL=${CLIPS:-$B/clips}
MV=${GPUME_MV:-$B/gpume-mv}
BB=$B/tools/bench-backend
OUTDIR=${BENCH_OUT:-docs/bench}
TMP=${BENCH_TMP:-${TMPDIR:-/tmp}/gpume-bench.$$}
NPROC=$(nproc 2>/dev/null || echo 1)
JOBS=${BENCH_JOBS:-$NPROC}
QUICK=${BENCH_QUICK:-0}
[ "$QUICK" = 1 ] || QUICK=0
export POCL_CACHE_DIR=${POCL_CACHE_DIR:-$B/pocl-cache}

[ -x "$FF" ] || die "no ffmpeg at $FF (make ffmpeg)"
[ -x "$MV" ] || die "no gpume-mv at $MV (make gpume-mv)"
for c in cockatoo.mp4 realshort.mp4 cityCC0.mpg; do
    [ -f "$CL/$c" ] || die "missing clip $CL/$c (make clips)"
done
"$FF" -hide_banner -h filter=gpume 2>/dev/null | grep -q 'Filter gpume' || die "$FF has no gpume filter"
rm -rf "$TMP"
mkdir -p "$TMP/q" "$TMP/jobs" "$OUTDIR" || die "cannot create $TMP or $OUTDIR"
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
RES=$TMP/results.tsv
: > "$RES"
T0=$(date +%s)

ff() { "$FF" -hide_banner -nostats -v error -y "$@" </dev/null; }
put() { printf '%s\t%s\n' "$1" "$2" >> "$RES"; }
get() { awk -F'\t' -v k="$1" '$1 == k { v = $2 } END { print (v == "" ? "-" : v) }' "$RES"; }
elapsed() { echo $(( $(date +%s) - T0 )); }

# machine
CPU_MODEL=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo 2>/dev/null | head -n 1)
[ -n "$CPU_MODEL" ] || CPU_MODEL=$(uname -m)
GPU_NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
GPU_DRV=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1)
if [ -n "$GPU_NAME" ]; then
    # first word of the name with a digit in it: "NVIDIA H200" -> h200
    MACHINE=$(echo "$GPU_NAME" | tr 'A-Z' 'a-z' | tr -c 'a-z0-9\n' ' ' |
              awk '{ for (i = 1; i <= NF; i++) if ($i ~ /[0-9]/) { print $i; exit } print "gpu" }')
else
    MACHINE=cpu
fi
MACHINE=${BENCH_MACHINE:-$MACHINE}

# clips for the backend probes and the speed runs
NAT=$TMP/cockatoo-720p.y4m
HD=$TMP/cockatoo-1080p.y4m
ff -i "$CL/cockatoo.mp4" -an -vf "select='between(n\,40\,41)',format=yuv420p" \
    -fps_mode passthrough "$TMP/probe.y4m" || die "cannot decode $CL/cockatoo.mp4"

# backends
probe() { # DEVICE
    ff -i "$TMP/probe.y4m" -frames:v 2 -vf "gpume=device=$1:algo=hme" -f null - >"$TMP/probe-$1.log" 2>&1
}
BACKENDS=cpu
GPU_OK=0
if [ "${GPUME_CUDA:-no}" = yes ]; then
    if probe cuda; then BACKENDS="$BACKENDS cuda"; GPU_OK=1
    else say "cuda: built, but a 2-frame probe failed: $(head -n 1 "$TMP/probe-cuda.log")"; fi
fi
OCL_NOTE=
if [ "${GPUME_OPENCL:-no}" = yes ]; then
    want=${BENCH_OPENCL:-auto}
    [ "$want" = auto ] && { [ -n "$GPU_NAME" ] && want=1 || want=0; }
    if [ "$want" != 1 ]; then
        OCL_NOTE="opencl: skipped (no GPU here: OpenCL would run on pocl, on the CPU; BENCH_OPENCL=1 runs it)"
        say "$OCL_NOTE"
    elif probe opencl; then BACKENDS="$BACKENDS opencl"
    else say "opencl: built, but a 2-frame probe failed: $(head -n 1 "$TMP/probe-opencl.log")"; fi
fi
QDEV=cpu
[ "$GPU_OK" = 1 ] && QDEV=cuda
say "machine $MACHINE: $CPU_MODEL, $NPROC cores, GPU: ${GPU_NAME:-none}; backends: $BACKENDS"

# frame counts and ranges: quick / on a GPU machine / CPU only
if [ "$QUICK" = 1 ]; then
    d_ranges="8 16"; d_nat=3; d_hd=2; d_gpu=100; d_q=3; d_syn=4; MODE=quick
elif [ "$GPU_OK" = 1 ]; then
    d_ranges="8 16 32"; d_nat=4; d_hd=3; d_gpu=500; d_q=6; d_syn=10; MODE=full
else
    d_ranges="8 16 32"; d_nat=5; d_hd=5; d_gpu=100; d_q=8; d_syn=10; MODE=full
fi
RANGES=${BENCH_RANGES:-$d_ranges}
NF_CPU_NAT=${BENCH_NF_CPU_NAT:-$d_nat}
NF_CPU_HD=${BENCH_NF_CPU_HD:-$d_hd}
NF_GPU=${BENCH_NF_GPU:-$d_gpu}
NF_Q=${BENCH_NF_Q:-$d_q}
NF_SYN=${BENCH_NF_SYN:-$d_syn}
CPU_REPS=${BENCH_CPU_REPS:-1}
GPU_REPS=3
RBI=16                              # the dir=bi configuration's range
case " $RANGES " in *" 16 "*) ;; *) RBI=${RANGES%% *} ;; esac
ALGOS="full hme lfs"
MEST="esa epzs hexbs umh"

# source clips: decoded once into y4m (decoding stays out of the timings)
max() { for v; do echo "$v"; done | sort -n | tail -n 1; }
nsrc=$(( $(max "$NF_CPU_NAT" "$NF_CPU_HD" "$NF_Q") + 2 ))
[ "$GPU_OK" = 1 ] || [ "$BACKENDS" != cpu ] && nsrc=$(max "$nsrc" 100)
say "preparing clips ($nsrc frames of cockatoo at 720p and 1080p)"
ff -i "$CL/cockatoo.mp4" -an -vf "select='gte(n\,40)',format=yuv420p" -frames:v "$nsrc" \
    -fps_mode passthrough "$NAT" || die "cannot make $NAT"
ff -i "$CL/cockatoo.mp4" -an -vf "select='gte(n\,40)',scale=1920:1080:flags=bicubic,format=yuv420p" \
    -frames:v "$nsrc" -fps_mode passthrough "$HD" || die "cannot make $HD"
ff -i "$CL/realshort.mp4" -an -vf format=yuv420p -frames:v $((NF_Q + 1)) -fps_mode passthrough \
    "$TMP/realshort.y4m" || die "cannot decode realshort.mp4"
ff -i "$CL/cityCC0.mpg" -an -vf "select='gte(n\,30)',format=yuv420p" -frames:v $((NF_Q + 1)) \
    -fps_mode passthrough "$TMP/city.y4m" || die "cannot decode cityCC0.mpg"

# ---------------------------------------------------------------- synthetic clips
# Texture: 512x288 deterministic white noise (Park-Miller generator in awk,
# the same on every machine), scaled 2x (bicubic) to 1024x576.
# syn-int:  global translation by integer steps, (5, -2) px per frame (crop x=5n);
# syn-frac: global translation by (1.25, -0.5) px per frame: texture scaled 4x
#           (nearest), crop moved by (5, -2) px there, box-filtered back (area);
# syn-obj:  three motions, built 4x then box-filtered: the noise background
#           moves (2, 1), a 96x96 crop of cityCC0 moves (3.25, 0.75), a 128x64
#           one (-2, 1.5) px per frame.
# Truth files: where a pixel of frame n was in frame n-1 (gpume-mv -truth).
say "making synthetic clips ($NF_SYN frames, 640x360)"
awk 'BEGIN { x = 12345; for (y = 0; y < 288; y++) { s = "";
        for (i = 0; i < 512; i++) { x = (x * 16807) % 2147483647; s = s sprintf("\\%03o", int(x / 8388608) % 256) }
        print s } }' | while IFS= read -r l; do printf "$l"; done > "$TMP/noise.gray"
ff -f rawvideo -pix_fmt gray -s 512x288 -i "$TMP/noise.gray" -vf "scale=1024:576:flags=bicubic,format=yuv444p" \
    -frames:v 1 "$TMP/tex.y4m" || die "cannot make the noise texture"
ff -i "$CL/cityCC0.mpg" -vf "select='eq(n\,60)',format=yuv444p" -frames:v 1 "$TMP/citystill.y4m" ||
    die "cannot make the city still"
ff -stream_loop -1 -i "$TMP/tex.y4m" -frames:v "$NF_SYN" \
    -vf "crop=640:360:x=5*n:y=200-2*n:exact=1,format=yuv420p" "$TMP/syn-int.y4m" || die "syn-int"
echo '* 5 -2' > "$TMP/syn-int.truth"
ff -stream_loop -1 -i "$TMP/tex.y4m" -frames:v "$NF_SYN" \
    -vf "scale=iw*4:ih*4:flags=neighbor,crop=2560:1440:x=5*n:y=800-2*n:exact=1,scale=640:360:flags=area,format=yuv420p" \
    "$TMP/syn-frac.y4m" || die "syn-frac"
echo '* 1.25 -0.5' > "$TMP/syn-frac.truth"
ff -stream_loop -1 -i "$TMP/tex.y4m" -stream_loop -1 -i "$TMP/citystill.y4m" -frames:v "$NF_SYN" -filter_complex \
    "[0:v]scale=iw*4:ih*4:flags=neighbor,crop=2560:1440:x=8*n:y=4*n:exact=1[bg];
     [1:v]split[a][b];
     [a]crop=96:96:40:150:exact=1,scale=384:384:flags=neighbor[o1];
     [b]crop=128:64:520:160:exact=1,scale=512:256:flags=neighbor[o2];
     [bg][o1]overlay=x=160+13*n:y=160+3*n:format=yuv444[t];
     [t][o2]overlay=x=1760-8*n:y=800+6*n:format=yuv444,scale=640:360:flags=area,format=yuv420p" \
    "$TMP/syn-obj.y4m" || die "syn-obj"
# objects at frame n: o1 at (40 + 3.25n, 40 + 0.75n) 96x96, o2 at (440 - 2n, 200 + 1.5n) 128x64;
# truth rectangles: the pixels wholly inside the object
awk -v nf="$NF_SYN" 'function ce(v) { return v == int(v) ? v : int(v) + 1 }
    BEGIN { print "* 2 1"
      for (n = 1; n < nf; n++) {
        x = 40 + 3.25 * n; y = 40 + 0.75 * n; X = ce(x); Y = ce(y)
        print n, -3.25, -0.75, X, Y, int(x + 96) - X, int(y + 96) - Y
        x = 440 - 2 * n; y = 200 + 1.5 * n; X = ce(x); Y = ce(y)
        print n, 2, -1.5, X, Y, int(x + 128) - X, int(y + 64) - Y } }' > "$TMP/syn-obj.truth"

# ---------------------------------------------------------------- speed
# median wall time of REPS runs of ffmpeg over N frames (the clip looped)
speed() { # KEY N INPUT FILTER REPS
    : > "$TMP/times"
    r=0
    while [ "$r" -lt "$5" ]; do
        s=$(date +%s%N)
        if ! ff -stream_loop -1 -i "$3" -frames:v "$2" -an -vf "$4" -f null - >"$TMP/ff.log" 2>&1; then
            say "FAILED: -vf $4: $(head -n 1 "$TMP/ff.log")"
            put "$1" fail
            return 1
        fi
        e=$(date +%s%N)
        echo "$s $e" | awk '{ printf "%.4f\n", ($2 - $1) / 1e9 }' >> "$TMP/times"
        r=$((r + 1))
    done
    t=$(sort -n "$TMP/times" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
    fps=$(echo "$2 $t" | awk '{ printf "%.4g", $1 / $2 }')
    put "$1" "$fps"
    say "$(printf '%-58s %-5s %5d frames %8.3f s %10s fps' "$4" "$6" "$2" "$t" "$fps")"
}
for size in 720 1080; do
    in=$NAT; [ "$size" = 1080 ] && in=$HD
    nc=$NF_CPU_NAT; [ "$size" = 1080 ] && nc=$NF_CPU_HD
    ng=$(max "$NF_GPU" "$nc")
    speed "fps|$size|null" "$ng" "$in" null "$GPU_REPS" "${size}p"
    for be in $BACKENDS; do
        if [ "$be" = cpu ]; then
            [ "${BENCH_CPU:-1}" = 0 ] && continue
            n=$nc; reps=$CPU_REPS
        else
            n=$ng; reps=$GPU_REPS
        fi
        for a in $ALGOS; do
            for r in $RANGES; do
                speed "fps|$size|gpume-$be|$a|$r" "$n" "$in" \
                    "gpume=device=$be:algo=$a:range=$r:block=16:dir=fwd" "$reps" "${size}p"
            done
        done
        speed "fps|$size|gpume-$be|hme-bi|$RBI" "$n" "$in" \
            "gpume=device=$be:algo=hme:range=$RBI:block=16:dir=bi" "$reps" "${size}p"
    done
    for m in $MEST; do
        for r in $RANGES; do
            speed "fps|$size|mestimate|$m|$r" "$nc" "$in" "mestimate=method=$m:mb_size=16:search_param=$r" \
                "$CPU_REPS" "${size}p"
        done
    done
done
say "speed runs done ($(elapsed) s)"

# GPU time per frame: bench-backend (CUDA events), 1080p
if [ "$GPU_OK" = 1 ] && [ -x "$BB" ]; then
    ff -i "$HD" -vf format=gray -frames:v 8 -f rawvideo "$TMP/hd.gray" || die "cannot make $TMP/hd.gray"
    # start-up as on a fresh machine: the driver's JIT cache off
    o=$(CUDA_CACHE_DISABLE=1 "$BB" --backend=cuda --frames="$TMP/hd.gray:1920x1080:8" --startup 2>&1 | tail -n 1)
    say "bench-backend start-up, JIT cache off: $o"
    for a in $ALGOS; do
        for r in $RANGES; do
            o=$("$BB" --backend=cuda --frames="$TMP/hd.gray:1920x1080:8" --algo=$a --range=$r --block=16 \
                --iters=50 2>&1 | tail -n 1)
            say "bench-backend $a range $r: $o"
            ms=$(echo "$o" | sed -n 's/.*search \([0-9.]*\) ms.*/\1/p')
            put "gpums|$a|$r" "${ms:-fail}"
        done
    done
fi

# ---------------------------------------------------------------- quality
# jobs in parallel (timing does not matter here), the costliest first
nj=0
job() { # COST NAME INPUT FRAMES FILTER [TRUTH] [dump]
    nj=$((nj + 1))
    f=$TMP/jobs/$(printf '%012d-%04d' $((999999999999 - $1)) $nj).sh
    tr=; [ -n "${6:-}" ] && tr="-truth '$6'"
    {
        echo "'$MV' eval -v error -frames $4 $tr -vf '$5' '$3' > '$TMP/q/$2.txt' 2> '$TMP/q/$2.err'"
        [ "${7:-}" = dump ] &&
            echo "'$MV' dump -v error -frames $4 -vf '$5' '$3' > '$TMP/q/$2.csv' 2>> '$TMP/q/$2.err'"
    } > "$f"
}
px() { # clip -> pixels per frame / 1000
    case $1 in cockatoo) echo 922 ;; city) echo 292 ;; realshort) echo 77 ;; *) echo 230 ;; esac
}
cost() { # METHOD RANGE CLIP FRAMES: relative cost, for the job order only
    case $1 in full|esa) c=$(( (2 * $2 + 1) * (2 * $2 + 1) )) ;; umh) c=150 ;; *) c=40 ;; esac
    [ "$1" = esa ] && c=$((c * 2))
    [ "$1" = full ] && [ "$QDEV" = cpu ] && c=$((c / NPROC))
    echo $(( c * $(px "$3") * $4 ))
}
gf() { echo "gpume=device=$QDEV:algo=$1:range=$2:block=16:dir=${3:-fwd}"; }
mf() { echo "mestimate=method=$1:mb_size=16:search_param=$2"; }
for clip in cockatoo city realshort; do
    in=$TMP/$clip.y4m; [ "$clip" = cockatoo ] && in=$NAT
    for r in $RANGES; do
        for a in $ALGOS; do job "$(cost "$a" "$r" "$clip" "$NF_Q")" "$clip-gpume-$a-$r" "$in" "$NF_Q" "$(gf "$a" "$r")"; done
        for m in $MEST; do job "$(cost "$m" "$r" "$clip" "$NF_Q")" "$clip-mestimate-$m-$r" "$in" "$NF_Q" "$(mf "$m" "$r")"; done
    done
done
for a in hme full; do
    job "$(cost "$a" "$RBI" cockatoo "$NF_Q")" "bi-gpume-$a-$RBI" "$NAT" "$NF_Q" "$(gf "$a" "$RBI" bi)"
done
for s in int frac obj; do
    d=; [ "$s" = int ] && d=dump
    for a in $ALGOS; do
        job "$(cost "$a" 16 syn "$NF_SYN")" "syn-$s-gpume-$a-16" "$TMP/syn-$s.y4m" "$NF_SYN" "$(gf "$a" 16)" "$TMP/syn-$s.truth" $d
    done
    for m in $MEST; do
        job "$(cost "$m" 16 syn "$NF_SYN")" "syn-$s-mestimate-$m-16" "$TMP/syn-$s.y4m" "$NF_SYN" "$(mf "$m" 16)" "$TMP/syn-$s.truth" $d
    done
done
say "quality: $nj evaluations, $JOBS at a time (gpume vectors from device=$QDEV)"
ls "$TMP"/jobs/*.sh | xargs -n 1 -P "$JOBS" sh
for f in "$TMP"/q/*.txt; do
    n=$(basename "$f" .txt)
    if ! grep -q '^overall' "$f"; then
        say "FAILED: quality $n: $(tail -n 1 "$TMP/q/$n.err")"
        continue
    fi
    sed -n 's/^overall //p' "$f" | tr ' ' '\n' | awk -F= -v n="$n" 'NF == 2 { printf "q|%s|%s\t%s\n", n, $1, $2 }' >> "$RES"
done
# exact integer vectors (syn-int, truth (5, -2)): share of the forward vectors
# equal to the truth, over all blocks and over the blocks whose match lies
# inside the frame (the others see replicated edge pixels, not the texture)
for f in "$TMP"/q/syn-int-*.csv; do
    [ -f "$f" ] || continue
    n=$(basename "$f" .csv)
    awk -F, -v dx=5 -v dy=-2 -v W=640 -v H=360 '
        NR > 1 && $5 == -1 {
            w = $6; h = $7; vx = $8 - $10; vy = $9 - $11
            if ($14 > 0) {    # motion / motion_scale unless it disagrees with src - dst
                mx = $12 / $14; my = $13 / $14
                if (mx - vx <= 1 && vx - mx <= 1 && my - vy <= 1 && vy - my <= 1) { vx = mx; vy = my }
            }
            x0 = $10 - int(w / 2); y0 = $11 - int(h / 2)
            ok = (vx == dx && vy == dy); all++; ex += ok
            if (x0 + dx >= 0 && y0 + dy >= 0 && x0 + w + dx <= W && y0 + h + dy <= H) { nin++; exin += ok }
        }
        END { printf "%s|exact_all\t%.4f\n%s|exact_in\t%.4f\n%s|n_in\t%d\n",
              n, all ? ex / all : -1, n, nin ? exin / nin : -1, n, nin }' n="q|$n" "$f" >> "$RES"
done
say "quality runs done ($(elapsed) s)"

# ---------------------------------------------------------------- table
f3() { # number formatting: about 3 significant digits
    case $1 in -|fail|nan|inf|"") echo "${1:--}" ;;
    *) echo "$1" | awk '{ v = $1; a = v < 0 ? -v : v
           if (a >= 100) printf "%.0f\n", v; else if (a >= 10) printf "%.1f\n", v
           else if (a >= 1) printf "%.2f\n", v; else printf "%.3f\n", v }' ;;
    esac
}
f2() { case $1 in -|fail|nan|inf|"") echo "${1:--}" ;; *) printf '%.2f\n' "$1" ;; esac; }
sub() { # A B -> A - B, signed, 2 decimals
    case "$1$2" in *-|*fail*|*nan*|*inf*) echo - ;; *) echo "$1 $2" | awk '{ printf "%+.2f\n", $1 - $2 }' ;; esac
}
ratio() { # A B -> A / B
    case "$1$2" in *-|*fail*|*nan*|*inf*) echo - ;;
    *) echo "$1 $2" | awk '$2 > 0 { r = $1 / $2; if (r >= 10) printf "%.0f×\n", r; else printf "%.2f×\n", r; next } { print "-" }' ;;
    esac
}
pct() { case $1 in -|"") echo - ;; *) echo "$1" | awk '$1 < 0 { print "-"; next } { printf "%.1f %%\n", 100 * $1 }' ;; esac; }

TABLE=$OUTDIR/table-$MACHINE.md
DAT=$OUTDIR/bench-$MACHINE.dat
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
{
echo "# gpume benchmark: $MACHINE"
echo
echo "- machine: $CPU_MODEL, $NPROC cores; GPU: ${GPU_NAME:-none}${GPU_DRV:+ (driver $GPU_DRV)}"
echo "- gpume backends: $(echo "$BACKENDS" | sed 's/ /, /g')${OCL_NOTE:+; $OCL_NOTE}"
echo "- $(date -u '+%Y-%m-%d %H:%M UTC'), commit $commit, mode $MODE, $(elapsed) s;" \
     "\`sh tools/bench.sh\` with BENCH_QUICK=$QUICK${GPUME_CUDA:+ GPUME_CUDA=$GPUME_CUDA}"
echo "- settings: block 16 (mestimate mb_size=16), range = search_param; gpume dir=fwd, ctu 32," \
     "subpel 2 (quarter pel), lambda 2, pred zero (defaults); mestimate always searches both directions" \
     "(two searches per frame) at integer pel"
echo "- fps: whole command, \`ffmpeg -stream_loop -1 -i CLIP.y4m -frames:v N -an -vf FILTER -f null -\`," \
     "wall time; N = $NF_CPU_NAT (720p) / $NF_CPU_HD (1080p) for gpume device=cpu and mestimate" \
     "(1 run each, median of $CPU_REPS), N = $(max "$NF_GPU" "$NF_CPU_NAT") / $(max "$NF_GPU" "$NF_CPU_HD")" \
     "for GPU backends (median of $GPU_REPS runs). gpume's first frame has no search (no past frame)."
echo "- clip: cockatoo.mp4 from frame 40 (decoded to y4m first), 1280x720 native and scaled to 1920x1080 (bicubic)"
echo "- MC-PSNR: \`gpume-mv eval\` psnr_fwd over the first $NF_Q frames (prediction of t from t-1" \
     "with the exported vectors, quarter-pel bilinear); gpume vectors from device=$QDEV (every backend" \
     "gives the same vectors bit for bit)"
echo
echo "## Speed and MC-PSNR (cockatoo)"
echo
hdr="| method | backend | range | fps 720p | fps 1080p | × esa 1080p |"
sep="| --- | --- | ---: | ---: | ---: | ---: |"
[ "$GPU_OK" = 1 ] && { hdr="$hdr GPU ms/frame 1080p |"; sep="$sep ---: |"; }
echo "$hdr MC-PSNR 720p (dB) | Δ vs esa (dB) |"
echo "$sep ---: | ---: |"
row() { # LABEL BACKEND RANGE SPEEDKEY QKEY GPUMSKEY
    f7=$(get "fps|720|$4|$3"); f10=$(get "fps|1080|$4|$3")
    q=$(get "q|cockatoo-$5-$3|psnr_fwd"); qe=$(get "q|cockatoo-mestimate-esa-$3|psnr_fwd")
    line="| $1 | $2 | $3 | $(f3 "$f7") | $(f3 "$f10") | $(ratio "$f10" "$(get "fps|1080|mestimate|esa|$3")") |"
    [ "$GPU_OK" = 1 ] && line="$line $(f3 "$(if [ -n "$6" ]; then get "gpums|$6|$3"; else echo -; fi)") |"
    echo "$line $(f2 "$q") | $(sub "$q" "$qe") |"
}
f7=$(get "fps|720|null"); f10=$(get "fps|1080|null")
line="| null filter (decode + ffmpeg) | - | - | $(f3 "$f7") | $(f3 "$f10") | - |"
[ "$GPU_OK" = 1 ] && line="$line - |"
echo "$line - | - |"
for be in $BACKENDS; do
    [ "$be" = cpu ] && [ "${BENCH_CPU:-1}" = 0 ] && continue
    for a in $ALGOS; do
        for r in $RANGES; do
            g=; [ "$be" = cuda ] && g=$a
            row "gpume $a" "$be" "$r" "gpume-$be|$a" "gpume-$a" "$g"
        done
    done
    # dir=bi: speed row; its quality is in the bidirectional table
    f7=$(get "fps|720|gpume-$be|hme-bi|$RBI"); f10=$(get "fps|1080|gpume-$be|hme-bi|$RBI")
    line="| gpume hme dir=bi | $be | $RBI | $(f3 "$f7") | $(f3 "$f10") | $(ratio "$f10" "$(get "fps|1080|mestimate|esa|$RBI")") |"
    [ "$GPU_OK" = 1 ] && line="$line - |"
    echo "$line see below | - |"
done
for m in $MEST; do
    for r in $RANGES; do row "mestimate $m" cpu "$r" "mestimate|$m" "mestimate-$m" ""; done
done
echo
echo "## MC-PSNR on natural clips (psnr_fwd, dB; Δ: against mestimate esa at the same range)"
echo
echo "Frames: the first $NF_Q of realshort.mp4 (320x240), cityCC0.mpg from frame 30 (720x405)," \
     "cockatoo.mp4 from frame 40 (1280x720)."
echo
h="| method |"; s="| --- |"
for clip in realshort city cockatoo; do for r in $RANGES; do h="$h $clip r$r |"; s="$s ---: |"; done; done
echo "$h"; echo "$s"
for meth in gpume-full gpume-hme gpume-lfs mestimate-esa mestimate-epzs mestimate-hexbs mestimate-umh; do
    line="| ${meth#*-} ($(echo "$meth" | cut -d- -f1)) |"
    for clip in realshort city cockatoo; do
        for r in $RANGES; do
            q=$(get "q|$clip-$meth-$r|psnr_fwd")
            if [ "$meth" = mestimate-esa ]; then line="$line $(f2 "$q") |"
            else line="$line $(f2 "$q") ($(sub "$q" "$(get "q|$clip-mestimate-esa-$r|psnr_fwd")")) |"; fi
        done
    done
    echo "$line"
done
echo
echo "## Synthetic clips with known motion (range 16, 640x360, $NF_SYN frames)"
echo
echo "syn-int: noise texture translated by (5, -2) px per frame; syn-frac: by (1.25, -0.5) px" \
     "(4x nearest upscale, integer crop steps, 4x box downscale); syn-obj: background (2, 1)," \
     "two cityCC0 patches moving (3.25, 0.75) and (-2, 1.5) px per frame. EPE: end-point error of" \
     "the forward vectors at block centres, px (gpume-mv eval -truth). Exact: share of syn-int" \
     "vectors equal to the truth, over all blocks / over the blocks whose true match lies inside the frame."
echo
echo "| method | int EPE mean | int EPE median | int exact (all) | int exact (inside) | frac EPE mean | frac EPE median | obj EPE mean | obj EPE median | int MC-PSNR | frac MC-PSNR | obj MC-PSNR |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for meth in gpume-full gpume-hme gpume-lfs mestimate-esa mestimate-epzs mestimate-hexbs mestimate-umh; do
    k=$meth-16
    echo "| ${meth#*-} ($(echo "$meth" | cut -d- -f1)) | $(f3 "$(get "q|syn-int-$k|epe_mean")") | $(f3 "$(get "q|syn-int-$k|epe_median")") |" \
         "$(pct "$(get "q|syn-int-$k|exact_all")") | $(pct "$(get "q|syn-int-$k|exact_in")") |" \
         "$(f3 "$(get "q|syn-frac-$k|epe_mean")") | $(f3 "$(get "q|syn-frac-$k|epe_median")") |" \
         "$(f3 "$(get "q|syn-obj-$k|epe_mean")") | $(f3 "$(get "q|syn-obj-$k|epe_median")") |" \
         "$(f2 "$(get "q|syn-int-$k|psnr_fwd")") | $(f2 "$(get "q|syn-frac-$k|psnr_fwd")") | $(f2 "$(get "q|syn-obj-$k|psnr_fwd")") |"
done
echo
echo "## Bidirectional: interpolation PSNR (cockatoo 720p, range $RBI, $NF_Q frames)"
echo
echo "psnr_bi: PSNR of (forward prediction + backward prediction + 1) >> 1 against the frame" \
     "(mestimate always exports both directions)."
echo
echo "| method | psnr_fwd | psnr_bwd | psnr_bi |"
echo "| --- | ---: | ---: | ---: |"
for k in bi-gpume-hme bi-gpume-full cockatoo-mestimate-esa cockatoo-mestimate-epzs cockatoo-mestimate-umh; do
    lab=$(echo "$k" | sed 's/^bi-gpume-\(.*\)/gpume \1 dir=bi/; s/^cockatoo-mestimate-\(.*\)/mestimate \1/')
    echo "| $lab | $(f2 "$(get "q|$k-$RBI|psnr_fwd")") | $(f2 "$(get "q|$k-$RBI|psnr_bwd")") | $(f2 "$(get "q|$k-$RBI|psnr_bi")") |"
done
echo
echo "## SPEC §5 quality targets, as measured here"
echo
for r in $RANGES; do
    for clip in realshort city cockatoo; do
        e=$(get "q|$clip-mestimate-esa-$r|psnr_fwd")
        for a in full hme lfs; do echo "$clip $r $a $(sub "$(get "q|$clip-gpume-$a-$r|psnr_fwd")" "$e")"; done
    done
done | awk '$4 != "-" { n++; if ($4 + 0 >= 1) ok++; if ($3 != "lfs") { m++; if ($4 + 0 >= 1) okf++ }
                         if (min == "" || $4 + 0 < min) { min = $4 + 0; w = $1 " r" $2 " " $3 } }
    END { printf "- MC-PSNR ≥ mestimate esa + 1 dB (same block size and range): full/hme %d of %d clip×range cases, all algos %d of %d; smallest margin %+.2f dB (%s)\n", okf, m, ok, n, min, w }'
for r in $RANGES; do
    for clip in realshort city cockatoo; do
        echo "$clip $r $(sub "$(get "q|$clip-gpume-hme-$r|psnr_fwd")" "$(get "q|$clip-gpume-full-$r|psnr_fwd")")"
    done
done | awk '$3 != "-" { n++; d = $3 + 0; if (d >= -0.2) ok++; if (min == "" || d < min) { min = d; w = $1 " r" $2 } }
    END { printf "- hme within 0.2 dB of full: %d of %d cases; worst hme − full %+.2f dB (%s)\n", ok, n, min, w }'
for a in full hme lfs; do
    echo "- exact integer vectors (syn-int, gpume $a): $(pct "$(get "q|syn-int-gpume-$a-16|exact_in")") of the blocks inside," \
         "$(pct "$(get "q|syn-int-gpume-$a-16|exact_all")") of all; EPE median $(f3 "$(get "q|syn-int-gpume-$a-16|epe_median")") px"
done
for a in full hme lfs; do
    echo "- sub-pel error ≤ 0.2 px median (gpume $a): syn-frac $(f3 "$(get "q|syn-frac-gpume-$a-16|epe_median")") px," \
         "syn-obj $(f3 "$(get "q|syn-obj-gpume-$a-16|epe_median")") px median (means $(f3 "$(get "q|syn-frac-gpume-$a-16|epe_mean")")," \
         "$(f3 "$(get "q|syn-obj-gpume-$a-16|epe_mean")"))"
done
} > "$TMP/table.md"
cp "$TMP/table.md" "$TABLE" || die "cannot write $TABLE"
cat "$TABLE"
say "wrote $TABLE"

# ---------------------------------------------------------------- plot data
# one block per series (two blank lines between): range fps720 fps1080 psnr720
{
    echo "# gpume bench data, $MACHINE: $CPU_MODEL, $NPROC cores, GPU ${GPU_NAME:-none}; commit $commit, mode $MODE"
    echo "# columns: range fps720p fps1080p mcpsnr720p(cockatoo)"
    first=1
    series() { # TITLE SPEEDKEY QKEY
        [ "$first" = 1 ] || printf '\n\n'
        first=0
        echo "\"$1\" range fps720 fps1080 psnr"
        for r in $RANGES; do
            v7=$(get "fps|720|$2|$r"); v10=$(get "fps|1080|$2|$r"); q=$(get "q|cockatoo-$3-$r|psnr_fwd")
            [ "$v7" = fail ] && v7=-; [ "$v10" = fail ] && v10=-; [ "$q" = nan ] && q=-
            echo "$r $v7 $v10 $q"
        done
    }
    for be in $BACKENDS; do
        [ "$be" = cpu ] && [ "${BENCH_CPU:-1}" = 0 ] && continue
        for a in $ALGOS; do series "gpume $a ($be)" "gpume-$be|$a" "gpume-$a"; done
    done
    for m in $MEST; do series "mestimate $m" "mestimate|$m" "mestimate-$m"; done
} > "$DAT"
say "wrote $DAT"
plot "$DAT" "$MACHINE" "$OUTDIR"
say "done in $(elapsed) s"
