#!/usr/bin/env bash
# bench/datapath/run.sh - run the XDP peer (../shared/bench-peers) and bench_datapath in
# the same session and print ours next to the peer's figures as ratios.
# Usage: bench/datapath/run.sh BUILD_DIR [quick]   (needs root for the peer; run late:
# the machine's 2 cores are shared, and the peer pins itself to CPU 0)
set -eu
build=${1:?usage: run.sh BUILD_DIR [quick]}
mode=${2:-full}
here=$(cd "$(dirname "$0")" && pwd)
peers=${FLOWDPA_BENCH_PEERS:-$here/../../../shared/bench-peers}
out=${TMPDIR:-/tmp}/flowdpa-bench
mkdir -p "$out"

if [ "$mode" = quick ]; then peer_target=quick; ours_args=-q; else peer_target=run; ours_args=; fi
make -C "$peers" "$peer_target" > "$out/peer.txt" 2>&1 || { echo "peer failed, see $out/peer.txt"; exit 1; }
"$build/bench/datapath/bench_datapath" $ours_args > "$out/ours.txt"

get() { sed -n "s/^$2=//p" "$1" | tail -n 1; }
peer_hot=$(get "$out/peer.txt" xdp_hash_pipe_mpps)
peer_1m=$(get "$out/peer.txt" xdp_hash_pipe_rotate_mpps_n1048576)
peer_upd=$(get "$out/peer.txt" bpf_update_batch_kops)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 > 0) printf "%.2fx", a / b; else print "n/a" }'; }

printf '%-34s %10s %10s %8s\n' metric flowdpa xdp_peer ratio
for w in 1w 2w; do
	v=$(get "$out/ours.txt" w1_n1024_${w}_mpps)
	printf '%-34s %10s %10s %8s\n' "W1 N=1024 $w Mpps" "$v" "$peer_hot" "$(ratio "$v" "$peer_hot")"
done
for w in 1w 2w; do
	v=$(get "$out/ours.txt" w1_n1048576_${w}_mpps)
	printf '%-34s %10s %10s %8s\n' "W1 N=1M $w Mpps (rotate)" "$v" "$peer_1m" "$(ratio "$v" "$peer_1m")"
done
for w in 1w 2w; do
	printf '%-34s %10s %10s %8s\n' "W2 root->hash(1024) $w Mpps" "$(get "$out/ours.txt" w2_${w}_mpps)" - -
done
ins=$(get "$out/ours.txt" insert_meps)
printf '%-34s %10s %10s %8s\n' "hash insert M entries/s" "$ins" "${peer_upd:-?}k" \
	"$(ratio "$ins" "$(awk -v k="${peer_upd:-0}" 'BEGIN { print k / 1000 }')")"
echo "raw: $out/ours.txt $out/peer.txt"
