#!/bin/sh
# make fuzz needs clang and its libFuzzer/sanitizer runtimes (Debian:
# clang, libclang-rt-N-dev for clang N). Install them when missing and root.
#
# usage: deps.sh CC
set -eu
cc=${1:-clang}
die() { echo "fuzz deps: $*" >&2; exit 1; }

need=
command -v "$cc" >/dev/null 2>&1 || need=clang
if [ -z "$need" ]; then
    rt=$("$cc" -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null || true)
    [ -f "$rt" ] && exit 0
    major=$("$cc" -dumpversion | cut -d. -f1)
    need=libclang-rt-$major-dev
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    die "missing $need (libFuzzer and the sanitizer runtimes); install it as root: apt-get install $need"
fi
echo "fuzz deps: installing $need"
apt-get -q update || die "apt-get update failed; missing $need"
DEBIAN_FRONTEND=noninteractive apt-get -q install -y --no-install-recommends "$need" ||
    die "apt-get install $need failed"
# clang just installed: its runtimes too
[ "$need" != clang ] || exec sh "$0" "$cc"
