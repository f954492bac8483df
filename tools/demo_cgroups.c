/* SPDX-License-Identifier: MIT */
/*
 * demo_cgroups.c - `iolat demo --cgroups`: the article's story with
 * unmodified programs. fio as the main workload (4 KiB random reads, QD 1)
 * and fio as the package download (1 MiB O_DIRECT writes, QD 32) run in two
 * sibling cgroups created for the demo (blkio on v1, io on v2) and removed
 * after: without control, with a static io.max-style cap on the writer's
 * cgroup, and under iolatd (the daemon binary beside iolat, or in PATH).
 * Same table as `iolat demo`. Needs root, fio, a cgroup hierarchy with the
 * block throttle, and for the third mode an iolatd built with BPF.
 * Cleans up (children, daemon, limits, cgroups, files) on every path,
 * SIGINT and SIGTERM included.
 * Context: the CLI's main thread (plus a SIGINT handler that sets a flag).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "daemon/status/statusfile.h"
#include "daemon/sys/cgroupfs.h"
#include "demo_cgroups.h"
#include "iolatency.h"
#include "util/readfile.h"

enum cg_mode { CM_NONE, CM_CAP, CM_IOLATD, CM_NR };

static const char *const cm_names[CM_NR] = { "no control", "static cap", "iolatd" };

struct cg_demo {
	const char *dir;
	unsigned seconds;
	char target[32];
	struct cgfs_root root;
	char base[IOLATD_PATH_MAX + 32], main_cg[IOLATD_PATH_MAX + 64], bg_cg[IOLATD_PATH_MAX + 64];
	char tmp[64], rfile[1024], wfile[1024], iolatd[PATH_MAX + 16];
	dev_t dev;
	bool made_base, made_main, made_bg, made_tmp;
	pid_t daemon;
	struct {
		bool ran;
		char label[64];
		uint64_t p50, p90, p99;
		double w_mib_s;
		uint32_t depth_min;    /* iolatd mode: the lowest allowed depth seen */
	} res[CM_NR];
};

static volatile sig_atomic_t cg_stop;

static void cg_on_sigint(int sig)
{
	cg_stop = 1;
}

bool iolat_demo_wants_cgroups(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--cgroups"))
			return true;
	return false;
}

static void cg_usage(FILE *f)
{
	fprintf(f,
"usage: iolat demo --cgroups [--dir D] [--seconds N] [--target T]\n"
"\n"
"The story with unmodified programs: fio 4 KiB random reads at QD 1 (cgroup\n"
"main, with the target) beside fio 1 MiB O_DIRECT writes at QD 32 (cgroup\n"
"fbpkg), two sibling cgroups created for the demo and removed after; run with\n"
"no control, with a static cap on fbpkg (a quarter of its uncontrolled rate,\n"
"written to the block throttle), and under iolatd. Needs root, fio, cgroup v1\n"
"blkio or v2 io, and iolatd built with BPF (beside iolat or in PATH).\n"
"  --dir D      where the two data files go (default .; removed after)\n"
"  --seconds N  per mode (default 10)\n"
"  --target T   main's target (default 1ms)\n");
}

/* ---- small helpers ---- */

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		err = -errno ? -errno : -EIO;
	close(fd);
	return err;
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A number after the chain of quoted keys in fio's JSON; 0 if absent. */
static double json_num(const char *text, const char *const *keys, unsigned n)
{
	const char *p = text;

	for (unsigned i = 0; i < n && p; i++) {
		char q[64];

		snprintf(q, sizeof(q), "\"%s\" :", keys[i]); /* a key, not a value like "rw" : "write" */
		p = strstr(p, q);
		if (p)
			p += strlen(q);
	}
	return p ? strtod(p, NULL) : 0; /* p is just past the last key's colon */
}

