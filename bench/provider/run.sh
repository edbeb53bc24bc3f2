#!/usr/bin/env bash
# bench/provider/run.sh - bench_provider and the DPDK rte_hash peer in the same session,
# alternated round by round so that both see the same machine (a shared VM's speed
# drifts by 2x over minutes), then ours next to the peer's figures: medians over the
# rounds, and the median of the per-round ratios.
# Usage: bench/provider/run.sh BUILD_DIR [quick]   (root, for the peer; ROUNDS=3 default;
# quick: one short round)
# The peer (dpdk_bench, built with its own Makefile from Debian's DPDK packages, which
# `make dpdk-deps` installs when pkg-config does not find libdpdk) is not part of this
# tree: FLOWDPA_BENCH_PEERS names its folder, by default bench-peers in the folder
# "shared" next to this checkout. Its build output goes to $TMPDIR/flowdpa-bench-provider.
#
# Pairs compared (one core each side, 1024 entries):
#   replace (1 DPA thread, burst 32, sync)   vs  rte_hash_add_key_data on an existing key
#   disable+enable pairs (same)              vs  rte_hash_del_key + rte_hash_add_key_data pairs
#   memory update (same)                     vs  rte_hash_add_key_data on an existing key
#   datapath, 1 worker, frames over all      vs  dpdk_hash_pipe_rotate (every packet a
#   1024 entries                                  different entry)
set -eu
build=${1:?usage: run.sh BUILD_DIR [quick]}
mode=${2:-full}
here=$(cd "$(dirname "$0")" && pwd)
peers=${FLOWDPA_BENCH_PEERS:-$here/../../../shared/bench-peers}
bench=$build/bench/provider/bench_provider
if [ ! -f "$peers/Makefile" ]; then
	echo "run.sh: no DPDK peer at $peers (set FLOWDPA_BENCH_PEERS to the bench-peers folder)" >&2
	exit 1
fi
if [ ! -x "$bench" ]; then
	echo "run.sh: no $bench (ninja -C $build first)" >&2
	exit 1
fi
out=${TMPDIR:-/tmp}/flowdpa-bench-provider
peer_build=$out/peer-build
mkdir -p "$out"
rounds=${ROUNDS:-3}
peer_args=(-r 1)
ours_args=(-r 1)
if [ "$mode" = quick ]; then rounds=1; peer_args=(-q); ours_args=(-q -r 1); fi

echo "cmd=$0 $* ROUNDS=$rounds peer: dpdk_bench ${peer_args[*]} -n 1024|1m; ours: bench_provider ${ours_args[*]}"
echo "nproc=$(nproc) cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
if ! pkg-config --exists libdpdk 2>/dev/null; then
	echo "libdpdk not found: make -C $peers dpdk-deps"
	make -C "$peers" dpdk-deps > "$out/peer-deps.txt" 2>&1 ||
		{ echo "make dpdk-deps failed, see $out/peer-deps.txt"; exit 1; }
fi
make -C "$peers" O="$peer_build" dpdk > "$out/peer-build.txt" 2>&1 ||
	{ echo "peer build failed, see $out/peer-build.txt"; exit 1; }
