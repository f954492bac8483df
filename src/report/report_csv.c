/* SPDX-License-Identifier: MIT */
/*
 * report_csv.c - the time series as CSV, one file per group, and the gnuplot
 * script, plotted by gnuplot (plot.c) (iolat_report_write_csv,
 * iolat_report_write_log).
 * Determinism: every number with a fixed printf format, rows and jobs in
 * job-file order. Context: the runner's thread, after the report finished.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "report/plot.h"
#include "report/report_priv.h"
#include "util/errmsg.h"

static const char csv_header[] =
	"time_s,ios,iops,mib_s,p50_us,p90_us,p99_us,max_us,depth,inflight,use_delay,"
	"scale_events,throttled_ms,windows_missed,group";

/* Appended in the adaptive mode (docs/controller-adaptive.md). */
static const char csv_adaptive_header[] = ",pace_mib_s,limit_mib_s,step,decision,hold_ms";
/* Appended when weights are on (docs/weights.md); budget: empty when unlimited. */
static const char csv_weights_header[] =
	",weight,hweight,share_mib_s,use_mib_s,donated_mib_s,budget_mib_s";

const char *iolat_report_csv_header(void)
{
	return csv_header;
}

static void write_csv_share(FILE *f, const struct series_pt *pt)
{
	if (!pt->bound) {
		fprintf(f, ",,,,,,");
		return;
	}
	fprintf(f, ",%u,%.4f,%.3f,%.3f,%.3f,", pt->weight, pt->hweight,
		(double)pt->share_bps / 1048576.0, (double)pt->use_bps / 1048576.0,
		(double)pt->donated_bps / 1048576.0);
	if (pt->budget_bps != UINT64_MAX)
		fprintf(f, "%.3f", (double)pt->budget_bps / 1048576.0);
}

int iolat_report_write_csv(const struct iolat_report *r, unsigned i, FILE *f)
{
	int k = report_visible_row(r, i);
	if (k < 0)
		return -EINVAL;
	const struct row *w = &r->rows[k];

	fprintf(f, "%s%s%s\n", csv_header, r->adaptive ? csv_adaptive_header : "",
		r->weights ? csv_weights_header : "");
	for (size_t p = 0; p < w->nr_pts; p++) {
		const struct series_pt *pt = &w->pts[p];
		fprintf(f, "%.3f,%llu,%.1f,%.3f,%.3f,%.3f,%.3f,%.3f,", (double)pt->t_ns / 1e9,
			(unsigned long long)pt->ios, report_per_sec(pt->ios, pt->dt_ns),
			report_per_sec(pt->bytes, pt->dt_ns) / 1048576.0, (double)pt->p50_ns / 1e3,
			(double)pt->p90_ns / 1e3, (double)pt->p99_ns / 1e3, (double)pt->max_ns / 1e3);
		if (pt->bound)
			fprintf(f, "%lld,%u,%d,%llu,%.3f,%llu,",
				pt->depth == IOLAT_DEPTH_MAX ? -1LL : (long long)pt->depth, pt->inflight,
				pt->use_delay, (unsigned long long)pt->scale_events,
				(double)pt->throttled_ns / 1e6, (unsigned long long)pt->windows_missed);
		else
			fprintf(f, ",,,,,,");
		/* Group paths hold no ',' or '"' (jobfile_apply.c checks them). */
		fprintf(f, "%s", w->name);
		if (r->adaptive && pt->bound)
			fprintf(f, ",%.3f,%.3f,%s,%s,%llu", (double)pt->pace_bps / 1048576.0,
				(double)pt->limit_bps / 1048576.0,
				iolat_step_name(pt->step), iolat_step_name(pt->decision),
				(unsigned long long)(pt->hold_ns / 1000000));
		else if (r->adaptive)
			fprintf(f, ",,,,,");
		if (r->weights)
			write_csv_share(f, pt);
		fprintf(f, "\n");
	}
	return ferror(f) ? -EIO : 0;
}

static int write_file(const char *dir, const char *name, int (*fn)(const struct iolat_report *,
		      unsigned, FILE *), const struct iolat_report *r, unsigned i, char *err, size_t errlen)
{
	char path[4096];
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return iolat_errf(err, errlen, -ENAMETOOLONG, "%s: path too long", dir);
	FILE *f = fopen(path, "w");
	if (!f) {
		int e = errno;

		return iolat_errf(err, errlen, -e, "%s: cannot create: %s", path, strerror(e));
	}
	int ret = fn(r, i, f);
	if (fclose(f) != 0 && !ret)
		ret = -EIO;
	if (ret && err && errlen)
		snprintf(err, errlen, "%s: write failed: %s", path, strerror(-ret));
	return ret;
}

/*
 * The adaptive mode's plot, pace.png: per controlled group the rate it is
 * paced at and the limit its parent sets for it and its throttled siblings
 * (MiB/s, 0: none, left axis), and its parent's probe hold (seconds, right
 * axis, dotted). CSV columns 16-20.
 */
