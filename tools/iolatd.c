/* SPDX-License-Identifier: MIT */
/*
 * iolatd.c - the daemon's main: io.latency for unmodified programs, by
 * cgroup. Reads the configuration, measures completions in the kernel (BPF),
 * decides with libiolatency's controller and acts through the kernel's
 * block throttle (src/daemon/control.h). Signals: SIGHUP reloads the
 * configuration keeping the controllers' state; SIGTERM and SIGINT remove
 * every limit written and exit 0. --check-config only checks the file
 * (src/daemon/checkconf.c). Log lines carry a priority, written as the
 * destination understands it (src/daemon/log/logsink.h); under systemd's
 * WatchdogSec= the loop sends WATCHDOG=1 (src/daemon/sys/sdnotify.h).
 * Context: one thread; signals are taken synchronously (signalfd-free:
 * blocked, then collected with sigtimedwait between polls).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "daemon/checkconf.h"
#include "daemon/config/config.h"
#include "daemon/control.h"
#include "daemon/log/logsink.h"
#include "daemon/sys/bpf_source.h"
#include "daemon/sys/sdnotify.h"
#include "util/version.h"

#define DEFAULT_CONFIG "/etc/iolatd.conf"
#define DEFAULT_RUN_DIR "/run/iolatd"
#define POLL_MS 20
#define RETRY_BPF_NS 5000000000ull

struct daemon {
	struct iolatd *d;
	struct bpf_source *src;
	const char *config_path;
	const char *run_dir;
	const char *log_path;
	bool dry_run, foreground, check_only;
	uint64_t src_lost_at;
	struct sd_watchdog watchdog;
};

static bool detached;  /* after daemon(): messages go to syslog, unless a log file */
static FILE *log_file; /* --log-file, or RUN_DIR/iolatd.log when detached without syslog */
static bool to_journal; /* stderr is journald's stream: "<N>" priority prefixes */

/* One line at syslog @prio: to the log file (time-stamped), to syslog once detached, else stderr. */
static void say_line(int prio, const char *line)
{
	char out[1024];

	if (log_file) {
		char stamp[32];
		time_t t = time(NULL);
		struct tm tm;

		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", localtime_r(&t, &tm));
		fprintf(log_file, "%s iolatd[%ld]: %s\n", stamp, (long)getpid(),
			iolatd_log_format(LOG_SINK_FILE, prio, line, out, sizeof(out)));
		fflush(log_file);
	} else if (detached) {
		syslog(LOG_DAEMON | prio, "%s", line);
	} else {
		fprintf(stderr, "%s\n", iolatd_log_format(to_journal ? LOG_SINK_JOURNAL : LOG_SINK_TERMINAL, prio,
							  line, out, sizeof(out)));
	}
}

/* A line that must reach the one who started iolatd: stderr (the journal's form under systemd). */
static void __attribute__((format(printf, 2, 3))) complain(int prio, const char *fmt, ...)
{
	char line[900], out[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", iolatd_log_format(to_journal ? LOG_SINK_JOURNAL : LOG_SINK_TERMINAL, prio, line,
						  out, sizeof(out)));
}

