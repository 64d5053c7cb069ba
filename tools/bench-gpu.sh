#!/bin/sh
# GPU benchmark, run on the GPU machine from a tree built elsewhere:
# per-frame device time of the CUDA backend (CUDA events, median over
# many frames after warm-up) and whole-command frames per second of ffmpeg
# with gpume beside mestimate, on the same clip (cockatoo.mp4, scaled), and
# the start-up of the CUDA backend (tools/startup-bench.sh).
# Writes $OUT/bench.txt (or build/bench/bench.txt).
#
# usage: tools/bench-gpu.sh [BUILDDIR] [quick]
set -u

b=${1:-build}
mode=${2:-full}
out=${OUT:-$b/bench}
tmp=${TMPDIR:-/tmp}/gpume-bench
mkdir -p "$out" "$tmp"
ff="$b/ffmpeg/ffmpeg -hide_banner -nostats"
bench=$b/tools/bench-backend
res=$out/bench.txt
: > "$res"
say() { echo "$*" | tee -a "$res"; }

say "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo none)"
say "host: $(nproc) cores, $(uname -m)"
for s in 1280x720 1920x1080 3840x2160; do
    n=8; [ "$s" = 3840x2160 ] && n=4
    $ff -v error -i "$b/clips/cockatoo.mp4" -an -vf "select='between(n\,40\,$((39 + n)))',scale=$s:flags=bicubic,format=gray" \
        -fps_mode passthrough -f rawvideo -y "$tmp/$s.gray" || exit 1
    eval "frames_$s=$n"
done

say ""
say "== device time per frame (CUDA events; estimate only, and upload+estimate)"
bk() { # SIZE ARGS...
    s=$1; shift
    eval "n=\$frames_$s"
    "$bench" --backend=cuda --frames="$tmp/$s.gray:$s:$n" "$@" | tee -a "$res"
}
bk 1920x1080 --algo=full --range=16 --iters=100
bk 1920x1080 --algo=full --range=32 --iters=50
bk 1920x1080 --algo=full --range=32 --block=auto --iters=50
[ "$mode" = quick ] || bk 1920x1080 --algo=full --range=64 --iters=20
for s in 1280x720 1920x1080 3840x2160; do
    bk $s --algo=hme --range=16
    bk $s --algo=hme --range=32 --block=auto
    bk $s --algo=lfs --range=16
done
bk 1920x1080 --algo=hme --range=16 --block=8     # the defaults
bk 1920x1080 --algo=hme --range=64

say ""
say "== start-up: time to first vectors, kernels as PTX and as the build embeds them"
if [ -x "$b/tools/bench-backend-ptx" ]; then
    sh "$(dirname "$0")/startup-bench.sh" "$b" 5 | tee -a "$res"
else
    say "skipped: no $b/tools/bench-backend-ptx"
fi

say ""
say "== OpenCL (NVIDIA's OpenCL driver) beside CUDA on the same GPU"
vendors=$tmp/vendors
mkdir -p "$vendors"
echo libnvidia-opencl.so.1 > "$vendors/nvidia.icd"
for cfg in "1920x1080 --algo=hme --range=16" "1920x1080 --algo=full --range=16" \
           "1920x1080 --algo=lfs --range=16"; do
    set -- $cfg
    s=$1; shift
    eval "n=\$frames_$s"
    OCL_ICD_VENDORS=$vendors "$bench" --backend=opencl --frames="$tmp/$s.gray:$s:$n" --iters=50 "$@" | tee -a "$res"
    "$bench" --backend=cuda --frames="$tmp/$s.gray:$s:$n" --iters=50 "$@" | tee -a "$res"
done

say ""
say "== whole command: ffmpeg -i 1080p.y4m (software frames) -vf FILTER -f null -"
say "   (frames: output frames; mcfps=fps=60 makes two of each 30 fps input frame)"
$ff -v error -i "$b/clips/cockatoo.mp4" -an -vf "scale=1920:1080:flags=bicubic,format=yuv420p" \
    -frames:v 200 -y "$tmp/1080p.y4m" || exit 1
