#!/usr/bin/env bash
# scripts/setup against stand-ins for dpkg-query, apt-get, sudo and java (nothing is installed): on a machine that
# lacks some packages it installs exactly those, and on one that has them all it installs nothing. The first is what
# a fresh machine meets, where dpkg-query fails for the packages it does not know; a build machine never does.
# Usage: tests/scripts/setup_test.sh REPO
set -euo pipefail

repo=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/zkwire-setup-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
stubs=$work/bin
mkdir -p "$stubs"

# dpkg-query -W -f=FORMAT PKG...: "PKG:install ok installed" for those listed in $work/installed, nothing for the
# others, and status 1 when there were others (dpkg-query's "no packages found matching").
cat >"$stubs/dpkg-query" <<'EOF'
#!/usr/bin/env bash
status=0
for arg in "$@"; do
  case $arg in -*) continue ;; esac
  if grep -qx "$arg" "$STUB_DIR/installed"; then echo "$arg:install ok installed"; else status=1; fi
done
exit $status
EOF
# apt-get: records each call, one line of arguments.
cat >"$stubs/apt-get" <<'EOF'
#!/usr/bin/env bash
echo "$*" >>"$STUB_DIR/apt-calls"
EOF
cat >"$stubs/sudo" <<'EOF'
#!/usr/bin/env bash
exec "$@"
EOF
cat >"$stubs/java" <<'EOF'
#!/usr/bin/env bash
exit 0
EOF
chmod +x "$stubs"/*
export STUB_DIR=$work PATH="$stubs:$PATH"

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# setup_with <installed packages...>: runs `scripts/setup demo` with those installed; its status and output are left
# in $status and $work/out, the apt-get calls in $work/apt-calls.
setup_with() {
  printf '%s\n' "$@" >"$work/installed"
  rm -f "$work/apt-calls"
  status=0
  "$repo/scripts/setup" demo >"$work/out" 2>&1 || status=$?
}

# Some installed, the others unknown to dpkg.
setup_with clang cmake python3
if ((status != 0)); then
  fail "setup with packages missing: exit status $status"
  cat "$work/out"
fi
install=$(grep '^install ' "$work/apt-calls" 2>/dev/null || true)
[ -n "$install" ] || fail "setup with packages missing: apt-get install was not called"
for pkg in libasio-dev default-jre-headless libzookeeper-java; do
  [[ " $install " == *" $pkg "* ]] || fail "setup with packages missing: $pkg not installed (apt-get $install)"
done
for pkg in clang cmake python3; do
  [[ " $install " != *" $pkg "* ]] || fail "setup with packages missing: $pkg installed again (apt-get $install)"
done

# Everything installed: no apt-get at all.
mapfile -t all < <(sed -n '/^demo_build=(/,/^)/p; /^demo_run=(/,/^)/p' "$repo/scripts/setup" |
  sed 's/#.*//; /=(/d; /^)/d' | tr ' ' '\n' | sed '/^$/d')
((${#all[@]} > 5)) || fail "could not read the demo packages from scripts/setup (${all[*]})"
setup_with "${all[@]}"
((status == 0)) || { fail "setup with everything installed: exit status $status"; cat "$work/out"; }
[ ! -e "$work/apt-calls" ] || fail "setup with everything installed called apt-get: $(cat "$work/apt-calls")"
grep -q "nothing to do" "$work/out" || fail "setup with everything installed: $(cat "$work/out")"

if ((failures)); then
  echo "setup_test: $failures failure(s)"
  exit 1
fi
echo "setup_test: passed"
