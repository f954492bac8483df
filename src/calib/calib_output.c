/* SPDX-License-Identifier: MIT */
/*
 * calib_output.c - what `iolat calibrate` prints (calibrate.h): the table of
 * its measurements, the knee, the suggested target, an iolatd.conf snippet
 * and the simulator profile; or all of it as one JSON document
 * (docs/calibrate.md lists the fields). Same result, same bytes.
 * Context: any thread; only writes to the given stream.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "calib/calibrate.h"
#include "iolatency.h"
#include "report/report.h"

static const char *pace_text(uint64_t bps, char *buf, size_t len)
{
	if (bps == 0)
		snprintf(buf, len, "-");
	else if (bps == IOLAT_CALIB_UNPACED)
		snprintf(buf, len, "unpaced");
	else
		snprintf(buf, len, "%.1f MB/s", (double)bps / 1e6);
	return buf;
}

static void text_row(FILE *f, const char *phase, const struct iolat_calib_point *pt)
{
	char a[32], b[32], c[32], d[32];

	fprintf(f, "%-8s %14s %11.1f %9.0f %11s %11s %11s  %s\n", phase,
		pace_text(pt->rate_bps, a, sizeof(a)), pt->writer_mb_s, pt->reads_s,
		iolat_format_latency(pt->p50_ns, b, sizeof(b)),
		iolat_format_latency(pt->p90_ns, c, sizeof(c)),
		iolat_format_latency(pt->p99_ns, d, sizeof(d)),
		!pt->rate_bps ? "-" : pt->within ? "yes" : "no");
}

static void text_knee(const struct iolat_calib_result *r, FILE *f)
{
	char a[32];

	iolat_format_latency(r->threshold_ns, a, sizeof(a));
	if (r->no_knee)
		fprintf(f, "\nno knee: the writer unpaced (%.1f MB/s) leaves the reader within "
			"(p90 <= %s, >= half its solo reads/s)\n", r->unpaced.writer_mb_s, a);
	else if (!r->knee_bps)
		fprintf(f, "\nno knee found: every pace tried took the reader over p90 %s or under "
			"half its solo reads/s\n", a);
	else
		fprintf(f, "\nknee: %.1f MB/s delivered at a pace of %.1f MB/s (%.2f x the writer "
			"unpaced): where the reader leaves p90 <= %s or half its solo reads/s "
			"(the mean of both solos: %.0f/s), %s\n", r->knee_mb_s, (double)r->knee_bps / 1e6,
			r->unpaced.writer_mb_s > 0 ? r->knee_mb_s / r->unpaced.writer_mb_s : 0, a,
			r->solo_ref.reads_s, r->fit_points ? "by a line through the points around it" :
			"the bisection's (no falling line through the points around it)");
	if (!r->no_knee && r->knee_bps)
		fprintf(f, "  the verdicts place it at %.1f-%.1f MB/s (%u of the points contradict that); "
			"the bisection alone: %.1f MB/s\n", r->knee_lo_mb_s, r->knee_hi_mb_s, r->contradicting,
			r->knee_bisect_mb_s);
}

static void text_advice(const struct iolat_calib_result *r, const char *dev, FILE *f)
{
	struct iolat_calib_profile p;
	char t[32];

	iolat_calib_profile(r, &p);
	iolat_format_latency(r->target_ns, t, sizeof(t));
	fprintf(f, "target: %s (%s)\n\n", t, r->target_given ? "as given" :
		"suggested: 2 x the reader's solo p90, or 1.5 x its p90 under the knee, rounded up");
	fprintf(f, "iolatd.conf (a group to protect, by cgroup path or systemd unit):\n"
		"  [global]\n  device=%s\n  control=%s\n  [group:web.service]\n"
		"  target=%" PRIu64 "us\n\n", dev, iolat_ctl_mode_name(IOLAT_CTL_MODE_ADAPTIVE),
		r->target_ns / 1000);
	fprintf(f, "simulator profile ([global] keys of a job file for iolat sim):\n"
		"  device=vdisk\n  rotational=%d\n  vdisk_mbps=%.0f\n  vdisk_read_us=%.0f\n"
		"  vdisk_jitter_pct=%.0f\n", p.rotational, p.mbps, p.read_us, p.jitter_pct);
}

int iolat_calib_write_text(const struct iolat_calib_result *r, const char *dev, FILE *f)
{
	fprintf(f, "iolat calibrate: %s (%s), %.1f s of measurements%s%s\n\n",
		r->device, r->rotational ? "rotational" : "non-rotational",
		r->elapsed_s, r->virtual_time ? " (virtual time)" : "",
		r->interrupted ? ", interrupted" : "");
	if (!r->virtual_time)
		fprintf(f, "writer paced by %s\n\n", r->throttled ?
			"the kernel's block throttle on its cgroup (as iolatd acts)" :
			"iolat's rate= (a token bucket in the process; --pace=throttle as root: the kernel's)");
	fprintf(f, "%-8s %14s %11s %9s %11s %11s %11s  %s\n", "phase", "writer pace", "writer MB/s",
		"reads/s", "reader p50", "reader p90", "reader p99", "within");
	text_row(f, "solo", &r->solo);
	if (r->unpaced.rate_bps)
		text_row(f, "unpaced", &r->unpaced);
	for (unsigned i = 0; i < r->nr_steps; i++)
		text_row(f, "bisect", &r->steps[i]);
	for (unsigned i = 0; i < r->nr_curve; i++)
		text_row(f, "curve", &r->curve[i]);
	if (r->solo_after.reads_s > 0)
		text_row(f, "solo", &r->solo_after);
	if (r->interrupted) {
		fprintf(f, "\ninterrupted: no knee or advice from a partial calibration\n");
		return ferror(f) ? -EIO : 0;
	}
	text_knee(r, f);
	text_advice(r, dev, f);
	return ferror(f) ? -EIO : 0;
}

/* A pace in JSON: a number of bytes per second, or the string "unpaced". */
static const char *json_pace(uint64_t bps, char *buf, size_t len)
{
	if (bps == IOLAT_CALIB_UNPACED)
		snprintf(buf, len, "\"unpaced\"");
	else
		snprintf(buf, len, "%" PRIu64, bps);
	return buf;
}

