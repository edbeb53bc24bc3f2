#!/usr/bin/env bash
# `make install PREFIX=...` then a user project finds every installed DOCA module
# through pkg-config, builds with meson and with plain cc, and runs.
set -euo pipefail
src=${FLOWDPA_TEST_SOURCE_ROOT:?}
work=$(mktemp -d /tmp/flowdpa-install-XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

meson setup "$work/build" "$src" --prefix="$prefix" -Dtests=false >"$work/setup.log" 2>&1 ||
	{ cat "$work/setup.log"; exit 1; }
ninja -C "$work/build" install >"$work/install.log" 2>&1 || { tail -50 "$work/install.log"; exit 1; }

pcdir=$(dirname "$(find "$prefix" -name doca-common.pc | head -n1)")
[ -f "$pcdir/doca-common.pc" ] || { echo "doca-common.pc not installed"; exit 1; }
export PKG_CONFIG_PATH=$pcdir
libdir=$(pkg-config --variable=libdir doca-common)
export LD_LIBRARY_PATH=$libdir

# One version string across every installed module.
version=$(pkg-config --modversion doca-common)
for pc in "$pcdir"/doca-*.pc; do
	m=$(basename "$pc" .pc)
	v=$(pkg-config --modversion "$m")
	[ "$v" = "$version" ] || { echo "$m reports $v, doca-common $version"; exit 1; }
	pkg-config --cflags --libs "$m" >/dev/null
	echo "module $m $v: ok"
done
"$prefix/bin/doca_caps" --version | grep -qF "$version"

# meson, the way DOCA users build
meson setup "$work/user" "$src/tests/data/user_project" >"$work/user.log" 2>&1 || { cat "$work/user.log"; exit 1; }
ninja -C "$work/user" >/dev/null
out=$("$work/user/list_devices")
echo "$out"
grep -q "device 0 0000:03:00.0" <<<"$out"
grep -q "running on $version" <<<"$out"

# plain cc with pkg-config
cc -std=c17 -Wall -Wextra -Werror -o "$work/list_cc" "$src/tests/data/user_project/list_devices.c" \
	$(pkg-config --cflags --libs doca-common)
FLOWDPA_DEVICES=cx7,bf2 "$work/list_cc" | grep -q "device 1 0000:04:00.0"
echo "install and user project: ok"
