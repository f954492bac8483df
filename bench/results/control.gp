set terminal svg size 1600,800 font ',9'
set output 'control.svg'
# Written by bench/bench_control.py: protection against work per scenario.
set datafile separator "\t"
set key at graph 0.03, graph 0.55 left top font ",8" box opaque
set xlabel "work (writer bytes / uncontrolled)" font ",9"
set ylabel "% windows with p90 within target" font ",9"
set xrange [0:1.05]
set yrange [0:102]
set grid
set multiplot layout 2,4 title "io.latency against a static cap: protection vs the writer's work (sim, median of seeds)"
set title "ssd (target 150us)" font ",9"
plot "control_plot.tsv" index 0 using 1:2 with linespoints pt 7 ps 0.6 lc rgb "#888888" title "static cap (8 levels)", \
     "" index 1 every ::0::0 using 1:2 with points pt 9 ps 1.3 lc rgb "#cc3311" title "none", \
     "" index 1 every ::1::1 using 1:2 with points pt 5 ps 1.3 lc rgb "#0077bb" title "io.latency", \
     "" index 1 every ::2::2 using 1:2 with points pt 11 ps 1.3 lc rgb "#ee7733" title "adaptive", \
     95 with lines dt 2 lc rgb "#44aa44" notitle
set title "hdd (target 30ms)" font ",9"
plot "control_plot.tsv" index 2 using 1:2 with linespoints pt 7 ps 0.6 lc rgb "#888888" title "static cap (8 levels)", \
     "" index 3 every ::0::0 using 1:2 with points pt 9 ps 1.3 lc rgb "#cc3311" title "none", \
     "" index 3 every ::1::1 using 1:2 with points pt 5 ps 1.3 lc rgb "#0077bb" title "io.latency", \
     "" index 3 every ::2::2 using 1:2 with points pt 11 ps 1.3 lc rgb "#ee7733" title "adaptive", \
     95 with lines dt 2 lc rgb "#44aa44" notitle
set title "bad-ssd (target 25ms)" font ",9"
plot "control_plot.tsv" index 4 using 1:2 with linespoints pt 7 ps 0.6 lc rgb "#888888" title "static cap (8 levels)", \
     "" index 5 every ::0::0 using 1:2 with points pt 9 ps 1.3 lc rgb "#cc3311" title "none", \
     "" index 5 every ::1::1 using 1:2 with points pt 5 ps 1.3 lc rgb "#0077bb" title "io.latency", \
     "" index 5 every ::2::2 using 1:2 with points pt 11 ps 1.3 lc rgb "#ee7733" title "adaptive", \
     95 with lines dt 2 lc rgb "#44aa44" notitle
set title "ssd, writer at 10% (target 150us)" font ",9"
plot "control_plot.tsv" index 6 using 1:2 with linespoints pt 7 ps 0.6 lc rgb "#888888" title "static cap (8 levels)", \
     "" index 7 every ::0::0 using 1:2 with points pt 9 ps 1.3 lc rgb "#cc3311" title "none", \
     "" index 7 every ::1::1 using 1:2 with points pt 5 ps 1.3 lc rgb "#0077bb" title "io.latency", \
     "" index 7 every ::2::2 using 1:2 with points pt 11 ps 1.3 lc rgb "#ee7733" title "adaptive", \
     95 with lines dt 2 lc rgb "#44aa44" notitle
set title "ssd, writer at 25% (target 150us)" font ",9"
plot "control_plot.tsv" index 8 using 1:2 with linespoints pt 7 ps 0.6 lc rgb "#888888" title "static cap (8 levels)", \
     "" index 9 every ::0::0 using 1:2 with points pt 9 ps 1.3 lc rgb "#cc3311" title "none", \
     "" index 9 every ::1::1 using 1:2 with points pt 5 ps 1.3 lc rgb "#0077bb" title "io.latency", \
     "" index 9 every ::2::2 using 1:2 with points pt 11 ps 1.3 lc rgb "#ee7733" title "adaptive", \
     95 with lines dt 2 lc rgb "#44aa44" notitle
set title "ssd, writer at 50% (target 150us)" font ",9"
plot "control_plot.tsv" index 10 using 1:2 with linespoints pt 7 ps 0.6 lc rgb "#888888" title "static cap (8 levels)", \
     "" index 11 every ::0::0 using 1:2 with points pt 9 ps 1.3 lc rgb "#cc3311" title "none", \
     "" index 11 every ::1::1 using 1:2 with points pt 5 ps 1.3 lc rgb "#0077bb" title "io.latency", \
     "" index 11 every ::2::2 using 1:2 with points pt 11 ps 1.3 lc rgb "#ee7733" title "adaptive", \
     95 with lines dt 2 lc rgb "#44aa44" notitle
set title "ssd, writer at 100% (target 150us)" font ",9"
plot "control_plot.tsv" index 12 using 1:2 with linespoints pt 7 ps 0.6 lc rgb "#888888" title "static cap (8 levels)", \
     "" index 13 every ::0::0 using 1:2 with points pt 9 ps 1.3 lc rgb "#cc3311" title "none", \
     "" index 13 every ::1::1 using 1:2 with points pt 5 ps 1.3 lc rgb "#0077bb" title "io.latency", \
     "" index 13 every ::2::2 using 1:2 with points pt 11 ps 1.3 lc rgb "#ee7733" title "adaptive", \
     95 with lines dt 2 lc rgb "#44aa44" notitle
set title "ssd, writer at 200% (target 150us)" font ",9"
plot "control_plot.tsv" index 14 using 1:2 with linespoints pt 7 ps 0.6 lc rgb "#888888" title "static cap (8 levels)", \
     "" index 15 every ::0::0 using 1:2 with points pt 9 ps 1.3 lc rgb "#cc3311" title "none", \
     "" index 15 every ::1::1 using 1:2 with points pt 5 ps 1.3 lc rgb "#0077bb" title "io.latency", \
     "" index 15 every ::2::2 using 1:2 with points pt 11 ps 1.3 lc rgb "#ee7733" title "adaptive", \
     95 with lines dt 2 lc rgb "#44aa44" notitle
unset multiplot
