#!/bin/sh
# Overlay this repository's sources onto a copy of an FFmpeg source tree
# (7.1, 8.x, 9.0) and register its filters: each filter's objects, as
# libavfilter/filters.mak lists them, in libavfilter/Makefile, its declaration
# in allfilters.c, its FATE tests (fate/NAME.mak) in tests/Makefile and its
# line in the Changelog. The
# source tree is never modified. Only files whose
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

for f in libavfilter/allfilters.c libavfilter/Makefile tests/Makefile doc/filters.texi configure Changelog; do
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

# the filters and their objects (libavfilter/filters.mak, tools/filters.sh):
# lines "KIND NAME SYMBOL OBJECT..."
manifest=$tree/.gpume-manifest
sh "$root/tools/filters.sh" "$root/libavfilter/filters.mak" > "$manifest" ||
    die "cannot read libavfilter/filters.mak"
[ -s "$manifest" ] || die "libavfilter/filters.mak lists no filter"
filters=$(awk '!seen[$2]++ { print $2 }' "$manifest")
# those the source tree lacks (a tree that has one is left as it is)
added=$(for n in $filters; do
    N=$(echo "$n" | tr '[:lower:]' '[:upper:]')
    grep -q "CONFIG_${N}_FILTER" "$src/libavfilter/Makefile" || echo "$n"
done)
all_objs=$(cut -d' ' -f4- "$manifest" | tr ' ' '\n' | sort -u)

# files of the repository: "source destination" pairs, relative to root and tree
list=$tree/.gpume-files.new
: > "$list"
add() {
    for f in "$@"; do
        [ -f "$root/$f" ] || continue            # unmatched glob
        case $f in
        libavfilter/*) d=$f ;;
        cuda/*)        d=libavfilter/${f#cuda/} ;;
        opencl/*)      d=libavfilter/$f ;;
        fate/ref/*)    d=tests/ref/fate/${f#fate/ref/} ;;
        fate/*.mak)    d=tests/$f ;;
        tests/checkasm/*) d=$f ;;
        esac
        echo "$f $d" >> "$list"
    done
}
cd "$root"
add libavfilter/*.c libavfilter/*.h libavfilter/x86/*.c libavfilter/x86/*.asm \
    cuda/*.cu cuda/*.h opencl/*.cl fate/ref/* tests/checkasm/*.c
for n in $filters; do
    add "fate/$n.mak"
done
# a header the OpenCL kernels need is embedded as a source string of its own
# when an object list names it: opencl/X_h.o <- libavfilter/opencl/X_h.cl <-
# libavfilter/X.h (ff_source_X_h_cl)
for o in $all_objs; do
    case $o in
    opencl/*_h.o)
        b=${o#opencl/}; b=${b%_h.o}
        [ ! -f "opencl/${b}_h.cl" ] || continue
        [ -f "libavfilter/$b.h" ] ||
            die "libavfilter/filters.mak: $o embeds libavfilter/$b.h, which does not exist"
        echo "libavfilter/$b.h libavfilter/opencl/${b}_h.cl" >> "$list"
        ;;
    esac
done

# every listed object has a source, every source is in some list
for o in $all_objs; do
    case $o in
    *.ptx.o)   s=cuda/${o%.ptx.o}.cu ;;
    opencl/*)  s=$(grep " libavfilter/${o%.o}.cl\$" "$list" | cut -d' ' -f1) ;;
    x86/*)     s=libavfilter/${o%.o}.c; [ -f "$s" ] || s=libavfilter/${o%.o}.asm ;;
    *)         s=libavfilter/${o%.o}.c ;;
    esac
    if [ -z "$s" ] || { [ ! -f "$s" ] && [ ! -f "$src/libavfilter/${o%.o}.c" ]; }; then
        die "libavfilter/filters.mak: no source for $o (expected ${s:-opencl/${o#opencl/}})"
    fi
done
for f in libavfilter/*.c libavfilter/x86/*.c libavfilter/x86/*.asm cuda/*.cu opencl/*.cl; do
    [ -f "$f" ] || continue
    b=${f##*/}
    case $f in
    libavfilter/x86/*) o=x86/${b%.*}.o ;;
    libavfilter/*) o=${b%.c}.o ;;
    cuda/*)        o=${b%.cu}.ptx.o ;;
    opencl/*)      o=opencl/${b%.cl}.o ;;
    esac
    echo "$all_objs" | grep -qx "$o" ||
        echo "overlay: warning: $f is in no object list of libavfilter/filters.mak; not built" >&2
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

# shellcheck disable=SC2016 # $(SRC_PATH) is for make
hdrs=$(cd "$root" && for f in libavfilter/*.h cuda/*.h; do [ -f "$f" ] && printf ' $(SRC_PATH)/libavfilter/%s' "${f#*/}"; done; true)

