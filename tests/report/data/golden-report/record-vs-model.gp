# The model against the published record: one point per figure (TFLOP/s)
# Written by fa4-analyze. Re-render after restyling with: gnuplot record-vs-model.gp
set terminal svg size 1560,960 noenhanced font 'Helvetica,12' background rgb 'white'
set output (exists('svg_file') ? svg_file : 'record-vs-model.svg')
set datafile separator '\t'
set grid xtics ytics mxtics mytics lc rgb '#e5e5e5'
set clip two
set style fill solid 0.85 border -1
set multiplot layout 2,3 title 'The model against the published record: one point per figure (TFLOP/s)'

set title 'b200 (41 held out, 28 fit, 60 outside the bounds)'
set key inside top left Left reverse opaque box lc rgb '#cccccc'
set xlabel 'published TFLOP/s'
set ylabel 'model TFLOP/s'
set logscale x 10
set logscale y 10
set xtics autofreq
set xrange [8.3888:2287]
set yrange [8.3888:2287]
plot 'record-vs-model.dat' index 0 using 1:2 with lines lw 2 lc rgb '#333333' title 'y = x', \
     'record-vs-model.dat' index 1 using 1:2 with lines lw 2 dt 2 lc rgb '#8c8c8c' title '+-10%', \
     'record-vs-model.dat' index 2 using 1:2 with lines lw 2 dt 2 lc rgb '#8c8c8c' notitle, \
     'record-vs-model.dat' index 3 using 1:2 with points pt 7 ps 0.8 lc rgb '#4e79a7' title 'held out', \
     'record-vs-model.dat' index 4 using 1:2 with points pt 9 ps 1.4 lc rgb '#f28e2b' title 'fit', \
     'record-vs-model.dat' index 5 using 1:2 with points pt 7 ps 0.8 lc rgb '#9a9a9a' title 'outside the bounds'

set title 'b300 (36 held out, 24 fit, 0 outside the bounds)'
set key inside top left Left reverse opaque box lc rgb '#cccccc'
set xlabel 'published TFLOP/s'
set ylabel 'model TFLOP/s'
unset logscale x
unset logscale y
set xtics autofreq
set xrange [696:4210.12]
set yrange [696:4210.12]
plot 'record-vs-model.dat' index 6 using 1:2 with lines lw 2 lc rgb '#333333' title 'y = x', \
     'record-vs-model.dat' index 7 using 1:2 with lines lw 2 dt 2 lc rgb '#8c8c8c' title '+-10%', \
     'record-vs-model.dat' index 8 using 1:2 with lines lw 2 dt 2 lc rgb '#8c8c8c' notitle, \
     'record-vs-model.dat' index 9 using 1:2 with points pt 7 ps 0.8 lc rgb '#4e79a7' title 'held out', \
     'record-vs-model.dat' index 10 using 1:2 with points pt 9 ps 1.4 lc rgb '#f28e2b' title 'fit'

set title 'gb200 (460 held out, 312 fit, 58 outside the bounds)'
set key inside top left Left reverse opaque box lc rgb '#cccccc'
set xlabel 'published TFLOP/s'
set ylabel 'model TFLOP/s'
set logscale x 10
set logscale y 10
set xtics autofreq
set xrange [2.108:3390]
set yrange [2.108:3390]
plot 'record-vs-model.dat' index 11 using 1:2 with lines lw 2 lc rgb '#333333' title 'y = x', \
     'record-vs-model.dat' index 12 using 1:2 with lines lw 2 dt 2 lc rgb '#8c8c8c' title '+-10%', \
     'record-vs-model.dat' index 13 using 1:2 with lines lw 2 dt 2 lc rgb '#8c8c8c' notitle, \
     'record-vs-model.dat' index 14 using 1:2 with points pt 7 ps 0.8 lc rgb '#4e79a7' title 'held out', \
     'record-vs-model.dat' index 15 using 1:2 with points pt 9 ps 1.4 lc rgb '#f28e2b' title 'fit', \
     'record-vs-model.dat' index 16 using 1:2 with points pt 7 ps 0.8 lc rgb '#9a9a9a' title 'outside the bounds'

set title 'gb300 (431 held out, 292 fit, 127 outside the bounds)'
set key inside top left Left reverse opaque box lc rgb '#cccccc'
set xlabel 'published TFLOP/s'
set ylabel 'model TFLOP/s'
set logscale x 10
set logscale y 10
set xtics autofreq
set xrange [2.1624:4582.04]
set yrange [2.1624:4582.04]
plot 'record-vs-model.dat' index 17 using 1:2 with lines lw 2 lc rgb '#333333' title 'y = x', \
     'record-vs-model.dat' index 18 using 1:2 with lines lw 2 dt 2 lc rgb '#8c8c8c' title '+-10%', \
     'record-vs-model.dat' index 19 using 1:2 with lines lw 2 dt 2 lc rgb '#8c8c8c' notitle, \
     'record-vs-model.dat' index 20 using 1:2 with points pt 7 ps 0.8 lc rgb '#4e79a7' title 'held out', \
     'record-vs-model.dat' index 21 using 1:2 with points pt 9 ps 1.4 lc rgb '#f28e2b' title 'fit', \
     'record-vs-model.dat' index 22 using 1:2 with points pt 7 ps 0.8 lc rgb '#9a9a9a' title 'outside the bounds'

set title 'h200 (50 held out, 38 fit, 32 outside the bounds)'
set key inside top left Left reverse opaque box lc rgb '#cccccc'
set xlabel 'published TFLOP/s'
set ylabel 'model TFLOP/s'
set logscale x 10
set logscale y 10
set xtics autofreq
set xrange [2.0264:1327.5]
set yrange [2.0264:1327.5]
plot 'record-vs-model.dat' index 23 using 1:2 with lines lw 2 lc rgb '#333333' title 'y = x', \
     'record-vs-model.dat' index 24 using 1:2 with lines lw 2 dt 2 lc rgb '#8c8c8c' title '+-10%', \
     'record-vs-model.dat' index 25 using 1:2 with lines lw 2 dt 2 lc rgb '#8c8c8c' notitle, \
     'record-vs-model.dat' index 26 using 1:2 with points pt 7 ps 0.8 lc rgb '#4e79a7' title 'held out', \
     'record-vs-model.dat' index 27 using 1:2 with points pt 9 ps 1.4 lc rgb '#f28e2b' title 'fit', \
     'record-vs-model.dat' index 28 using 1:2 with points pt 7 ps 0.8 lc rgb '#9a9a9a' title 'outside the bounds'

unset multiplot
