#!/bin/sh
# Read the filter manifest (libavfilter/filters.mak) and print one line per
# object list:
#   KIND NAME SYMBOL OBJECT...
# KIND is all, cuda, opencl or x86asm; NAME the filter's name (gpume); SYMBOL its
# definition in allfilters.c (ff_vf_gpume, from the vf_gpume.o object of its
# list "all"; ff_vf_NAME when there is none).
#
# usage: filters.sh MANIFEST
set -eu

[ -f "${1:-}" ] || { echo "filters: no manifest ${1:-} (usage: filters.sh MANIFEST)" >&2; exit 1; }

awk '
    # join continuation lines, drop comments and blank lines
    { sub(/#.*/, "") }
    /\\[ \t]*$/ { sub(/\\[ \t]*$/, ""); buf = buf $0 " "; next }
    { line = buf $0; buf = "" }
    line ~ /^[ \t]*$/ { next }
    {
        if (!match(line, /^[ \t]*(CUDA-|OPENCL-|X86ASM-)?OBJS-\$\(CONFIG_[A-Z0-9_]+_FILTER\)[ \t]*\+=/)) {
            printf "filters: %s: cannot parse: %s\n", FILENAME, line > "/dev/stderr"
            bad = 1; next
        }
        head = substr(line, RSTART, RLENGTH); objs = substr(line, RLENGTH + 1)
        kind = "all"
        if (head ~ /CUDA-OBJS/)   kind = "cuda"
        if (head ~ /OPENCL-OBJS/) kind = "opencl"
        if (head ~ /X86ASM-OBJS/) kind = "x86asm"
        name = head
        sub(/.*\$\(CONFIG_/, "", name); sub(/_FILTER\).*/, "", name)
        name = tolower(name)
        if (!(name in seen)) { order[++n] = name; seen[name] = 1 }
        gsub(/[ \t]+/, " ", objs); sub(/^ /, "", objs); sub(/ $/, "", objs)
        if ((name, kind) in list) list[name, kind] = list[name, kind] " " objs
        else                      list[name, kind] = objs
    }
    END {
        if (bad) exit 1
        for (i = 1; i <= n; i++) {
            name = order[i]
            sym = "ff_vf_" name
            k = split(list[name, "all"], o, " ")
            for (j = 1; j <= k; j++)
                if (o[j] ~ ("^(vf|af|vsrc|asrc|avsrc|vsink|asink|avf|f)_" name "\\.o$")) {
                    sym = o[j]; sub(/\.o$/, "", sym); sym = "ff_" sym
                }
            for (kk = 1; kk <= 4; kk++) {
                kind = kk == 1 ? "all" : kk == 2 ? "cuda" : kk == 3 ? "opencl" : "x86asm"
                if ((name, kind) in list)
                    print kind, name, sym, list[name, kind]
            }
        }
    }' "$1"