# median wall time of three runs over FRAMES output frames (INPUT looped,
# 1080p.y4m by default); OPTIONS go before the input
# FRAMES "all": the input once, not looped (FFmpeg's CLI cannot loop an
# NVDEC-decoded input into a filter graph of CUDA frames)
cmd() { # FRAMES FILTER [INPUT [OPTIONS...]]
    n=$1 f=$2 in=${3:-$tmp/1080p.y4m}
    shift 2; [ $# -gt 0 ] && shift
    if [ "$n" = all ]; then
        set -- "$@" -i "$in"
        n=$($b/ffmpeg/ffprobe -v error -select_streams v:0 -count_packets \
                -show_entries stream=nb_read_packets -of csv=p=0 "$in")
    else
        set -- "$@" -stream_loop -1 -i "$in" -frames:v "$n"
    fi
    for r in 1 2 3; do
        if /usr/bin/time -f %e -o "$tmp/time" $ff -v error "$@" -an -vf "$f" -f null - \
               > /dev/null 2> "$tmp/stderr"; then
            tail -n 1 "$tmp/time"
        else
            echo failed
        fi
    done > "$tmp/times"
    if grep -q failed "$tmp/times"; then
        say "$(printf '%-60s failed: %s' "$f" "$ff -v error $* -an -vf $f -f null -")"
        return
    fi
    t=$(sort -n "$tmp/times" | sed -n 2p)
    fps=$(echo "$n $t" | awk '{ printf "%.1f", $1 / $2 }')
    say "$(printf '%-60s %5d frames %8.2f s %9s fps' "$f" "$n" "$t" "$fps")"
}
cmd 1000 null
cmd 1000 gpume=device=cuda
cmd 1000 gpume=device=cuda:dir=bi
cmd 1000 gpume=device=cuda:algo=hme:block=16
cmd 1000 gpume=device=cuda:algo=lfs:block=16
cmd 1000 gpume=device=cuda:algo=full:range=16:block=16
cmd 1000 gpume=device=cuda:algo=full:range=32:block=auto
cmd 1000 gpume=device=cuda:algo=hme:block=16:dir=bi
cmd 2000 gpume=device=cuda:dir=bi,mcfps=fps=60
cmd 2000 gpume=device=cuda:dir=bi,mcfps=fps=60:mode=blend
cmd 2000 format=yuv420p,hwupload,gpume=dir=bi,mcfps=fps=60,hwdownload,format=yuv420p "" \
    -init_hw_device cuda=gpu -filter_hw_device gpu
cmd 30 minterpolate=fps=60
(export OCL_ICD_VENDORS=$vendors; cmd 300 "gpume=device=opencl:algo=hme:block=16")

say ""
say "== start-up and steady rate: wall time of 10, 1000 and 5000 output frames (median of three runs);"
say "   steady = 4000 / (t5000 - t1000), the rate once the device is open (tools/steady-bench.sh)"
sh "$(dirname "$0")/steady-bench.sh" "$b" | tee -a "$res"

say ""
say "== several streams on one GPU: output frames of all of them together per second of wall time"
say "   (one: a single ffmpeg; four -vf: one ffmpeg, four inputs, four outputs of a filter graph each;"
say "    filter_complex: the same in one filter graph; processes: that many ffmpeg at once);"
say "   each stream 500 and 2500 frames, median of three runs; steady = streams * 2000 / (t2500 - t500),"
say "   the rate once every stream runs, start-up left out"
# walltimes FILE COMMAND...: three wall times of the command (a shell function or program) into FILE
walltimes() {
    times_file=$1
    shift
    for r in 1 2 3; do
        t0=$(date +%s.%N)
        if "$@" > /dev/null 2> "$tmp/stderr"; then
            echo "$t0 $(date +%s.%N)" | awk '{ printf "%.3f\n", $2 - $1 }'
        else
            cp "$tmp/stderr" "$tmp/error"
            echo failed
        fi
    done > "$times_file"
}
# wall STREAMS LABEL COMMAND...: the command with $fr = $fr_short and $fr_long
# frames per stream (500 and 2500 unless set)
fr_short=500 fr_long=2500
wall() {
    k=$1 label=$2
    shift 2
    fr=$fr_short
    walltimes "$tmp/times-short" "$@"
    fr=$fr_long
    walltimes "$tmp/times-long" "$@"
    rate= steady=
    if grep -q failed "$tmp/times-short" "$tmp/times-long"; then
        say "$(printf '%-60s failed: %s' "$label" "$(head -n 1 "$tmp/error")")"
        return
    fi
    t1=$(sort -n "$tmp/times-short" | sed -n 2p) t2=$(sort -n "$tmp/times-long" | sed -n 2p)
    rate=$(echo "$k $t2 $fr_long" | awk '{ printf "%.1f", $1 * $3 / $2 }')
    steady=$(echo "$k $t2 $t1 $fr_long $fr_short" | awk '{ printf "%.1f", $1 * ($4 - $5) / ($2 - $3) }')
    say "$(printf '%-60s %5d frames %8.2f s %9s fps, steady %9s fps' "$label" $((k * fr_long)) "$t2" \
        "$rate" "$steady")"
}
# against_one STREAMS LABEL COMMAND...: wall, then its rates against the last "one" row's
against_one() {
    wall "$@"
    [ -n "$rate" ] && [ -n "$one_rate" ] &&
        say "$(printf '%-60s %.2f times one, steady %.2f times' "    $2 against one" \
            "$(echo "$rate $one_rate" | awk '{ print $1 / $2 }')" \
            "$(echo "$steady $one_steady" | awk '{ print $1 / $2 }')")"
}
loop="-stream_loop -1 -i $tmp/1080p.y4m"
one()      { $ff -v error $loop -frames:v $fr -an -vf "$1" -f null -; }
four_vf()  { $ff -v error $loop $loop $loop $loop \
                 -map 0:v -frames:v $fr -vf "$1" -f null - -map 1:v -frames:v $fr -vf "$1" -f null - \
                 -map 2:v -frames:v $fr -vf "$1" -f null - -map 3:v -frames:v $fr -vf "$1" -f null -; }
four_fc()  { $ff -v error $loop $loop $loop $loop \
                 -filter_complex "[0:v]$1[o0];[1:v]$1[o1];[2:v]$1[o2];[3:v]$1[o3]" \
                 -map "[o0]" -frames:v $fr -f null - -map "[o1]" -frames:v $fr -f null - \
                 -map "[o2]" -frames:v $fr -f null - -map "[o3]" -frames:v $fr -f null -; }
processes() { # N FILTER
    i=0 pids=""
    while [ $i -lt "$1" ]; do
        $ff -v error $loop -frames:v $fr -an -vf "$2" -f null - & pids="$pids $!"
        i=$((i + 1))
    done
    st=0
    for p in $pids; do wait "$p" || st=1; done
    return $st
}
for f in null gpume=device=cuda; do
    wall 1 "$f: one" one "$f"
    one_rate=$rate one_steady=$steady
    against_one 4 "$f: four -vf" four_vf "$f"
    against_one 4 "$f: filter_complex" four_fc "$f"
    against_one 8 "$f: 8 processes" processes 8 "$f"
done
# CUDA MPS lets the processes' kernels run at once instead of time-sliced
if command -v nvidia-cuda-mps-control > /dev/null; then
    export CUDA_MPS_PIPE_DIRECTORY=$tmp/mps CUDA_MPS_LOG_DIRECTORY=$tmp/mps-log
    mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
    if nvidia-cuda-mps-control -d; then
        against_one 8 "gpume=device=cuda: 8 processes, MPS" processes 8 gpume=device=cuda
        echo quit | nvidia-cuda-mps-control
    else
        say "MPS: nvidia-cuda-mps-control -d failed"
    fi
    unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
else
    say "MPS: no nvidia-cuda-mps-control"
fi

say ""
say "== NVDEC: 1080p H.264 4:2:0 decoded on the GPU into CUDA frames, no download"
# NVDEC does not decode cockatoo.mp4 (4:4:4): NVDEC_CLIP (NVDEC_CLIP_2160)
# names a 4:2:0 H.264 clip, or a build with libx264 makes one; an NVDEC row
# runs only where a frame of the clip downloads from CUDA frames, so that a
# decoder that fell back to software frames cannot pass for NVDEC
nvdec_clip() { # CLIP SIZE FRAMES: prints the clip NVDEC decodes here, or why none
    c=$1
    if [ -z "$c" ] && $ff -encoders 2>/dev/null | grep -q libx264; then
        c=$tmp/nvdec-$2.mp4
        $ff -v error -stream_loop -1 -i "$b/clips/cockatoo.mp4" -an -frames:v "$3" \
            -vf "scale=$2:flags=bicubic,format=yuv420p" -c:v libx264 -preset veryfast -crf 23 \
            -y "$c" >&2 || c=
    fi
    if [ -z "$c" ]; then
        echo "skipped: no $2 4:2:0 H.264 clip (set NVDEC_CLIP or NVDEC_CLIP_2160, or build with libx264)"
    elif ! $ff -v error -hwaccel cuda -hwaccel_output_format cuda -i "$c" -frames:v 1 \
             -vf hwdownload,format=nv12 -f null - 2>/dev/null; then
        echo "skipped: NVDEC gives no CUDA frames of $c here"
    else
        echo "$c"
    fi
}
nvclip=$(nvdec_clip "${NVDEC_CLIP:-}" 1920x1080 1200)
if [ ! -f "$nvclip" ]; then
    say "$nvclip"
else
    say "   ($nvclip, $($b/ffmpeg/ffprobe -v error -select_streams v:0 -count_packets \
        -show_entries stream=width,height,nb_read_packets -of csv=p=0 "$nvclip" | tr , ' ') frames)"
    cmd all null "$nvclip"
    cmd all gpume=device=cuda "$nvclip"
    cmd all null "$nvclip" -hwaccel cuda -hwaccel_output_format cuda
    cmd all gpume "$nvclip" -hwaccel cuda -hwaccel_output_format cuda
    cmd all gpume=dir=bi "$nvclip" -hwaccel cuda -hwaccel_output_format cuda
    # several streams as above, from NVDEC: the host moves no pictures, so
    # FFmpeg's own pipeline of software frames does not bound one process;
    # the clip once through (fr_long, its frames), and its first fifth
    say "   one process, four NVDEC inputs, four outputs of a filter graph each, against one;"
    say "   steady = streams * (frames - frames / 5) / (t(frames) - t(frames / 5))"
    fr_long=$($b/ffmpeg/ffprobe -v error -select_streams v:0 -count_packets \
                  -show_entries stream=nb_read_packets -of csv=p=0 "$nvclip")
    fr_short=$((fr_long / 5))
    # one and four_vf above, with this input instead of the looped .y4m
    loop_y4m=$loop
    loop="-hwaccel cuda -hwaccel_output_format cuda -i $nvclip"
    for f in null gpume gpume=dir=bi; do
        wall 1 "$f, NVDEC: one" one "$f"
        one_rate=$rate one_steady=$steady
        against_one 4 "$f, NVDEC: four -vf" four_vf "$f"
    done
    loop=$loop_y4m fr_short=500 fr_long=2500
fi

say ""
say "== 2160p: ffmpeg -i 2160p.y4m -vf FILTER -f null -"
$ff -v error -i "$b/clips/cockatoo.mp4" -an -vf "scale=3840:2160:flags=bicubic,format=yuv420p" \
    -frames:v 60 -y "$tmp/2160p.y4m" || exit 1
cmd 300 null "$tmp/2160p.y4m"
cmd 300 gpume=device=cuda:range=32:block=auto "$tmp/2160p.y4m"
cmd 300 format=yuv420p,hwupload,gpume=range=32:block=auto "$tmp/2160p.y4m" \
    -init_hw_device cuda=gpu -filter_hw_device gpu
# NVDEC at 2160p: the host moves no pictures. A decoded input cannot loop,
# so the rate is the steady one: frames past the first quarter over the time
# they add (median of three runs of each length), start-up left out
nv4k=$(nvdec_clip "${NVDEC_CLIP_2160:-}" 3840x2160 240)
steady() { # CLIP FILTER: steady frames per second of FILTER on NVDEC's frames of CLIP
    total=$($b/ffmpeg/ffprobe -v error -select_streams v:0 -count_packets \
                -show_entries stream=nb_read_packets -of csv=p=0 "$1")
    part=$((total / 4))
    for n in $part $total; do
        for r in 1 2 3; do
            /usr/bin/time -f %e -o "$tmp/time" $ff -v error -hwaccel cuda -hwaccel_output_format cuda \
                -i "$1" -frames:v "$n" -an -vf "$2" -f null - > /dev/null 2>&1 &&
                tail -n 1 "$tmp/time" || echo failed
        done > "$tmp/times-$n"
    done
    if grep -q failed "$tmp/times-$part" "$tmp/times-$total"; then
        say "$(printf '%-60s failed' "$2 (NVDEC)")"
        return
    fi
    t1=$(sort -n "$tmp/times-$part" | sed -n 2p) t2=$(sort -n "$tmp/times-$total" | sed -n 2p)
    say "$(printf '%-60s %5d frames %8.2f s %9s fps (steady: frames %d to %d)' "$2 (NVDEC)" \
        "$total" "$t2" "$(echo "$total $part $t2 $t1" | awk '{ printf "%.1f", ($1 - $2) / ($3 - $4) }')" \
        "$part" "$total")"
}
if [ ! -f "$nv4k" ]; then
    say "NVDEC: $nv4k"
else
    steady "$nv4k" null
    steady "$nv4k" gpume=range=32:block=auto
    steady "$nv4k" gpume
fi
# NVDEC decodes 2160p H.264 more slowly than gpume searches it; 1080p
# frames scaled up on the GPU feed gpume 2160p frames faster
if [ ! -f "$nvclip" ]; then
    say "NVDEC, scaled to 2160p: $nvclip"
elif ! $ff -filters 2>/dev/null | grep -q scale_cuda; then
    say "NVDEC, scaled to 2160p: skipped, this ffmpeg has no scale_cuda"
else
    steady "$nvclip" scale_cuda=3840:2160
    steady "$nvclip" scale_cuda=3840:2160,gpume=range=32:block=auto
fi

say ""
say "== CPU"
cmd 20 gpume=device=cpu:algo=hme:block=16
cmd 5 gpume=device=cpu:algo=full:range=16:block=16
for m in esa epzs hexbs umh; do
    cmd 5 mestimate=method=$m:mb_size=16:search_param=16
done
