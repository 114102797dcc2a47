# Measured backward TFLOP/s on NVIDIA H100 80GB HBM3 (solid: non-causal, dashed: causal)
# Written by fa4-analyze. Re-render after restyling with: gnuplot ladder-bwd-nvidia-h100-80gb-hbm3.gp
set terminal svg size 900,1260 noenhanced font 'Helvetica,12' background rgb 'white'
set output (exists('svg_file') ? svg_file : 'ladder-bwd-nvidia-h100-80gb-hbm3.svg')
set datafile separator '\t'
set grid xtics ytics mxtics mytics lc rgb '#e5e5e5'
set clip two
set style fill solid 0.85 border -1
set multiplot layout 3,1 title 'Measured backward TFLOP/s on NVIDIA H100 80GB HBM3 (solid: non-causal, dashed: causal)'

set title 'bwd hd64 bf16'
set key outside right top vertical Left reverse
set xlabel 'seqlen (tokens)'
set ylabel 'measured TFLOP/s'
set logscale x 2
unset logscale y
set xtics autofreq
set xrange [*:*]
set yrange [0:*]
plot 'ladder-bwd-nvidia-h100-80gb-hbm3.dat' index 0 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#4e79a7' title 'fa2_bwd', \
     'ladder-bwd-nvidia-h100-80gb-hbm3.dat' index 1 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#f28e2b' title 'fa3_bwd', \
     'ladder-bwd-nvidia-h100-80gb-hbm3.dat' index 2 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#e15759' title 'sdpa_cudnn', \
     'ladder-bwd-nvidia-h100-80gb-hbm3.dat' index 3 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#76b7b2' title 'sdpa_flash', \
     'ladder-bwd-nvidia-h100-80gb-hbm3.dat' index 4 using 1:2 with lines lw 2 dt 2 lc rgb '#4e79a7' notitle, \
     'ladder-bwd-nvidia-h100-80gb-hbm3.dat' index 5 using 1:2 with lines lw 2 dt 2 lc rgb '#f28e2b' notitle, \
     'ladder-bwd-nvidia-h100-80gb-hbm3.dat' index 6 using 1:2 with lines lw 2 dt 2 lc rgb '#e15759' notitle, \
     'ladder-bwd-nvidia-h100-80gb-hbm3.dat' index 7 using 1:2 with lines lw 2 dt 2 lc rgb '#76b7b2' notitle

set title 'bwd hd128 bf16'
set key outside right top vertical Left reverse
set xlabel 'seqlen (tokens)'
set ylabel 'measured TFLOP/s'
set logscale x 2
unset logscale y
set xtics autofreq
set xrange [*:*]
set yrange [0:*]
plot 'ladder-bwd-nvidia-h100-80gb-hbm3.dat' index 8 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#4e79a7' title 'fa2_bwd', \
     'ladder-bwd-nvidia-h100-80gb-hbm3.dat' index 9 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#f28e2b' title 'fa3_bwd', \
     'ladder-bwd-nvidia-h100-80gb-hbm3.dat' index 10 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#e15759' title 'sdpa_cudnn', \
     'ladder-bwd-nvidia-h100-80gb-hbm3.dat' index 11 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#76b7b2' title 'sdpa_flash', \
     'ladder-bwd-nvidia-h100-80gb-hbm3.dat' index 12 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#59a14f' title 'sdpa_efficient', \
     'ladder-bwd-nvidia-h100-80gb-hbm3.dat' index 13 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#edc948' title 'sdpa_math', \
     'ladder-bwd-nvidia-h100-80gb-hbm3.dat' index 14 using 1:2 with lines lw 2 dt 2 lc rgb '#4e79a7' notitle, \
     'ladder-bwd-nvidia-h100-80gb-hbm3.dat' index 15 using 1:2 with lines lw 2 dt 2 lc rgb '#f28e2b' notitle, \
     'ladder-bwd-nvidia-h100-80gb-hbm3.dat' index 16 using 1:2 with lines lw 2 dt 2 lc rgb '#e15759' notitle, \
     'ladder-bwd-nvidia-h100-80gb-hbm3.dat' index 17 using 1:2 with lines lw 2 dt 2 lc rgb '#76b7b2' notitle, \
     'ladder-bwd-nvidia-h100-80gb-hbm3.dat' index 18 using 1:2 with lines lw 2 dt 2 lc rgb '#59a14f' notitle, \
     'ladder-bwd-nvidia-h100-80gb-hbm3.dat' index 19 using 1:2 with lines lw 2 dt 2 lc rgb '#edc948' notitle

set title 'bwd hd256 bf16'
set key outside right top vertical Left reverse
set xlabel 'seqlen (tokens)'
set ylabel 'measured TFLOP/s'
set logscale x 2
unset logscale y
set xtics autofreq
set xrange [*:*]
set yrange [0:*]
plot 'ladder-bwd-nvidia-h100-80gb-hbm3.dat' index 20 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#4e79a7' title 'fa2_bwd', \
     'ladder-bwd-nvidia-h100-80gb-hbm3.dat' index 21 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#f28e2b' title 'fa3_bwd', \
     'ladder-bwd-nvidia-h100-80gb-hbm3.dat' index 22 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#e15759' title 'sdpa_cudnn', \
     'ladder-bwd-nvidia-h100-80gb-hbm3.dat' index 23 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#76b7b2' title 'sdpa_flash', \
     'ladder-bwd-nvidia-h100-80gb-hbm3.dat' index 24 using 1:2 with lines lw 2 dt 2 lc rgb '#4e79a7' notitle, \
     'ladder-bwd-nvidia-h100-80gb-hbm3.dat' index 25 using 1:2 with lines lw 2 dt 2 lc rgb '#f28e2b' notitle, \
     'ladder-bwd-nvidia-h100-80gb-hbm3.dat' index 26 using 1:2 with lines lw 2 dt 2 lc rgb '#e15759' notitle, \
     'ladder-bwd-nvidia-h100-80gb-hbm3.dat' index 27 using 1:2 with lines lw 2 dt 2 lc rgb '#76b7b2' notitle

unset multiplot
