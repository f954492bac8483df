/* SPDX-License-Identifier: MIT */
/*
 * demo_memleak_story.c - the screen of `iolat demo --memleak`: the runs of
 * the leaking-service scenario told in one screen. A timeline per mode (the
 * web's requests per second as a share of its baseline, 10 s a column, K
 * where a group was killed, R where the machine rebooted), a table (the web
 * kept, the kill: when, by which rule, which group; the downtime the way the
 * article counts it), then what happened in full mode and in stock mode, from
 * each run's per-second series. Also the plot files beside it (--log DIR).
 * Context: the CLI's main thread.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "demo_memleak_story.h"
#include "report/plot.h"

#define MAX_COLS 60

/* Seconds per timeline column: 10, more for long runs (at most MAX_COLS). */
static double bucket_s(struct iolat_ml_result *const *runs, size_t n, int *cols)
{
	double end = 10, b = 10;

	for (size_t i = 0; i < n; i++)
		if (runs[i]->nr_samples && runs[i]->samples[runs[i]->nr_samples - 1].t_s > end)
			end = runs[i]->samples[runs[i]->nr_samples - 1].t_s;
	while (end / b > MAX_COLS)
		b *= 2;
	*cols = (int)ceil(end / b);
	return b;
}

/* One mode's line: a digit per column (its mean share of the baseline, in tenths, 9 at
 * the top), K or R in the column of the kill or the reboot, '.' once the run is over. */
static void timeline(const struct iolat_ml_result *r, double b, int cols)
{
	char line[MAX_COLS + 1];

	for (int c = 0; c < cols; c++) {
		double t0 = c * b, t1 = t0 + b, sum = 0;
		int n = 0;

		for (size_t i = 0; i < r->nr_samples; i++)
			if (r->samples[i].t_s > t0 && r->samples[i].t_s <= t1) {
				sum += r->base_rps > 0 ? fmin(r->samples[i].rps / r->base_rps, 1) : 0;
				n++;
			}
		if (r->killed && r->kill_s > t0 && r->kill_s <= t1)
			line[c] = strcmp(r->victim, "(machine)") ? 'K' : 'R';
		else if (!n)
			line[c] = '.';
		else
			line[c] = (char)('0' + (int)fmin(9, floor(10 * sum / n)));
	}
	line[cols] = '\0';
	printf("%-9s|%s\n", iolat_ml_mode_name(r->mode), line);
}

static void table_row(const struct iolat_ml_result *r)
{
	char kill[16] = "-", down[64];

	if (r->killed)
		snprintf(kill, sizeof(kill), "%.0f s", r->kill_s);
	if (r->outage_s > 0)
		snprintf(down, sizeof(down), "%.0f min (%.0f s below half + %.0f min out)",
			 r->downtime_s / 60, r->thrash_s, r->outage_s / 60);
	else
		snprintf(down, sizeof(down), "%.0f s below half", r->thrash_s);
	printf("%-9s %5.0f%% %5.0f%%  %7s  %-33s %-11s %s\n", iolat_ml_mode_name(r->mode),
	       100 * r->isol_mean, 100 * r->isol_min, kill, r->killed ? r->killer : "(not killed)",
	       r->killed ? r->victim : "-", down);
}

/* The first second (since the leak started) at which @pred holds, or -1. */
static double first_t(const struct iolat_ml_result *r, bool (*pred)(const struct iolat_ml_sample *))
{
	for (size_t i = 0; i < r->nr_samples; i++)
		if (r->samples[i].t_s > 0 && pred(&r->samples[i]))
			return r->samples[i].t_s;
	return -1;
}

static bool at_depth1(const struct iolat_ml_sample *s) { return s->sys_depth == 1; }
static bool delaying(const struct iolat_ml_sample *s) { return s->sys_use_delay > 0; }
static bool leak_pressed(const struct iolat_ml_sample *s) { return s->psi_hog_full10 > 60; }

