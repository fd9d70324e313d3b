#!/bin/sh
# capi_loaded_library: which libzookeeper_mt.so.2 a program linked against Debian's loads. Without LD_LIBRARY_PATH
# it must be Debian's, for capi_smoke and for the comparison bench (zkwire_e2e_compare), else every C-vs-zkwire
# figure would compare zkwire with itself; with LD_LIBRARY_PATH=<build>/libzookeeper it must be zkwire's.
# Usage: check_loaded.sh LIBDIR PROGRAM... (a program that does not exist is skipped, failed under CI=true)
set -eu
libdir=$1
shift
status=0
loaded() {  # the path the dynamic loader resolves libzookeeper_mt.so.2 to
  ldd "$1" | sed -n 's/^[[:space:]]*libzookeeper_mt\.so\.2 => \([^ ]*\) .*/\1/p'
}
for program in "$@"; do
  if [ ! -x "$program" ]; then
    echo "skipped: $program is not built"
    if [ "${CI:-}" = true ]; then status=1; fi
    continue
  fi
  plain=$(env -u LD_LIBRARY_PATH ldd "$program" | sed -n 's/^[[:space:]]*libzookeeper_mt\.so\.2 => \([^ ]*\) .*/\1/p')
  case "$plain" in
    "$libdir"/*|"") echo "$program loads '$plain' without LD_LIBRARY_PATH, not Debian's library"; status=1 ;;
    *) echo "$program: $plain" ;;
  esac
  swapped=$(LD_LIBRARY_PATH=$libdir loaded "$program")
  if [ "$swapped" != "$libdir/libzookeeper_mt.so.2" ]; then
    echo "$program loads '$swapped' with LD_LIBRARY_PATH=$libdir, not zkwire's library"
    status=1
  else
    echo "$program with LD_LIBRARY_PATH=$libdir: $swapped"
  fi
done
exit $status
