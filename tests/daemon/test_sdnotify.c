/* SPDX-License-Identifier: MIT */
/*
 * test_sdnotify.c - what iolatd tells systemd and journald, on a virtual
 * clock where time matters: the watchdog is off without $WATCHDOG_USEC, off
 * when $WATCHDOG_PID names another process, refuses a value that is not a
 * number, and once on sends its first WATCHDOG=1 at once and the next ones
 * half an interval apart (not before, and after a late turn of the loop,
 * half an interval from then); a datagram really reaches $NOTIFY_SOCKET. Log
 * lines: "<N>" priority prefixes for the journal (3 error, 4 warning, 5
 * notice, 6 info), the marked words on a terminal and in a file, and the
 * journal recognized only when $JOURNAL_STREAM names stderr itself.
 * Context: single-threaded cmocka program.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <syslog.h>
#include <unistd.h>
#include <cmocka.h>

#include "daemon/log/logsink.h"
#include "daemon/sys/sdnotify.h"

#define SEC 1000000000ull

static void test_watchdog_off(void **state)
{
	struct sd_watchdog w;

	assert_int_equal(iolatd_sd_watchdog_init(&w, NULL, NULL, 42, 5 * SEC), 0);
	assert_false(iolatd_sd_watchdog_due(&w, 5 * SEC));
	assert_false(iolatd_sd_watchdog_due(&w, 500 * SEC));
	assert_int_equal(iolatd_sd_watchdog_init(&w, "0", NULL, 42, 5 * SEC), 0);
	assert_false(iolatd_sd_watchdog_due(&w, 500 * SEC));
	/* Meant for another process (a child of ours would inherit the variables). */
	assert_int_equal(iolatd_sd_watchdog_init(&w, "30000000", "41", 42, 5 * SEC), 0);
	assert_false(iolatd_sd_watchdog_due(&w, 500 * SEC));
	assert_int_equal(iolatd_sd_watchdog_init(&w, "30s", NULL, 42, 5 * SEC), -EINVAL);
	assert_false(iolatd_sd_watchdog_due(&w, 500 * SEC));
	assert_int_equal(iolatd_sd_watchdog_init(&w, "30000000", "me", 42, 5 * SEC), -EINVAL);
	assert_false(iolatd_sd_watchdog_due(&w, 500 * SEC));
}

static void test_watchdog_half_interval(void **state)
{
	struct sd_watchdog w;
	uint64_t t0 = 100 * SEC;

	/* WatchdogSec=30s: WATCHDOG_USEC=30000000, for this pid. */
	assert_int_equal(iolatd_sd_watchdog_init(&w, "30000000", "42", 42, t0), 0);
	assert_true(iolatd_sd_watchdog_due(&w, t0));           /* at once */
	assert_false(iolatd_sd_watchdog_due(&w, t0 + 1));
	assert_false(iolatd_sd_watchdog_due(&w, t0 + 15 * SEC - 1));
	assert_true(iolatd_sd_watchdog_due(&w, t0 + 15 * SEC)); /* half of 30 s */
	assert_false(iolatd_sd_watchdog_due(&w, t0 + 15 * SEC + 20000000));
	/* A loop turn 5 s late: sent then, the next 15 s after it. */
	assert_true(iolatd_sd_watchdog_due(&w, t0 + 35 * SEC));
	assert_false(iolatd_sd_watchdog_due(&w, t0 + 50 * SEC - 1));
	assert_true(iolatd_sd_watchdog_due(&w, t0 + 50 * SEC));
	/* Over an hour of 20 ms turns: one every 15 s, never two within it. */
	{
		unsigned sent = 0;
		uint64_t last = t0 + 50 * SEC;

		for (uint64_t t = last + 20000000; t <= last + 3600 * SEC; t += 20000000)
			sent += iolatd_sd_watchdog_due(&w, t);
		assert_int_equal(sent, 240);
	}
}

static void test_notify_reaches_socket(void **state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[] = "/tmp/iolatd-sdn-XXXXXX", buf[64];
	int fd;
	ssize_t n;

	assert_non_null(mkdtemp(dir));
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/notify", dir);
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	unsetenv("NOTIFY_SOCKET");
	assert_int_equal(iolatd_sd_notify_send("WATCHDOG=1"), 0);
	setenv("NOTIFY_SOCKET", sa.sun_path, 1);
	assert_int_equal(iolatd_sd_notify_send("WATCHDOG=1"), 1);
	n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
	assert_int_equal(n, 10);
	buf[n] = '\0';
	assert_string_equal(buf, "WATCHDOG=1");
	unsetenv("NOTIFY_SOCKET");
	close(fd);
	unlink(sa.sun_path);
	rmdir(dir);
}

static void test_log_formats(void **state)
{
	char out[256];

	assert_string_equal(iolatd_log_format(LOG_SINK_JOURNAL, LOG_ERR, "x: cannot write limits", out, sizeof(out)),
			    "<3>x: cannot write limits");
	assert_string_equal(iolatd_log_format(LOG_SINK_JOURNAL, LOG_WARNING, "the limit does not hold", out,
					      sizeof(out)), "<4>the limit does not hold");
	assert_string_equal(iolatd_log_format(LOG_SINK_JOURNAL, LOG_NOTICE, "reloaded", out, sizeof(out)),
			    "<5>reloaded");
	assert_string_equal(iolatd_log_format(LOG_SINK_JOURNAL, LOG_INFO, "limited", out, sizeof(out)),
			    "<6>limited");
	assert_string_equal(iolatd_log_format(LOG_SINK_TERMINAL, LOG_WARNING, "w", out, sizeof(out)),
			    "iolatd: warning: w");
	assert_string_equal(iolatd_log_format(LOG_SINK_TERMINAL, LOG_ERR, "e", out, sizeof(out)), "iolatd: error: e");
	assert_string_equal(iolatd_log_format(LOG_SINK_TERMINAL, LOG_INFO, "i", out, sizeof(out)), "iolatd: i");
	assert_string_equal(iolatd_log_format(LOG_SINK_FILE, LOG_WARNING, "w", out, sizeof(out)), "warning: w");
	assert_string_equal(iolatd_log_format(LOG_SINK_FILE, LOG_NOTICE, "n", out, sizeof(out)), "n");
	/* Not a priority: an error, never a line without one. */
	assert_string_equal(iolatd_log_format(LOG_SINK_JOURNAL, 42, "?", out, sizeof(out)), "<3>?");
	assert_string_equal(iolatd_log_format(LOG_SINK_TERMINAL, -1, "?", out, sizeof(out)), "iolatd: error: ?");
}

static void test_journal_stream(void **state)
{
	struct stat st;
	char v[64];

	assert_int_equal(fstat(2, &st), 0);
	assert_false(iolatd_log_stderr_is_journal(NULL));
	assert_false(iolatd_log_stderr_is_journal("garbage"));
	snprintf(v, sizeof(v), "%llu:%llu", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
	assert_true(iolatd_log_stderr_is_journal(v));
	/* Inherited from a parent whose stderr was the journal, ours is not: no prefixes. */
	snprintf(v, sizeof(v), "%llu:%llu", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino + 1);
	assert_false(iolatd_log_stderr_is_journal(v));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_watchdog_off),
		cmocka_unit_test(test_watchdog_half_interval),
		cmocka_unit_test(test_notify_reaches_socket),
		cmocka_unit_test(test_log_formats),
		cmocka_unit_test(test_journal_stream),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
