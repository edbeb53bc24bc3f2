#!/usr/bin/env bash
# `make install PREFIX=...` then a user project (tests/data/user_project) finds every
# installed DOCA module through pkg-config, builds with meson (host and device code, dpacc
# found through the doca-dpa prefix) and with plain cc, and runs. Also: the default
# PREFIX is /opt/flowdpa and /usr, /usr/local are refused without FORCE=1; the .pc files
# do not force DOCA_ALLOW_EXPERIMENTAL_API (a source defining it builds under -Werror, one
# calling experimental API without it warns); FLOWDPA_VERSION is the installed version.
set -euo pipefail
src=${FLOWDPA_TEST_SOURCE_ROOT:?}
work=$(mktemp -d /tmp/flowdpa-install-XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
user_src=$src/tests/data/user_project
unset MAKEFLAGS MFLAGS MAKELEVEL

# (captured first: grep -q closing the pipe early would fail make with SIGPIPE under pipefail)
dry_run=$(make -s -C "$src" -n install BUILD="$work/build")
grep -q -- "-Dprefix=/opt/flowdpa\$" <<<"$dry_run" ||
	{ echo "make install does not default to PREFIX=/opt/flowdpa"; exit 1; }
for p in /usr/local /usr /usr/local/; do
	if out=$(make -C "$src" install PREFIX=$p BUILD="$work/build" 2>&1); then
		echo "make install PREFIX=$p was not refused"; exit 1
	fi
	grep -q "shadow a real DOCA" <<<"$out" || { echo "PREFIX=$p refused without saying why: $out"; exit 1; }
done
[ ! -e "$work/build" ] || { echo "a refused make install configured a build"; exit 1; }

make -C "$src" install BUILD="$work/build" PREFIX="$prefix" MESON_OPTS=-Dtests=false >"$work/install.log" 2>&1 ||
	{ tail -50 "$work/install.log"; exit 1; }

# The layout README "Using it from your project" exports.
multiarch=$(cc -print-multiarch)
libdir=$prefix/lib/$multiarch
pcdir=$libdir/pkgconfig
[ -f "$pcdir/doca-common.pc" ] || { echo "doca-common.pc is not in $pcdir"; find "$prefix" -name '*.pc'; exit 1; }
export PKG_CONFIG_PATH=$pcdir
export LD_LIBRARY_PATH=$libdir
[ "$(pkg-config --variable=libdir doca-common)" = "$libdir" ] || { echo "libdir is not $libdir"; exit 1; }

# One version string across every installed module; no forced experimental API.
version=$(pkg-config --modversion doca-common)
for pc in "$pcdir"/doca-*.pc; do
	m=$(basename "$pc" .pc)
	v=$(pkg-config --modversion "$m")
	[ "$v" = "$version" ] || { echo "$m reports $v, doca-common $version"; exit 1; }
	flags=$(pkg-config --cflags --libs "$m")
	if grep -q DOCA_ALLOW_EXPERIMENTAL_API <<<"$flags"; then echo "$m forces DOCA_ALLOW_EXPERIMENTAL_API: $flags"; exit 1; fi
	echo "module $m $v: ok"
done
grep -q "#define FLOWDPA_VERSION \"$version\"" "$prefix/include/flowdpa/flowdpa_version.h" ||
	{ echo "flowdpa_version.h does not say $version"; exit 1; }

# meson, the way DOCA users build; dpacc is not in PATH here: found through doca-dpa's prefix.
meson setup "$work/user" "$user_src" >"$work/user.log" 2>&1 || { cat "$work/user.log"; exit 1; }
grep -q "Program dpacc found: YES ($prefix/bin/dpacc)" "$work/user.log" ||
	{ cat "$work/user.log"; echo "dpacc not found in $prefix/bin"; exit 1; }
ninja -C "$work/user" >"$work/user-build.log" 2>&1 || { cat "$work/user-build.log"; exit 1; }
out=$("$work/user/list_devices")
echo "$out"
grep -q "device 0 0000:03:00.0" <<<"$out"
grep -q "running on $version" <<<"$out"
IFS=. read -r major minor patch <<<"$version"
grep -qx "flowdpa $version ($major.$minor.$patch)" <<<"$out" || { echo "FLOWDPA_VERSION is not $version"; exit 1; }
"$work/user/list_devices_dpa" | grep -qx "device app linked"

# The README's PATH: dpacc and doca_caps.
export PATH=$prefix/bin:$PATH
[ "$(dpacc --version | awk '{print $NF}')" = "$version" ] || { echo "dpacc --version is not $version"; exit 1; }
doca_caps --version | grep -qF "$version"

# plain cc with pkg-config
cc -std=c17 -Wall -Wextra -Werror -o "$work/list_cc" "$user_src/list_devices.c" $(pkg-config --cflags --libs doca-common)
FLOWDPA_DEVICES=cx7,bf2 "$work/list_cc" | grep -q "device 1 0000:04:00.0"
# Experimental API without DOCA_ALLOW_EXPERIMENTAL_API warns, as with DOCA: an error under -Werror.
if cc -std=c17 -Wall -Werror -o "$work/noexp" "$user_src/no_experimental.c" $(pkg-config --cflags --libs doca-common) \
	2>"$work/noexp.log"; then
	echo "experimental call without DOCA_ALLOW_EXPERIMENTAL_API compiled cleanly"; exit 1
fi
grep -q "Symbol is defined as experimental" "$work/noexp.log" || { cat "$work/noexp.log"; exit 1; }
echo "install and user project: ok"
