set terminal svg size 1600,1200 font ',9'
set output 'control.svg'
# Written by bench/bench_control.py: protection against work per scenario.
set datafile separator "\t"
set key at graph 0.03, graph 0.62 left top font ",8" box opaque
set xlabel "work (writer bytes / uncontrolled)" font ",9"
set ylabel "% windows with p90 within target" font ",9"
set xrange [0:1.05]
set yrange [0:102]
set grid
set multiplot layout 3,4 title "The controller against static caps: protection vs the writer's work (sim, median of seeds; the oracle: the highest cap protecting in every seed)"
set title "ssd (target 150us)" font ",9"
plot "control_plot.tsv" index 0 using 1:2 with linespoints pt 7 ps 0.5 lc rgb "#888888" title "static caps", \
     "" index 1 every ::0::0 using 1:2 with points pt 9 ps 1.3 lc rgb "#cc3311" title "none", \
     "" index 1 every ::1::1 using 1:2 with points pt 5 ps 1.3 lc rgb "#0077bb" title "article", \
     "" index 1 every ::2::2 using 1:2 with points pt 11 ps 1.3 lc rgb "#ee7733" title "adaptive", \
     "" index 1 every ::3::3 using 1:2 with points pt 13 ps 1.3 lc rgb "#009988" title "oracle cap", \
     95 with lines dt 2 lc rgb "#44aa44" notitle
set title "hdd (target 30ms)" font ",9"
plot "control_plot.tsv" index 2 using 1:2 with linespoints pt 7 ps 0.5 lc rgb "#888888" title "static caps", \
     "" index 3 every ::0::0 using 1:2 with points pt 9 ps 1.3 lc rgb "#cc3311" title "none", \
     "" index 3 every ::1::1 using 1:2 with points pt 5 ps 1.3 lc rgb "#0077bb" title "article", \
     "" index 3 every ::2::2 using 1:2 with points pt 11 ps 1.3 lc rgb "#ee7733" title "adaptive", \
     "" index 3 every ::3::3 using 1:2 with points pt 13 ps 1.3 lc rgb "#009988" title "oracle cap", \
     95 with lines dt 2 lc rgb "#44aa44" notitle
set title "bad-ssd (target 25ms)" font ",9"
plot "control_plot.tsv" index 4 using 1:2 with linespoints pt 7 ps 0.5 lc rgb "#888888" title "static caps", \
     "" index 5 every ::0::0 using 1:2 with points pt 9 ps 1.3 lc rgb "#cc3311" title "none", \
     "" index 5 every ::1::1 using 1:2 with points pt 5 ps 1.3 lc rgb "#0077bb" title "article", \
     "" index 5 every ::2::2 using 1:2 with points pt 11 ps 1.3 lc rgb "#ee7733" title "adaptive", \
     "" index 5 every ::3::3 using 1:2 with points pt 13 ps 1.3 lc rgb "#009988" title "oracle cap", \
     95 with lines dt 2 lc rgb "#44aa44" notitle
set title "knee (target 300us)" font ",9"
plot "control_plot.tsv" index 6 using 1:2 with linespoints pt 7 ps 0.5 lc rgb "#888888" title "static caps", \
     "" index 7 every ::0::0 using 1:2 with points pt 9 ps 1.3 lc rgb "#cc3311" title "none", \
     "" index 7 every ::1::1 using 1:2 with points pt 5 ps 1.3 lc rgb "#0077bb" title "article", \
     "" index 7 every ::2::2 using 1:2 with points pt 11 ps 1.3 lc rgb "#ee7733" title "adaptive", \
     "" index 7 every ::3::3 using 1:2 with points pt 13 ps 1.3 lc rgb "#009988" title "oracle cap", \
     95 with lines dt 2 lc rgb "#44aa44" notitle
set title "knee-1ms (target 1ms)" font ",9"
plot "control_plot.tsv" index 8 using 1:2 with linespoints pt 7 ps 0.5 lc rgb "#888888" title "static caps", \
     "" index 9 every ::0::0 using 1:2 with points pt 9 ps 1.3 lc rgb "#cc3311" title "none", \
     "" index 9 every ::1::1 using 1:2 with points pt 5 ps 1.3 lc rgb "#0077bb" title "article", \
     "" index 9 every ::2::2 using 1:2 with points pt 11 ps 1.3 lc rgb "#ee7733" title "adaptive", \
     "" index 9 every ::3::3 using 1:2 with points pt 13 ps 1.3 lc rgb "#009988" title "oracle cap", \
     95 with lines dt 2 lc rgb "#44aa44" notitle
set title "knee-moving (target 300us)" font ",9"
plot "control_plot.tsv" index 10 using 1:2 with linespoints pt 7 ps 0.5 lc rgb "#888888" title "static caps", \
     "" index 11 every ::0::0 using 1:2 with points pt 9 ps 1.3 lc rgb "#cc3311" title "none", \
     "" index 11 every ::1::1 using 1:2 with points pt 5 ps 1.3 lc rgb "#0077bb" title "article", \
     "" index 11 every ::2::2 using 1:2 with points pt 11 ps 1.3 lc rgb "#ee7733" title "adaptive", \
     "" index 11 every ::3::3 using 1:2 with points pt 13 ps 1.3 lc rgb "#009988" title "oracle cap", \
     95 with lines dt 2 lc rgb "#44aa44" notitle