static void json_point(FILE *f, const struct iolat_calib_point *pt, const char *end)
{
	char pace[32];

	fprintf(f, "{\"pace_bps\": %s, \"writer_mb_s\": %.1f, \"reads_s\": %.1f, "
		"\"p50_ns\": %" PRIu64 ", \"p90_ns\": %" PRIu64 ", \"p99_ns\": %" PRIu64
		", \"within\": %s}%s\n", json_pace(pt->rate_bps, pace, sizeof(pace)),
		pt->writer_mb_s, pt->reads_s, pt->p50_ns, pt->p90_ns, pt->p99_ns,
		pt->within ? "true" : "false", end);
}

static void json_points(FILE *f, const char *name, const struct iolat_calib_point *pts, unsigned n)
{
	fprintf(f, "  \"%s\": [", name);
	for (unsigned i = 0; i < n; i++) {
		fputs(i ? "    " : "\n    ", f);
		json_point(f, &pts[i], i + 1 < n ? "," : "");
	}
	fprintf(f, "%s],\n", n ? "  " : "");
}

int iolat_calib_write_json(const struct iolat_calib_result *r, const char *dev, FILE *f)
{
	struct iolat_calib_profile p;
	char pace[32];

	iolat_calib_profile(r, &p);
	fprintf(f, "{\n  \"schema\": \"iolat-calibrate/1\",\n  \"device\": \"%s\",\n"
		"  \"config_device\": \"%s\",\n  \"rotational\": %d,\n"
		"  \"virtual_time\": %s,\n  \"interrupted\": %s,\n  \"elapsed_s\": %.1f,\n",
		r->device, dev, r->rotational, r->virtual_time ? "true" : "false",
		r->interrupted ? "true" : "false", r->elapsed_s);
	fprintf(f, "  \"pacer\": \"%s\",\n", r->throttled ? "throttle" : "rate");
	fputs("  \"solo\": ", f);
	json_point(f, &r->solo, ",");
	fputs("  \"unpaced\": ", f);
	json_point(f, &r->unpaced, ",");
	json_points(f, "bisect", r->steps, r->nr_steps);
	json_points(f, "curve", r->curve, r->nr_curve);
	fputs("  \"solo_after\": ", f);
	json_point(f, &r->solo_after, ",");
	fprintf(f, "  \"solo_ref_reads_s\": %.1f,\n", r->solo_ref.reads_s);
	fprintf(f, "  \"threshold_ns\": %" PRIu64 ",\n  \"no_knee\": %s,\n  \"knee_pace_bps\": %s,\n"
		"  \"knee_mb_s\": %.1f,\n  \"target_ns\": %" PRIu64 ",\n  \"target_given\": %s,\n",
		r->threshold_ns, r->no_knee ? "true" : "false", json_pace(r->knee_bps, pace, sizeof(pace)),
		r->knee_mb_s, r->target_ns, r->target_given ? "true" : "false");
	fprintf(f, "  \"knee_bisect_pace_bps\": %s,\n  \"knee_bisect_mb_s\": %.1f,\n"
		"  \"knee_range_mb_s\": [%.1f, %.1f],\n  \"knee_contradicting\": %u,\n"
		"  \"knee_fit_points\": %u,\n",
		json_pace(r->knee_bisect_bps, pace, sizeof(pace)), r->knee_bisect_mb_s,
		r->knee_lo_mb_s, r->knee_hi_mb_s, r->contradicting, r->fit_points);
	fprintf(f, "  \"sim_profile\": {\"device\": \"vdisk\", \"rotational\": %d, "
		"\"vdisk_mbps\": %.0f, \"vdisk_read_us\": %.0f, \"vdisk_jitter_pct\": %.0f}\n}\n",
		p.rotational, p.mbps, p.read_us, p.jitter_pct);
	return ferror(f) ? -EIO : 0;
}
