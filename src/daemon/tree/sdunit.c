/* SPDX-License-Identifier: MIT */
/*
 * sdunit.c - reading systemd units through `systemctl show` (sdunit.h):
 * the child, its bounded output, and the parser.
 * Context: the daemon's one thread.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "conf/value.h"
#include "daemon/tree/sdunit.h"
#include "util/units.h"

extern char **environ;

#define SHOW_MAX_OUTPUT (1 << 20)

const char *iolatd_sdunit_systemctl(const char *override)
{
	static const char *const where[] = { "/usr/bin/systemctl", "/bin/systemctl" };

	if (override)
		return override;
	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++)
		if (access(where[i], X_OK) == 0)
			return where[i];
	return NULL;
}

bool iolatd_sdunit_is_name(const char *name)
{
	static const char *const suffix[] = { ".service", ".slice", ".scope", ".socket", ".mount", ".swap" };
	size_t n = strlen(name);

	if (strchr(name, '/') || n >= SDUNIT_NAME_MAX)
		return false;
	for (size_t i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		size_t m = strlen(suffix[i]);

		if (n > m && !strcmp(name + n - m, suffix[i]))
			return true;
	}
	return false;
}

/*
 * systemd's time span as `systemctl show` prints it: blank-separated parts,
 * each a duration with its unit ("1s 500ms", "2min 3s", "750us"), summed.
 * Each part is read by the configuration grammar's duration parser
 * (conf/value.h: ns, us, ms, s, min, h, d, as systemd writes them); a part
 * without a unit is refused (systemd always writes one here).
 */
int iolatd_sdunit_parse_timespan(const char *s, uint64_t *ns)
{
	uint64_t total = 0;
	bool any = false;

	while (*s) {
		char part[32];
		size_t n;
		uint64_t v;

		while (*s == ' ')
			s++;
		if (!*s)
			break;
		n = strcspn(s, " ");
		if (n >= sizeof(part))
			return -EINVAL;
		memcpy(part, s, n);
		part[n] = '\0';
		if (isdigit((unsigned char)part[n - 1]) ||
		    iolat_conf_parse_duration(part, NSEC_PER_SEC, &v) || v > UINT64_MAX - total)
			return -EINVAL;
		total += v;
		s += n;
		any = true;
	}
	if (!any)
		return -EINVAL;
	*ns = total;
	return 0;
}

/*
 * A weight as systemctl shows it: 1..10000 into *@w; unset ("", "[not set]",
 * or older systemctl's raw UINT64_MAX) is 0. Return: 0 or -EINVAL.
 */
static int parse_weight(const char *v, unsigned *w)
{
	char *end;
	unsigned long long x;

	*w = 0;
	if (!*v || !strcmp(v, "[not set]") || !strcmp(v, "18446744073709551615"))
		return 0;
	if (!isdigit((unsigned char)*v))
		return -EINVAL;
	errno = 0;
	x = strtoull(v, &end, 10);
	if (errno || *end || x < IOLATD_WEIGHT_MIN || x > IOLATD_WEIGHT_MAX)
		return -EINVAL;
	*w = (unsigned)x;
	return 0;
}

/* IODeviceWeight=DEVICE WEIGHT of unit @u. */
static int parse_dev_weight(struct sdunit *u, const char *val, char *err, size_t errlen)
{
	const char *sp = strrchr(val, ' ');
	struct sdunit_weight *w = &u->dev_weight[u->nr_weights];

	if (!sp || sp == val || (size_t)(sp - val) >= sizeof(w->dev) || u->nr_weights == SDUNIT_MAX_TARGETS ||
	    parse_weight(sp + 1, &w->weight) || !w->weight) {
		snprintf(err, errlen, "IODeviceWeight=%s: expected DEVICE WEIGHT (1..10000)", val);
		return -EINVAL;
	}
	snprintf(w->dev, sizeof(w->dev), "%.*s", (int)(sp - val), val);
	u->nr_weights++;
	return 0;
}