set title "knee-30us (target 30us)" font ",9"
plot "control_plot.tsv" index 12 using 1:2 with linespoints pt 7 ps 0.5 lc rgb "#888888" title "static caps", \
     "" index 13 every ::0::0 using 1:2 with points pt 9 ps 1.3 lc rgb "#cc3311" title "none", \
     "" index 13 every ::1::1 using 1:2 with points pt 5 ps 1.3 lc rgb "#0077bb" title "article", \
     "" index 13 every ::2::2 using 1:2 with points pt 11 ps 1.3 lc rgb "#ee7733" title "adaptive", \
     "" index 13 every ::3::3 using 1:2 with points pt 13 ps 1.3 lc rgb "#009988" title "oracle cap", \
     95 with lines dt 2 lc rgb "#44aa44" notitle
set title "ssd, writer at 10% (target 150us)" font ",9"
plot "control_plot.tsv" index 14 using 1:2 with linespoints pt 7 ps 0.5 lc rgb "#888888" title "static caps", \
     "" index 15 every ::0::0 using 1:2 with points pt 9 ps 1.3 lc rgb "#cc3311" title "none", \
     "" index 15 every ::1::1 using 1:2 with points pt 5 ps 1.3 lc rgb "#0077bb" title "article", \
     "" index 15 every ::2::2 using 1:2 with points pt 11 ps 1.3 lc rgb "#ee7733" title "adaptive", \
     "" index 15 every ::3::3 using 1:2 with points pt 13 ps 1.3 lc rgb "#009988" title "oracle cap", \
     95 with lines dt 2 lc rgb "#44aa44" notitle
set title "ssd, writer at 25% (target 150us)" font ",9"
plot "control_plot.tsv" index 16 using 1:2 with linespoints pt 7 ps 0.5 lc rgb "#888888" title "static caps", \
     "" index 17 every ::0::0 using 1:2 with points pt 9 ps 1.3 lc rgb "#cc3311" title "none", \
     "" index 17 every ::1::1 using 1:2 with points pt 5 ps 1.3 lc rgb "#0077bb" title "article", \
     "" index 17 every ::2::2 using 1:2 with points pt 11 ps 1.3 lc rgb "#ee7733" title "adaptive", \
     "" index 17 every ::3::3 using 1:2 with points pt 13 ps 1.3 lc rgb "#009988" title "oracle cap", \
     95 with lines dt 2 lc rgb "#44aa44" notitle
set title "ssd, writer at 50% (target 150us)" font ",9"
plot "control_plot.tsv" index 18 using 1:2 with linespoints pt 7 ps 0.5 lc rgb "#888888" title "static caps", \
     "" index 19 every ::0::0 using 1:2 with points pt 9 ps 1.3 lc rgb "#cc3311" title "none", \
     "" index 19 every ::1::1 using 1:2 with points pt 5 ps 1.3 lc rgb "#0077bb" title "article", \
     "" index 19 every ::2::2 using 1:2 with points pt 11 ps 1.3 lc rgb "#ee7733" title "adaptive", \
     "" index 19 every ::3::3 using 1:2 with points pt 13 ps 1.3 lc rgb "#009988" title "oracle cap", \
     95 with lines dt 2 lc rgb "#44aa44" notitle
set title "ssd, writer at 100% (target 150us)" font ",9"
plot "control_plot.tsv" index 20 using 1:2 with linespoints pt 7 ps 0.5 lc rgb "#888888" title "static caps", \
     "" index 21 every ::0::0 using 1:2 with points pt 9 ps 1.3 lc rgb "#cc3311" title "none", \
     "" index 21 every ::1::1 using 1:2 with points pt 5 ps 1.3 lc rgb "#0077bb" title "article", \
     "" index 21 every ::2::2 using 1:2 with points pt 11 ps 1.3 lc rgb "#ee7733" title "adaptive", \
     "" index 21 every ::3::3 using 1:2 with points pt 13 ps 1.3 lc rgb "#009988" title "oracle cap", \
     95 with lines dt 2 lc rgb "#44aa44" notitle
set title "ssd, writer at 200% (target 150us)" font ",9"
plot "control_plot.tsv" index 22 using 1:2 with linespoints pt 7 ps 0.5 lc rgb "#888888" title "static caps", \
     "" index 23 every ::0::0 using 1:2 with points pt 9 ps 1.3 lc rgb "#cc3311" title "none", \
     "" index 23 every ::1::1 using 1:2 with points pt 5 ps 1.3 lc rgb "#0077bb" title "article", \
     "" index 23 every ::2::2 using 1:2 with points pt 11 ps 1.3 lc rgb "#ee7733" title "adaptive", \
     "" index 23 every ::3::3 using 1:2 with points pt 13 ps 1.3 lc rgb "#009988" title "oracle cap", \
     95 with lines dt 2 lc rgb "#44aa44" notitle
unset multiplot
