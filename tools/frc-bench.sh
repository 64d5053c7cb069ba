#!/bin/sh
# Frame-rate-conversion quality benchmark (make frc-bench).
#
# Protocol: decode FRC_FRAMES (41) frames of a clip, number them at 30 fps;
# drop every other frame (the odd ones; with FRC_STEP, all but one of every
# FRC_STEP); rebuild the clip at 30 fps with each method; luma PSNR and SSIM
# of every rebuilt frame against the original that was dropped
# (tools/frc-metrics.c), on the luma samples as they are: the y4m files
# carry no range, and the frames are read as full range so that
# format=gray copies Y (read as limited range, it would stretch 16..235 to
# 0..255 and clip what lies outside). All methods run in the same run on the
# same frames:
#   mcfps        gpume=dir=bi:range=64,mcfps (CPU backends here): the doubled
#                frame interval of the protocol doubles the motion
#   mcfps-dis    gpume=algo=dis:dir=bi:range=64,mcfps: gpume's dense inverse
#                search, started from hme's at the same range
#   minterp      minterpolate, its defaults (mc_mode=obmc, me_mode=bilat, epzs)
#   minterp-aobmc minterpolate=mc_mode=aobmc:me_mode=bidir
#   blend        mcfps=mode=blend: (A + B) / 2 at the middle instant, what the
#                framerate filter computes there
#   repeat       mcfps=mode=dup: the previous frame
# Clips: build/clips (cityCC0.mpg, cockatoo.mp4, realshort.mp4; with
# tools/fetch-clips.sh --extra also vtest.avi, tree.avi, Megamind.avi) and
# eight made here: a pan over a still texture, a fast pan over real footage,
# a zoom into a still picture, a fast object over texture, a scene cut, a
# fade to black, a dissolve and a still caption over moving footage. FRC_CLIPS="phone hello motion diver balle
# calais" runs the footage of tools/fetch-clips.sh --more instead, and
# FRC_CLIPS="box cup cube launch webcam lego" that of --held-out.
#
# environment: FFMPEG BUILDDIR CLIPS; FRC_FRAMES, FRC_CLIPS (names to run),
#   FRC_MCFPS, FRC_GPUME (extra mcfps and gpume options, e.g. lambda=2),
#   FRC_METHODS (subset of the methods); FRC_STEP (2): keep one frame of
#   FRC_STEP, so that 3 rebuilds the phases 1/3 and 2/3 and 4 the phases
#   1/4, 1/2 and 3/4; FRC_SPEED=0 skips the speed lines, FRC_SPEED_REPS
#   runs per figure (median, 3)
# output: a table on stdout and in $BUILDDIR/frc-bench/results.txt; then
# the speed of the real use on this machine, named, beside minterpolate:
#   ffmpeg -i city.y4m -vf gpume=dir=bi,mcfps=fps=60 -f null -
#   ffmpeg -i city.y4m -vf gpume=algo=dis:dir=bi,mcfps=fps=60 -f null -
#   ffmpeg -i city.y4m -vf minterpolate=fps=60 -f null -
# (whole-command wall seconds, the CPU backends unless a GPU is found)
set -eu

: "${BUILDDIR:=build}" "${FFMPEG:=$BUILDDIR/ffmpeg/ffmpeg}" "${CLIPS:=$BUILDDIR/clips}"
: "${FRC_FRAMES:=41}" "${FRC_MCFPS:=}" "${FRC_STEP:=2}"
dir=$BUILDDIR/frc-bench
mkdir -p "$dir"
metrics=$BUILDDIR/frc-metrics
src=$(cd "$(dirname "$0")" && pwd)/frc-metrics.c
if [ ! -x "$metrics" ] || [ "$src" -nt "$metrics" ]; then
    ${CC:-cc} -O2 -o "$metrics" "$src" -lm
fi

ff() { "$FFMPEG" -nostdin -hide_banner -loglevel error -y "$@"; }

# texture WxH: a still picture, the first frame of testsrc2
texture() {
    [ -s "$dir/texture-$1.png" ] || ff -f lavfi -i "testsrc2=s=$1" -frames:v 1 "$dir/texture-$1.png"
}

