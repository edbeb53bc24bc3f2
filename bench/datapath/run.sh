#!/usr/bin/env bash
# bench/datapath/run.sh - the XDP/BPF and DPDK rte_hash peers and bench_datapath in the
# same session, alternated round by round (odd rounds peers first, even rounds ours
# first) so that both see the same machine (a shared VM's speed drifts by 2x over
# minutes), then the table of table.py: medians over the rounds with min-max, and the
# median of the per-round ratios (one of our workers against one peer core).
# Usage: bench/datapath/run.sh BUILD_DIR [quick]
#   ROUNDS=5 by default; quick: one round, short peer runs, ours without the 16M parts.
#   BIG_ROUNDS=1: the 16M parts, ours and the peers', and our capacity part (fit: 134M HASH
#   and 67M BASIC entries, 12 GB; minutes each while tables are big;
#   bytes per entry do not drift with the machine's speed), run in the first BIG_ROUNDS
#   rounds only.
#   Root, for the XDP peer (BPF_PROG_TEST_RUN); the DPDK peer needs libdpdk
#   (make -C $FLOWDPA_BENCH_PEERS dpdk-deps). A peer that cannot run is left out, the
#   table says so. FLOWDPA_BENCH_PEERS names the peers' folder, by default bench-peers
#   in the folder "shared" next to this checkout. Raw outputs: $TMPDIR/flowdpa-bench/.
set -eu
build=${1:?usage: run.sh BUILD_DIR [quick]}
mode=${2:-full}
here=$(cd "$(dirname "$0")" && pwd)
peers=${FLOWDPA_BENCH_PEERS:-$here/../../../shared/bench-peers}
out=${TMPDIR:-/tmp}/flowdpa-bench
peer_build=$out/peer-build
rounds=${ROUNDS:-5}
peer_args=(-r 1)
ours_args=(-r 1)
if [ "$mode" = quick ]; then rounds=1; peer_args=(-q); ours_args=(-q -r 1); fi
ours=$build/bench/datapath/bench_datapath
[ -x "$ours" ] || { echo "run.sh: no $ours (ninja -C $build first)" >&2; exit 1; }
rm -rf "$out/raw"
mkdir -p "$out/raw"

echo "cmd=$0 $* ROUNDS=$rounds BIG_ROUNDS=${BIG_ROUNDS:-1}; peers: xdp_bench|dpdk_bench ${peer_args[*]} -n 1024|1m (and 16m in the big rounds); ours: bench_datapath ${ours_args[*]}"
xdp=0 dpdk=0 notes=()
if [ ! -f "$peers/Makefile" ]; then
	notes+=("peers: none at $peers (set FLOWDPA_BENCH_PEERS)")
else
	if [ "$(id -u)" != 0 ]; then
		notes+=("XDP/BPF peer: skipped, needs root")
	elif make -C "$peers" O="$peer_build" all > "$out/xdp-build.txt" 2>&1; then
		# Built is not runnable: a kernel may refuse BPF_PROG_TEST_RUN even to root.
		if "$peer_build/xdp_bench" -q -n 1024 -R 1000 > "$out/xdp-probe.txt" 2>&1; then
			xdp=1
		else
			notes+=("XDP/BPF peer: cannot run here: $(tail -1 "$out/xdp-probe.txt")")
		fi
	else
		notes+=("XDP/BPF peer: build failed, see $out/xdp-build.txt (make -C $peers deps)")
	fi
	if pkg-config --exists libdpdk 2> /dev/null && make -C "$peers" O="$peer_build" dpdk > "$out/dpdk-build.txt" 2>&1; then
		dpdk=1
	else
		notes+=("DPDK peer: not built (libdpdk missing or build failed: make -C $peers dpdk-deps; $out/dpdk-build.txt)")
	fi
fi

run_peers() { # round
	local p n sizes=(1024 1m)
	[ "$1" -le "${BIG_ROUNDS:-1}" ] && [ "$mode" != quick ] && sizes+=(16m)
	for p in xdp dpdk; do
		[ "$p" = xdp ] && [ "$xdp" = 0 ] && continue
		[ "$p" = dpdk ] && [ "$dpdk" = 0 ] && continue
		for n in "${sizes[@]}"; do
			"$peer_build/${p}_bench" "${peer_args[@]}" -n "$n" >> "$out/raw/r$1-$p.txt" 2>&1 ||
				{ echo "${p}_bench -n $n failed in round $1, see $out/raw/r$1-$p.txt"; exit 1; }
		done
	done
}
big_rounds=${BIG_ROUNDS:-1}
run_ours() { # round
	local parts=()
	[ "$1" -gt "$big_rounds" ] && parts=(-p w1k,w1m,w2,ins,scale)
	"$ours" "${ours_args[@]}" "${parts[@]+"${parts[@]}"}" > "$out/raw/r$1-ours.txt" 2> "$out/raw/r$1-ours.err" ||
		{ echo "bench_datapath failed in round $1 (a check or a run), see $out/raw/r$1-ours.*"; exit 1; }
}
t0=$(date +%s)
for r in $(seq 1 "$rounds"); do
	if [ $((r % 2)) = 1 ]; then run_peers "$r"; run_ours "$r"; else run_ours "$r"; run_peers "$r"; fi
	echo "round $r/$rounds done ($(($(date +%s) - t0)) s)"
done
note_args=()
for n in "${notes[@]+"${notes[@]}"}"; do note_args+=(--note "$n"); done
python3 "$here/table.py" --raw "$out/raw" --rounds "$rounds" "${note_args[@]+"${note_args[@]}"}"
echo "raw: $out/raw/ (r<round>-ours.txt, -xdp.txt, -dpdk.txt); $(($(date +%s) - t0)) s"
