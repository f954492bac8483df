/* SPDX-License-Identifier: MIT */
/*
 * cmd_status.c - `iolat status [--format=table|json|prometheus] [--watch] [--run-dir DIR]`: what
 * iolatd is doing, per cgroup and device, io.stat-like: target, allowed
 * depth, the limit in force and when it was written, latency of the last
 * second, windows ok/missed, scale events, time spent limited; with weights,
 * each group's weight, hweight, share, use, donation and budget. Reads the
 * status file the daemon rewrites every second under its run directory.
 * Context: the CLI's main thread.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "commands.h"
#include "iolatency.h"
#include "daemon/status/prom.h"
#include "daemon/status/statusfile.h"

#define DEFAULT_RUN_DIR "/run/iolatd"
#define IOLAT_EXIT_STALE 3          /* the status file's daemon is gone */
#define STATUS_JSON_SCHEMA 2        /* 2: depth as an integer (-1: max); devices, limits, waiting */

static volatile sig_atomic_t stop_watch;

static void on_sigint(int sig)
{
	stop_watch = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: iolat status [--format=table|json|prometheus] [--json] [--watch] [--run-dir DIR]\n"
"\n"
"What iolatd does now, per cgroup and device: target, allowed depth, the limit\n"
"in force (rbps/wbps/riops/wiops) and when it was written, use_delay (steps\n"
"below depth 1: each halves the rate), the last second's\n"
"requests and latency (mean, p90), windows ok/missed, scale events down/up,\n"
"time spent limited; where weights are configured, each group's weight, hweight,\n"
"share, use, donated share and budget. From DIR/status (default " DEFAULT_RUN_DIR "),\n"
"rewritten by iolatd every second.\n"
"  --format F   table (default), json (one object: {\"daemon\": {...},\n"
"               \"devices\": [...], \"groups\": [...], \"limits\": [...], \"waiting\": [...]})\n"
"               or prometheus (text exposition format)\n"
"  --json       the same as --format=json\n"
"  --watch      redraw every second until interrupted\n"
"  --run-dir D  iolatd's --run-dir\n"
"Exit status: 0 iolatd is running; 1 no status file (or unreadable); 2 bad usage;\n"
"3 the status file is stale (the iolatd that wrote it is gone).\n");
}

static const char *get(const struct status_rec *r, const char *k)
{
	const char *v = iolatd_status_get(r, k);

	return v ? v : "";
}

static uint64_t num(const struct status_rec *r, const char *k)
{
	return strtoull(get(r, k), NULL, 10);
}

/* 1234567 bytes/s -> "1.2MiB/s"; 0 -> "". */
static void fmt_rate(char *buf, size_t len, uint64_t v, bool bytes)
{
	static const char *const unit[] = { "", "Ki", "Mi", "Gi", "Ti" };
	double x = (double)v;
	int u = 0;

	if (!v) {
		buf[0] = '\0';
		return;
	}
	while (bytes && x >= 1024.0 && u < 4) {
		x /= 1024.0;
		u++;
	}
	snprintf(buf, len, bytes ? "%.1f%sB/s" : "%.0f/s", x, unit[u]);
}

static void fmt_us(char *buf, size_t len, uint64_t us)
{
	if (us >= 10000)
		snprintf(buf, len, "%.1fms", (double)us / 1000.0);
	else
		snprintf(buf, len, "%" PRIu64 "us", us);
}

static void print_limit(const struct status_rec *r, char *out, size_t len)
{
	static const char *const keys[] = { "rbps", "wbps", "riops", "wiops" };
	size_t pos = 0;

	out[0] = '\0';
	if (!strcmp(r->kind, "group") && !num(r, "limited")) {
		snprintf(out, len, "-");
		return;
	}
	for (int k = 0; k < 4; k++) {
		char v[32];

		fmt_rate(v, sizeof(v), num(r, keys[k]), k < 2);
		if (*v && pos < len)
			pos += (size_t)snprintf(out + pos, len - pos, "%s%s=%s", pos ? " " : "", keys[k], v);
	}
}

static bool stale(const struct status_rec *d)
{
	pid_t pid = (pid_t)num(d, "pid");

	return pid > 0 && kill(pid, 0) && errno == ESRCH;
}

