#!/usr/bin/env bash
# bench/run_all.sh - `make bench`: every benchmark of this tree and the peers of
# bench-peers in one session, alternated round by round (a shared VM's speed drifts by
# 2x over minutes, so ours and the peers' figures of a round see the same machine), then
# bench/results/latest.json, latest.md (table with ratios to each peer and the machine)
# and latest.png (gnuplot: Kops/s vs burst size per operation, the peers' update rates
# as reference lines). bench/summarize.py does the arithmetic.
#
# Usage: bench/run_all.sh BUILD_DIR [quick]   (ROUNDS=5 default; quick: 1 round)
# Run as root for the XDP peer (BPF_PROG_TEST_RUN). The peers are not part of this tree:
# FLOWDPA_BENCH_PEERS names their folder, by default bench-peers in the folder "shared"
# next to this checkout; a peer that cannot be built or run is skipped, and the table
# says so. Raw outputs: $TMPDIR/flowdpa-bench-all/; BENCH_RESULTS=DIR writes the results
# there instead of bench/results.
#
# Per round:
#   peers      xdp_bench -q -n 1024 (XDP/BPF), dpdk_bench -q -n 1024 (DPDK rte_hash); full
#              mode also -n 1m (for W1 N=1M and the 1M insertion rows)
#   datapath   bench_datapath -r 1 (full: every part in round 1, the 16M ones skipped with a
#              reason when they would not fit in half of MemAvailable; later rounds without
#              the 16M parts, -p w1k,w1m,w2,ins,scale), quick: bench_datapath -q -r 1
#   dpa        bench_dpa --iterations 2000 --runs 1 --threads 16
#   provider   bench_provider -q -r 1 -m sync
#   perf       doca_flow_dpa_perf --json --operation update|disable --burst-size 1|8|32
#              --num-workers 1|2 --num-operations 131072 --num-iterations 5 (other options
#              at their defaults: queue 64, threshold 32, 1 table of 1024 per worker)
# Odd rounds run the peers first, even rounds ours first.
set -eu
build=${1:?usage: run_all.sh BUILD_DIR [quick]}
mode=${2:-full}
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$build" && pwd)
peers=${FLOWDPA_BENCH_PEERS:-$here/../../shared/bench-peers}
out=${TMPDIR:-/tmp}/flowdpa-bench-all
raw=$out/raw
results=${BENCH_RESULTS:-$here/results}
rounds=${ROUNDS:-5}
[ "$mode" = quick ] && rounds=1
perf=$build/tools/doca_flow_dpa_perf/doca_flow_dpa_perf
for b in bench/datapath/bench_datapath bench/dpa/bench_dpa bench/provider/bench_provider \
	tools/doca_flow_dpa_perf/doca_flow_dpa_perf; do
	if [ ! -x "$build/$b" ]; then
		echo "run_all.sh: no $build/$b (ninja -C $build first)" >&2
		exit 1
	fi
done
rm -rf "$raw"
mkdir -p "$raw" "$results"
cmd="${BENCH_CMD:-bench/run_all.sh $*} (ROUNDS=$rounds)"
echo "cmd=$cmd"
echo "machine: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(nproc) cores"

# The peers: build each, or say why not.
peer_build=$out/peer-build
xdp_ok=0 dpdk_ok=0
xdp_note="" dpdk_note=""
if [ ! -f "$peers/Makefile" ]; then
	xdp_note="no bench-peers at $peers (set FLOWDPA_BENCH_PEERS)"
	dpdk_note=$xdp_note
else
	if [ "$(id -u)" != 0 ]; then
		xdp_note="skipped: needs root (BPF_PROG_TEST_RUN)"
	elif make -C "$peers" O="$peer_build" all > "$out/xdp-build.txt" 2>&1; then
		xdp_ok=1
	else
		xdp_note="skipped: its build failed ($(tail -n 1 "$out/xdp-build.txt"); make -C $peers deps installs what it needs)"
	fi
	if ! pkg-config --exists libdpdk 2>/dev/null; then
		dpdk_note="skipped: libdpdk not found (make -C $peers dpdk-deps)"
	elif make -C "$peers" O="$peer_build" dpdk > "$out/dpdk-build.txt" 2>&1; then
		dpdk_ok=1
	else
		dpdk_note="skipped: its build failed, see $out/dpdk-build.txt"
	fi
fi
[ -n "$xdp_note" ] && echo "XDP/BPF peer: $xdp_note"
[ -n "$dpdk_note" ] && echo "DPDK rte_hash peer: $dpdk_note"

peer_sizes=(1024)
datapath_args=(-q -r 1)
[ "$mode" = quick ] || { peer_sizes=(1024 1m); datapath_args=(-r 1); }
run_peers() { # round
	local p ok n
	for p in xdp dpdk; do
		ok=${p}_ok
		[ "${!ok}" = 1 ] || continue
		for n in "${peer_sizes[@]}"; do
			if ! "$peer_build/${p}_bench" -q -n "$n" >> "$raw/r$1-$p.txt" 2>&1; then
				echo "  ${p}_bench -n $n failed in round $1 (see $raw/r$1-$p.failed): its figures of this round are left out"
				mv "$raw/r$1-$p.txt" "$raw/r$1-$p.failed"
				break
			fi
		done
	done
}

run_ours() { # round
	local parts=()
	[ "$mode" != quick ] && [ "$1" -gt 1 ] && parts=(-p w1k,w1m,w2,ins,scale)
	"$build/bench/datapath/bench_datapath" "${datapath_args[@]}" "${parts[@]+"${parts[@]}"}" > "$raw/r$1-datapath.txt" 2> "$raw/r$1-datapath.err" ||
		{ echo "bench_datapath failed, see $raw/r$1-datapath.*"; exit 1; }
	"$build/bench/dpa/bench_dpa" --iterations 2000 --runs 1 --threads 16 > "$raw/r$1-dpa.txt" 2>&1 ||
		{ echo "bench_dpa failed, see $raw/r$1-dpa.txt"; exit 1; }
	"$build/bench/provider/bench_provider" -q -r 1 -m sync > "$raw/r$1-provider.txt" 2> "$raw/r$1-provider.err" ||
		{ echo "bench_provider failed, see $raw/r$1-provider.*"; exit 1; }
	for op in update disable; do
		for b in 1 8 32; do
			for w in 1 2; do
				f=$raw/r$1-perf-$op-b$b-w$w
				"$perf" --json --operation "$op" --burst-size "$b" --num-workers "$w" --num-operations 131072 \
					--num-iterations 5 > "$f.json" 2> "$f.err" ||
					{ echo "doca_flow_dpa_perf failed, see $f.err"; exit 1; }
			done
		done
	done
}

for r in $(seq 1 "$rounds"); do
	if [ $((r % 2)) = 1 ]; then run_peers "$r"; run_ours "$r"; else run_ours "$r"; run_peers "$r"; fi
	echo "round $r/$rounds done"
done

python3 "$here/summarize.py" --raw "$raw" --rounds "$rounds" --results "$results" --cmd "$cmd" \
	--xdp-note "$xdp_note" --dpdk-note "$dpdk_note"
if command -v gnuplot > /dev/null; then
	gnuplot -e "dat='$results/latest.dat'; refs='$results/latest.refs'; out='$results/latest.png'" \
		"$here/chart.gp" || { echo "gnuplot failed"; exit 1; }
	echo "chart: $results/latest.png"
else
	echo "gnuplot not found (make deps installs gnuplot-nox): no chart"
fi
echo
cat "$results/latest.md"
echo
echo "results: $results/latest.json $results/latest.md $results/latest.png; raw: $raw"
