#!/usr/bin/env bash
# samples/demo.sh - `make demo`: run heavy_hitter_guard on the bundled trace, explain what
# happened in plain words and draw demo-out/heavy_hitters.png. BUILD_DIR (default build)
# is the meson build directory `make build` made; output goes to demo-out/ (DEMO_OUT).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
out=${DEMO_OUT:-$root/demo-out}
bin=$build/samples/heavy_hitter_guard
trace=$root/samples/data/heavy_hitters.pcap

if [ ! -x "$bin" ]; then
	# A build directory configured before samples/ existed: pick the samples up.
	meson setup --reconfigure "$build" "$root" >/dev/null
	ninja -C "$build" >/dev/null
fi
[ -x "$bin" ] || { echo "demo: $bin was not built"; exit 1; }
rm -rf "$out"
mkdir -p "$out"

echo "== flowdpa demo: a DPA kernel guards a port against heavy hitters =="
echo "running: $bin --out $out $trace"
FLOWDPA_PORT1_TX=pcap:$out/forwarded.pcap FLOWDPA_TRACE=$out/trace.json FLOWDPA_REPORT=$out/report.json \
	"$bin" --out "$out" "$trace" >"$out/run.log" 2>&1 || { cat "$out/run.log"; echo "demo: the sample failed"; exit 1; }

python3 - "$out" <<'PY'
import csv, json, sys
out = sys.argv[1]
log = open(out + "/run.log").read().splitlines()
head = log[0]
periods = list(csv.DictReader(open(out + "/periods.csv")))
events = list(csv.DictReader(open(out + "/events.csv")))
rep = json.load(open(out + "/report.json"))

def cls(flow):  # the generator marks the class in the source address
    src = flow.split(":")[0]
    return "elephant" if src.startswith("10.1.0.") else "mouse"

flows = {}
for r in periods:
    f = flows.setdefault(r["flow"], [0, 0])
    f[0] += int(r["forwarded"]); f[1] += int(r["dropped"])
nper = 1 + max(int(r["period"]) for r in periods)
ppp = int(head.split(" periods of ")[1].split()[0])
thr = head.split("threshold ")[1].split()[0]
cd = head.split("cool-down ")[1].split()[0]
el = sorted(f for f in flows if cls(f) == "elephant")
mice = [f for f in flows if cls(f) == "mouse"]
print()
print("What ran: a DOCA Flow program (host) put %d packets from the bundled capture into port 0." %
      sum(sum(v) for v in flows.values()))
print("A hash table of 1024 entries sorts every packet by its flow (addresses and ports),")
print("forwards it to port 1 and counts it. Every %d packets (one period) a kernel on the DPA," % ppp)
print("the NIC's own processor, reads all counters; a flow above %s packets per period is" % thr)
print("switched off for %s periods, then back on." % cd)
print()
print("Flows seen: %d  (%d elephants: big flows; %d mice: small ones)" % (len(flows), len(el), len(mice)))
print("Flows switched off by the DPA kernel (period N = packets %d*N+1 .. %d*(N+1) of the capture;" % (ppp, ppp))
print("a flow switched off after period N loses its packets of periods N+1 .. N+%s):" % cd)
for f in sorted({fl for e in events if e["event"] == "disable" for fl in e["flows"].split()}):
    ps = [int(e["period"]) for e in events if e["event"] == "disable" and f in e["flows"].split()]
    print("  %-34s %-8s off after periods %s" % (f.replace(">", " -> "), cls(f), ", ".join(map(str, ps))))
print()
print("%-10s %6s %10s %8s" % ("class", "flows", "forwarded", "dropped"))
for c, fs in (("elephants", el), ("mice", mice)):
    print("%-10s %6d %10d %8d" % (c, len(fs), sum(flows[f][0] for f in fs), sum(flows[f][1] for f in fs)))
prov = next(s["data"] for s in rep["sections"] if s["name"] == "provider")
dpa = next(s["data"] for s in rep["sections"] if s["name"] == "dpa")
print()
print("DPA: %d kernel calls (one per period)." % dpa["rpcs"])
for q in prov["queues"]:
    if q["posted"]:
        what = "counter reads (8 counters each)" if q["type"] == "RESOURCES_READ" else "switch off / on"
        print("  %-16s requests %5d, completions %5d, failed %d  (%s)" %
              (q["type"], q["posted"], q["completed"], q["failed"], what))

# gnuplot data: per period, forwarded packets of each elephant and of all mice.
with open(out + "/per_period.dat", "w") as d:
    d.write("# period " + " ".join(el) + " mice\n")
    for p in range(nper):
        row = [sum(int(r["forwarded"]) for r in periods if int(r["period"]) == p and r["flow"] == f)
               if any(int(r["period"]) == p and r["flow"] == f for r in periods) else "?" for f in el]
        row.append(sum(int(r["forwarded"]) for r in periods if int(r["period"]) == p and cls(r["flow"]) == "mouse"))
        d.write("%d %s\n" % (p, " ".join(map(str, row))))
# shaded windows: the periods in which an elephant's packets were dropped
colors = ["#d62728", "#ff7f0e", "#9467bd"]
with open(out + "/plot.gp", "w") as g:
    g.write('set terminal pngcairo size 1100,560 font ",11"\nset output "%s/heavy_hitters.png"\nset termoption noenhanced\nset datafile missing "?"\n' % out)
    g.write('set title "heavy_hitter_guard: packets forwarded per period; shaded: periods in which the DPA kernel had that elephant switched off"\n')
    g.write('set xlabel "period (%d packets of the trace)"\nset ylabel "packets forwarded"\n' % ppp)
    g.write('set key outside right top\nset grid ytics\nset xrange [-0.5:%f]\nset yrange [0:*]\nset style fill transparent solid 0.18 noborder\n' % (nper - 0.5))
    n = 1
    for i, f in enumerate(el):
        for p in range(nper):
            if any(int(r["period"]) == p and r["flow"] == f and int(r["dropped"]) for r in periods):
                lo = 0.34 * i
                g.write('set object %d rect from %f, graph %f to %f, graph %f fc rgb "%s" fs transparent solid 0.22 noborder behind\n'
                        % (n, p - 0.5, lo, p + 0.5, lo + 0.33, colors[i % 3]))
                n += 1
    plots = ['"%s/per_period.dat" using 1:%d with linespoints lw 2 pt 7 lc rgb "%s" title "elephant %s"'
             % (out, i + 2, colors[i % 3], f.split(":")[0]) for i, f in enumerate(el)]
    plots.append('"%s/per_period.dat" using 1:%d with linespoints lw 2 pt 5 lc rgb "#1f77b4" title "all %d mice"'
                 % (out, len(el) + 2, len(mice)))
    g.write("plot " + ", \\\n     ".join(plots) + "\n")
PY

if command -v gnuplot >/dev/null; then
	gnuplot "$out/plot.gp"
	png="$out/heavy_hitters.png"
else
	png="(not drawn: gnuplot is missing; run make deps)"
fi
echo
echo "Files:"
echo "  picture          $png"
echo "  output capture   $out/forwarded.pcap   (what left port 1; tshark -r it)"
echo "  Perfetto trace   $out/trace.json       (open in https://ui.perfetto.dev)"
echo "  JSON report      $out/report.json"
echo "  per-period data  $out/periods.csv, kernel decisions $out/events.csv, full log $out/run.log"
echo "Next: samples/heavy_hitter_guard/README.md explains each step of the program."