/* "off", "on" (the article's mode, the library's default) or "on (MODE)". */
static const char *control_words(const struct status_rec *d, char *buf, size_t len)
{
	enum iolat_ctl_mode m = iolat_ctl_mode_parse(get(d, "mode"));

	if (!num(d, "control"))
		return "off";
	if (m == IOLAT_CTL_MODE_NONE || m == IOLAT_CTL_MODE_ARTICLE)
		return "on";
	snprintf(buf, len, "on (%s)", iolat_ctl_mode_name(m));
	return buf;
}

/* A disk's weights: ", weights by iolatd (capacity X)", ", weights: the kernel's (bfq)", or "" (none configured). */
static const char *weights_words(const struct status_rec *r, char *buf, size_t len)
{
	char cap[32];

	if (!strcmp(get(r, "weights"), "kernel"))
		snprintf(buf, len, ", weights: the kernel's (%s): iolatd stands aside", get(r, "kernel_weights"));
	else if (!strcmp(get(r, "weights"), "iolatd")) {
		fmt_rate(cap, sizeof(cap), num(r, "capacity_bps"), true);
		snprintf(buf, len, ", weights by iolatd (capacity %s)", *cap ? cap : "not known yet");
	} else
		buf[0] = '\0';
	return buf;
}

static void print_header(const struct status_file *s)
{
	const struct status_rec *d = &s->recs[0];
	char ctl[96];

	printf("iolatd pid %s%s, cgroup %s at %s, up %ss, control %s%s, measurement %s\n", get(d, "pid"),
	       stale(d) ? " (NOT RUNNING: stale status)" : "", get(d, "cgroup"), get(d, "root"),
	       get(d, "uptime_s"), control_words(d, ctl, sizeof(ctl)),
	       num(d, "dry_run") ? " (dry run: nothing written)" : "", get(d, "source"));
	if (!num(d, "writeback_throttled"))
		printf("note: cgroup v1 cannot throttle background writeback of buffered writes (charged to the root)\n");
	for (unsigned i = 1; i < s->n; i++) {
		const struct status_rec *r = &s->recs[i];

		if (!strcmp(r->kind, "device"))
			printf("disk %s (%s): %s rule (from %s), nr_requests %s, I/O of no configured group %.1f MiB/s%s\n",
			       get(r, "disk"), get(r, "dev"), get(r, "rule"), get(r, "rule_from"),
			       get(r, "nr_requests"), (double)num(r, "unattributed_bps") / (1 << 20),
			       weights_words(r, ctl, sizeof(ctl)));
		else if (!strcmp(r->kind, "waiting"))
			printf("waiting for %s to appear (no such cgroup yet)\n", get(r, "path"));
		else if (!strcmp(r->kind, "exempt"))
			printf("exempt, never limited: %s (%s)\n", get(r, "path"),
			       !strcmp(get(r, "reason"), "self") ? "iolatd's own cgroup" :
			       !strcmp(get(r, "reason"), "journald") ? "the system's logger" : "exempt= in the configuration");
	}
}

static void print_group(const struct status_rec *r)
{
	char tgt[16], avg[16], p90[16], win[24], scale[24], lim[160], ago[32], depth[16];

	if (num(r, "target_us"))
		fmt_us(tgt, sizeof(tgt), num(r, "target_us"));
	else
		snprintf(tgt, sizeof(tgt), "-");
	snprintf(depth, sizeof(depth), "%s", !strcmp(get(r, "depth"), "-1") ? "max" : get(r, "depth"));
	fmt_us(avg, sizeof(avg), num(r, "avg_lat_us"));
	fmt_us(p90, sizeof(p90), num(r, "p90_us"));
	snprintf(win, sizeof(win), "%s/%s", get(r, "windows_ok"), get(r, "windows_missed"));
	snprintf(scale, sizeof(scale), "%s/%s", get(r, "scale_downs"), get(r, "scale_ups"));
	print_limit(r, lim, sizeof(lim));
	ago[0] = '\0';
	if (num(r, "limited"))
		snprintf(ago, sizeof(ago), " on %s cgroup(s)", get(r, "carriers"));
	printf("%-24s %-7s %7s %5s %5s %6s %8s %8s %11s %9s %8.1fs  %s%s\n", get(r, "path"),
	       get(r, "dev"), tgt, depth, get(r, "delay_used"), get(r, "ios"), avg, p90, win, scale,
	       (double)num(r, "limited_ms") / 1000.0, lim, ago);
}

