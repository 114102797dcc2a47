# Predicted TFLOP/s against sequence length on b200 (bf16; solid non-causal, dashed causal)
# Written by fa4-analyze. Re-render after restyling with: gnuplot predicted-b200.gp
set terminal svg size 580,360 noenhanced font 'Helvetica,12' background rgb 'white'
set output (exists('svg_file') ? svg_file : 'predicted-b200.svg')
set datafile separator '\t'
set grid xtics ytics mxtics mytics lc rgb '#e5e5e5'
set clip two
set style fill solid 0.85 border -1
set multiplot layout 1,1 title 'Predicted TFLOP/s against sequence length on b200 (bf16; solid non-causal, dashed causal)'

set title 'fwd hd128 (16 heads)'
set key outside right top vertical Left reverse
set xlabel 'seqlen (tokens)'
set ylabel 'predicted TFLOP/s'
set logscale x 2
unset logscale y
set xtics autofreq
set xrange [*:*]
set yrange [0:*]
plot 'predicted-b200.dat' index 0 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#4e79a7' title 'fa4'

unset multiplot