/* The whole of @path (fio's JSON, iolatd's log: well under 16 MiB), or NULL. */
static char *slurp(const char *path)
{
	char *text;
	size_t len;

	return iolat_read_file(path, 16u << 20, &text, &len) ? NULL : text;
}

/* ---- child processes in cgroups ---- */

/* fork; the child joins @cg and runs @argv with stdout to @out (or /dev/null). */
static pid_t spawn_in(const char *cg, char *const argv[], const char *out)
{
	pid_t pid = fork();

	if (pid == 0) {
		char procs[PATH_MAX + 16], me[32];
		int fd = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);

		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_DFL);
		if (cg) {
			snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg);
			snprintf(me, sizeof(me), "%d", (int)getpid());
			if (write_file(procs, me))
				_exit(126);
		}
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* Wait for @pid; SIGTERM it at @deadline_ms (0: none) or on SIGINT. Return: its status. */
static int wait_child(pid_t pid, uint64_t deadline_ms)
{
	bool termed = false;
	int st = 0;

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid || (r < 0 && errno != EINTR))
			return st;
		if (!termed && (cg_stop || (deadline_ms && mono_ms() >= deadline_ms))) {
			kill(pid, SIGTERM);
			termed = true;
		}
		usleep(20000);
	}
}

static void fio_reader(const struct cg_demo *d, const char *json, pid_t *pid)
{
	char rt[32], ramp[32], fn[1100], out[160];
	char *argv[] = { "fio", "--name=main", fn, "--size=256m", "--rw=randread", "--bs=4k",
			 "--iodepth=1", "--ioengine=psync", "--direct=1", "--time_based", rt, ramp,
			 "--output-format=json", out, NULL };

	snprintf(fn, sizeof(fn), "--filename=%s", d->rfile);
	snprintf(rt, sizeof(rt), "--runtime=%u", d->seconds);
	snprintf(ramp, sizeof(ramp), "--ramp_time=2");
	snprintf(out, sizeof(out), "--output=%s", json);
	*pid = spawn_in(d->main_cg, argv, NULL);
}

static void fio_writer(const struct cg_demo *d, const char *json, pid_t *pid)
{
	char rt[32], fn[1100], out[160];
	char *argv[] = { "fio", "--name=fbpkg", fn, "--size=1g", "--rw=write", "--bs=1m",
			 "--iodepth=32", "--ioengine=libaio", "--direct=1", "--time_based", rt,
			 "--output-format=json", out, NULL };

	snprintf(fn, sizeof(fn), "--filename=%s", d->wfile);
	snprintf(rt, sizeof(rt), "--runtime=%u", d->seconds + 3);
	snprintf(out, sizeof(out), "--output=%s", json);
	*pid = spawn_in(d->bg_cg, argv, NULL);
}

/* ---- set-up and clean-up ---- */

static int make_cg(const char *path, bool *made)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	*made = true;
	return 0;
}

static void remove_cg(const char *path, bool *made)
{
	if (!*made)
		return;
	for (int i = 0; i < 100 && rmdir(path) && errno == EBUSY; i++)
		usleep(100000); /* a child not reaped yet */
	*made = false;
}

static void cleanup(struct cg_demo *d)
{
	struct cg_limits none = { { 0 } };
	char path[128];

	if (d->daemon > 0) {
		kill(d->daemon, SIGTERM);
		wait_child(d->daemon, mono_ms() + 5000);
		d->daemon = 0;
	}
	if (d->made_bg)
		iolatd_cgfs_write_limits(&d->root, d->bg_cg, d->dev, &none, NULL);
	remove_cg(d->main_cg, &d->made_main);
	remove_cg(d->bg_cg, &d->made_bg);
	remove_cg(d->base, &d->made_base);
	unlink(d->rfile);
	unlink(d->wfile);
	if (d->made_tmp) {
		static const char *const files[] = { "iolatd.conf", "iolatd.log", "limits", "status",
						     "main.json", "fbpkg.json", "layout.json" };

		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			snprintf(path, sizeof(path), "%s/%s", d->tmp, files[i]);
			unlink(path);
		}
		rmdir(d->tmp);
	}
}

