#!/bin/sh
# Overlay gpume's sources onto a copy of an FFmpeg 7.1 source tree and
# register the filter. The source tree is never modified. Only files whose
# content changed are rewritten, so re-running is cheap and keeps timestamps
# (and therefore FFmpeg's object files) of everything else.
#
# usage: overlay.sh SRC_TREE GPUME_ROOT [TREE]
#   TREE defaults to GPUME_ROOT/build/ffmpeg-tree
set -eu

die() { echo "overlay: $*" >&2; exit 1; }

[ $# -ge 2 ] || die "usage: overlay.sh SRC_TREE GPUME_ROOT [TREE]"
src=$(cd "$1" && pwd) || die "no FFmpeg tree at $1"
root=$(cd "$2" && pwd) || die "no gpume tree at $2"
tree=${3:-$root/build/ffmpeg-tree}

for f in libavfilter/allfilters.c libavfilter/Makefile tests/Makefile configure; do
    [ -f "$src/$f" ] || die "$src does not look like an FFmpeg source tree ($f missing)"
done

# (Re)create the copy when missing or made from another source tree.
if [ "$(cat "$tree/.gpume-source" 2>/dev/null)" != "$src" ]; then
    rm -rf "$tree" "$tree.tmp"
    mkdir -p "${tree%/*}"
    cp -a "$src" "$tree.tmp"
    rm -f "$tree.tmp/.gpume-files"
    echo "$src" > "$tree.tmp/.gpume-source"
    mv "$tree.tmp" "$tree"
    echo "overlay: copied $src to $tree"
fi
tree=$(cd "$tree" && pwd)

# put SRC DEST: write DEST only when its content differs
put() {
    if ! cmp -s "$1" "$2"; then
        mkdir -p "${2%/*}"
        cp "$1" "$2.tmp" && mv "$2.tmp" "$2"
        echo "overlay: updated ${2#"$tree"/}"
    fi
}

# files of gpume: "source destination" pairs, relative to root and tree
list=$tree/.gpume-files.new
: > "$list"
add() {
    for f in "$@"; do
        [ -f "$root/$f" ] || continue            # unmatched glob
        case $f in
        libavfilter/*) d=$f ;;
        cuda/*)        d=libavfilter/${f#cuda/} ;;
        opencl/*)      d=libavfilter/$f ;;
        fate/gpume.mak) d=tests/fate/gpume.mak ;;
        fate/ref/*)    d=tests/ref/fate/${f#fate/ref/} ;;
        esac
        echo "$f $d" >> "$list"
    done
}
cd "$root"
add libavfilter/*.c libavfilter/*.h cuda/*.cu cuda/*.h opencl/*.cl \
    fate/gpume.mak fate/ref/*
# headers the OpenCL kernels need, embedded as source strings of their own:
# libavfilter/X.h -> libavfilter/opencl/X_h.cl -> ff_source_X_h_cl
cl_hdrs=
if ls opencl/*.cl >/dev/null 2>&1; then
    cl_hdrs="gpume.h gpume_opencl.h"
fi
for h in $cl_hdrs; do
    echo "libavfilter/$h libavfilter/opencl/${h%.h}_h.cl" >> "$list"
done

while read -r s d; do
    put "$root/$s" "$tree/$d"
done < "$list"

# restore or drop files overlaid by an earlier run that are gone from gpume
if [ -f "$tree/.gpume-files" ]; then
    while read -r s d; do
        grep -q " $d\$" "$list" && continue
        if [ -f "$src/$d" ]; then
            cp -p "$src/$d" "$tree/$d"
        else
            rm -f "$tree/$d"
        fi
        echo "overlay: removed $d"
    done < "$tree/.gpume-files"
fi
mv "$list" "$tree/.gpume-files"

# object lists, from the globbed file names
objs() { # DIR SUFFIX NEWSUFFIX [PREFIX]
    for f in "$root/$1"/*"$2"; do
        [ -f "$f" ] || continue
        b=${f##*/}
        printf ' %s%s' "${4:-}" "${b%"$2"}$3"
    done
}
# host code of a backend (*_cuda.c, *_opencl.c) builds only with that backend
c_objs=$(objs libavfilter .c .o | tr ' ' '\n' | grep -v -e '_cuda\.o$' -e '_opencl\.o$' | tr '\n' ' ')
cuda_c_objs=$(objs libavfilter _cuda.c _cuda.o)
ocl_c_objs=$(objs libavfilter _opencl.c _opencl.o)
cu_objs=$(objs cuda .cu .ptx.o)
cl_objs=$(objs opencl .cl .o opencl/)
for h in $cl_hdrs; do cl_objs="$cl_objs opencl/${h%.h}_h.o"; done
# shellcheck disable=SC2016 # $(SRC_PATH) is for make
hdrs=$(cd "$root" && for f in libavfilter/*.h cuda/*.h; do [ -f "$f" ] && printf ' $(SRC_PATH)/libavfilter/%s' "${f#*/}"; done; true)

