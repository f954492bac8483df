/* SPDX-License-Identifier: MIT */
/*
 * iolatd.c - the daemon's main: io.latency for unmodified programs, by
 * cgroup. Reads the configuration, measures completions in the kernel (BPF),
 * decides with libiolatency's controller and acts through the kernel's
 * block throttle (src/daemon/control.c). Signals: SIGHUP reloads the
 * configuration keeping the controllers' state; SIGTERM and SIGINT remove
 * every limit written and exit 0.
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

#include "daemon/bpf_source.h"
#include "daemon/config.h"
#include "daemon/control.h"
#include "daemon/sdnotify.h"

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
	bool dry_run, foreground;
	uint64_t src_lost_at;
};

static bool detached;  /* after daemon(): messages go to syslog, unless a log file */
static FILE *log_file; /* --log-file, or RUN_DIR/iolatd.log when detached without syslog */

/* One message line: to the log file (time-stamped), to syslog once detached, else stderr. */
static void __attribute__((format(printf, 1, 2))) say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (log_file) {
		char stamp[32];
		time_t t = time(NULL);
		struct tm tm;

		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", localtime_r(&t, &tm));
		fprintf(log_file, "%s iolatd[%ld]: ", stamp, (long)getpid());
		vfprintf(log_file, fmt, ap);
		fputc('\n', log_file);
		fflush(log_file);
	} else if (detached) {
		vsyslog(LOG_DAEMON | LOG_NOTICE, fmt, ap);
	} else {
		fputs("iolatd: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
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
		say("cannot notify systemd through $NOTIFY_SOCKET: %s", strerror(-ret));
	}
}

/* The controller loop's log lines. */
static void log_line(void *ctx, const char *line)
{
	say("%s", line);
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: iolatd [--config FILE] [--run-dir DIR] [--foreground] [--dry-run] [--log-file FILE]\n"
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
"                          read units' IODeviceLatencyTargetSec=), textfile=PATH.prom (metrics)\n"
"                        [group:web] target=5ms  (a cgroup path under the io/blkio root)\n"
"                        [group:db.service]      (a systemd unit or slice, by its cgroup)\n"
"  -r, --run-dir DIR   record of written limits and status file (default " DEFAULT_RUN_DIR ")\n"
"  -f, --foreground    stay in the foreground, logging on stderr (as under systemd);\n"
"                      without it iolatd detaches and logs to syslog (to\n"
"                      RUN_DIR/iolatd.log when there is no /dev/log)\n"
"  -l, --log-file FILE append log lines to FILE (time-stamped) instead\n"
"  -n, --dry-run       decide and report, write no limit\n"
"  -V, --version       whether this build can measure (BPF)\n"
"  -h, --help          this text\n"
"\n"
"Signals: SIGHUP reloads the configuration (state kept); SIGTERM/SIGINT remove\n"
"every limit written, restoring an administrator's own, and exit. A restart\n"
"after a crash first removes what the previous run left. One iolatd per run\n"
"directory. Under systemd: Type=notify ($NOTIFY_SOCKET), systemctl reload.\n"
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
		say("reload refused, the running configuration is kept: %s", err);
		notify("READY=1\nSTATUS=reload refused, the running configuration is kept: %s", err);
		return;
	}
	say("configuration reloaded from %s", dm->config_path);
	notify("READY=1\nSTATUS=configuration reloaded from %s", dm->config_path);
}