/* The disk under --dir (the whole disk if it is a partition). */
static int find_disk(struct cg_demo *d)
{
	char path[128], buf[32];
	struct stat st;
	unsigned maj, min;
	FILE *f;

	if (stat(d->dir, &st))
		return -errno;
	d->dev = st.st_dev;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/partition", major(d->dev), minor(d->dev));
	if (access(path, F_OK) == 0) {
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../dev", major(d->dev), minor(d->dev));
		f = fopen(path, "r");
		if (!f)
			return -ENODEV;
		if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%u:%u", &maj, &min) != 2) {
			fclose(f);
			return -ENODEV;
		}
		fclose(f);
		d->dev = makedev(maj, min);
	}
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue", major(d->dev), minor(d->dev));
	return access(path, F_OK) ? -ENODEV : 0;
}

/* iolatd beside this iolat, else in PATH. Return: true when one is found. */
static bool find_iolatd(struct cg_demo *d)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			snprintf(d->iolatd, sizeof(d->iolatd), "%s/iolatd", self);
			if (access(d->iolatd, X_OK) == 0)
				return true;
		}
	}
	snprintf(d->iolatd, sizeof(d->iolatd), "iolatd");
	return system("command -v iolatd >/dev/null 2>&1") == 0;
}

/* cgroup v2: the demo's children get io.max only with io enabled in their parent. */
static int enable_io(struct cg_demo *d)
{
	char path[IOLATD_PATH_MAX + 64];

	if (d->root.version != 2)
		return 0;
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", d->base);
	return write_file(path, "+io");
}

static int setup(struct cg_demo *d, char *err, size_t errlen)
{
	char w[256];
	int ret;

	if (geteuid() != 0) {
		snprintf(err, errlen, "needs root (it creates cgroups and writes throttle limits)");
		return -EPERM;
	}
	if (system("command -v fio >/dev/null 2>&1")) {
		snprintf(err, errlen, "needs fio (apt-get install fio)");
		return -ENOENT;
	}
	if (iolatd_cgfs_find_root(NULL, false, &d->root, w, sizeof(w))) {
		snprintf(err, errlen, "no cgroup hierarchy with the block throttle: %s", w);
		return -ENOENT;
	}
	if ((ret = find_disk(d))) {
		snprintf(err, errlen, "--dir %s is not on a plain block device", d->dir);
		return ret;
	}
	snprintf(d->base, sizeof(d->base), "%s/iolat-demo-%d", d->root.path, (int)getpid());
	snprintf(d->main_cg, sizeof(d->main_cg), "%s/main", d->base);
	snprintf(d->bg_cg, sizeof(d->bg_cg), "%s/fbpkg", d->base);
	snprintf(d->rfile, sizeof(d->rfile), "%s/iolat-demo-%d.read", d->dir, (int)getpid());
	snprintf(d->wfile, sizeof(d->wfile), "%s/iolat-demo-%d.write", d->dir, (int)getpid());
	snprintf(d->tmp, sizeof(d->tmp), "/tmp/iolat-demo-cg-XXXXXX");
	if (!mkdtemp(d->tmp)) {
		snprintf(err, errlen, "cannot make a temp dir: %s", strerror(errno));
		return -errno;
	}
	d->made_tmp = true;
	if ((ret = make_cg(d->base, &d->made_base)) || (ret = enable_io(d)) ||
	    (ret = make_cg(d->main_cg, &d->made_main)) || (ret = make_cg(d->bg_cg, &d->made_bg))) {
		snprintf(err, errlen, "cannot create cgroups under %s: %s", d->root.path, strerror(-ret));
		return ret;
	}
	return 0;
}

