# KV-read bandwidth of decode on NVIDIA H200 (h32/8 hd128 bf16, 1 query row)
# Written by fa4-analyze. Re-render after restyling with: gnuplot serving-nvidia-h200.gp
set terminal svg size 1800,880 noenhanced font 'Helvetica,12' background rgb 'white'
set output (exists('svg_file') ? svg_file : 'serving-nvidia-h200.svg')
set datafile separator '\t'
set grid xtics ytics mxtics mytics lc rgb '#e5e5e5'
set clip two
set style fill solid 0.85 border -1
set multiplot layout 2,3 title 'KV-read bandwidth of decode on NVIDIA H200 (h32/8 hd128 bf16, 1 query row)'

set title 'batch 1'
set key outside below center vertical Left reverse maxrows 3
set xlabel 'keys per sequence (seqlen_k)'
set ylabel 'KV-read TB/s'
set logscale x 2
unset logscale y
set xtics autofreq
set xrange [1365.33:196608]
set yrange [0:6]
plot 'serving-nvidia-h200.dat' index 0 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#4e79a7' title 'fa3_decode', \
     'serving-nvidia-h200.dat' index 1 using 1:2 with points pt 9 ps 1.4 lc rgb '#f28e2b' title 'fa3_decode (model)', \
     'serving-nvidia-h200.dat' index 2 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#e15759' title 'sdpa_cudnn', \
     'serving-nvidia-h200.dat' index 3 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#76b7b2' title 'sdpa_flash', \
     'serving-nvidia-h200.dat' index 4 using 1:2 with lines lw 2 dt 2 lc rgb '#2471a3' title 'HBM read 4.46 TB/s (measured)', \
     'serving-nvidia-h200.dat' index 5 using 1:2 with lines lw 2 dt 2 lc rgb '#444444' title 'HBM copy 3.83 TB/s (measured)'

set title 'batch 8'
set key outside below center vertical Left reverse maxrows 3
set xlabel 'keys per sequence (seqlen_k)'
set ylabel 'KV-read TB/s'
set logscale x 2
unset logscale y
set xtics autofreq
set xrange [1365.33:196608]
set yrange [0:6]
plot 'serving-nvidia-h200.dat' index 6 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#4e79a7' title 'fa3_decode', \
     'serving-nvidia-h200.dat' index 7 using 1:2 with points pt 9 ps 1.4 lc rgb '#f28e2b' title 'fa3_decode (model)', \
     'serving-nvidia-h200.dat' index 8 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#e15759' title 'sdpa_cudnn', \
     'serving-nvidia-h200.dat' index 9 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#76b7b2' title 'sdpa_flash', \
     'serving-nvidia-h200.dat' index 10 using 1:2 with lines lw 2 dt 2 lc rgb '#2471a3' title 'HBM read 4.46 TB/s (measured)', \
     'serving-nvidia-h200.dat' index 11 using 1:2 with lines lw 2 dt 2 lc rgb '#444444' title 'HBM copy 3.83 TB/s (measured)'

set title 'batch 32'
set key outside below center vertical Left reverse maxrows 3
set xlabel 'keys per sequence (seqlen_k)'
set ylabel 'KV-read TB/s'
set logscale x 2
unset logscale y
set xtics autofreq
set xrange [1365.33:196608]
set yrange [0:6]
plot 'serving-nvidia-h200.dat' index 12 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#4e79a7' title 'fa3_decode', \
     'serving-nvidia-h200.dat' index 13 using 1:2 with points pt 9 ps 1.4 lc rgb '#f28e2b' title 'fa3_decode (model)', \
     'serving-nvidia-h200.dat' index 14 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#e15759' title 'sdpa_cudnn', \
     'serving-nvidia-h200.dat' index 15 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#76b7b2' title 'sdpa_flash', \
     'serving-nvidia-h200.dat' index 16 using 1:2 with lines lw 2 dt 2 lc rgb '#2471a3' title 'HBM read 4.46 TB/s (measured)', \
     'serving-nvidia-h200.dat' index 17 using 1:2 with lines lw 2 dt 2 lc rgb '#444444' title 'HBM copy 3.83 TB/s (measured)'

set title 'batch 64'
set key outside below center vertical Left reverse maxrows 3
set xlabel 'keys per sequence (seqlen_k)'
set ylabel 'KV-read TB/s'
set logscale x 2
unset logscale y
set xtics autofreq
set xrange [1365.33:196608]
set yrange [0:6]
plot 'serving-nvidia-h200.dat' index 18 using 1:2 with points pt 9 ps 1.4 lc rgb '#f28e2b' title 'fa3_decode (model)', \
     'serving-nvidia-h200.dat' index 19 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#e15759' title 'sdpa_cudnn', \
     'serving-nvidia-h200.dat' index 20 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#76b7b2' title 'sdpa_flash', \
     'serving-nvidia-h200.dat' index 21 using 1:2 with lines lw 2 dt 2 lc rgb '#2471a3' title 'HBM read 4.46 TB/s (measured)', \
     'serving-nvidia-h200.dat' index 22 using 1:2 with lines lw 2 dt 2 lc rgb '#444444' title 'HBM copy 3.83 TB/s (measured)'

set title 'batch 128'
set key outside below center vertical Left reverse maxrows 3
set xlabel 'keys per sequence (seqlen_k)'
set ylabel 'KV-read TB/s'
set logscale x 2
unset logscale y
set xtics autofreq
set xrange [1365.33:196608]
set yrange [0:6]
plot 'serving-nvidia-h200.dat' index 23 using 1:2 with points pt 9 ps 1.4 lc rgb '#f28e2b' title 'fa3_decode (model)', \
     'serving-nvidia-h200.dat' index 24 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#e15759' title 'sdpa_cudnn', \
     'serving-nvidia-h200.dat' index 25 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#76b7b2' title 'sdpa_flash', \
     'serving-nvidia-h200.dat' index 26 using 1:2 with lines lw 2 dt 2 lc rgb '#2471a3' title 'HBM read 4.46 TB/s (measured)', \
     'serving-nvidia-h200.dat' index 27 using 1:2 with lines lw 2 dt 2 lc rgb '#444444' title 'HBM copy 3.83 TB/s (measured)'

unset multiplot
