/* SPDX-License-Identifier: MIT */
/*
 * memleak_svg.c - the leaking-service story as one SVG chart, with no tool
 * needed: the web's requests per second (as a share of its baseline) over
 * time since the leak started, one line per run (mode), and a marker where
 * each run's leak was killed (or the machine rebooted), labelled with the
 * rule that fired.
 * Context: any thread; writes one file.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "scen/memleak/memleak.h"

#define W 960
#define H 420
#define LEFT 60
#define RIGHT 250
#define TOP 40
#define BOTTOM 50

static const char *const colours[] = { "#d62728", "#ff7f0e", "#2ca02c", "#7f7f7f", "#9467bd",
				       "#1f77b4", "#8c564b" };

/* @s as XML text (rule names hold '<', '>' and '&'). */
static void text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '\'')
			fputs("&apos;", f);
		else
			fputc(*s, f);
	}
}

/* The last second any run has, at least 60. */
static double x_max(const struct iolat_ml_result *const *runs, size_t n)
{
	double t = 60;

	for (size_t i = 0; i < n; i++)
		if (runs[i]->nr_samples && runs[i]->samples[runs[i]->nr_samples - 1].t_s > t)
			t = runs[i]->samples[runs[i]->nr_samples - 1].t_s;
	return t;
}

static double px(double t, double tmin, double tmax)
{
	return LEFT + (t - tmin) / (tmax - tmin) * (W - LEFT - RIGHT);
}

static double py(double share)
{
	if (share > 1.2)
		share = 1.2;
	return TOP + (1.2 - share) / 1.2 * (H - TOP - BOTTOM);
}

/* Axes, grid and labels for seconds [@tmin, @tmax]. */
static void axes(FILE *f, double tmin, double tmax, const char *title)
{
	double step = tmax - tmin > 600 ? 120 : tmax - tmin > 240 ? 60 : 30;

	fprintf(f, "<text x='%d' y='24' font-size='15'>", LEFT);
	text(f, title);
	fprintf(f, "</text>\n");
	for (int k = 0; k <= 6; k++) {
		double s = 0.2 * k;

		fprintf(f, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#ddd'/>"
			   "<text x='%d' y='%.1f' font-size='11' text-anchor='end'>%.0f%%</text>\n",
			LEFT, py(s), W - RIGHT, py(s), LEFT - 6, py(s) + 4, s * 100);
	}
	for (double t = step * (double)(long)(tmin / step); t <= tmax; t += step) {
		if (t < tmin)
			continue;
		fprintf(f, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#eee'/>"
			   "<text x='%.1f' y='%d' font-size='11' text-anchor='middle'>%.0f</text>\n",
			px(t, tmin, tmax), TOP, px(t, tmin, tmax), H - BOTTOM, px(t, tmin, tmax),
			H - BOTTOM + 16, t);
	}
	fprintf(f, "<text x='%d' y='%d' font-size='12' text-anchor='middle'>seconds since the leak "
		   "started</text>\n<text x='14' y='%d' font-size='12' transform='rotate(-90 14 %d)' "
		   "text-anchor='middle'>web requests/s, share of its baseline</text>\n",
		(LEFT + W - RIGHT) / 2, H - 12, (TOP + H - BOTTOM) / 2, (TOP + H - BOTTOM) / 2);
}

/* A run's legend entry at @y: its mode and share kept, the rule that
 * ended it, the group and when (and the downtime charged for an outage). */
static void legend(FILE *f, const struct iolat_ml_result *r, const char *c, int y)
{
	int x = W - RIGHT + 12;

	fprintf(f, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='%s' stroke-width='3'/>"
		   "<text x='%d' y='%d' font-size='11'>%s: the web kept %.0f%%</text>\n"
		   "<text x='%d' y='%d' font-size='9' fill='#555'>",
		x, y, x + 20, y, c, x + 26, y + 4, iolat_ml_mode_name(r->mode), 100 * r->isol_mean,
		x, y + 16);
	text(f, r->killed ? r->killer : "not killed");
	fprintf(f, "</text>\n");
	if (!r->killed)
		return;
	fprintf(f, "<text x='%d' y='%d' font-size='9' fill='#555'>", x, y + 28);
	text(f, r->victim);
	fprintf(f, " at %.0f s", r->kill_s);
	if (r->outage_s > 0)
		fprintf(f, ", %.0f min of downtime", r->downtime_s / 60);
	fprintf(f, "</text>\n");
}

/* One run: its line, its kill marker and its legend entry (row @k). */
static void run_line(FILE *f, const struct iolat_ml_result *r, size_t k, double tmin, double tmax)
{
	const char *c = colours[k % (sizeof(colours) / sizeof(colours[0]))];

	fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='1.5' points='", c);
	for (size_t i = 0; i < r->nr_samples; i++) {
		const struct iolat_ml_sample *s = &r->samples[i];

		if (s->t_s >= tmin && r->base_rps > 0)
			fprintf(f, "%.1f,%.1f ", px(s->t_s, tmin, tmax), py(s->rps / r->base_rps));
	}
	fprintf(f, "'/>\n");
	if (r->killed) {
		double x = px(r->kill_s, tmin, tmax);
		bool left = x > W - RIGHT - 50;   /* near the legend: label on the left */

		fprintf(f, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='%s' stroke-dasharray='4 3'/>"
			   "<text x='%.1f' y='%d' font-size='10' fill='%s' text-anchor='%s'>%s</text>\n",
			x, TOP, x, H - BOTTOM, c, left ? x - 3 : x + 3, TOP + 12 + 12 * (int)k, c,
			left ? "end" : "start", iolat_ml_mode_name(r->mode));
	}
	legend(f, r, c, TOP + 6 + 46 * (int)k);
}

int iolat_ml_write_svg(const struct iolat_ml_result *const *runs, size_t n, const char *path,
		       const char *title)
{
	FILE *f = fopen(path, "w");
	double tmin = -10, tmax = x_max(runs, n);

	if (!f)
		return -errno;
	fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' "
		   "font-family='sans-serif'>\n<rect width='100%%' height='100%%' fill='white'/>\n",
		W, H);
	axes(f, tmin, tmax, title);
	for (size_t k = 0; k < n; k++)
		run_line(f, runs[k], k, tmin, tmax);
	fprintf(f, "</svg>\n");
	if (fclose(f))
		return -errno;
	return 0;
}
