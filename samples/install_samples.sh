#!/usr/bin/env bash
# Install flowdpa into a prefix, then build each sample named on the command line out of
# tree, as a user project (samples/<name>/meson.build: pkg-config doca-flow-dpa-provider +
# the installed dpacc), and run it once: through samples/<name>/check.py (or check.sh)
# when it has one, else plainly (exit 0 expected).
set -euo pipefail
src=${FLOWDPA_TEST_SOURCE_ROOT:?}
work=$(mktemp -d /tmp/flowdpa-samples-install-XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

meson setup "$work/build" "$src" --prefix="$prefix" -Dtests=false >"$work/setup.log" 2>&1 ||
	{ cat "$work/setup.log"; exit 1; }
ninja -C "$work/build" install >"$work/install.log" 2>&1 || { tail -50 "$work/install.log"; exit 1; }

pcdir=$(dirname "$(find "$prefix" -name doca-flow-dpa-provider.pc | head -n1)")
export PKG_CONFIG_PATH=$pcdir
export PATH=$prefix/bin:$PATH
LD_LIBRARY_PATH=$(pkg-config --variable=libdir doca-flow-dpa-provider)
export LD_LIBRARY_PATH
export FLOWDPA_SAMPLE_DATA=$src/samples/data

for s in "$@"; do
	sd=$src/samples/$s
	meson setup "$work/$s" "$sd" >"$work/$s.setup.log" 2>&1 || { cat "$work/$s.setup.log"; exit 1; }
	ninja -C "$work/$s" >"$work/$s.build.log" 2>&1 || { cat "$work/$s.build.log"; exit 1; }
	export FLOWDPA_SAMPLE_DIR=$sd
	if [ -f "$sd/check.py" ]; then
		python3 "$sd/check.py" "$work/$s/$s" || { echo "sample $s (out of tree): check failed"; exit 1; }
	elif [ -f "$sd/check.sh" ]; then
		bash "$sd/check.sh" "$work/$s/$s" || { echo "sample $s (out of tree): check failed"; exit 1; }
	else
		(cd "$work" && "$work/$s/$s") >"$work/$s.run.log" 2>&1 || { cat "$work/$s.run.log"; exit 1; }
	fi
	echo "sample $s: built out of tree against the installed flowdpa and ran: ok"
done
