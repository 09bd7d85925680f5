# bench/plot.gp: the chart of a benchmark run, from RESULTS.dat (one block
# per size, a line per kernel, Mrec/s per variant; NaN where a variant did
# not run, so a Rake kernel rakec refused has no bar).  bench/run calls
#   gnuplot -e "datafile='X.dat'; outfile='X.png'; mode='full';
#               sizes='4096 1048576 16777216'" bench/plot.gp
set terminal pngcairo size 1600,1500 font ",10"
set output outfile
set termoption noenhanced
set datafile missing "NaN"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.9 border -1
set boxwidth 0.9
set logscale y
set yrange [1:*]
set ylabel "million records per second (log)"
set grid ytics
set key outside right top vertical
set xtics rotate by -30
blocks = words(sizes)
set multiplot layout blocks,1 title sprintf("Rake benchmark (%s): records per second per kernel and variant; no Rake bar = rakec refused the kernel", mode)
do for [b=1:blocks] {
    set title sprintf("%s records", word(sizes, b))
    plot for [c=2:9] datafile index (b-1) using c:xtic(1) title columnhead(c)
}
unset multiplot