static void print_notes(const struct status_rec *r)
{
	if (!strcmp(get(r, "holds"), "0"))
		printf("  %s: the limit does not hold (%s): I/O above it; not tightened further\n",
		       get(r, "path"), get(r, "cause"));
	if (num(r, "misses_from_elsewhere"))
		printf("  %s: misses while the groups clamped for it are at the floor and idle: "
		       "the I/O comes from elsewhere\n", get(r, "path"));
	if (num(r, "unattainable")) {
		char p90[16], lim[32];

		fmt_us(p90, sizeof(p90), num(r, "p90_us"));
		fmt_rate(lim, sizeof(lim), num(r, "sibling_limit_bps"), true);
		printf("  %s: target unattainable: p90 %s at sibling rate %s (lowering them did not help)\n",
		       get(r, "path"), p90, lim);
	}
	if (num(r, "left_out"))
		printf("  %s: %s cgroup(s) doing I/O below it carry no part of its limit (too many)\n",
		       get(r, "path"), get(r, "left_out"));
}

static void print_limits(const struct status_file *s)
{
	bool first = true;

	for (unsigned i = 1; i < s->n; i++) {
		const struct status_rec *r = &s->recs[i];
		char lim[160];

		if (strcmp(r->kind, "limit"))
			continue;
		if (first)
			printf("limits written (cgroup, disk: limit, for the group clamped, written):\n");
		first = false;
		print_limit(r, lim, sizeof(lim));
		printf("  %-24s %-7s %s  for %s, %.1fs ago\n", get(r, "path"), get(r, "dev"), lim, get(r, "for"),
		       (double)num(r, "written_ago_ms") / 1000.0);
	}
}

/* Groups' weights, where any are configured: weight (from), hweight, share, use, donated, budget. */
static void print_weights(const struct status_file *s)
{
	bool first = true;

	for (unsigned i = 1; i < s->n; i++) {
		const struct status_rec *r = &s->recs[i];
		char share[32], use[32], don[32], bud[32];

		if (strcmp(r->kind, "group") || !num(r, "weighted"))
			continue;
		if (first)
			printf("weights (group, disk: weight and where from, hweight, share, use, donated, budget):\n");
		first = false;
		fmt_rate(share, sizeof(share), num(r, "share_bps"), true);
		fmt_rate(use, sizeof(use), num(r, "use_bps"), true);
		fmt_rate(don, sizeof(don), num(r, "donated_bps"), true);
		if (!strcmp(get(r, "budget_bps"), "-1"))
			snprintf(bud, sizeof(bud), "none");
		else
			fmt_rate(bud, sizeof(bud), num(r, "budget_bps"), true);
		printf("  %-24s %-7s %5s %-7s %5.1f%% %11s %11s %11s %11s%s\n", get(r, "path"), get(r, "dev"),
		       get(r, "weight"), get(r, "weight_from"), (double)num(r, "hweight_ppm") / 1e4,
		       *share ? share : "-", *use ? use : "-", *don ? don : "-", *bud ? bud : "-",
		       num(r, "weight_active") ? "" : "  (idle)");
	}
}

static void print_table(const struct status_file *s)
{
	print_header(s);
	printf("%-24s %-7s %7s %5s %5s %6s %8s %8s %11s %9s %9s  %s\n", "group", "dev", "target", "depth",
	       "delay", "ios/s", "avg_lat", "p90", "win ok/miss", "scale -/+", "limited", "limit in force");
	for (unsigned i = 1; i < s->n; i++)
		if (!strcmp(s->recs[i].kind, "group"))
			print_group(&s->recs[i]);
	for (unsigned i = 1; i < s->n; i++)
		if (!strcmp(s->recs[i].kind, "group"))
			print_notes(&s->recs[i]);
	print_limits(s);
	print_weights(s);
}

/* A value as JSON: digits (with an optional leading '-') as a number, else a string. */
static void json_val(const char *v)
{
	bool numeric = *v && strspn(v + (*v == '-'), "0123456789") == strlen(v + (*v == '-')) &&
		       v[*v == '-'] != '\0';

	if (numeric) {
		fputs(v, stdout);
		return;
	}
	putchar('"');
	for (; *v; v++) {
		if (*v == '"' || *v == '\\')
			putchar('\\');
		if ((unsigned char)*v < 0x20)
			printf("\\u%04x", *v);
		else
			putchar(*v);
	}
	putchar('"');
}

