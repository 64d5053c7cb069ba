# Sourced by the fetch scripts: a private apt configuration under a work
# folder, so that the system's apt sources and lists stay untouched. apt
# checks the suite's signed index against Debian's archive keyring.
#
# private_apt WORK LINE: write LINE ("deb SUITE" or "deb-src SUITE") as the
# only source under WORK, set $aptopts for apt-get, and update the index.
# Needs die() from the caller; the archive is $mirror when the caller set
# it, else the one the system's apt configuration names (debian_mirror).

keyring=/usr/share/keyrings/debian-archive-keyring.gpg

# debian_mirror: print the URI of the Debian archive the system's apt
# configuration uses (GPUME_DEBIAN_MIRROR overrides it); status 1 if none.
debian_mirror() {
    if [ -n "${GPUME_DEBIAN_MIRROR:-}" ]; then
        echo "$GPUME_DEBIAN_MIRROR"; return 0
    fi
    codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
    # apt's own idea of its configuration folder (APT_CONFIG is honoured)
    etc=/etc/apt
    if command -v apt-config >/dev/null; then
        eval "$(apt-config shell etc Dir::Etc/d)"
    fi
    etc=${etc%/}
    {
        # deb822 .sources: "URI SUITE..." per enabled stanza of type deb or deb-src
        for f in "$etc"/sources.list.d/*.sources; do
            [ -r "$f" ] || continue
            awk 'function flush() {
                     if (uris != "" && types ~ /deb/ && tolower(enabled) != "no")
                         { n = split(uris, u, " "); for (i = 1; i <= n; i++) print u[i], suites }
                     uris = types = suites = enabled = ""
                 }
                 /^[ \t]*#/ { next }
                 /^[ \t]*$/ { flush(); next }
                 tolower($1) == "types:"   { $1 = ""; types = $0 }
                 tolower($1) == "uris:"    { $1 = ""; uris = $0 }
                 tolower($1) == "suites:"  { $1 = ""; suites = $0 }
                 tolower($1) == "enabled:" { enabled = $2 }
                 END { flush() }' "$f"
        done
        # one-line format: "deb [options] URI SUITE COMPONENT..."
        for f in "$etc"/sources.list "$etc"/sources.list.d/*.list; do
            [ -r "$f" ] || continue
            sed -n 's/^[ \t]*deb\(-src\)\{0,1\}[ \t]\{1,\}\(\[[^]]*\][ \t]*\)\{0,1\}\([^ \t]\{1,\}\)[ \t]\{1,\}\([^ \t]\{1,\}\).*/\3 \4/p' "$f"
        done
    } | awk -v c="$codename" '
        # the archive: a URI serving the release suite itself (not -security,
        # -updates or -backports) of Debian
        {
            for (i = 2; i <= NF; i++)
                if ($i !~ /-/ && ($i == c || $i ~ /^(stable|testing|unstable|sid|oldstable|bookworm|trixie|forky|bullseye)$/)) {
                    sub(/\/+$/, "", $1); print $1; exit
                }
        }' | grep . || return 1
}

private_apt() {
    [ -r "$keyring" ] || die "missing $keyring (install debian-archive-keyring)"
    if [ -z "${mirror:-}" ]; then
        mirror=$(debian_mirror) ||
            die "no Debian archive in the system's apt configuration (set GPUME_DEBIAN_MIRROR to its URI)"
    fi
    mkdir -p "$1/lists/partial" "$1/cache/archives/partial"
    pa_work=$(cd "$1" && pwd)
    set -- "$pa_work" $2
    echo "$2 [signed-by=$keyring] $mirror $3 main" > "$1/sources.list"
    aptopts="-o Dir::Etc::SourceList=$1/sources.list
 -o Dir::Etc::SourceParts=/dev/null
 -o Dir::State::Lists=$1/lists
 -o Dir::Cache=$1/cache
 -o APT::Sandbox::User=root"
    # shellcheck disable=SC2086
    apt-get -q $aptopts update >/dev/null || die "apt-get update ($3) failed (no network?)"
}
