# SPDX-License-Identifier: MIT
# Is a writer held to the limit in force? Input: samples "ms wbytes wbps ..."
# (sample_cg in lib.sh, every 100 ms or so; later columns are not read). For each whole second from the
# first sample: the bytes written in it against what the limits allowed over
# it, each interval between two samples allowed the looser of the limits read
# at its two ends (a new limit acts 100-200 ms after it is written). A second
# is "limited" when every sample in it had a limit. Prints one line:
#   limited=N held=N (within RATIO x) share=PCT median=X p90=X max=X
# and, with -v verbose=1, one line per limited second.
# Variables: ratio (default 1.2), skip (seconds left out at the start, 0).
function flush_second(   r) {
	if (sec_limited && sec_allowed > 0) {
		r = sec_done / sec_allowed
		ratios[nl++] = r
		if (r <= ratio) held++
		if (verbose) printf "second %d: %.1f MiB allowed, %.1f MiB done, %.2fx\n", sec, sec_allowed / 1048576, sec_done / 1048576, r
	}
	sec_done = 0; sec_allowed = 0; sec_limited = 1
}
BEGIN { if (ratio == "") ratio = 1.2; if (skip == "") skip = 0; sec = -1; nl = 0; held = 0 }
NF >= 3 {
	t = $1; b = $2; l = $3
	if (t0 == "") { t0 = t; pt = t; pb = b; pl = l; sec = 0; sec_limited = 1; next }
	s = int((t - t0) / 1000)
	while (s > sec) { if (sec >= skip) flush_second(); else { sec_done = 0; sec_allowed = 0; sec_limited = 1 } sec++ }
	dt = (t - pt) / 1000
	lim = l > pl ? l : pl
	if (l == 0 || pl == 0) sec_limited = 0
	sec_allowed += lim * dt
	sec_done += b - pb
	pt = t; pb = b; pl = l
}
END {
	n = nl
	for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (ratios[j] < ratios[i]) { x = ratios[i]; ratios[i] = ratios[j]; ratios[j] = x }
	if (n == 0) { printf "limited=0 held=0 share=0 median=0 p90=0 max=0\n"; exit }
	printf "limited=%d held=%d share=%d median=%.2f p90=%.2f max=%.2f\n", n, held, held * 100 / n,
		ratios[int((n - 1) / 2)], ratios[int((n - 1) * 0.9)], ratios[n - 1]
}
