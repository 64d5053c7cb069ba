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
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

die() { echo "fetch-ffmpeg: $*" >&2; exit 1; }

[ -r "$keyring" ] || die "missing $keyring (install debian-archive-keyring)"
command -v apt-get >/dev/null || die "apt-get not found: use ./configure --ffmpeg-source=DIR"
command -v dpkg-source >/dev/null || die "dpkg-source not found (install dpkg-dev)"

mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/src"
work=$(cd "$work" && pwd)
cat > "$work/apt/sources.list" <<EOT
deb-src [signed-by=$keyring] $mirror $suite main
EOT

aptopts="-o Dir::Etc::SourceList=$work/apt/sources.list
 -o Dir::Etc::SourceParts=/dev/null
 -o Dir::State::Lists=$work/apt/lists
 -o Dir::Cache=$work/apt/cache
 -o APT::Sandbox::User=root"

# shellcheck disable=SC2086
apt-get -q $aptopts update || die "apt-get update failed (no network?)"
cd "$work/src"
rm -rf ffmpeg-*/
# shellcheck disable=SC2086
apt-get -q $aptopts source --download-only ffmpeg || die "could not download ffmpeg source"
dsc=$(ls ffmpeg_*.dsc | head -n 1)
case "$dsc" in
ffmpeg_7.1*) ;;
*) die "expected FFmpeg 7.1.x in $suite, got $dsc" ;;
esac
# --require-valid-signature applies to the .dsc (checked by apt already via the
# signed index); the upstream tarball is checked against debian/upstream/signing-key.asc.
dpkg-source --require-strong-checksums -x "$dsc" ffmpeg-src >/dev/null \
    || die "dpkg-source failed to unpack $dsc"
rm -rf "$dest"
mv ffmpeg-src "$dest"
echo "fetch-ffmpeg: unpacked $dsc into $dest"
