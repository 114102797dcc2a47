# Roofline of attention on h200 (bf16)
# Written by fa4-analyze. Re-render after restyling with: gnuplot roofline-h200.gp
set terminal svg size 1100,620 noenhanced font 'Helvetica,12' background rgb 'white'
set output (exists('svg_file') ? svg_file : 'roofline-h200.svg')
set datafile separator '\t'
set grid xtics ytics mxtics mytics lc rgb '#e5e5e5'
set clip two
set style fill solid 0.85 border -1
set multiplot layout 1,1 title 'Roofline of attention on h200 (bf16)'

set title 'NVIDIA H200 SXM 141 GB (h200), fwd'
set key outside right top vertical Left reverse
set xlabel 'arithmetic intensity (FLOP per HBM byte)'
set ylabel 'TFLOP/s'
set logscale x 10
set logscale y 10
set xtics autofreq
set xrange [0.1:100000]
set yrange [0.1:10000]
plot 'roofline-h200.dat' index 0 using 1:2 with lines lw 2 lc rgb '#444444' title 'HBM 4.80 TB/s', \
     'roofline-h200.dat' index 1 using 1:2 with lines lw 2 lc rgb '#000000' title 'dense bf16 peak: 989', \
     'roofline-h200.dat' index 2 using 1:2 with lines lw 2 lc rgb '#c0392b' title 'exp2 on MUFU, hd128: 1979', \
     'roofline-h200.dat' index 3 using 1:2 with lines lw 2 lc rgb '#7d3c98' title 'shared memory, hd128: 1583', \
     'roofline-h200.dat' index 4 using 1:2 with lines lw 2 lc rgb '#117a65' title 'exp2 emulated on FMA, hd128: 1256', \
     'roofline-h200.dat' index 5 using 1:2 with lines lw 2 dt 2 lc rgb '#000000' title 'cuBLAS bf16 GEMM (measured): 800', \
     'roofline-h200.dat' index 6 using 1:2 with points pt 9 ps 1.4 lc rgb '#4e79a7' title 'naive (model)', \
     'roofline-h200.dat' index 7 using 1:2 with points pt 9 ps 1.4 lc rgb '#f28e2b' title 'fa2 (model)', \
     'roofline-h200.dat' index 8 using 1:2 with points pt 9 ps 1.4 lc rgb '#e15759' title 'fa3 (model)', \
     'roofline-h200.dat' index 9 using 1:2 with points pt 9 ps 1.4 lc rgb '#76b7b2' title 'fa4 (model)', \
     'roofline-h200.dat' index 10 using 1:2 with points pt 9 ps 1.4 lc rgb '#59a14f' title 'fa3_decode (model)', \
     'roofline-h200.dat' index 11 using 1:2 with points pt 7 ps 0.8 lc rgb '#edc948' title 'sdpa_cudnn (peer:torch-cudnn)', \
     'roofline-h200.dat' index 12 using 1:2 with points pt 7 ps 0.8 lc rgb '#b07aa1' title 'sdpa_flash (peer:torch-flash)', \
     'roofline-h200.dat' index 13 using 1:2 with points pt 7 ps 0.8 lc rgb '#ff9da7' title 'sdpa_math (peer:torch-math)', \
     'roofline-h200.dat' index 14 using 1:2 with points pt 7 ps 0.8 lc rgb '#4e79a7' title 'naive (ours)', \
     'roofline-h200.dat' index 15 using 1:2 with points pt 7 ps 0.8 lc rgb '#f28e2b' title 'fa2 (ours)', \
     'roofline-h200.dat' index 16 using 1:2 with points pt 7 ps 0.8 lc rgb '#e15759' title 'fa3 (ours)', \
     'roofline-h200.dat' index 17 using 1:2 with points pt 7 ps 0.8 lc rgb '#9c755f' title 'fa3_no_pingpong (ours)', \
     'roofline-h200.dat' index 18 using 1:2:3 with labels left rotate by 90 font ',10' tc rgb '#444444' notitle

unset multiplot