get() { # the value of key $2 in file $1 (empty when absent)
	sed -n "s/^$2=//p" "$1" | tail -n 1
}
: > "$out/rounds.txt"
for r in $(seq 1 "$rounds"); do
	"$peer_build/dpdk_bench" "${peer_args[@]}" -n 1024 > "$out/peer-$r.txt" 2>&1 &&
		"$peer_build/dpdk_bench" "${peer_args[@]}" -n 1m >> "$out/peer-$r.txt" 2>&1 ||
		{ echo "peer failed, see $out/peer-$r.txt"; exit 1; }
	"$bench" "${ours_args[@]}" > "$out/ours-$r.txt" 2> "$out/ours-$r.err" ||
		{ echo "bench_provider failed, see $out/ours-$r.txt and $out/ours-$r.err"; exit 1; }
	printf '%s %s %s %s %s %s %s %s %s %s %s %s %s %s\n' \
		"$(get "$out/peer-$r.txt" dpdk_hash_update_mops)" \
		"$(get "$out/peer-$r.txt" dpdk_hash_deladd_mops)" \
		"$(get "$out/peer-$r.txt" dpdk_hash_update_mops_n1048576)" \
		"$(get "$out/peer-$r.txt" dpdk_hash_deladd_mops_n1048576)" \
		"$(get "$out/peer-$r.txt" dpdk_hash_pipe_rotate_mpps)" \
		"$(get "$out/ours-$r.txt" replace_1t_b32_sync_mops)" \
		"$(get "$out/ours-$r.txt" disable_enable_1t_b32_sync_mpairs)" \
		"$(get "$out/ours-$r.txt" memory_update_1t_b32_sync_mops)" \
		"$(get "$out/ours-$r.txt" memory_read_1t_b32_sync_mops)" \
		"$(get "$out/ours-$r.txt" replace_2t_b32_sync_mops)" \
		"$(get "$out/ours-$r.txt" replace_1t_b32_async_mops)" \
		"$(get "$out/ours-$r.txt" datapath_1w_sync_mpps)" \
		"$(get "$out/ours-$r.txt" datapath_1w_with_replace_1t_b32_sync_mpps)" \
		"$(get "$out/ours-$r.txt" replace_1t_b32_sync_during_datapath_mops)" >> "$out/rounds.txt"
	echo "round $r/$rounds: $(tail -n 1 "$out/rounds.txt")"
done

# Columns of rounds.txt: 1 peer update M/s N=1024, 2 peer del+add pairs M/s N=1024,
# 3-4 the same at N=1M, 5 peer rotate Mpps N=1024; ours: 6 replace 1t b32 sync M/s,
# 7 disable+enable 1t b32 sync Mpairs/s, 8 memory update, 9 memory read, 10 replace 2t,
# 11 replace 1t b32 async, 12 datapath 1 worker Mpps, 13 the same while replacing,
# 14 the replace rate meanwhile.
median() { awk -v c="$1" '{print $c}' "$out/rounds.txt" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio_median() { # median over rounds of column $1 / column $2
	awk -v a="$1" -v b="$2" '{ if ($b + 0 > 0) printf "%.4f\n", $a / $b }' "$out/rounds.txt" |
		sort -g | awk '{a[NR]=$1} END { if (NR) printf "%.2fx", a[int((NR+1)/2)]; else print "n/a" }'
}
printf '\n%-44s %10s %12s %8s\n' "metric (median of $rounds, 1024 entries)" flowdpa dpdk_peer ratio
row() { printf '%-44s %10s %12s %8s\n' "$1" "$2" "$3" "$4"; }
row "replace 1t b32 sync, M req/s" "$(median 6)" "$(median 1)" "$(ratio_median 6 1)"
row "disable+enable 1t b32 sync, M pairs/s" "$(median 7)" "$(median 2)" "$(ratio_median 7 2)"
row "memory update 1t b32 sync, M req/s" "$(median 8)" "$(median 1)" "$(ratio_median 8 1)"
row "memory read 1t b32 sync, M req/s" "$(median 9)" - -
row "replace 2t b32 sync, M req/s" "$(median 10)" - -
row "replace 1t b32 async (latency 0), M req/s" "$(median 11)" - -
row "datapath 1 worker, Mpps" "$(median 12)" "$(median 5)" "$(ratio_median 12 5)"
row "datapath 1 worker while replacing, Mpps" "$(median 13)" "$(median 5)" "$(ratio_median 13 5)"
row "replace while the datapath runs, M req/s" "$(median 14)" - -
row "peer at N=1M: update / del+add, M/s" - "$(median 3) / $(median 4)" -
echo "targets (issue 9): replace 1t b32 sync >= 30 M/s, disable+enable >= 15 M pairs/s;" \
	"anchors: hardware example 0.79 M/s, bpf_map_update_elem ~1 M/s (batch ~3.7 M/s)"
echo "raw: $out/rounds.txt $out/ours-*.txt $out/peer-*.txt"