# clip NAME: write $dir/NAME.y4m (yuv420p, 30 fps, FRC_FRAMES frames)
clip() {
    name=$1
    y4m=$dir/$name.y4m
    [ -s "$y4m" ] && return 0
    case $name in
    city)      ff -i "$CLIPS/cityCC0.mpg" -an -vf "setpts=N/30/TB,format=yuv420p" -frames:v "$FRC_FRAMES" -r 30 "$y4m" ;;
    cockatoo)  ff -i "$CLIPS/cockatoo.mp4" -an -vf "setpts=N/30/TB,format=yuv420p" -frames:v "$FRC_FRAMES" -r 30 "$y4m" ;;
    realshort) ff -i "$CLIPS/realshort.mp4" -an -vf "setpts=N/30/TB,format=yuv420p" -frames:v "$FRC_FRAMES" -r 30 "$y4m" ;;
    # opencv-doc's clips (tools/fetch-clips.sh --extra): walkers before a still
    # camera at 10 fps, a tree in the wind, an animated film
    vtest|tree|megamind)
               f=$name.avi; [ "$name" = megamind ] && f=Megamind.avi
               [ -s "$CLIPS/$f" ] || { echo "frc-bench: $name skipped: no $CLIPS/$f (tools/fetch-clips.sh BUILDDIR --extra)" >&2; return 1; }
               ff -i "$CLIPS/$f" -an -vf "setpts=N/30/TB,format=yuv420p" -frames:v "$FRC_FRAMES" -r 30 "$y4m" ;;
    # more real footage, from tools/fetch-clips.sh --more (diver.mov is MJPEG
    # and the film Theora, which the minimal build does not decode): a phone
    # clip of a dog, a screen recording with a webcam, a hand moving a coin, a
    # diver's camera (its capture repeats frames), a ball thrown, a 1906 film;
    # and footage first run after mcfps's settings were chosen, from
    # --held-out: a hand moving a box (its first two frames do not decode,
    # and its timestamps are out of order: numbered here), a hand turning a
    # cup, a hand-held camera over a cube, a rocket launch from 2 s on (a cut
    # at about frame 26), a webcam's talking head, a model with moving parts
    phone|hello|motion|diver|balle|calais|box|cup|cube|launch|webcam|lego)
               seek='' from=--held-out
               case $name in
               phone)  f=VID_20191220_170832.mp4 from=--more ;;
               hello)  f=movie-hello.mp4 from=--more ;;
               motion) f=motion.mov from=--more ;;
               diver)  f=diver.mov from=--more ;;
               balle)  f=balle-jbart.mp4 from=--more ;;
               calais) f=Shepard_Calais_1906_FrenchGP.ogv.160p.ogv from=--more ;;
               box)    f=box.mp4 ;;
               cup)    f=cup.mp4 ;;
               cube)   f=cube.mpeg ;;
               launch) f=oa4_launch.webm seek="-ss 2" ;;
               webcam) f=movie.avi ;;
               lego)   f=movie.mp4 ;;
               esac
               [ -s "$CLIPS/$f" ] || { echo "frc-bench: $name skipped: no $CLIPS/$f (tools/fetch-clips.sh BUILDDIR $from)" >&2; return 1; }
               # shellcheck disable=SC2086 # seek: an option and its value
               ff $seek -i "$CLIPS/$f" -an -vf "setpts=N/30/TB,format=yuv420p" -frames:v "$FRC_FRAMES" -r 30 "$y4m" ||
                   { rm -f "$y4m"; echo "frc-bench: $name skipped: $FFMPEG cannot decode $CLIPS/$f" >&2; return 1; } ;;
    # a still texture seen through a window moving (3, 1) pixels per frame
    pan)       texture 1024x640
               ff -framerate 30 -loop 1 -i "$dir/texture-1024x640.png" -vf "crop=640:360:x=3*n:y=n,format=yuv420p" -frames:v "$FRC_FRAMES" -r 30 "$y4m" ;;
    # a camera panning fast over real footage: ten pictures of cockatoo
    # side by side (5 x 2), seen through a 1280x720 window moving (45, 3)
    # pixels per frame, 90 between the frames the protocol keeps
    fastpan)   [ -s "$CLIPS/cockatoo.mp4" ] || { echo "frc-bench: fastpan skipped: no $CLIPS/cockatoo.mp4 (make clips)" >&2; return 1; }
               ff -i "$CLIPS/cockatoo.mp4" -an -vf "select='not(mod(n\,30))',tile=5x2" -frames:v 1 "$dir/cockatoo-tiles.png"
               ff -framerate 30 -loop 1 -i "$dir/cockatoo-tiles.png" -vf "crop=1280:720:x=100+45*n:y=100+3*n,format=yuv420p" \
                  -frames:v "$FRC_FRAMES" -r 30 "$y4m" ;;
    # a 64x64 block crossing a still texture at 24 pixels per frame
    object)    texture 640x360
               ff -framerate 30 -loop 1 -i "$dir/texture-640x360.png" -f lavfi -i "testsrc=s=64x64:r=30" \
                  -filter_complex "[0][1]overlay=x=16+24*n:y=140+4*n:eval=frame,format=yuv420p" \
                  -frames:v "$FRC_FRAMES" -r 30 "$y4m" ;;
    # a pan that jumps to another part of the texture at frame 20
    cut)       texture 1280x720
               ff -framerate 30 -loop 1 -i "$dir/texture-1280x720.png" -vf "crop=480:270:x='if(lt(n,20),2*n,700+2*n)':y='if(lt(n,20),n,400)',format=yuv420p" \
                  -frames:v "$FRC_FRAMES" -r 30 "$y4m" ;;
    # city's first picture, magnified 1.015 times a frame around its centre
    # (tools/synth-clip.py, bilinear: the vectors grow from the centre out)
    zoom)      command -v python3 > /dev/null || { echo "frc-bench: zoom skipped: no python3" >&2; return 1; }
               ff -i "$CLIPS/cityCC0.mpg" -frames:v 1 -pix_fmt gray -f rawvideo "$dir/zoom-src.gray"
               python3 "$(dirname "$0")/synth-clip.py" zoom "$dir/zoom-src.gray" 720 405 "$dir/zoom-gray.y4m" 480 270 "$FRC_FRAMES"
               ff -i "$dir/zoom-gray.y4m" -vf "setpts=N/30/TB,format=yuv420p" -r 30 "$y4m" ;;
    # city with a still caption over its moving picture (a box and a still
    # piece of texture at a fixed place): the caption must not move with it
    caption)   texture 640x360
               ff -i "$CLIPS/cityCC0.mpg" -loop 1 -i "$dir/texture-640x360.png" -an -filter_complex \
                  "[1]crop=160:40:240:160,format=yuv420p[c];[0]setpts=N/30/TB,format=yuv420p,fps=30,drawbox=x=270:y=335:w=180:h=56:color=black:t=fill[b];[b][c]overlay=x=280:y=343:shortest=1,format=yuv420p" \
                  -frames:v "$FRC_FRAMES" -r 30 "$y4m" ;;
    # city fading to black over its frames: the light changes, not only the motion
    fade)      ff -i "$CLIPS/cityCC0.mpg" -an -vf "setpts=N/30/TB,format=yuv420p,fade=out:0:$FRC_FRAMES" \
                  -frames:v "$FRC_FRAMES" -r 30 "$y4m" ;;
    # a dissolve from city to cockatoo (scaled to city's size) over 20 frames
    dissolve)  ff -i "$CLIPS/cityCC0.mpg" -i "$CLIPS/cockatoo.mp4" -an -filter_complex \
                  "[0]setpts=N/30/TB,format=yuv420p,fps=30[a];[1]setpts=N/30/TB,scale=720:405,setsar=1,format=yuv420p,fps=30[b];[a][b]xfade=duration=0.6667:offset=0.3333" \
                  -frames:v "$FRC_FRAMES" -r 30 "$y4m" ;;
    *) echo "frc-bench: unknown clip $name" >&2; return 1 ;;
    esac
}