/* The reader's file, written once before the modes, with nothing else running. */
static int lay_out(struct cg_demo *d, char *err, size_t errlen)
{
	char fn[1100];
	char *argv[] = { "fio", "--name=layout", fn, "--size=256m", "--rw=write", "--bs=1m",
			 "--direct=1", NULL };
	pid_t pid;
	int st;

	snprintf(fn, sizeof(fn), "--filename=%s", d->rfile);
	fprintf(stderr, "iolat demo: laying out %s (256 MiB)\n", d->rfile);
	pid = spawn_in(NULL, argv, NULL);
	st = wait_child(pid, 0);
	if (cg_stop)
		return -EINTR;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		snprintf(err, errlen, "fio could not lay out the reader's file in %.200s", d->dir);
		return -EIO;
	}
	return 0;
}

/* ---- the modes ---- */

static int start_daemon(struct cg_demo *d, char *err, size_t errlen)
{
	char conf[128], log[128], text[1024], *argv[8];
	const char *rel = d->base + strlen(d->root.path) + 1;

	snprintf(conf, sizeof(conf), "%s/iolatd.conf", d->tmp);
	snprintf(log, sizeof(log), "%s/iolatd.log", d->tmp);
	snprintf(text, sizeof(text), "[global]\ndevice=%u:%u\n\n[group:%s/main]\ntarget=%s\n",
		 major(d->dev), minor(d->dev), rel, d->target);
	{
		FILE *f = fopen(conf, "w");

		if (!f || fputs(text, f) < 0) {
			if (f)
				fclose(f);
			snprintf(err, errlen, "cannot write %s", conf);
			return -EIO;
		}
		fclose(f);
	}
	argv[0] = d->iolatd;
	argv[1] = "--foreground";
	argv[2] = "--config";
	argv[3] = conf;
	argv[4] = "--run-dir";
	argv[5] = d->tmp;
	argv[6] = NULL;
	d->daemon = spawn_in(NULL, argv, log);
	for (int i = 0; i < 100; i++) {
		char *l = slurp(log);
		bool up = l && strstr(l, "controlling");
		int st;

		if (l && !up && waitpid(d->daemon, &st, WNOHANG) == d->daemon) {
			l[strcspn(l, "\n")] = '\0';
			snprintf(err, errlen, "iolatd did not start: %s", l);
			free(l);
			d->daemon = 0;
			return -EIO;
		}
		free(l);
		if (up)
			return 0;
		usleep(50000);
	}
	snprintf(err, errlen, "iolatd did not start within 5 s");
	return -ETIMEDOUT;
}

/* The lowest allowed depth of fbpkg in iolatd's status now. */
static void sample_depth(struct cg_demo *d)
{
	char path[128], why[128];
	struct status_file s;

	snprintf(path, sizeof(path), "%s/status", d->tmp);
	if (iolatd_status_read(path, &s, why, sizeof(why)))
		return;
	for (unsigned i = 1; i < s.n; i++) {
		const char *p = iolatd_status_get(&s.recs[i], "path"), *dep = iolatd_status_get(&s.recs[i], "depth");

		if (p && dep && strstr(p, "/fbpkg") && dep[0] != '-' && strcmp(dep, "max")) { /* -1: unlimited */
			uint32_t v = (uint32_t)strtoul(dep, NULL, 10);

			if (v < d->res[CM_IOLATD].depth_min)
				d->res[CM_IOLATD].depth_min = v;
		}
	}
	iolatd_status_free(&s);
}

