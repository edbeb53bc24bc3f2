# bench/chart.gp - the chart of bench/run_all.sh: doca_flow_dpa_perf Kops/s vs burst size
# per operation and worker count, the peers' update rates as reference lines.
# gnuplot -e "dat='latest.dat'; refs='latest.refs'; out='latest.png'" bench/chart.gp
load refs
set terminal pngcairo noenhanced size 1000,720 font "DejaVu Sans,11"
set output out
set title charttitle
set xlabel "burst size (requests per flush)"
set ylabel "Kops/s (log scale)"
set logscale x 2
set logscale y 10
set xrange [0.8:40]
set xtics ("1" 1, "8" 8, "32" 32)
set grid ytics mytics xtics
set key outside below center horizontal maxrows 4 width 2
set bmargin 9
set format y "%.0f"
eval "plot dat using 1:2 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'update, 1 worker', " . \
     "dat using 1:3 with linespoints lw 2 pt 5 lc rgb '#17becf' title 'update, 2 workers', " . \
     "dat using 1:4 with linespoints lw 2 pt 9 lc rgb '#d62728' title 'disable+enable, 1 worker', " . \
     "dat using 1:5 with linespoints lw 2 pt 11 lc rgb '#ff7f0e' title 'disable+enable, 2 workers'" . refplot
