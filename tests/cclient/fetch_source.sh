#!/usr/bin/env bash
# Fetches Debian's source package `zookeeper` of the release whose libzookeeper-mt2 is installed (the library
# zkwire's drop-in replaces) with `apt-get source`, unpacks it with Debian's patches applied, and prints the
# unpacked tree's path on the last line of stdout. Nothing of it enters the repository.
#
#   tests/cclient/fetch_source.sh CACHE_DIR
#
# CACHE_DIR keeps the unpacked tree (CACHE_DIR/zookeeper-<version>), so a warm run fetches nothing; a fresh one
# fetches once (about 3.5 MB, and 10 MB of source indexes). The machine's apt setup is left as it is: apt reads
# deb-src entries of our own, made from the Debian archive entries the machine already uses
# (/etc/apt/sources.list.d/*.sources, /etc/apt/sources.list), and keeps its lists and downloads in CACHE_DIR/apt
# (Dir::Etc::sourcelist, Dir::Etc::sourceparts, Dir::State, Dir::Cache). ZKWIRE_DEBIAN_SOURCES_URI replaces the
# archive's address (a mirror) and takes the suites of the entries found.
#
# Exit status: 0 with the path printed; 1 when the package cannot be fetched (no archive entry, archive
# unreachable, no such version), the reason on stderr.
set -euo pipefail

die() {
  echo "fetch_source: $*" >&2
  exit 1
}

(($# == 1)) || die "usage: fetch_source.sh CACHE_DIR"
cache=$1
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

# The source of the installed library, not the archive's newest: the suites must be the release that is replaced.
version=$(dpkg-query -W -f='${source:Version}' libzookeeper-mt2 2>/dev/null) ||
  die "libzookeeper-mt2 is not installed (scripts/setup installs libzookeeper-mt-dev)"
[[ -n $version ]] || die "libzookeeper-mt2 has no source version"
tree=$cache/zookeeper-$version
if [[ -f $tree/.zkwire-complete ]]; then
  echo "$tree"
  exit 0
fi

# One fetch at a time per cache (several ctest trees may start at once).
exec 9>"$cache/.lock"
flock 9
if [[ -f $tree/.zkwire-complete ]]; then
  echo "$tree"
  exit 0
fi

for tool in apt-get dpkg-source; do
  command -v "$tool" >/dev/null || die "$tool is missing (dpkg-dev)"
done

apt_dir=$cache/apt
rm -rf "$apt_dir"
mkdir -p "$apt_dir/sources" "$apt_dir/state/lists/partial" "$apt_dir/cache/archives/partial"

# deb-src stanzas for the Debian archives the machine's own entries name (deb822 files and one-line lists).
debian_entries() {
  /usr/bin/python3 - "${ZKWIRE_DEBIAN_SOURCES_URI:-}" <<'PY'
import glob, re, sys
mirror = sys.argv[1]
entries = []  # (uri, suites, components, signed_by)
for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
    with open(path) as f:
        for stanza in re.split(r"\n\s*\n", f.read()):
            fields = {}
            for line in stanza.splitlines():
                if line.startswith("#") or ":" not in line or line[:1].isspace():
                    continue
                key, value = line.split(":", 1)
                fields[key.strip().lower()] = value.strip()
            if "deb" not in fields.get("types", "").split() or fields.get("enabled", "yes") == "no":
                continue
            for uri in fields.get("uris", "").split():
                entries.append((uri, fields.get("suites", ""), fields.get("components", ""),
                                fields.get("signed-by", "")))
for path in ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*.list")):
    try:
        lines = open(path).read().splitlines()
    except OSError:
        continue
    for line in lines:
        match = re.match(r"\s*deb\s+(\[(?P<options>[^]]*)\]\s+)?(?P<uri>\S+)\s+(?P<suite>\S+)\s+(?P<components>.*)",
                         line)
        if not match:
            continue
        signed = re.search(r"signed-by=(\S+)", match.group("options") or "")
        entries.append((match.group("uri"), match.group("suite"), match.group("components").strip(),
                        signed.group(1) if signed else ""))
# Debian's own archives only (the package is Debian's): their addresses end in /debian or /debian-security.
for uri, suites, components, signed_by in entries:
    if not re.search(r"/debian(-security)?/?$", uri):
        continue
    if mirror:
        uri = mirror.rstrip("/") + ("-security" if uri.rstrip("/").endswith("-security") else "")
    print("Types: deb-src")
    print(f"URIs: {uri}")
    print(f"Suites: {suites}")
    print(f"Components: {components}")
    if signed_by:
        print(f"Signed-By: {signed_by}")
    print()
PY
}
debian_entries >"$apt_dir/sources/debian-src.sources"
[[ -s $apt_dir/sources/debian-src.sources ]] ||
  die "no Debian archive entry in /etc/apt/sources.list{,.d} to make a deb-src entry from"

apt_options=(
  -o "Dir::Etc::sourcelist=/dev/null" -o "Dir::Etc::sourceparts=$apt_dir/sources"
  -o "Dir::State=$apt_dir/state" -o "Dir::State::lists=$apt_dir/state/lists"
  -o "Dir::Cache=$apt_dir/cache"
)
# apt drops root to _apt for downloads, which cannot write to a private folder under root's home.
((EUID == 0)) && apt_options+=(-o "APT::Sandbox::User=root")

echo "fetch_source: fetching the source of zookeeper $version (deb-src: $(grep -c '^URIs' \
  "$apt_dir/sources/debian-src.sources") archive entries)" >&2
apt-get -q "${apt_options[@]}" update >"$apt_dir/update.log" 2>&1 ||
  die "apt-get update of the deb-src entries failed: $(tail -n 5 "$apt_dir/update.log")"
download=$apt_dir/download
mkdir -p "$download"
(cd "$download" && apt-get -q "${apt_options[@]}" source --download-only "zookeeper=$version") \
  >"$apt_dir/source.log" 2>&1 ||
  die "apt-get source zookeeper=$version failed: $(tail -n 5 "$apt_dir/source.log")
(apt-get update said: $(grep -E '^(W|E|Err):' "$apt_dir/update.log" | head -n 5))"

rm -rf "$tree" "$tree.partial"
dsc=$(find "$download" -maxdepth 1 -name 'zookeeper_*.dsc' -print -quit)
[[ -n $dsc ]] || die "apt-get source left no .dsc in $download"
# apt checked the files against the archive's signed index; dpkg-source checks them against the .dsc's checksums
# (the maintainer's signature on the .dsc it cannot check without debian-keyring, and says so) and applies Debian's
# patches, as the package was built.
dpkg-source -x "$dsc" "$tree.partial" >"$apt_dir/unpack.log" 2>&1 ||
  die "dpkg-source -x failed: $(tail -n 5 "$apt_dir/unpack.log")"
touch "$tree.partial/.zkwire-complete"
mv "$tree.partial" "$tree"
# dpkg-source leaves a copy of the upstream tarball beside the tree; the unpacked tree is all that is kept.
rm -rf "$apt_dir" "$cache"/zookeeper_*.orig.tar.*
echo "$tree"