static void json_rec(const struct status_rec *r)
{
	putchar('{');
	for (unsigned i = 0; i < r->n; i++) {
		printf("%s\"%s\": ", i ? ", " : "", r->f[i].key);
		json_val(r->f[i].val);
	}
	putchar('}');
}

/* The records of @kind as a JSON array named @name. */
static void json_array(const struct status_file *s, const char *name, const char *kind)
{
	bool first = true;

	printf(", \"%s\": [", name);
	for (unsigned i = 1; i < s->n; i++) {
		if (strcmp(s->recs[i].kind, kind))
			continue;
		printf("%s\n  ", first ? "" : ",");
		json_rec(&s->recs[i]);
		first = false;
	}
	printf("]");
}

static void print_json(const struct status_file *s)
{
	printf("{\"schema_version\": %d, \"daemon\": ", STATUS_JSON_SCHEMA);
	json_rec(&s->recs[0]);
	json_array(s, "devices", "device");
	json_array(s, "groups", "group");
	json_array(s, "limits", "limit");
	json_array(s, "waiting", "waiting");
	json_array(s, "exempt", "exempt");
	printf("}\n");
}

enum status_format { FMT_TABLE, FMT_JSON, FMT_PROM };

static int show(const char *path, enum status_format fmt, bool watch)
{
	struct status_file s;
	char why[512];
	int ret = iolatd_status_read(path, &s, why, sizeof(why));

	if (watch)
		printf("\033[H\033[J");
	if (ret) {
		if (ret == -ENOENT)
			fprintf(stderr, "iolat status: %s: no status: iolatd is not running (or uses another --run-dir)\n", path);
		else
			fprintf(stderr, "iolat status: %s: %s\n", path, why);
		return IOLAT_EXIT_FAILED;
	}
	if (fmt == FMT_JSON)
		print_json(&s);
	else if (fmt == FMT_PROM)
		iolatd_prom_write(&s, stdout);
	else
		print_table(&s);
	ret = stale(&s.recs[0]) ? IOLAT_EXIT_STALE : IOLAT_EXIT_OK;
	if (ret == IOLAT_EXIT_STALE && fmt != FMT_TABLE)
		fprintf(stderr, "iolat status: %s: stale: iolatd pid %s is not running\n", path,
			get(&s.recs[0], "pid"));
	iolatd_status_free(&s);
	fflush(stdout);
	return ret;
}

static int parse_format(const char *v, enum status_format *fmt)
{
	if (!strcmp(v, "table"))
		*fmt = FMT_TABLE;
	else if (!strcmp(v, "json"))
		*fmt = FMT_JSON;
	else if (!strcmp(v, "prometheus"))
		*fmt = FMT_PROM;
	else {
		fprintf(stderr, "iolat status: --format: expected table, json or prometheus, got '%s'\n", v);
		return -1;
	}
	return 0;
}

int iolat_cmd_status(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' }, { "watch", no_argument, NULL, 'w' },
		{ "run-dir", required_argument, NULL, 'r' }, { "help", no_argument, NULL, 'h' },
		{ "format", required_argument, NULL, 'F' }, { NULL, 0, NULL, 0 },
	};
	const char *run_dir = DEFAULT_RUN_DIR;
	enum status_format fmt = FMT_TABLE;
	bool watch = false;
	char path[4096];
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "jwr:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': fmt = FMT_JSON; break;
		case 'F':
			if (parse_format(optarg, &fmt))
				return IOLAT_EXIT_USAGE;
			break;
		case 'w': watch = true; break;
		case 'r': run_dir = optarg; break;
		case 'h': usage(stdout); return IOLAT_EXIT_OK;
		default: usage(stderr); return IOLAT_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "iolat status: unexpected argument '%s'\n", argv[optind]);
		return IOLAT_EXIT_USAGE;
	}
	snprintf(path, sizeof(path), "%s/status", run_dir);
	if (!watch)
		return show(path, fmt, false);
	signal(SIGINT, on_sigint);
	do {
		ret = show(path, fmt, true);
		sleep(1);
	} while (!stop_watch);
	return ret;
}