/* Losing the BPF program is not fatal: limits go, and it is reloaded every 5 s. */
static void source_lost(struct daemon *dm, int err, uint64_t now)
{
	say("measurement lost (%s): limits removed, retrying", strerror(-err));
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
		say("%s: removed %u limit(s), some could not be removed (%s): the next start retries them; exiting",
		    strsignal(sig), c.removed_at_stop, strerror(-ret));
	else
		say("%s: removed %u limit(s), exiting", strsignal(sig), c.removed_at_stop);
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
					say("measurement back");
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
		fprintf(stderr, "iolatd: no syslog (/dev/log): logging to %s\n", path);
	}
	if (!dm->log_path)
		return 0;
	log_file = fopen(dm->log_path, "ae");
	if (!log_file) {
		fprintf(stderr, "iolatd: --log-file %s: %s\n", dm->log_path, strerror(errno));
		return 1;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct daemon *dm)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' }, { "run-dir", required_argument, NULL, 'r' },
		{ "foreground", no_argument, NULL, 'f' }, { "dry-run", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, 'V' },
		{ "log-file", required_argument, NULL, 'l' }, { NULL, 0, NULL, 0 },
	};
	int c;

	dm->config_path = DEFAULT_CONFIG;
	dm->run_dir = DEFAULT_RUN_DIR;
	while ((c = getopt_long(argc, argv, "c:r:fnhVl:", opts, NULL)) != -1) {
		switch (c) {
		case 'l': dm->log_path = optarg; break;
		case 'c': dm->config_path = optarg; break;
		case 'r': dm->run_dir = optarg; break;
		case 'f': dm->foreground = true; break;
		case 'n': dm->dry_run = true; break;
		case 'h': usage(stdout); exit(0);
		case 'V':
			printf("iolatd (libiolatency) BPF measurement: %s\n",
			       iolatd_bpf_source_available() ? "built" : "not built");
			exit(0);
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "iolatd: unexpected argument '%s' (see --help)\n", argv[optind]);
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct daemon dm = { 0 };
	struct iolatd_config cfg;
	struct iolatd_opts opts = { 0 };
	char err[IOLATD_ERR_MAX];
	sigset_t set;
	int ret;

	if ((ret = parse_args(argc, argv, &dm)))
		return ret;
	if (iolatd_config_load(dm.config_path, &cfg, err, sizeof(err))) {
		fprintf(stderr, "iolatd: %s\n", err);
		return 2;
	}
	/* Before anything else is tried: without root, BPF and cgroupfs fail with less clear words. */
	if (geteuid() != 0) {
		fprintf(stderr, "iolatd: needs root: it loads a BPF program and writes cgroup files "
			"(running as uid %ld)\n", (long)geteuid());
		return 1;
	}
	/* Signals are collected by the loop; block them before anything is written. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (mkdir(dm.run_dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "iolatd: run directory %s: %s\n", dm.run_dir, strerror(errno));
		return 1;
	}
	if (open_log(&dm))
		return 1;
	opts.run_dir = dm.run_dir;
	opts.dry_run = dm.dry_run;
	opts.log = log_line;
	/* Tests only: a cgroup_root that is a plain directory tree laid out as a cgroup one. */
	opts.allow_plain_root = getenv("IOLATD_TEST_PLAIN_CGROUP_ROOT") != NULL;
	opts.systemctl = getenv("IOLATD_SYSTEMCTL"); /* tests: a fake systemctl; NULL: the system's */
	if ((ret = iolatd_create(&cfg, &opts, &dm.d, err, sizeof(err)))) {
		fprintf(stderr, "iolatd: %s\n", err);
		return ret == -EINVAL || ret == -ENODEV ? 2 : 1;
	}
	if (open_source(&dm, err, sizeof(err))) {
		fprintf(stderr, "iolatd: %s\n", err);
		iolatd_stop(dm.d, mono_ns());
		iolatd_destroy(dm.d);
		return 1;
	}
	if (!dm.foreground) {
		if (daemon(0, 0)) {
			say("cannot detach: %s", strerror(errno));
			return 1;
		}
		openlog("iolatd", LOG_PID, LOG_DAEMON);
		detached = true;
		iolatd_note_pid(dm.d);
		iolatd_write_status(dm.d, mono_ns()); /* with this pid, before the start line */
	}
	say("controlling %u device(s) on cgroup v%d at %s%s", cfg.nr_devices,
		iolatd_cgroup_version(dm.d), iolatd_cgroup_root(dm.d), dm.dry_run ? " (dry run)" : "");
	notify("READY=1\nMAINPID=%ld\nSTATUS=controlling %u device(s) on cgroup v%d%s", (long)getpid(),
	       cfg.nr_devices, iolatd_cgroup_version(dm.d), dm.dry_run ? " (dry run)" : "");
	ret = run(&dm);
	iolatd_bpf_source_close(dm.src);
	iolatd_destroy(dm.d);
	if (log_file)
		fclose(log_file);
	return ret;
}
