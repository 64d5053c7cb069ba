# Sourced by the fetch scripts: a private apt configuration under a work
# folder, so that the system's apt sources and lists stay untouched. apt
# checks the suite's signed index against Debian's archive keyring.
#
# private_apt WORK LINE: write LINE ("deb SUITE" or "deb-src SUITE") as the
# only source under WORK, set $aptopts for apt-get, and update the index.
# Needs die() and $mirror from the caller.

keyring=/usr/share/keyrings/debian-archive-keyring.gpg

private_apt() {
    [ -r "$keyring" ] || die "missing $keyring (install debian-archive-keyring)"
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