static void full_story(const struct iolat_ml_result *r)
{
	double d1 = first_t(r, at_depth1), ud = first_t(r, delaying), p = first_t(r, leak_pressed);

	printf("full:  ");
	if (d1 >= 0)
		printf("io.latency clamped system to depth 1 at %.0f s", d1);
	else
		printf("system never reached depth 1");
	if (ud >= 0)
		printf(" and throttled the leak at its faults from %.0f s (it slept %.0f s);\n", ud,
		       r->hog_slept_s);
	else
		printf("; the leak was never throttled;\n");
	if (p >= 0)
		printf("       the leak's own memory pressure (full avg10) passed 60%% at %.0f s", p);
	else
		printf("       the leak's own memory pressure stayed below 60%%");
	if (r->killed)
		printf("; %s killed %s at %.0f s", r->killer, r->victim, r->kill_s);
	printf(";\n       the web kept %.0f%% of its requests while the leak lived.\n",
	       100 * r->isol_mean);
}

static void stock_story(const struct iolat_ml_result *r, const struct iolat_ml_config *c)
{
	double low = -1;

	for (size_t i = 0; i < r->nr_samples && low < 0; i++)
		if (r->samples[i].t_s > 0 && r->samples[i].rps < 0.1 * r->base_rps)
			low = r->samples[i].t_s;
	printf("stock: ");
	if (low >= 0)
		printf("the web fell below 10%% of its baseline at %.0f s; ", low);
	if (r->killed && !strcmp(r->victim, "(machine)"))
		printf("the health checker rebooted the box at %.0f s:\n       %.0f s below half its "
		       "baseline + %.0f min to reboot + %.0f min to rejoin = %.0f min of downtime "
		       "(the article: 45-50).\n", r->kill_s, r->thrash_s, (double)c->reboot_ns / 6e10,
		       (double)c->rejoin_ns / 6e10, r->downtime_s / 60);
	else if (r->killed)
		printf("the %s killed %s at %.0f s: %.0f min of downtime.\n", r->killer, r->victim,
		       r->kill_s, r->downtime_s / 60);
	else
		printf("nothing ended the thrash: %.0f min of downtime so far.\n", r->downtime_s / 60);
}

void iolat_ml_story(const struct iolat_ml_config *c, struct iolat_ml_result *const *runs, size_t n)
{
	int cols;
	double b = bucket_s(runs, n, &cols);

	printf("\nweb requests/s, share of its baseline, every %.0f s since the leak started\n"
	       "(9: 90%% or more ... 0: under 10%%; K: a group killed; R: the health checker's reboot)\n",
	       b);
	for (size_t i = 0; i < n; i++)
		timeline(runs[i], b, cols);
	printf("\n%-9s %6s %6s  %7s  %-33s %-11s %s\n", "mode", "kept", "worst", "killed",
	       "by (rule)", "group", "downtime");
	for (size_t i = 0; i < n; i++)
		table_row(runs[i]);
	printf("\n");
	for (size_t i = 0; i < n; i++)
		if (runs[i]->mode == IOLAT_ML_FULL)
			full_story(runs[i]);
	for (size_t i = 0; i < n; i++)
		if (runs[i]->mode == IOLAT_ML_STOCK)
			stock_story(runs[i], c);
}

int iolat_ml_plots(const struct iolat_ml_config *c, struct iolat_ml_result *const *runs, size_t n,
		   const char *dir)
{
	char path[4096], title[160];
	FILE *f;

	snprintf(title, sizeof(title), "The web beside a leak at %gx the %s's write bandwidth "
		 "(seed %llu, oomd %s)", c->speed, c->device, (unsigned long long)c->seed,
		 iolat_ml_oomd_name(c->oomd));
	snprintf(path, sizeof(path), "%s/memleak_rps.svg", dir);
	if (iolat_ml_write_svg((const struct iolat_ml_result *const *)runs, n, path, title))
		return -EIO;
	/* The PNG: gnuplot from the CSVs, when it is installed. */
	snprintf(path, sizeof(path), "%s/memleak_rps.gp", dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "set datafile separator ','\nset terminal pngcairo size 1000,460\n"
		   "set output 'memleak_rps.png'\nset xlabel 'seconds since the leak started'\n"
		   "set ylabel 'web requests/s'\nset title \"%s\" noenhanced\nset key outside right\n"
		   "set yrange [0:*]\nset grid\nplot ", title);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s'memleak_%s.csv' using 1:2 with lines title '%s'", i ? ", " : "",
			iolat_ml_mode_name(runs[i]->mode), iolat_ml_mode_name(runs[i]->mode));
	fprintf(f, "\n");
	if (fclose(f))
		return -errno;
	return iolat_plot_run(dir, "memleak_rps.gp") == 0 ? 0 : 1;
}
