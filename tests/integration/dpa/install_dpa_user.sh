#!/usr/bin/env bash
# Install flowdpa into a prefix, then build tests/integration/dpa/user_project (host +
# device code) with the installed dpacc and doca-dpa.pc, run it, and check versions.
set -euo pipefail
src=${FLOWDPA_TEST_SOURCE_ROOT:?}
work=$(mktemp -d /tmp/flowdpa-dpa-install-XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

meson setup "$work/build" "$src" --prefix="$prefix" -Dtests=false >"$work/setup.log" 2>&1 ||
	{ cat "$work/setup.log"; exit 1; }
ninja -C "$work/build" install >"$work/install.log" 2>&1 || { tail -50 "$work/install.log"; exit 1; }

pcdir=$(dirname "$(find "$prefix" -name doca-dpa.pc | head -n1)")
export PKG_CONFIG_PATH=$pcdir
export PATH=$prefix/bin:$PATH
export LD_LIBRARY_PATH=$(pkg-config --variable=libdir doca-dpa)
version=$(pkg-config --modversion doca-dpa)
[ "$version" = "$(pkg-config --modversion doca-common)" ] || { echo "doca-dpa and doca-common differ"; exit 1; }
[ "$(dpacc --version | awk '{print $NF}')" = "$version" ] || { echo "dpacc --version is not $version"; exit 1; }
[ -x "$prefix/bin/dpa-app-attributes2blob" ] || { echo "dpa-app-attributes2blob not installed"; exit 1; }

meson setup "$work/user" "$src/tests/integration/dpa/user_project" >"$work/user.log" 2>&1 ||
	{ cat "$work/user.log"; exit 1; }
ninja -C "$work/user" >"$work/user-build.log" 2>&1 || { cat "$work/user-build.log"; exit 1; }
out=$("$work/user/hello_program")
echo "$out"
grep -q "ranks 100 101 102 103 sum 42" <<<"$out"
[ "$(grep -c 'Hello from kernel rank' <<<"$out")" = 4 ]
echo "installed dpacc + doca-dpa user project: ok"