static void write_gnuplot_adaptive(const struct iolat_report *r, FILE *f)
{
	unsigned n = iolat_report_nr_rows(r);
	bool first = true;

	fprintf(f, "\nset output 'pace.png'\n"
		   "set title 'adaptive: pace rate and limit (MiB/s), probe hold (s, right, dotted)'\n"
		   "set ylabel 'MiB/s'\nset y2label 'hold (s)'\nset y2tics\n"
		   "set yrange [0:*]\nset y2range [0:*]\nplot \\\n");
	for (unsigned i = 0; i < n; i++) {
		const struct row *w = &r->rows[report_visible_row(r, i)];

		if (!w->bound)
			continue;
		fprintf(f, "%s  '%s.csv' using 1:16 with steps lw 2 lc %u title '%s pace (0: none)', \\\n"
			   "  '%s.csv' using 1:17 with steps dt 2 lc %u title '%s limit', \\\n"
			   "  '%s.csv' using 1:($20/1000) axes x1y2 with steps dt 3 lc %u title '%s hold'",
			first ? "" : ", \\\n", w->file, i + 1, w->name, w->file, i + 1, w->name,
			w->file, i + 1, w->name);
		first = false;
	}
	fprintf(f, "\n");
}

static int write_gnuplot(const struct iolat_report *r, unsigned unused, FILE *f)
{
	unsigned n = iolat_report_nr_rows(r);
	bool any_bound = false;
	(void)unused;

	fprintf(f, "# gnuplot script written by iolat: latency and depth over time per group.\n"
		   "# Run it in this directory: gnuplot plot.gp\n"
		   "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
		   "  set terminal pngcairo size 1200,600 noenhanced\n"
		   "} else {\n"
		   "  set terminal png size 1200,600 noenhanced\n"
		   "}\n"
		   "set datafile separator ','\n"
		   "set key outside right top\n"
		   "set grid\n"
		   "set xlabel 'time (s)'\n\n");
	char label[128] = "";
	if (r->label) {
		snprintf(label, sizeof(label), ": %s", r->label);
		for (char *c = label; *c; c++)
			if (*c == '\'' || *c == '\\' || (unsigned char)*c < 0x20)
				*c = ' ';
	}
	fprintf(f, "set output 'latency.png'\nset title 'p50 (dashed) and p99 latency per interval%s'\n"
		   "set ylabel 'latency (ms)'\nset logscale y\nplot \\\n", label);
	for (unsigned i = 0; i < n; i++) {
		const struct row *w = &r->rows[report_visible_row(r, i)];
		fprintf(f, "  '%s.csv' using 1:($7 > 0 ? $7/1000 : NaN) with lines lw 2 lc %u title '%s p99', \\\n"
			   "  '%s.csv' using 1:($5 > 0 ? $5/1000 : NaN) with lines dt 2 lc %u title '%s p50'",
			w->file, i + 1, w->name, w->file, i + 1, w->name);
		if (w->target_ns)
			fprintf(f, ", \\\n  %.3f with lines dt 3 lc %u title '%s target'",
				(double)w->target_ns / 1e6, i + 1, w->name);
		fprintf(f, "%s\n", i + 1 < n ? ", \\" : "");
		any_bound |= w->bound;
	}
	fprintf(f, "unset logscale y\n\n");
	fprintf(f, "set output 'depth.png'\n"
		   "set title 'queue depth allowed per group (max shown as nr_requests = %u)'\n"
		   "set ylabel 'depth'\nset yrange [0:*]\n", r->nr_requests);
	if (!any_bound) {
		fprintf(f, "set label 1 'no controller figures (control=0)' at graph 0.5,0.5 center\n"
			   "plot NaN notitle\n");
	} else {
		fprintf(f, "plot \\\n");
		bool first = true;
		for (unsigned i = 0; i < n; i++) {
			const struct row *w = &r->rows[report_visible_row(r, i)];
			if (!w->bound)
				continue;
			fprintf(f, "%s  '%s.csv' using 1:($9 < 0 ? %u : $9) with steps lw 2 lc %u title '%s'",
				first ? "" : ", \\\n", w->file, r->nr_requests, i + 1, w->name);
			first = false;
		}
		fprintf(f, "\n");
	}
	if (r->adaptive && any_bound)
		write_gnuplot_adaptive(r, f);
	return ferror(f) ? -EIO : 0;
}

static int csv_fn(const struct iolat_report *r, unsigned i, FILE *f)
{
	return iolat_report_write_csv(r, i, f);
}

int iolat_report_write_log(const struct iolat_report *r, const char *dir, unsigned *flags_out,
			   char *err, size_t errlen)
{
	unsigned flags = 0;
	int ret;
	char name[IOLAT_GROUP_PATH_MAX + 32];
	struct stat st;

	if (flags_out)
		*flags_out = 0;
	if (err && errlen)
		err[0] = '\0';
	if (!r || !dir || !*dir)
		return -EINVAL;
	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		ret = -errno;
		return iolat_errf(err, errlen, ret, "%s: cannot create directory: %s", dir,
				  strerror(-ret));
	}
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return iolat_errf(err, errlen, -ENOTDIR, "%s: not a directory", dir);
	unsigned n = iolat_report_nr_rows(r);
	for (unsigned i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s.csv", r->rows[report_visible_row(r, i)].file);
		ret = write_file(dir, name, csv_fn, r, i, err, errlen);
		if (ret)
			return ret;
	}
	ret = write_file(dir, "plot.gp", write_gnuplot, r, 0, err, errlen);
	if (ret)
		return ret;
	ret = iolat_plot_run(dir, "plot.gp");
	flags |= !ret ? IOLAT_LOG_PLOTTED : ret == -ENOENT ? IOLAT_LOG_NO_GNUPLOT : IOLAT_LOG_PLOT_FAILED;
	if (flags_out)
		*flags_out = flags;
	return 0;
}