methods=${FRC_METHODS:-"mcfps mcfps-dis minterp minterp-aobmc blend repeat"}
filter_of() {
    case $1 in
    mcfps)         echo "gpume=dir=bi:range=64${FRC_GPUME:+:$FRC_GPUME},mcfps=fps=30${FRC_MCFPS:+:$FRC_MCFPS}" ;;
    mcfps-dis)     echo "gpume=algo=dis:dir=bi:range=64${FRC_GPUME:+:$FRC_GPUME},mcfps=fps=30${FRC_MCFPS:+:$FRC_MCFPS}" ;;
    minterp)       echo "minterpolate=fps=30" ;;
    minterp-aobmc) echo "minterpolate=fps=30:mc_mode=aobmc:me_mode=bidir" ;;
    blend)         echo "mcfps=fps=30:mode=blend" ;;
    repeat)        echo "mcfps=fps=30:mode=dup" ;;
    esac
}

res=$dir/results.txt
{
    echo "# $FRC_FRAMES frames at 30 fps, all but one of every $FRC_STEP dropped and rebuilt; luma PSNR dB / SSIM; seconds"
    printf '%-10s' clip
    for m in $methods; do printf ' %-22s' "$m"; done
    echo " mcfps-best dis-best"
} > "$res"
cat "$res"
# mcfps-best, dis-best: the PSNR of mcfps and of mcfps-dis minus the best
# of the methods other than mcfps in the run; the last lines average them
# over the clips
gains= dgains=
for name in ${FRC_CLIPS:-city cockatoo realshort vtest tree megamind pan fastpan zoom object cut fade dissolve caption}; do
    clip "$name" || continue
    size=$(head -c 200 "$dir/$name.y4m" | head -n 1 | tr ' ' '\n')
    w=$(echo "$size" | sed -n 's/^W//p')
    h=$(echo "$size" | sed -n 's/^H//p')
    ff -color_range pc -i "$dir/$name.y4m" -vf format=gray -f rawvideo "$dir/$name.orig.gray"
    line=$(printf '%-10s' "$name")
    pm= pd= best=
    for m in $methods; do
        start=$(date +%s.%N)
        ff -color_range pc -i "$dir/$name.y4m" -vf "select=not(mod(n\,$FRC_STEP)),$(filter_of "$m"),format=gray" \
           -f rawvideo "$dir/$name.$m.gray"
        end=$(date +%s.%N)
        # the same frames for every method: minterpolate stops one frame
        # before the others at the end of the stream
        r=$("$metrics" "$w" "$h" "$dir/$name.orig.gray" "$dir/$name.$m.gray" "$FRC_STEP" $((FRC_FRAMES - 4)))
        p=$(echo "$r" | awk '{ print $4 }')
        s=$(echo "$r" | awk '{ print $6 }')
        line="$line $(printf '%-22s' "$p/$s $(echo "$end - $start" | bc | awk '{ printf "%.1fs", $1 }')")"
        case $m in
        mcfps)     pm=$p ;;
        mcfps-dis) pd=$p ;;
        mcfps-*)   ;;
        *)       best=$(echo "$p ${best:-$p}" | awk '{ print ($1 > $2 ? $1 : $2) }') ;;
        esac
    done
    if [ -n "$pm" ] && [ -n "$best" ]; then
        g=$(echo "$pm $best" | awk '{ printf "%+.2f", $1 - $2 }')
        gains="$gains $g"
        line="$line $g"
    fi
    if [ -n "$pd" ] && [ -n "$best" ]; then
        g=$(echo "$pd $best" | awk '{ printf "%+.2f", $1 - $2 }')
        dgains="$dgains $g"
        line="$line $g"
    fi
    echo "$line" | tee -a "$res"