tmp=$tree/.gpume-tmp
# allfilters.c: declare each filter after mestimate, in the form this FFmpeg
# uses (extern const AVFilter in 7.x, extern const FFFilter from 8.0 on)
type=$(sed -n 's/^extern const \([A-Za-z]*\) ff_vf_mestimate;$/\1/p' "$src/libavfilter/allfilters.c")
[ -n "$type" ] || die "ff_vf_mestimate not found in libavfilter/allfilters.c"
decls=$(awk -v t="$type" '!seen[$2]++ { printf "extern const %s %s;\n", t, $3 }' "$manifest" |
        while read -r l; do grep -qxF "$l" "$src/libavfilter/allfilters.c" || echo "$l"; done)
awk -v decls="$decls" '{ print } /^extern const [A-Za-z]* ff_vf_mestimate;$/ && decls != "" { print decls }' \
    "$src/libavfilter/allfilters.c" > "$tmp"
put "$tmp" "$tree/libavfilter/allfilters.c"

# libavfilter/Makefile: each filter's objects after mestimate's; GPU objects
# only with that backend (CONFIG_* come from ffbuild/config.mak, included
# before this file). The .ptx rule only knows the .cu, so add the headers it
# may include. Filters the source tree already has are left as they are.
: > "$tmp.mak"
: > "$tmp.x86"
ptx=
for n in $added; do
    N=$(echo "$n" | tr '[:lower:]' '[:upper:]')
    while read -r kind name _ objs; do
        [ "$name" = "$n" ] || continue
        line="OBJS-\$(CONFIG_${N}_FILTER)                 += $objs"
        if [ "$kind" = x86asm ]; then
            echo "X86ASM-$line" >> "$tmp.x86"
            continue
        fi
        case $kind in
        all)    echo "$line" ;;
        cuda)   echo "ifeq (\$(CONFIG_CUDA),yes)"
                echo "ifneq (\$(CONFIG_CUDA_NVCC)\$(CONFIG_CUDA_LLVM),)"
                echo "$line"
                echo "endif"
                echo "endif" ;;
        opencl) echo "ifeq (\$(CONFIG_OPENCL),yes)"
                echo "$line"
                echo "endif" ;;
        esac
        for o in $objs; do
            case $o in *.ptx.o) ptx="$ptx libavfilter/${o%.o}" ;; esac
        done
    done < "$manifest" >> "$tmp.mak"
done
if [ -n "$ptx" ] && [ -n "$hdrs" ]; then
    # shellcheck disable=SC2086 # one word per line
    echo "$(echo $ptx | tr ' ' '\n' | sort -u | tr '\n' ' '):$hdrs" >> "$tmp.mak"
fi
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
rm -f "$tmp.mak"
put "$tmp" "$tree/libavfilter/Makefile"

# libavfilter/x86/Makefile: the x86 objects (built where FFmpeg has x86
# assembly), after the source tree's lists
cat "$src/libavfilter/x86/Makefile" "$tmp.x86" > "$tmp"
rm -f "$tmp.x86"
put "$tmp" "$tree/libavfilter/x86/Makefile"

# Changelog: the filters the source tree lacks, announced under the next
# version's heading (made above the release's own where there is none)
new=$(for n in $added; do echo "$n"; done | awk '{ n[NR] = $0 } END { for (i = 1; i <= NR; i++)
    printf "%s%s", n[i], i == NR ? "" : i == NR - 1 ? " and " : ", " }')
if [ -n "$new" ]; then
    case $new in *" and "*) entry="- $new filters" ;; *) entry="- $new filter" ;; esac
    awk -v e="$entry" '
        !done && /^version / {
            if ($0 == "version <next>:") { print; open = 1; next }
            print "version <next>:"; print e; print ""; print; done = 1; next
        }
        open && /^$/ { print e; print; open = 0; done = 1; next }
        { print }
        END { if (!done) exit 1 }' "$src/Changelog" > "$tmp" ||
        die "no version heading in Changelog"
    put "$tmp" "$tree/Changelog"
fi

# tests/Makefile: each filter's FATE tests (fate/NAME.mak), after the last
# fate include
incs=
for n in $filters; do
    [ -f "$root/fate/$n.mak" ] || continue
    grep -q "tests/fate/$n.mak" "$src/tests/Makefile" && continue
    incs="${incs}include \$(SRC_PATH)/tests/fate/$n.mak
