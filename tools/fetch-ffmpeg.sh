#!/bin/sh
# Fetch an FFmpeg release from Debian's source package into DEST, using a
# private apt configuration under WORK so that the system's apt sources are
# left untouched. apt verifies the signed index and the .dsc checksums;
# dpkg-source verifies the upstream tarball signature. The upstream version
# is pinned; the newest Debian revision of it in the suite is taken.
#
#   7.1  FFmpeg 7.1.5, suite trixie (libavfilter 10)
#   8.1  FFmpeg 8.1.2, suite sid    (libavfilter 11)
#   9.0  FFmpeg 9.0.2, suite sid    (libavfilter 12)
#
# usage: fetch-ffmpeg.sh WORK DEST [VERSION]
# environment: GPUME_DEBIAN_SUITE overrides the suite, GPUME_DEBIAN_MIRROR
#   the Debian archive (default: the one the system's apt configuration names)
set -eu

work=$1
dest=$2
version=${3:-7.1}
case $version in
7.1) upstream=7.1.5 suite=trixie ;;
8.1) upstream=8.1.2 suite=sid ;;
9.0) upstream=9.0.2 suite=sid ;;
*) echo "fetch-ffmpeg: unsupported FFmpeg version $version (7.1, 8.1 or 9.0)" >&2; exit 1 ;;
esac
suite=${GPUME_DEBIAN_SUITE:-$suite}

die() { echo "fetch-ffmpeg: $*" >&2; exit 1; }
. "$(dirname "$0")/private-apt.sh"

command -v apt-get >/dev/null || die "apt-get not found: use ./configure --ffmpeg-source=DIR"
command -v dpkg-source >/dev/null || die "dpkg-source not found (install dpkg-dev)"

mkdir -p "$work/src-$version" "$(dirname "$dest")"
work=$(cd "$work" && pwd)
dest=$(cd "$(dirname "$dest")" && pwd)/${dest##*/}
private_apt "$work/apt-$suite" "deb-src $suite"
# the Debian versions of the pinned upstream release (epoch:upstream-revision)
# shellcheck disable=SC2086
debver=$(apt-cache $aptopts showsrc ffmpeg 2>/dev/null |
         sed -n 's/^Version: //p' | grep -E "^([0-9]+:)?$(echo "$upstream" | sed 's/\./\\./g')-" |
         sort -u | {
             best=
             while read -r v; do
                 if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then best=$v; fi
             done
             echo "$best"
         })
[ -n "$debver" ] || die "FFmpeg $upstream is not in Debian's $suite any more (found: $(
    # shellcheck disable=SC2086
    apt-cache $aptopts showsrc ffmpeg 2>/dev/null | sed -n 's/^Version: //p' | tr '\n' ' '))"
cd "$work/src-$version"
rm -rf ffmpeg-*/ ffmpeg-src ./*.dsc ./*.tar.* ./*.asc
orig=ffmpeg_$upstream.orig.tar.xz
# shellcheck disable=SC2086
if apt-get -q $aptopts source --download-only "ffmpeg=$debver"; then
    dsc=$(ls ffmpeg_*.dsc | head -n 1)
    # the .dsc's checksums were checked by apt against the signed index;
    # dpkg-source checks the upstream tarball's signature with
    # debian/upstream/signing-key.asc
    dpkg-source --require-strong-checksums -x "$dsc" ffmpeg-src >/dev/null \
        || die "dpkg-source failed to unpack $dsc"
else
    # The archive sometimes lacks a file of the package while the index still
    # names it (a Debian revision moving on). FFmpeg itself needs only the
    # upstream tarball: use it when apt fetched it, after checking it once
    # more against the SHA-256 that the signed index gives for it.
    [ -f "$orig" ] || die "could not download ffmpeg $debver"
    # shellcheck disable=SC2086
    sum=$(apt-cache $aptopts showsrc ffmpeg 2>/dev/null |
          awk -v f="$orig" -v v="$debver" '
              /^$/ { if (ver == v && s != "") { print s; exit } ver = s = ""; c = 0; next }
              /^Version:/ { ver = $2 }
              /^Checksums-Sha256:/ { c = 1; next }
              /^[^ ]/ { c = 0 }
              c && $3 == f { s = $1 }
              END { if (ver == v && s != "") print s }' | head -n 1)
    [ -n "$sum" ] && echo "$sum  $orig" | sha256sum -c - >/dev/null ||
        die "$orig does not match the SHA-256 of Debian's signed index"
    echo "fetch-ffmpeg: warning: Debian's packaging of $debver is incomplete in the archive;" \
         "using the upstream tarball $orig (SHA-256 checked against the signed index)" >&2
    mkdir ffmpeg-src
    tar -xJf "$orig" -C ffmpeg-src --strip-components=1 || die "could not unpack $orig"
    dsc=$orig
fi
v=$(cat ffmpeg-src/RELEASE 2>/dev/null || cat ffmpeg-src/VERSION 2>/dev/null || echo unknown)
[ "$v" = "$upstream" ] || die "$dsc unpacked FFmpeg $v, expected $upstream"
rm -rf "$dest"
mv ffmpeg-src "$dest"
echo "fetch-ffmpeg: unpacked $dsc (FFmpeg $upstream, Debian $suite) into $dest"
