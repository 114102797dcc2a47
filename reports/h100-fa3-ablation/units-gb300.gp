# Where the tile's time goes on gb300 (model)
# Written by fa4-analyze. Re-render after restyling with: gnuplot units-gb300.gp
set terminal svg size 1050,480 noenhanced font 'Helvetica,12' background rgb 'white'
set output (exists('svg_file') ? svg_file : 'units-gb300.svg')
set datafile separator '\t'
set grid xtics ytics mxtics mytics lc rgb '#e5e5e5'
set clip two
set style fill solid 0.85 border -1
set multiplot layout 1,1 title 'Where the tile''s time goes on gb300 (model)'

set title 'gb300: b2 h16 s8192 d128 bf16'
set key outside right top vertical Left reverse
set xlabel 'kernel and pass (a triangle over each unit that bounds the tile)'
set ylabel 'cycles per tile, % of the tile''s time'
unset logscale x
unset logscale y
set xtics ('fa2 fwd' 0, 'fa2 bwd' 1, 'fa4 fwd (exp2 on MUFU only)' 2, 'fa4 fwd' 3, 'fa4 bwd' 4)
set xrange [-0.6:4.6]
set yrange [0:115]
plot 'units-gb300.dat' index 0 using ($1-0.32):2:(0.16) with boxes lc rgb '#4e79a7' title 'tensor-core MMA', \
     'units-gb300.dat' index 1 using ($1-0.16):2:(0.16) with boxes lc rgb '#f28e2b' title 'exp2 on MUFU', \
     'units-gb300.dat' index 2 using ($1+0):2:(0.16) with boxes lc rgb '#e15759' title 'FP32 pipe (issue)', \
     'units-gb300.dat' index 3 using ($1+0.16):2:(0.16) with boxes lc rgb '#76b7b2' title 'shared memory', \
     'units-gb300.dat' index 4 using ($1+0.32):2:(0.16) with boxes lc rgb '#59a14f' title 'HBM', \
     'units-gb300.dat' index 5 using 1:2 with points pt 9 ps 1.4 lc rgb '#000000' title 'bound unit'

unset multiplot