static void __attribute__((format(printf, 2, 3))) say(int prio, const char *fmt, ...)
{
	char line[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	say_line(prio, line);
}

/* A state line for systemd (Type=notify; nothing without $NOTIFY_SOCKET). */
static void __attribute__((format(printf, 1, 2))) notify(const char *fmt, ...)
{
	static bool failed;
	char msg[512];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ret = iolatd_sd_notify_send(msg);
	if (ret < 0 && !failed) {
		failed = true;
		say(LOG_WARNING, "cannot notify systemd through $NOTIFY_SOCKET: %s", strerror(-ret));
	}
}

/* The controller loop's log lines. */
static void log_line(void *ctx, int prio, const char *line)
{
	say_line(prio, line);
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: iolatd [--config FILE] [--run-dir DIR] [--foreground] [--dry-run] [--log-file FILE]\n"
"       iolatd --check-config [FILE]\n"
"\n"
"io.latency for unmodified programs, by cgroup: completed block requests are\n"
"measured per cgroup in the kernel (BPF), libiolatency's controller decides\n"
"as the kernel's io.latency does (targets, windows, siblings clamped), and the\n"
"kernel's block throttle acts: a clamped group's allowed depth becomes rate\n"
"limits (io.max on cgroup v2, blkio.throttle.* on v1).\n"
"\n"
"  -c, --config FILE   configuration (default " DEFAULT_CONFIG "):\n"
"                        [global] device=vda     (or MAJ:MIN; several: comma-separated)\n"
"                          strict=1 (a group without its cgroup is an error), systemd=0 (do not\n"
"                          read units' IODeviceLatencyTargetSec=, IOWeight=), textfile=PATH.prom\n"
"                        [group:web] target=5ms  (a cgroup path under the io/blkio root)\n"
"                        [group:db.service]      (a systemd unit or slice, by its cgroup)\n"
"                        [group:batch] weight=300 (its share among its siblings, 1..10000)\n"
"  -r, --run-dir DIR   record of written limits and status file (default " DEFAULT_RUN_DIR ")\n"
"  -f, --foreground    stay in the foreground, logging on stderr (as under systemd);\n"
"                      without it iolatd detaches and logs to syslog (to\n"
"                      RUN_DIR/iolatd.log when there is no /dev/log)\n"
"  -l, --log-file FILE append log lines to FILE (time-stamped) instead\n"
"  -n, --dry-run       decide and report, write no limit\n"
"  -t, --check-config  check the configuration (FILE, else --config's) and exit:\n"
"                      one line per problem (FILE:LINE: ..., warnings marked),\n"
"                      exit 0 if iolatd would start with it, else 1; it writes,\n"
"                      locks and loads nothing (the unit runs it before start\n"
"                      and reload, so a bad file makes systemctl reload fail)\n"
"  -V, --version       the version, and whether this build can measure (BPF)\n"
"  -h, --help          this text\n"
"\n"
"Signals: SIGHUP reloads the configuration (state kept); SIGTERM/SIGINT remove\n"
"every limit written, restoring an administrator's own, and exit. A restart\n"
"after a crash first removes what the previous run left. One iolatd per run\n"
"directory. Under systemd: Type=notify ($NOTIFY_SOCKET), systemctl reload,\n"
"WATCHDOG=1 at half of WatchdogSec=, log priorities journalctl -p understands.\n"
"\n"
"Limits on cgroup v1: the blkio throttle cannot throttle background writeback\n"
"of buffered writes (it is charged to the root cgroup): only direct I/O, reads\n"
"and writeback a task forces itself (fsync) are limited. `iolat status` shows it.\n");
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void on_completion(void *ctx, const struct bpf_completion *c)
{
	struct daemon *dm = ctx;
	unsigned flags = (c->meta ? IOLAT_IO_META : 0) | (c->swap ? IOLAT_IO_SWAP : 0);

	iolatd_observe(dm->d, c->cgid, c->dev, c->lat_ns, c->bytes, c->write, flags, c->now_ns);
}

static int open_source(struct daemon *dm, char *err, size_t errlen)
{
	dev_t devs[IOLATD_MAX_DEVICES];
	unsigned n = iolatd_devices(dm->d, devs, IOLATD_MAX_DEVICES);

	return iolatd_bpf_source_open(devs, n, on_completion, dm, &dm->src, err, errlen);
}

static void reload(struct daemon *dm)
{
	struct iolatd_config cfg;
	char err[IOLATD_ERR_MAX];

	notify("RELOADING=1\nSTATUS=reloading %s", dm->config_path);
	if (iolatd_config_load(dm->config_path, &cfg, err, sizeof(err)) ||
	    iolatd_reload(dm->d, &cfg, err, sizeof(err))) {
		say(LOG_ERR, "reload refused, the running configuration is kept: %s", err);
		notify("READY=1\nSTATUS=reload refused, the running configuration is kept: %s", err);
		return;
	}
	say(LOG_NOTICE, "configuration reloaded from %s", dm->config_path);
	notify("READY=1\nSTATUS=configuration reloaded from %s", dm->config_path);
}

/* Losing the BPF program is not fatal: limits go, and it is reloaded every 5 s. */
static void source_lost(struct daemon *dm, int err, uint64_t now)
{
	say(LOG_ERR, "measurement lost (%s): limits removed, retrying", strerror(-err));
	iolatd_bpf_source_close(dm->src);
	dm->src = NULL;
	dm->src_lost_at = now;
	iolatd_source_lost(dm->d, now);
}

/* Stop on signal @sig: every limit removed, and a last line saying so. */
static int shut_down(struct daemon *dm, int sig)
{
	struct iolatd_counters c;
	int ret;

	notify("STOPPING=1\nSTATUS=removing every limit written");
	ret = iolatd_stop(dm->d, mono_ns());

	iolatd_counters(dm->d, &c);
	if (ret)
		say(LOG_ERR, "%s: removed %u limit(s), some could not be removed (%s): the next start retries them; exiting",
		    strsignal(sig), c.removed_at_stop, strerror(-ret));
	else
		say(LOG_NOTICE, "%s: removed %u limit(s), exiting", strsignal(sig), c.removed_at_stop);
	return ret ? 1 : 0;
}

static int run(struct daemon *dm)
{
	sigset_t set;
	struct timespec zero = { 0, 0 };
	char err[IOLATD_ERR_MAX];

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	for (;;) {
		uint64_t now = mono_ns();
		int sig, n;

		if (iolatd_sd_watchdog_due(&dm->watchdog, now))
			notify("WATCHDOG=1");
		while ((sig = sigtimedwait(&set, NULL, &zero)) > 0) {
			if (sig == SIGHUP) {
				reload(dm);
				continue;
			}
			return shut_down(dm, sig);
		}
		if (!dm->src) {
			if (now - dm->src_lost_at >= RETRY_BPF_NS) {
				dm->src_lost_at = now;
				if (!open_source(dm, err, sizeof(err))) {
					say(LOG_NOTICE, "measurement back");
					iolatd_set_source_lost(dm->d, false);
				}
			}
			usleep(POLL_MS * 1000);
			iolatd_period(dm->d, mono_ns());
			continue;
		}
		n = iolatd_bpf_source_poll(dm->src, POLL_MS);
		if (n < 0 || !iolatd_bpf_source_alive(dm->src))
			source_lost(dm, n < 0 ? n : -ENOLINK, mono_ns());
		else
			iolatd_note_dropped(dm->d, iolatd_bpf_source_dropped(dm->src));
		iolatd_period(dm->d, mono_ns());
	}
}

/*
 * Where log lines go: --log-file when given; detached without a syslog
 * socket, RUN_DIR/iolatd.log (said on stderr before detaching). Return: 0 or 1.
 */
static int open_log(struct daemon *dm)
{
	static char path[4200];
	struct stat st;

	if (!dm->log_path && !dm->foreground && (stat("/dev/log", &st) || !S_ISSOCK(st.st_mode))) {
		snprintf(path, sizeof(path), "%s/iolatd.log", dm->run_dir);
		dm->log_path = path;
		complain(LOG_NOTICE, "no syslog (/dev/log): logging to %s", path);
	}
	if (!dm->log_path)
		return 0;
	log_file = fopen(dm->log_path, "ae");
	if (!log_file) {
		complain(LOG_ERR, "--log-file %s: %s", dm->log_path, strerror(errno));
		return 1;
	}
	return 0;
}

/* iolatd --version: the release, and whether this build measures at all. */
static void print_version(void)
{
	printf("iolatd %s (libiolatency), BPF measurement: %s\n", IOLAT_VERSION_STRING,
	       iolatd_bpf_source_available() ? "built (CO-RE: relocated to the running kernel at start)" :
	       "not built (this iolatd cannot measure: rebuild with clang, bpftool and libbpf-dev)");
}

static int parse_args(int argc, char **argv, struct daemon *dm)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' }, { "run-dir", required_argument, NULL, 'r' },
		{ "foreground", no_argument, NULL, 'f' }, { "dry-run", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, 'V' },
		{ "log-file", required_argument, NULL, 'l' }, { "check-config", no_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	dm->config_path = DEFAULT_CONFIG;
	dm->run_dir = DEFAULT_RUN_DIR;
	while ((c = getopt_long(argc, argv, "c:r:fnhVl:t", opts, NULL)) != -1) {
		switch (c) {
		case 'l': dm->log_path = optarg; break;
		case 'c': dm->config_path = optarg; break;
		case 'r': dm->run_dir = optarg; break;
		case 'f': dm->foreground = true; break;
		case 'n': dm->dry_run = true; break;
		case 't': dm->check_only = true; break;
		case 'h': usage(stdout); exit(0);
		case 'V': print_version(); exit(0);
		default: usage(stderr); return 2;
		}
	}
	/* --check-config FILE, as sshd -t -f FILE: the file may follow it. */
	if (dm->check_only && optind + 1 == argc)
		dm->config_path = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "iolatd: unexpected argument '%s' (see --help)\n", argv[optind]);
		return 2;
	}
	return 0;
}

