#!/bin/sh
# Fetch FFmpeg 7.1.x source from Debian's source package (suite trixie) into
# DEST, using a private apt configuration under WORK so that the system's apt
# sources are left untouched. apt verifies the signed index and the .dsc
# checksums; dpkg-source verifies the upstream tarball signature.
#
# usage: fetch-ffmpeg.sh WORK DEST
set -eu

work=$1
dest=$2
suite=${GPUME_DEBIAN_SUITE:-trixie}
mirror=${GPUME_DEBIAN_MIRROR:-http://deb.debian.org/debian}

die() { echo "fetch-ffmpeg: $*" >&2; exit 1; }
. "$(dirname "$0")/private-apt.sh"

command -v apt-get >/dev/null || die "apt-get not found: use ./configure --ffmpeg-source=DIR"
command -v dpkg-source >/dev/null || die "dpkg-source not found (install dpkg-dev)"

mkdir -p "$work/src"
work=$(cd "$work" && pwd)
private_apt "$work/apt" "deb-src $suite"
cd "$work/src"
rm -rf ffmpeg-*/
# shellcheck disable=SC2086
apt-get -q $aptopts source --download-only ffmpeg || die "could not download ffmpeg source"
dsc=$(ls ffmpeg_*.dsc | head -n 1)
case "$dsc" in
ffmpeg_7.1*) ;;
*) die "expected FFmpeg 7.1.x in $suite, got $dsc" ;;
esac
# the .dsc's checksums were checked by apt against the signed index; dpkg-source
# checks the upstream tarball's signature with debian/upstream/signing-key.asc
dpkg-source --require-strong-checksums -x "$dsc" ffmpeg-src >/dev/null \
    || die "dpkg-source failed to unpack $dsc"
rm -rf "$dest"
mv ffmpeg-src "$dest"
echo "fetch-ffmpeg: unpacked $dsc into $dest"