/* One KEY=VALUE line of unit @u. */
static int parse_line(struct sdunit *u, const char *key, const char *val, char *err, size_t errlen)
{
	if (!strcmp(key, "Id"))
		snprintf(u->id, sizeof(u->id), "%s", val);
	else if (!strcmp(key, "LoadState"))
		snprintf(u->load_state, sizeof(u->load_state), "%s", val);
	else if (!strcmp(key, "ControlGroup"))
		snprintf(u->cgroup, sizeof(u->cgroup), "%s", val);
	else if (!strcmp(key, "IOWeight") && parse_weight(val, &u->weight)) {
		snprintf(err, errlen, "IOWeight=%s: expected a weight 1..10000 or [not set]", val);
		return -EINVAL;
	} else if (!strcmp(key, "IODeviceWeight") && *val)
		return parse_dev_weight(u, val, err, errlen);
	else if (!strcmp(key, "IODeviceLatencyTargetUSec") && *val) {
		const char *sp = strchr(val, ' ');
		struct sdunit_target *t;

		if (!sp || sp == val || (size_t)(sp - val) >= sizeof(t->dev) || u->nr_targets == SDUNIT_MAX_TARGETS) {
			snprintf(err, errlen, "IODeviceLatencyTargetUSec=%s: expected DEVICE TIMESPAN", val);
			return -EINVAL;
		}
		t = &u->target[u->nr_targets];
		snprintf(t->dev, sizeof(t->dev), "%.*s", (int)(sp - val), val);
		if (iolatd_sdunit_parse_timespan(sp + 1, &t->ns)) {
			snprintf(err, errlen, "IODeviceLatencyTargetUSec=%s: '%s' is not a time span", val, sp + 1);
			return -EINVAL;
		}
		u->nr_targets++;
	}
	return 0;
}

int iolatd_sdunit_parse_show(const char *text, struct sdunit *out, unsigned max, char *err, size_t errlen)
{
	unsigned n = 0, lineno = 0;
	bool in_unit = false;
	char line[1024];

	while (*text) {
		size_t l = strcspn(text, "\n");
		char *eq;

		lineno++;
		if (l >= sizeof(line)) {
			snprintf(err, errlen, "systemctl show: line %u longer than %zu bytes", lineno, sizeof(line) - 1);
			return -EINVAL;
		}
		memcpy(line, text, l);
		line[l] = '\0';
		text += l + (text[l] == '\n');
		if (!*line) {
			in_unit = false;
			continue;
		}
		if (!(eq = strchr(line, '=')) || eq == line) {
			snprintf(err, errlen, "systemctl show: line %u: expected KEY=VALUE, got '%s'", lineno, line);
			return -EINVAL;
		}
		if (!in_unit) {
			if (n == max)
				break;
			memset(&out[n++], 0, sizeof(out[0]));
			in_unit = true;
		}
		*eq = '\0';
		if (parse_line(&out[n - 1], line, eq + 1, err, errlen))
			return -EINVAL;
	}
	return (int)n;
}

/* Read the child's output into @buf until EOF or the deadline. Return: bytes, or -ETIMEDOUT. */
static ssize_t read_until(int fd, char *buf, size_t cap, int timeout_ms)
{
	struct timespec t0, t;
	size_t got = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long left;
		ssize_t r;

		clock_gettime(CLOCK_MONOTONIC, &t);
		left = timeout_ms - ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(&p, 1, (int)left) <= 0)
			continue;
		r = read(fd, buf + got, cap - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || (got += (size_t)r) == cap - 1)
			break;
	}
	buf[got] = '\0';
	return (ssize_t)got;
}

/* Run @argv, its stdout into @buf (stdin, stderr: /dev/null). Return: its exit status, or -errno. */
static int run_child(char *const *argv, char *buf, size_t cap)
{
	posix_spawn_file_actions_t fa;
	int pipefd[2], status, ret;
	ssize_t got;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	ret = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (ret) {
		close(pipefd[0]);
		return -ret;
	}
	got = read_until(pipefd[0], buf, cap, SDUNIT_TIMEOUT_MS);
	close(pipefd[0]);
	if (got < 0)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (got < 0)
		return (int)got;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int iolatd_sdunit_show(const char *systemctl, const char *const *args, unsigned nargs, struct sdunit *out,
		unsigned max, char *err, size_t errlen)
{
	const char *argv[16] = { systemctl, "show", "-p",
				 "Id,LoadState,ControlGroup,IODeviceLatencyTargetUSec,IOWeight,IODeviceWeight", "--" };
	unsigned argc = 5;
	char *buf;
	int ret;

	for (unsigned i = 0; i < nargs && argc < 15; i++)
		argv[argc++] = args[i];
	argv[argc] = NULL;
	buf = malloc(SHOW_MAX_OUTPUT);
	if (!buf)
		return -ENOMEM;
	ret = run_child((char *const *)argv, buf, SHOW_MAX_OUTPUT);
	if (ret < 0)
		snprintf(err, errlen, "%s show: %s", systemctl, ret == -ETIMEDOUT ? "no answer within 3 s" :
			 strerror(-ret));
	else if (ret > 0) {
		snprintf(err, errlen, "%s show: exit status %d", systemctl, ret);
		ret = -EIO;
	} else {
		ret = iolatd_sdunit_parse_show(buf, out, max, err, errlen);
	}
	free(buf);
	return ret;
}
