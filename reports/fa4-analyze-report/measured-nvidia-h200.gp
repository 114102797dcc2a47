# Measured forward TFLOP/s on NVIDIA H200 (solid: ours, dashed: peers)
# Written by fa4-analyze. Re-render after restyling with: gnuplot measured-nvidia-h200.gp
set terminal svg size 1800,760 noenhanced font 'Helvetica,12' background rgb 'white'
set output (exists('svg_file') ? svg_file : 'measured-nvidia-h200.svg')
set datafile separator '\t'
set grid xtics ytics mxtics mytics lc rgb '#e5e5e5'
set clip two
set style fill solid 0.85 border -1
set multiplot layout 2,3 title 'Measured forward TFLOP/s on NVIDIA H200 (solid: ours, dashed: peers)'

set title 'fwd hd64 non-causal'
set key outside right top vertical Left reverse
set xlabel 'seqlen (tokens)'
set ylabel 'measured TFLOP/s'
set logscale x 2
unset logscale y
set xtics autofreq
set xrange [*:*]
set yrange [0:*]
plot 'measured-nvidia-h200.dat' index 0 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#4e79a7' title 'naive', \
     'measured-nvidia-h200.dat' index 1 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#f28e2b' title 'fa2', \
     'measured-nvidia-h200.dat' index 2 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#e15759' title 'fa3', \
     'measured-nvidia-h200.dat' index 3 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#76b7b2' title 'fa4', \
     'measured-nvidia-h200.dat' index 4 using 1:2 with lines lw 2 dt 2 lc rgb '#59a14f' title 'sdpa_cudnn', \
     'measured-nvidia-h200.dat' index 5 using 1:2 with lines lw 2 dt 2 lc rgb '#edc948' title 'sdpa_flash', \
     'measured-nvidia-h200.dat' index 6 using 1:2 with lines lw 2 dt 2 lc rgb '#b07aa1' title 'sdpa_efficient', \
     'measured-nvidia-h200.dat' index 7 using 1:2 with lines lw 2 dt 2 lc rgb '#ff9da7' title 'triton_fa', \
     'measured-nvidia-h200.dat' index 8 using 1:2 with lines lw 2 dt 2 lc rgb '#9c755f' title 'sdpa_math'

set title 'fwd hd64 causal'
set key outside right top vertical Left reverse
set xlabel 'seqlen (tokens)'
set ylabel 'measured TFLOP/s'
set logscale x 2
unset logscale y
set xtics autofreq
set xrange [*:*]
set yrange [0:*]
plot 'measured-nvidia-h200.dat' index 9 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#4e79a7' title 'naive', \
     'measured-nvidia-h200.dat' index 10 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#f28e2b' title 'fa2', \
     'measured-nvidia-h200.dat' index 11 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#e15759' title 'fa3', \
     'measured-nvidia-h200.dat' index 12 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#76b7b2' title 'fa4', \
     'measured-nvidia-h200.dat' index 13 using 1:2 with lines lw 2 dt 2 lc rgb '#59a14f' title 'sdpa_cudnn', \
     'measured-nvidia-h200.dat' index 14 using 1:2 with lines lw 2 dt 2 lc rgb '#edc948' title 'sdpa_flash', \
     'measured-nvidia-h200.dat' index 15 using 1:2 with lines lw 2 dt 2 lc rgb '#b07aa1' title 'sdpa_efficient', \
     'measured-nvidia-h200.dat' index 16 using 1:2 with lines lw 2 dt 2 lc rgb '#ff9da7' title 'triton_fa', \
     'measured-nvidia-h200.dat' index 17 using 1:2 with lines lw 2 dt 2 lc rgb '#9c755f' title 'sdpa_math'

set title 'fwd hd128 non-causal'
set key outside right top vertical Left reverse
set xlabel 'seqlen (tokens)'
set ylabel 'measured TFLOP/s'
set logscale x 2
unset logscale y
set xtics autofreq
set xrange [*:*]
set yrange [0:*]
plot 'measured-nvidia-h200.dat' index 18 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#4e79a7' title 'naive', \
     'measured-nvidia-h200.dat' index 19 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#f28e2b' title 'fa2', \
     'measured-nvidia-h200.dat' index 20 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#e15759' title 'fa3', \
     'measured-nvidia-h200.dat' index 21 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#76b7b2' title 'fa4', \
     'measured-nvidia-h200.dat' index 22 using 1:2 with lines lw 2 dt 2 lc rgb '#59a14f' title 'sdpa_cudnn', \
     'measured-nvidia-h200.dat' index 23 using 1:2 with lines lw 2 dt 2 lc rgb '#edc948' title 'sdpa_flash', \
     'measured-nvidia-h200.dat' index 24 using 1:2 with lines lw 2 dt 2 lc rgb '#b07aa1' title 'sdpa_efficient', \
     'measured-nvidia-h200.dat' index 25 using 1:2 with lines lw 2 dt 2 lc rgb '#ff9da7' title 'triton_fa', \
     'measured-nvidia-h200.dat' index 26 using 1:2 with lines lw 2 dt 2 lc rgb '#9c755f' title 'sdpa_math'