done
if [ -n "$gains" ]; then
    echo "$gains" | awk '{ for (i = 1; i <= NF; i++) t += $i; printf "mean mcfps-best over %d clips: %+.2f dB\n", NF, t / NF }' |
        tee -a "$res"
fi
if [ -n "$dgains" ]; then
    echo "$dgains" | awk '{ for (i = 1; i <= NF; i++) t += $i; printf "mean dis-best over %d clips: %+.2f dB\n", NF, t / NF }' |
        tee -a "$res"
fi

# speed: the README's conversion beside minterpolate's default, on this machine
if [ "${FRC_SPEED:-1}" != 0 ] && clip city; then
    cpu=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo 2>/dev/null | head -n 1)
    gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
    # seconds F: median wall time of FRC_SPEED_REPS runs on city
    seconds() {
        for i in $(seq "${FRC_SPEED_REPS:-3}"); do
            t0=$(date +%s.%N)
            ff -i "$dir/city.y4m" -vf "$1" -f null - || { echo fail; return; }
            echo "$(date +%s.%N) - $t0" | bc
        done | sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] }'
    }
    chain=$(seconds "gpume=dir=bi,mcfps=fps=60")
    dis=$(seconds "gpume=algo=dis:dir=bi,mcfps=fps=60")
    mi=$(seconds "minterpolate=fps=60")
    {
        echo "# speed on ${cpu:-an unknown CPU}, $(nproc) cores${gpu:+, GPU $gpu}; city.y4m, $FRC_FRAMES frames, 30 -> 60 fps"
        echo "gpume=dir=bi,mcfps=fps=60: $chain s; minterpolate=fps=60: $mi s;" \
             "$(echo "$mi $chain" | awk '$2 > 0 { printf "%.1f times minterpolate", $1 / $2 }')"
        echo "gpume=algo=dis:dir=bi,mcfps=fps=60: $dis s;" \
             "$(echo "$mi $dis" | awk '$2 > 0 { printf "%.1f times minterpolate", $1 / $2 }')"
    } | tee -a "$res"
fi