static int run_mode(struct cg_demo *d, enum cg_mode m, uint64_t cap_bps, char *err, size_t errlen)
{
	char rjson[128], wjson[128], *text;
	static const char *const p50[] = { "read", "clat_ns", "percentile", "50.000000" };
	static const char *const p90[] = { "read", "clat_ns", "percentile", "90.000000" };
	static const char *const p99[] = { "read", "clat_ns", "percentile", "99.000000" };
	static const char *const wbw[] = { "write", "bw_bytes" };
	struct cg_limits cap = { { 0, cap_bps, 0, 0 } };
	pid_t rpid, wpid;
	uint64_t end;
	int ret;

	d->res[m].depth_min = IOLAT_DEPTH_MAX;
	if (m == CM_CAP && (ret = iolatd_cgfs_write_limits(&d->root, d->bg_cg, d->dev, &cap, NULL))) {
		snprintf(err, errlen, "cannot write the cap: %s", strerror(-ret));
		return ret;
	}
	if (m == CM_IOLATD && (ret = start_daemon(d, err, errlen)))
		return ret;
	snprintf(rjson, sizeof(rjson), "%s/main.json", d->tmp);
	snprintf(wjson, sizeof(wjson), "%s/fbpkg.json", d->tmp);
	fprintf(stderr, "iolat demo: %s, %u s...\n", cm_names[m], d->seconds + 2);
	fio_writer(d, wjson, &wpid);
	usleep(500000);
	fio_reader(d, rjson, &rpid);
	end = mono_ms() + (d->seconds + 20) * 1000ull; /* ramp, start-up, a slow shared disk */
	while (waitpid(rpid, NULL, WNOHANG) == 0 && !cg_stop && mono_ms() < end) {
		if (m == CM_IOLATD)
			sample_depth(d);
		usleep(200000);
	}
	wait_child(rpid, mono_ms());
	wait_child(wpid, mono_ms());
	if (m == CM_CAP)
		iolatd_cgfs_write_limits(&d->root, d->bg_cg, d->dev, &(struct cg_limits){ { 0 } }, NULL);
	if (m == CM_IOLATD) {
		kill(d->daemon, SIGTERM);
		wait_child(d->daemon, mono_ms() + 5000);
		d->daemon = 0;
	}
	if (cg_stop)
		return -EINTR;
	text = slurp(rjson);
	d->res[m].p50 = text ? (uint64_t)json_num(text, p50, 4) : 0;
	d->res[m].p90 = text ? (uint64_t)json_num(text, p90, 4) : 0;
	d->res[m].p99 = text ? (uint64_t)json_num(text, p99, 4) : 0;
	free(text);
	text = slurp(wjson);
	d->res[m].w_mib_s = text ? json_num(text, wbw, 2) / 1048576.0 : 0;
	free(text);
	if (!d->res[m].p50) {
		snprintf(err, errlen, "%s: fio's reader reported nothing (see fio's output)", cm_names[m]);
		return -EIO;
	}
	d->res[m].ran = true;
	return 0;
}

static void fmt_lat(uint64_t ns, char *buf, size_t len)
{
	if (ns >= 1000000)
		snprintf(buf, len, "%.2fms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.1fus", (double)ns / 1e3);
}

static void print_table(const struct cg_demo *d)
{
	printf("\niolat demo --cgroups: fio 4 KiB random reads QD 1 (cgroup main, target %s) beside\n"
	       "fio 1 MiB O_DIRECT writes QD 32 (cgroup fbpkg), siblings under %s, %u s per mode,\n"
	       "disk %u:%u, files in %s\n\n", d->target, d->base, d->seconds, major(d->dev), minor(d->dev),
	       d->dir);
	printf("%-26s %11s %11s %11s %13s %13s\n", "mode", "reader p50", "reader p90", "reader p99",
	       "writer MiB/s", "writer depth");
	for (unsigned m = 0; m < CM_NR; m++) {
		char a[32], b[32], c[32], depth[32];

		if (!d->res[m].ran)
			continue;
		fmt_lat(d->res[m].p50, a, sizeof(a));
		fmt_lat(d->res[m].p90, b, sizeof(b));
		fmt_lat(d->res[m].p99, c, sizeof(c));
		if (m != CM_IOLATD)
			snprintf(depth, sizeof(depth), "-");
		else if (d->res[m].depth_min == IOLAT_DEPTH_MAX)
			snprintf(depth, sizeof(depth), "max");
		else
			snprintf(depth, sizeof(depth), "min %u", d->res[m].depth_min);
		printf("%-26s %11s %11s %11s %13.1f %13s\n", d->res[m].label, a, b, c, d->res[m].w_mib_s,
		       depth);
	}
}