/*
 * How limits are written (actuate.h): at once where the kernel's BTF shows
 * no unsigned carry in the block throttle, else staged as for Linux 6.1;
 * IOLATD_STAGED_LIMITS=1 stages anyway. The decision is logged.
 */
static void limits_mode(struct iolatd_opts *opts)
{
	static char carry_why[256], staged_why[400];
	const char *staged = getenv("IOLATD_STAGED_LIMITS");

	opts->direct_why = carry_why;
	if (iolatd_bpf_throttle_carry(carry_why, sizeof(carry_why)) != 0)
		return;
	if (!staged || strcmp(staged, "1")) {
		opts->direct_limits = true;
		return;
	}
	snprintf(staged_why, sizeof(staged_why), "staged (IOLATD_STAGED_LIMITS=1), though the kernel allows "
		 "writing them at once%s", carry_why + 15);
	opts->direct_why = staged_why;
}

static void check_report(void *ctx, int prio, const char *line)
{
	char out[1024];

	/* As sshd -t: the line itself ("FILE:LINE: ..."); under systemd with its priority. */
	fprintf(stderr, "%s\n", to_journal ? iolatd_log_format(LOG_SINK_JOURNAL, prio, line, out, sizeof(out)) : line);
}

/* A file iolatd would refuse: every problem of it, one line each (@first if none is told). */
static void report_parse_problems(const char *file, const char *first)
{
	static char all[16384];
	char *line, *save = NULL;

	if (iolatd_config_check(file, all, sizeof(all)) == 0 || !all[0]) {
		check_report(NULL, LOG_ERR, first);
		return;
	}
	for (line = strtok_r(all, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		check_report(NULL, LOG_ERR, line);
}

/*
 * iolatd --check-config: one line per problem on stderr ("FILE:LINE: ...",
 * warnings marked), "FILE: ok ..." on stdout when it would start; exit 0 or
 * 1. Nothing is written, locked or loaded.
 */
static int check_config(const struct daemon *dm)
{
	struct iolatd_check_env env = { .report = check_report };
	struct iolatd_config cfg;
	char err[IOLATD_ERR_MAX];
	unsigned errors;

	if (iolatd_config_load(dm->config_path, &cfg, err, sizeof(err))) {
		report_parse_problems(dm->config_path, err);
		return 1;
	}
	env.allow_plain_root = getenv("IOLATD_TEST_PLAIN_CGROUP_ROOT") != NULL;
	env.systemctl = getenv("IOLATD_SYSTEMCTL");
	errors = iolatd_check_config(&cfg, &env);
	if (errors)
		return 1;
	printf("%s: ok (%u device(s), %u group(s))\n", dm->config_path, cfg.nr_devices, cfg.nr_groups);
	return 0;
}

/* Root, the signals blocked, the run directory, the log: what comes before the daemon's creation. */
static int prepare(struct daemon *dm)
{
	sigset_t set;

	/* Before anything else is tried: without root, BPF and cgroupfs fail with less clear words. */
	if (geteuid() != 0) {
		complain(LOG_ERR, "needs root: it loads a BPF program and writes cgroup files "
			 "(running as uid %ld)", (long)geteuid());
		return 1;
	}
	/* Signals are collected by the loop; block them before anything is written. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (mkdir(dm->run_dir, 0755) && errno != EEXIST) {
		complain(LOG_ERR, "run directory %s: %s", dm->run_dir, strerror(errno));
		return 1;
	}
	return open_log(dm);
}

/* The daemon and its measurement, detached unless --foreground. Return: 0, or the exit status. */
static int start(struct daemon *dm, const struct iolatd_config *cfg)
{
	struct iolatd_opts opts = { .run_dir = dm->run_dir, .dry_run = dm->dry_run, .log_at = log_line };
	char err[IOLATD_ERR_MAX];
	int ret;

	/* Tests only: a cgroup_root that is a plain directory tree laid out as a cgroup one. */
	opts.allow_plain_root = getenv("IOLATD_TEST_PLAIN_CGROUP_ROOT") != NULL;
	opts.systemctl = getenv("IOLATD_SYSTEMCTL"); /* tests: a fake systemctl; NULL: the system's */
	limits_mode(&opts);
	if ((ret = iolatd_create(cfg, &opts, &dm->d, err, sizeof(err)))) {
		complain(LOG_ERR, "%s", err);
		return ret == -EINVAL || ret == -ENODEV ? 2 : 1;
	}
	if (open_source(dm, err, sizeof(err))) {
		complain(LOG_ERR, "%s", err);
		iolatd_stop(dm->d, mono_ns());
		iolatd_destroy(dm->d);
		return 1;
	}
	if (!dm->foreground) {
		if (daemon(0, 0)) {
			say(LOG_ERR, "cannot detach: %s", strerror(errno));
			return 1;
		}
		openlog("iolatd", LOG_PID, LOG_DAEMON);
		detached = true;
		iolatd_note_pid(dm->d);
		iolatd_write_status(dm->d, mono_ns()); /* with this pid, before the start line */
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct daemon dm = { 0 };
	struct iolatd_config cfg;
	char err[IOLATD_ERR_MAX];
	int ret;

	if ((ret = parse_args(argc, argv, &dm)))
		return ret;
	to_journal = iolatd_log_stderr_is_journal(getenv("JOURNAL_STREAM"));
	if (dm.check_only)
		return check_config(&dm);
	if (iolatd_config_load(dm.config_path, &cfg, err, sizeof(err))) {
		complain(LOG_ERR, "%s", err);
		return 2;
	}
	if ((ret = prepare(&dm)) || (ret = start(&dm, &cfg)))
		return ret;
	say(LOG_NOTICE, "controlling %u device(s) on cgroup v%d at %s%s", cfg.nr_devices,
	    iolatd_cgroup_version(dm.d), iolatd_cgroup_root(dm.d), dm.dry_run ? " (dry run)" : "");
	notify("READY=1\nMAINPID=%ld\nSTATUS=controlling %u device(s) on cgroup v%d%s", (long)getpid(),
	       cfg.nr_devices, iolatd_cgroup_version(dm.d), dm.dry_run ? " (dry run)" : "");
	if (iolatd_sd_watchdog_init(&dm.watchdog, getenv("WATCHDOG_USEC"), getenv("WATCHDOG_PID"), (long)getpid(),
				    mono_ns()))
		say(LOG_WARNING, "$WATCHDOG_USEC or $WATCHDOG_PID is not a number: no watchdog notifications");
	ret = run(&dm);
	iolatd_bpf_source_close(dm.src);
	iolatd_destroy(dm.d);
	if (log_file)
		fclose(log_file);
	return ret;
}
