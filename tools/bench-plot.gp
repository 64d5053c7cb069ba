# gnuplot script for tools/bench.sh: two PNG plots from its data file.
# variables (gnuplot -e): data, machine, out1 (fps vs range), out2 (MC-PSNR vs fps)
# data: one block per method (two blank lines between), first line
# "TITLE" range fps720 fps1080 psnr, then: range fps720p fps1080p mcpsnr720p
set datafile missing "-"
stats data using 1 nooutput
nb = STATS_blocks

set terminal pngcairo size 1400,600 font ",10" noenhanced
set output out1
set multiplot layout 1,2 title "gpume vs mestimate, whole-command fps vs search range (block 16), ".machine
set logscale y
set xtics (8, 16, 32)
set logscale x 2
set xrange [7:36]
set xlabel "search range (px)"
set ylabel "frames per second (log)"
set grid
set key outside right top
set title "cockatoo 1280x720"
plot for [i=0:nb-1] data index i using 1:2 with linespoints lw 2 pt (i%7)+4 title columnheader(1)
set title "cockatoo scaled to 1920x1080"
plot for [i=0:nb-1] data index i using 1:3 with linespoints lw 2 pt (i%7)+4 title columnheader(1)
unset multiplot

set terminal pngcairo size 1000,650 font ",10" noenhanced
set output out2
unset logscale
set logscale x
set xrange [*:*]
set autoscale x
set xtics auto
set xlabel "frames per second, 1280x720 (log)"
set ylabel "MC-PSNR (dB), cockatoo 720p"
set title "quality vs speed (block 16, ranges 8/16/32 along each line), ".machine
plot for [i=0:nb-1] data index i using 2:4 with linespoints lw 2 pt (i%7)+4 title columnheader(1), \
     for [i=0:nb-1] data index i using 2:4:(sprintf("%d", $1)) with labels offset 0.8,0.6 notitle
