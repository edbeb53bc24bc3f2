#!/usr/bin/env bash
# Install flowdpa into a prefix, then build tests/integration/provider/user_project (host
# Flow + host DPA/provider + a kernel) with the installed dpacc and
# doca-flow-dpa-provider.pc, and run it: the kernel's disable must take effect.
set -euo pipefail
src=${FLOWDPA_TEST_SOURCE_ROOT:?}
work=$(mktemp -d /tmp/flowdpa-provider-install-XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

meson setup "$work/build" "$src" --prefix="$prefix" -Dtests=false >"$work/setup.log" 2>&1 ||
	{ cat "$work/setup.log"; exit 1; }
ninja -C "$work/build" install >"$work/install.log" 2>&1 || { tail -50 "$work/install.log"; exit 1; }

pcdir=$(dirname "$(find "$prefix" -name doca-flow-dpa-provider.pc | head -n1)")
export PKG_CONFIG_PATH=$pcdir
export PATH=$prefix/bin:$PATH
export LD_LIBRARY_PATH=$(pkg-config --variable=libdir doca-flow-dpa-provider)
pkg-config --print-requires doca-flow-dpa-provider | grep -q doca-flow || { echo "no Requires: doca-flow"; exit 1; }
pkg-config --print-requires doca-flow-dpa-provider | grep -q doca-dpa || { echo "no Requires: doca-dpa"; exit 1; }
[ -f "$LD_LIBRARY_PATH/libdoca_flow_dpa_provider_dev.a" ] || { echo "device library not installed"; exit 1; }

meson setup "$work/user" "$src/tests/integration/provider/user_project" >"$work/user.log" 2>&1 ||
	{ cat "$work/user.log"; exit 1; }
ninja -C "$work/user" >"$work/user-build.log" 2>&1 || { cat "$work/user-build.log"; exit 1; }
out=$("$work/user/disable_program")
echo "$out"
grep -q "kernel: DOCA_SUCCESS completed 1 failed 0; forwarded before 1 after 0" <<<"$out"
echo "installed dpacc + doca-flow-dpa-provider user project: ok"
