#!/usr/bin/env bash
# bench/datapath/run.sh - the XDP peer and bench_datapath in the same session,
# alternated round by round so that both see the same machine (a shared VM's speed
# drifts by 2x over minutes), then ours next to the peer's figures: medians over the
# rounds, and the median of the per-round ratios.
# Usage: bench/datapath/run.sh BUILD_DIR [quick]   (root, for the peer; ROUNDS=5 default;
# quick: one short round)
# The peer (xdp_bench and its eBPF program, built with its own Makefile) is not part of
# this tree: FLOWDPA_BENCH_PEERS names its folder, by default bench-peers in the folder
# "shared" next to this checkout.
set -eu
build=${1:?usage: run.sh BUILD_DIR [quick]}
mode=${2:-full}
here=$(cd "$(dirname "$0")" && pwd)
peers=${FLOWDPA_BENCH_PEERS:-$here/../../../shared/bench-peers}
if [ ! -f "$peers/Makefile" ]; then
	echo "run.sh: no XDP peer at $peers (set FLOWDPA_BENCH_PEERS to the bench-peers folder)" >&2
	exit 1
fi
out=${TMPDIR:-/tmp}/flowdpa-bench
peer_build=$out/peer-build
mkdir -p "$out"
rounds=${ROUNDS:-5}
peer_args=(-r 1)
ours_args=(-r 1)
if [ "$mode" = quick ]; then rounds=1; peer_args=(-q); ours_args=(-q -r 1); fi

echo "cmd=$0 $* ROUNDS=$rounds peer: xdp_bench ${peer_args[*]} -n 1024|1m; ours: bench_datapath ${ours_args[*]}"
make -C "$peers" O="$peer_build" all > "$out/peer-build.txt" 2>&1 || { echo "peer build failed, see $out/peer-build.txt"; exit 1; }
get() { sed -n "s/^$2=//p" "$1" | tail -n 1; }
: > "$out/rounds.txt"
for r in $(seq 1 "$rounds"); do
	"$peer_build/xdp_bench" "${peer_args[@]}" -n 1024 > "$out/peer-$r.txt" 2>&1 &&
		"$peer_build/xdp_bench" "${peer_args[@]}" -n 1m >> "$out/peer-$r.txt" 2>&1 ||
		{ echo "peer failed, see $out/peer-$r.txt"; exit 1; }
	"$build/bench/datapath/bench_datapath" "${ours_args[@]}" > "$out/ours-$r.txt"
	printf '%s %s %s %s %s %s %s %s %s %s\n' \
		"$(get "$out/peer-$r.txt" xdp_hash_pipe_mpps)" \
		"$(get "$out/peer-$r.txt" xdp_hash_pipe_rotate_mpps_n1048576)" \
		"$(get "$out/peer-$r.txt" bpf_update_batch_kops)" \
		"$(get "$out/ours-$r.txt" w1_n1024_1w_mpps)" "$(get "$out/ours-$r.txt" w1_n1024_2w_mpps)" \
		"$(get "$out/ours-$r.txt" w1_n1048576_1w_mpps)" "$(get "$out/ours-$r.txt" w1_n1048576_2w_mpps)" \
		"$(get "$out/ours-$r.txt" w2_1w_mpps)" "$(get "$out/ours-$r.txt" w2_2w_mpps)" \
		"$(get "$out/ours-$r.txt" insert_meps)" >> "$out/rounds.txt"
	echo "round $r/$rounds: $(tail -n 1 "$out/rounds.txt")"
done

# Columns of rounds.txt: 1 peer N=1024, 2 peer N=1M rotate, 3 peer update_batch kops,
# 4-5 W1 N=1024 1w/2w, 6-7 W1 N=1M 1w/2w, 8-9 W2 1w/2w, 10 insert M/s.
median() { awk -v c="$1" '{print $c}' "$out/rounds.txt" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio_median() { # median over rounds of column $1 / column $2 (scaled by $3)
	awk -v a="$1" -v b="$2" -v s="$3" '{ if ($b + 0 > 0) printf "%.4f\n", $a / ($b * s) }' "$out/rounds.txt" |
		sort -g | awk '{a[NR]=$1} END { if (NR) printf "%.2fx", a[int((NR+1)/2)]; else print "n/a" }'
}
printf '\n%-34s %10s %10s %8s\n' "metric (median of $rounds)" flowdpa xdp_peer ratio
row() { printf '%-34s %10s %10s %8s\n' "$1" "$(median "$2")" "$3" "$4"; }
row "W1 N=1024 1w Mpps" 4 "$(median 1)" "$(ratio_median 4 1 1)"
row "W1 N=1024 2w Mpps" 5 "$(median 1)" "$(ratio_median 5 1 1)"
row "W1 N=1M 1w Mpps (rotate)" 6 "$(median 2)" "$(ratio_median 6 2 1)"
row "W1 N=1M 2w Mpps (rotate)" 7 "$(median 2)" "$(ratio_median 7 2 1)"
row "W2 root->hash(1024) 1w Mpps" 8 - -
row "W2 root->hash(1024) 2w Mpps" 9 - -
row "hash insert M entries/s" 10 "$(median 3)k" "$(ratio_median 10 3 0.001)"
echo "raw: $out/rounds.txt $out/ours-*.txt $out/peer-*.txt"