set title 'fwd hd128 causal'
set key outside right top vertical Left reverse
set xlabel 'seqlen (tokens)'
set ylabel 'measured TFLOP/s'
set logscale x 2
unset logscale y
set xtics autofreq
set xrange [*:*]
set yrange [0:*]
plot 'measured-nvidia-h200.dat' index 27 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#4e79a7' title 'naive', \
     'measured-nvidia-h200.dat' index 28 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#f28e2b' title 'fa2', \
     'measured-nvidia-h200.dat' index 29 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#e15759' title 'fa3', \
     'measured-nvidia-h200.dat' index 30 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#76b7b2' title 'fa4', \
     'measured-nvidia-h200.dat' index 31 using 1:2 with lines lw 2 dt 2 lc rgb '#59a14f' title 'sdpa_cudnn', \
     'measured-nvidia-h200.dat' index 32 using 1:2 with lines lw 2 dt 2 lc rgb '#edc948' title 'sdpa_flash', \
     'measured-nvidia-h200.dat' index 33 using 1:2 with lines lw 2 dt 2 lc rgb '#b07aa1' title 'sdpa_efficient', \
     'measured-nvidia-h200.dat' index 34 using 1:2 with lines lw 2 dt 2 lc rgb '#ff9da7' title 'triton_fa', \
     'measured-nvidia-h200.dat' index 35 using 1:2 with lines lw 2 dt 2 lc rgb '#9c755f' title 'sdpa_math'

set title 'fwd hd256 non-causal'
set key outside right top vertical Left reverse
set xlabel 'seqlen (tokens)'
set ylabel 'measured TFLOP/s'
set logscale x 2
unset logscale y
set xtics autofreq
set xrange [*:*]
set yrange [0:*]
plot 'measured-nvidia-h200.dat' index 36 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#4e79a7' title 'naive', \
     'measured-nvidia-h200.dat' index 37 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#f28e2b' title 'fa2', \
     'measured-nvidia-h200.dat' index 38 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#e15759' title 'fa3', \
     'measured-nvidia-h200.dat' index 39 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#76b7b2' title 'fa4', \
     'measured-nvidia-h200.dat' index 40 using 1:2 with lines lw 2 dt 2 lc rgb '#59a14f' title 'sdpa_cudnn', \
     'measured-nvidia-h200.dat' index 41 using 1:2 with lines lw 2 dt 2 lc rgb '#edc948' title 'sdpa_flash', \
     'measured-nvidia-h200.dat' index 42 using 1:2 with lines lw 2 dt 2 lc rgb '#b07aa1' title 'sdpa_efficient', \
     'measured-nvidia-h200.dat' index 43 using 1:2 with lines lw 2 dt 2 lc rgb '#ff9da7' title 'triton_fa', \
     'measured-nvidia-h200.dat' index 44 using 1:2 with lines lw 2 dt 2 lc rgb '#9c755f' title 'sdpa_math'

set title 'fwd hd256 causal'
set key outside right top vertical Left reverse
set xlabel 'seqlen (tokens)'
set ylabel 'measured TFLOP/s'
set logscale x 2
unset logscale y
set xtics autofreq
set xrange [*:*]
set yrange [0:*]
plot 'measured-nvidia-h200.dat' index 45 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#4e79a7' title 'naive', \
     'measured-nvidia-h200.dat' index 46 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#f28e2b' title 'fa2', \
     'measured-nvidia-h200.dat' index 47 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#e15759' title 'fa3', \
     'measured-nvidia-h200.dat' index 48 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#76b7b2' title 'fa4', \
     'measured-nvidia-h200.dat' index 49 using 1:2 with lines lw 2 dt 2 lc rgb '#59a14f' title 'sdpa_cudnn', \
     'measured-nvidia-h200.dat' index 50 using 1:2 with lines lw 2 dt 2 lc rgb '#edc948' title 'sdpa_flash', \
     'measured-nvidia-h200.dat' index 51 using 1:2 with lines lw 2 dt 2 lc rgb '#b07aa1' title 'sdpa_efficient', \
     'measured-nvidia-h200.dat' index 52 using 1:2 with lines lw 2 dt 2 lc rgb '#ff9da7' title 'triton_fa', \
     'measured-nvidia-h200.dat' index 53 using 1:2 with lines lw 2 dt 2 lc rgb '#9c755f' title 'sdpa_math'

unset multiplot
