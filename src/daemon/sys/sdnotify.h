/* SPDX-License-Identifier: MIT */
/*
 * sdnotify.h - telling systemd how the daemon is (Type=notify), by the
 * protocol itself rather than libsystemd: one datagram of "KEY=VALUE" lines
 * to the AF_UNIX socket named by $NOTIFY_SOCKET (a path, or "@name" for an
 * abstract one). Without $NOTIFY_SOCKET nothing is sent. iolatd says
 * READY=1 once it measures and controls, RELOADING=1 then READY=1 around a
 * SIGHUP reload, STOPPING=1 when it starts removing its limits, and a STATUS=
 * line each time.
 * The watchdog: with WatchdogSec= in the unit, systemd sets $WATCHDOG_USEC
 * (and $WATCHDOG_PID, the process meant) and kills a service that has not
 * sent WATCHDOG=1 within that time. The main loop asks sd_watchdog_due()
 * at each turn and sends one at half the interval: a loop that hangs stops
 * sending, systemd restarts iolatd, and the new one removes the limits the
 * hung one left (its record of writes).
 * Context: the daemon's one thread.
 */
#ifndef IOLAT_DAEMON_SDNOTIFY_H
#define IOLAT_DAEMON_SDNOTIFY_H

#include <stdbool.h>
#include <stdint.h>

/* Send @state ("READY=1\nSTATUS=...") to $NOTIFY_SOCKET. Return: 1 sent, 0 no socket set, -errno. */
int iolatd_sd_notify_send(const char *state);

struct sd_watchdog {
	uint64_t every_ns;   /* half of WATCHDOG_USEC; 0: no watchdog */
	uint64_t next_ns;    /* when the next WATCHDOG=1 is due */
};

/*
 * iolatd_sd_watchdog_init() - from @usec ($WATCHDOG_USEC) and @pid
 * ($WATCHDOG_PID; when set it must be @self): on, first due at @now_ns, or
 * off (every_ns 0) when unset, 0, or meant for another process. Return: 0,
 * or -EINVAL for a value that is not a number (the watchdog is then off).
 */
int iolatd_sd_watchdog_init(struct sd_watchdog *w, const char *usec, const char *pid, long self,
			    uint64_t now_ns);

/* Is a WATCHDOG=1 due at @now_ns? If so the next is planned half an interval from @now_ns. */
bool iolatd_sd_watchdog_due(struct sd_watchdog *w, uint64_t now_ns);

#endif
