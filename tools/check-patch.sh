#!/bin/sh
# Check the patch series of make patch against a clean FFmpeg tree: it
# applies with patch -p1 (no fuzz, no offsets refused), and the patched tree
# is exactly what tools/overlay.sh makes of the clean tree (same files, same
# contents), so a build of the patched tree builds the filters as the
# overlay build does. Leaves the patched tree in DEST for that build.
#
# usage: check-patch.sh GPUME_ROOT SRC_TREE PATCHDIR DEST
set -eu

die() { echo "check-patch: $*" >&2; exit 1; }
[ $# -eq 4 ] || die "usage: check-patch.sh GPUME_ROOT SRC_TREE PATCHDIR DEST"
root=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
patches=$(cd "$3" && pwd)
dest=$4
ls "$patches"/*.patch >/dev/null 2>&1 || die "no patches in $patches (make patch)"
command -v patch >/dev/null || die "patch not found (install patch)"

rm -rf "$dest" "$dest.overlay"
cp -a "$src" "$dest"
for p in "$patches"/*.patch; do
    out=$(cd "$dest" && patch -p1 --forward --batch --fuzz=0 < "$p" 2>&1) ||
        die "${p##*/} does not apply: $out"
    case $out in
    *offset*|*fuzz*|*reject*) die "${p##*/} applies only approximately: $out" ;;
    esac
done
sh "$root/tools/overlay.sh" "$src" "$root" "$dest.overlay" >/dev/null
if ! d=$(diff -r -x '.gpume-*' "$dest" "$dest.overlay"); then
    die "the patched tree differs from the overlay: $(echo "$d" | head -n 10)"
fi
rm -rf "$dest.overlay"
echo "check-patch: $(ls "$patches"/*.patch | wc -l) patches apply to $(cat "$dest/RELEASE" 2>/dev/null || echo FFmpeg) and give the overlay's tree ($dest)"