"
done
awk -v incs="$incs" '
    { line[NR] = $0 }
    /^include \$\(SRC_PATH\)\/tests\/fate\// { last = NR }
    END {
        if (!last) exit 1
        for (i = 1; i <= NR; i++) {
            print line[i]
            if (i == last && incs != "") printf "%s", incs
        }
    }' "$src/tests/Makefile" > "$tmp" ||
    die "no fate include found in tests/Makefile"
put "$tmp" "$tree/tests/Makefile"
rm -f "$tmp"
# tests/checkasm: each filter's checkasm test (tests/checkasm/vf_NAME.c) in
# FFmpeg's four lists of them, before the first vf_ test that sorts after it
# (HELD: the lines of the entry above the matching one, its #if)
checkasm_insert() { # FILE PATTERN NAME TEXT HELD
    text=$4 awk -v pat="$2" -v name="$3" -v held="$5" '
        function key(s) { s = substr(s, index(s, "vf_")); sub(/[^a-z0-9_].*$/, "", s); return s }
        { line[NR] = $0 }
        !at && match($0, pat) && key(substr($0, RSTART, RLENGTH)) > name { at = NR - held }
        END {
            if (!at) exit 1
            for (i = 1; i <= NR; i++) {
                if (i == at) print ENVIRON["text"]
                print line[i]
            }
        }' "$1" > "$1.new" && mv "$1.new" "$1"
}
checkasm_lists="tests/checkasm/checkasm.c tests/checkasm/checkasm.h tests/checkasm/Makefile tests/fate/checkasm.mak"
for f in $checkasm_lists; do
    cp "$src/$f" "$tmp.${f##*/}"
done
for n in $filters; do
    [ -f "$root/tests/checkasm/vf_$n.c" ] || continue
    grep -q "vf_$n" "$src/tests/checkasm/checkasm.c" && continue
    N=$(echo "$n" | tr '[:lower:]' '[:upper:]')
    where="no place for the checkasm test vf_$n in"
    checkasm_insert "$tmp.checkasm.c" '"vf_[a-z0-9_]*",' "vf_$n" \
        "$(printf '    #if CONFIG_%s_FILTER\n        { "vf_%s", checkasm_check_vf_%s },\n    #endif' "$N" "$n" "$n")" 1 ||
        die "$where tests/checkasm/checkasm.c"
    checkasm_insert "$tmp.checkasm.h" '^void checkasm_check_vf_[a-z0-9_]*[(]void[)];' "vf_$n" \
        "void checkasm_check_vf_$n(void);" 0 || die "$where tests/checkasm/checkasm.h"
    checkasm_insert "$tmp.Makefile" '^AVFILTEROBJS-.*vf_[a-z0-9_]*[.]o' "vf_$n" \
        "$(printf '%-41s+= vf_%s.o' "AVFILTEROBJS-\$(CONFIG_${N}_FILTER)" "$n")" 0 ||
        die "$where tests/checkasm/Makefile"
    # shellcheck disable=SC1003 # a backslash ends the line of a make list
    checkasm_insert "$tmp.checkasm.mak" 'fate-checkasm-vf_[a-z0-9_]*' "vf_$n" \
        "$(printf '                %-56s\\' "fate-checkasm-vf_$n")" 0 || die "$where tests/fate/checkasm.mak"
done
for f in $checkasm_lists; do
    put "$tmp.${f##*/}" "$tree/$f"
    rm -f "$tmp.${f##*/}"
done

# doc/filters.texi: each filter's documentation (docs/NAME.texi) in the
# chapter Video Filters, in alphabetical order, so that the manual pages
# (ffmpeg-filters.1, ffmpeg-all.1) describe it
cp "$src/doc/filters.texi" "$tmp"
for n in $filters; do
    [ -f "$root/docs/$n.texi" ] || continue
    grep -q "^@section $n\$" "$tmp" && continue
    awk -v name="$n" -v texi="$root/docs/$n.texi" '
        /^@chapter / { inv = ($0 == "@chapter Video Filters") }
        inv && !done && (/^@chapter / && $0 != "@chapter Video Filters" || /^@section / && $2 > name) {
            while ((getline l < texi) > 0) print l
            print ""
            done = 1
        }
        { print }
        END { if (!done) exit 1 }' "$tmp" > "$tmp.texi" ||
        die "no place for docs/$n.texi in doc/filters.texi"
    mv "$tmp.texi" "$tmp"
done
put "$tmp" "$tree/doc/filters.texi"

# the filters, for tools/ffmpeg-configure.sh
# shellcheck disable=SC2086 # on one line
echo $filters > "$tmp"
put "$tmp" "$tree/.gpume-filters"
rm -f "$tmp" "$manifest"