[ -n "$c_objs" ] || echo "overlay: warning: no libavfilter/*.c in $root" >&2

tmp=$tree/.gpume-tmp
# allfilters.c
if grep -q 'ff_vf_gpume;' "$src/libavfilter/allfilters.c"; then
    cp "$src/libavfilter/allfilters.c" "$tmp"
else
    awk '{ print } /^extern const AVFilter ff_vf_mestimate;/ { print "extern const AVFilter ff_vf_gpume;"; n++ }
         END { if (!n) exit 1 }' "$src/libavfilter/allfilters.c" > "$tmp" ||
        die "ff_vf_mestimate not found in libavfilter/allfilters.c"
fi
put "$tmp" "$tree/libavfilter/allfilters.c"

# libavfilter/Makefile: GPU objects only when the backend is enabled
# (CONFIG_* come from ffbuild/config.mak, included before this file).
# The .ptx rule only knows the .cu, so add the headers it may include.
{
    echo "OBJS-\$(CONFIG_GPUME_FILTER)                 +=$c_objs"
    if [ -n "$cu_objs" ]; then
        echo "ifeq (\$(CONFIG_CUDA),yes)"
        echo "ifneq (\$(CONFIG_CUDA_NVCC)\$(CONFIG_CUDA_LLVM),)"
        echo "OBJS-\$(CONFIG_GPUME_FILTER)                 +=$cu_objs$cuda_c_objs cuda/load_helper.o"
        [ -z "$hdrs" ] ||
        echo "$(for o in $cu_objs; do printf 'libavfilter/%s ' "${o%.o}"; done):$hdrs"
        echo "endif"
        echo "endif"
    fi
    if [ -n "$cl_objs" ]; then
        echo "ifeq (\$(CONFIG_OPENCL),yes)"
        echo "OBJS-\$(CONFIG_GPUME_FILTER)                 += opencl.o$cl_objs$ocl_c_objs"
        echo "endif"
    fi
} > "$tmp.mak"
if grep -q 'CONFIG_GPUME_FILTER' "$src/libavfilter/Makefile"; then
    cp "$src/libavfilter/Makefile" "$tmp"
else
    # insert after the mestimate line and its continuation lines, if any
    awk -v block="$tmp.mak" '
        { print }
        /^OBJS-\$\(CONFIG_MESTIMATE_FILTER\)/ { want = 1 }
        want && !/\\$/ {
            while ((getline l < block) > 0) print l
            want = 0; n++
        }
        END { if (!n) exit 1 }' "$src/libavfilter/Makefile" > "$tmp" ||
        die "OBJS-\$(CONFIG_MESTIMATE_FILTER) not found in libavfilter/Makefile"
fi
rm -f "$tmp.mak"
put "$tmp" "$tree/libavfilter/Makefile"

# tests/Makefile: the FATE tests, after the last fate include
if [ -f "$root/fate/gpume.mak" ] && ! grep -q 'tests/fate/gpume.mak' "$src/tests/Makefile"; then
    awk '
        { line[NR] = $0 }
        /^include \$\(SRC_PATH\)\/tests\/fate\// { last = NR }
        END {
            if (!last) exit 1
            for (i = 1; i <= NR; i++) {
                print line[i]
                if (i == last) print "include $(SRC_PATH)/tests/fate/gpume.mak"
            }
        }' "$src/tests/Makefile" > "$tmp" ||
        die "no fate include found in tests/Makefile"
else
    cp "$src/tests/Makefile" "$tmp"
fi
put "$tmp" "$tree/tests/Makefile"
rm -f "$tmp"