static int parse(struct cg_demo *d, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		uint64_t ns;

		if (!strcmp(a, "--cgroups"))
			continue;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			cg_usage(stdout);
			return 1;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "iolat demo: unknown argument '%s' with --cgroups (see --cgroups --help)\n", a);
			return 2;
		}
		if (!strcmp(a, "--dir")) {
			d->dir = argv[++i];
		} else if (!strcmp(a, "--seconds")) {
			char *end;
			unsigned long s = strtoul(argv[++i], &end, 10);

			if (*end || s < 2 || s > 3600) {
				fprintf(stderr, "iolat demo: --seconds: '%s' is not 2..3600\n", argv[i]);
				return 2;
			}
			d->seconds = (unsigned)s;
		} else if (!strcmp(a, "--target")) {
			if (iolat_parse_duration(argv[++i], &ns) || !ns || strlen(argv[i]) >= sizeof(d->target)) {
				fprintf(stderr, "iolat demo: --target: '%s' is not a latency like 1ms\n", argv[i]);
				return 2;
			}
			snprintf(d->target, sizeof(d->target), "%s", argv[i]);
		} else {
			fprintf(stderr, "iolat demo: unknown argument '%s' with --cgroups\n", a);
			return 2;
		}
	}
	return 0;
}

int iolat_demo_cgroups(int argc, char **argv)
{
	struct cg_demo d = { .dir = ".", .seconds = 10, .target = "1ms" };
	struct sigaction sa = { .sa_handler = cg_on_sigint }, old, old_term;
	char why[512] = "";
	int rc, ret;

	if ((rc = parse(&d, argc, argv)))
		return rc == 1 ? IOLAT_EXIT_OK : IOLAT_EXIT_USAGE;
	if (strlen(d.dir) > 900 || access(d.dir, W_OK)) {
		fprintf(stderr, "iolat demo: --dir: cannot write in '%s'\n", d.dir);
		return IOLAT_EXIT_USAGE;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	sigaction(SIGTERM, &sa, &old_term); /* the same clean-up */
	cg_stop = 0;
	ret = setup(&d, why, sizeof(why));
	if (!ret)
		ret = lay_out(&d, why, sizeof(why));
	for (unsigned m = 0; !ret && m < CM_NR && !cg_stop; m++) {
		uint64_t cap = (uint64_t)(d.res[CM_NONE].w_mib_s * 1048576.0 / 4);

		if (m == CM_CAP)
			snprintf(d.res[m].label, sizeof(d.res[m].label), "static cap (%.0f MiB/s)",
				 (double)(cap ? cap : 1048576) / 1048576.0);
		else if (m == CM_IOLATD)
			snprintf(d.res[m].label, sizeof(d.res[m].label), "iolatd (target %s)", d.target);
		else
			snprintf(d.res[m].label, sizeof(d.res[m].label), "%s", cm_names[m]);
		if (m == CM_IOLATD && !find_iolatd(&d)) {
			snprintf(why, sizeof(why), "iolatd not found beside iolat or in PATH: its mode is skipped");
			break;
		}
		ret = run_mode(&d, m, cap ? cap : 1048576, why, sizeof(why));
	}
	cleanup(&d);
	sigaction(SIGINT, &old, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (cg_stop)
		fprintf(stderr, "iolat demo: interrupted\n");
	else if (*why)
		fprintf(stderr, "iolat demo --cgroups: %s\n", why);
	print_table(&d);
	return d.res[CM_NONE].ran && !ret && !cg_stop ? IOLAT_EXIT_OK : IOLAT_EXIT_FAILED;
}
