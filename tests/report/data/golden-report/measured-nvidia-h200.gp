# Measured forward TFLOP/s on NVIDIA H200 (solid: ours, dashed: peers)
# Written by fa4-analyze. Re-render after restyling with: gnuplot measured-nvidia-h200.gp
set terminal svg size 600,380 noenhanced font 'Helvetica,12' background rgb 'white'
set output (exists('svg_file') ? svg_file : 'measured-nvidia-h200.svg')
set datafile separator '\t'
set grid xtics ytics mxtics mytics lc rgb '#e5e5e5'
set clip two
set style fill solid 0.85 border -1
set multiplot layout 1,1 title 'Measured forward TFLOP/s on NVIDIA H200 (solid: ours, dashed: peers)'

set title 'fwd hd128 non-causal'
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
     'measured-nvidia-h200.dat' index 3 using 1:2 with lines lw 2 dt 2 lc rgb '#76b7b2' title 'sdpa_cudnn', \
     'measured-nvidia-h200.dat' index 4 using 1:2 with lines lw 2 dt 2 lc rgb '#59a14f' title 'sdpa_flash'

unset multiplot
