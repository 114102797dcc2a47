# A sample: two panels
# Written by fa4-analyze. Re-render after restyling with: gnuplot sample-chart.gp
set terminal svg size 1280,460 noenhanced font 'Helvetica,12' background rgb 'white'
set output (exists('svg_file') ? svg_file : 'sample-chart.svg')
set datafile separator '\t'
set grid xtics ytics mxtics mytics lc rgb '#e5e5e5'
set clip two
set style fill solid 0.85 border -1
set multiplot layout 1,2 title 'A sample: two panels'

set title 'hd128'
set key inside top left Left reverse opaque box lc rgb '#cccccc'
set xlabel 'seqlen (tokens)'
set ylabel 'TFLOP/s'
set logscale x 2
unset logscale y
set xtics autofreq
set xrange [*:*]
set yrange [0:*]
plot 'sample-chart.dat' index 0 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#4e79a7' title 'fa4 ''model''', \
     'sample-chart.dat' index 1 using 1:2 with lines lw 2 lc rgb '#f28e2b' title 'HBM roof', \
     'sample-chart.dat' index 2 using 1:2 with lines lw 2 dt 2 lc rgb '#f28e2b' title 'measured ceiling', \
     'sample-chart.dat' index 3 using 1:2 with points pt 9 ps 1.4 lc rgb '#e15759' title 'cudnn', \
     'sample-chart.dat' index 4 using 1:2:3 with labels center font ',10' tc rgb '#000000' notitle

set title 'units'
set key outside right top vertical Left reverse
set xlabel 'kernel'
set ylabel 'share of tile time (%)'
unset logscale x
unset logscale y
set xtics ('fa4 fwd' 0, 'fa4 bwd' 1)
set xrange [-0.6:1.6]
set yrange [0:110]
plot 'sample-chart.dat' index 5 using ($1-0.2):2:(0.4) with boxes lc rgb '#76b7b2' title 'MMA', \
     'sample-chart.dat' index 6 using ($1+0.2):2:(0.4) with boxes lc rgb '#59a14f' title 'exp', \
     'sample-chart.dat' index 7 using 1:2 with points pt 7 ps 0.8 lc rgb '#4e79a7' title 'fa4 ''model'''

unset multiplot
