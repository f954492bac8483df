/* SPDX-License-Identifier: MIT */
/*
 * cli_stop.c - SIGINT/SIGTERM/SIGHUP handling for the iolat commands (see
 * cli_stop.h). The first signal sets iolat_cli_stop_flag and records which
 * signal it was and when; a second one removes the files registered for that
 * case, restores the default action and re-raises itself, which kills the
 * process once the handler returns. The same signal again within
 * STOP_REPEAT_NS is the first request delivered twice (timeout(1) signals the
 * command and then its whole process group) and is ignored.
 * Context: install/restore on the CLI's main thread; the handler runs on any
 * thread and uses only async-signal-safe calls.
 */
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_stop.h"

atomic_bool iolat_cli_stop_flag;
/* Atomic: two signals may run the handler at once on two threads, and only
 * one of them may be the first. (Lock-free atomics are async-signal-safe.) */
static _Atomic int stop_signo;
static _Atomic long long first_signal_ns;

/* A repeat this soon after the first signal is not a second request. */
#define STOP_REPEAT_NS 500000000LL

static long long monotonic_ns(void)   /* clock_gettime is async-signal-safe */
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NR_STOP_SIGNALS (sizeof(stop_signals) / sizeof(stop_signals[0]))
static struct sigaction saved[NR_STOP_SIGNALS];
static bool installed[NR_STOP_SIGNALS];

static const char *const *kill_unlink;
static unsigned nr_kill_unlink;

void iolat_cli_stop_unlink_on_kill(const char *const *paths, unsigned n)
{
	kill_unlink = paths;
	nr_kill_unlink = paths ? n : 0;
}

static void on_stop_signal(int sig)
{
	int first = 0;

	if (!atomic_compare_exchange_strong(&stop_signo, &first, sig)) {
		long long t0 = atomic_load(&first_signal_ns);
		struct sigaction dfl;

		/* t0 == 0: the first handler, on another thread, has not stamped it yet */
		if (sig == first && (t0 == 0 || monotonic_ns() - t0 < STOP_REPEAT_NS))
			return;   /* the first request, delivered again */

		for (unsigned i = 0; i < nr_kill_unlink; i++)
			unlink(kill_unlink[i]);

		/* The second request: die of it (delivered when we return). */
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigaction(sig, &dfl, NULL);
		raise(sig);
		return;
	}
	atomic_store(&first_signal_ns, monotonic_ns());
	atomic_store(&iolat_cli_stop_flag, true);
}

void iolat_cli_stop_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	for (unsigned i = 0; i < NR_STOP_SIGNALS; i++)
		sigaddset(&sa.sa_mask, stop_signals[i]);
	atomic_store(&stop_signo, 0);
	atomic_store(&first_signal_ns, 0);
	atomic_store(&iolat_cli_stop_flag, false);
	for (unsigned i = 0; i < NR_STOP_SIGNALS; i++) {
		installed[i] = false;
		if (sigaction(stop_signals[i], NULL, &saved[i]) < 0 ||
		    (stop_signals[i] == SIGHUP && saved[i].sa_handler == SIG_IGN))
			continue;   /* started under nohup: leave SIGHUP ignored */
		installed[i] = sigaction(stop_signals[i], &sa, NULL) == 0;
	}
}

void iolat_cli_stop_restore(void)
{
	iolat_cli_stop_unlink_on_kill(NULL, 0);
	for (unsigned i = 0; i < NR_STOP_SIGNALS; i++) {
		if (installed[i])
			sigaction(stop_signals[i], &saved[i], NULL);
		installed[i] = false;
	}
}

int iolat_cli_stop_signal(void)
{
	return atomic_load(&stop_signo);
}

int iolat_cli_stop_exit_code(void)
{
	int sig = atomic_load(&stop_signo);

	return sig ? 128 + sig : 0;
}
