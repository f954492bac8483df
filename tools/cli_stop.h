/* SPDX-License-Identifier: MIT */
/*
 * cli_stop.h - how iolat's commands are stopped: SIGINT, SIGTERM and SIGHUP
 * all request a stop (the command reports what ran and exits with
 * 128 + the signal's number); a second one of any of them kills the process
 * with that signal's default action, except the same signal again within half
 * a second: that is the first request delivered twice, as timeout(1) does. SIGHUP ignored when the command started
 * (nohup) stays ignored; SIGINT and SIGTERM are always handled (a shell starts
 * background commands with SIGINT ignored, and `kill -INT` should still stop them).
 * Context: install/restore on the CLI's main thread; the handler only stores
 * to atomics.
 */
#ifndef IOLAT_TOOLS_CLI_STOP_H
#define IOLAT_TOOLS_CLI_STOP_H

#include <stdatomic.h>

/* The flag the handlers set; the one runner polls it (run.h: opts.stop). */
extern atomic_bool iolat_cli_stop_flag;

/* Install the handlers and clear the flag. */
void iolat_cli_stop_install(void);

/* Put back the handlers that were there before iolat_cli_stop_install(). */
void iolat_cli_stop_restore(void);

/*
 * Files to remove even when a second signal kills the process (the demo's
 * temporary files): unlink(2) is safe in a signal handler. @paths must stay
 * valid until iolat_cli_stop_restore(); NULL/0 forgets them.
 */
void iolat_cli_stop_unlink_on_kill(const char *const *paths, unsigned n);

/* The signal that requested the stop, or 0. */
int iolat_cli_stop_signal(void);

/* The exit code of a command stopped by a signal: 128 + its number. */
int iolat_cli_stop_exit_code(void);

#endif
