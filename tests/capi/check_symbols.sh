#!/bin/bash
# capi_symbols: the dynamic symbols of zkwire's libzookeeper_mt.so.2 against Debian's: the same names, the same
# kinds (function or data), the same data sizes (programs copy data objects into themselves at load time), the same
# SONAME, no symbol versions (Debian's are unversioned). The only differences allowed are listed below, each with
# its reason (docs/libzookeeper.md#symbols).
# Usage: check_symbols.sh OURS DEBIANS
set -eu
ours=$1
debians=$2
if [ ! -e "$debians" ]; then
  echo "Debian's library $debians is missing (package libzookeeper-mt2)"
  [ "${CI:-}" = true ] && exit 1
  exit 77
fi

# Not provided: the single-threaded API's event loop (out of scope) and the C client's internal auth lock, which no
# header declares.
only_debian='zookeeper_interest zookeeper_process zoo_lock_auth zoo_unlock_auth'
# Provided beyond Debian's build: declared by the C client's header for its TLS and Cyrus SASL builds, which Debian
# does not make.
only_ours='zookeeper_init_ssl close_zsock zookeeper_init_sasl zoo_sasl_make_basic_callbacks'

list() {  # "name kind size" per exported symbol; size only for data
  nm -D -S --defined-only "$1" | awk '{
    if (NF == 4) { kind = ($3 == "T" ? "function" : "data"); size = (kind == "data" ? $2 : "-"); print $4, kind, size }
    else if (NF == 3) { kind = ($2 == "T" ? "function" : "data"); print $3, kind, "-" } }' | sort
}
filter() {  # drops the allowed names
  awk -v drop="$1" 'BEGIN { n = split(drop, d, " "); for (i = 1; i <= n; i++) skip[d[i]] = 1 } !($1 in skip)'
}

status=0
# shellcheck disable=SC2312
diff_out=$(diff <(list "$debians" | filter "$only_debian") <(list "$ours" | filter "$only_ours") 2>&1) || true
if [ -n "$diff_out" ]; then
  echo "exported symbols differ from Debian's (< Debian, > zkwire):"
  echo "$diff_out"
  status=1
fi
for name in $only_debian; do
  if list "$ours" | grep -q "^$name "; then echo "$name is now exported: remove it from the exceptions"; status=1; fi
done
for name in $only_ours; do
  if ! list "$ours" | grep -q "^$name "; then echo "$name is no longer exported: remove it from the exceptions"; status=1; fi
done
soname=$(readelf -d "$ours" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
if [ "$soname" != libzookeeper_mt.so.2 ]; then echo "SONAME is '$soname', not libzookeeper_mt.so.2"; status=1; fi
versioned=$(objdump -T "$ours" | grep -E '^[0-9a-f]{16} ' | grep -v '\*UND\*' | grep -v ' Base ' || true)
if [ -n "$versioned" ]; then
  echo "versioned symbols exported (Debian's are unversioned):"
  echo "$versioned" | head
  status=1
fi
count=$(list "$ours" | wc -l)
echo "$count symbols exported"
exit $status
