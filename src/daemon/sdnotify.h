/* SPDX-License-Identifier: MIT */
/*
 * sdnotify.h - telling systemd how the daemon is (Type=notify), by the
 * protocol itself rather than libsystemd: one datagram of "KEY=VALUE" lines
 * to the AF_UNIX socket named by $NOTIFY_SOCKET (a path, or "@name" for an
 * abstract one). Without $NOTIFY_SOCKET nothing is sent. iolatd says
 * READY=1 once it measures and controls, RELOADING=1 then READY=1 around a
 * SIGHUP reload, STOPPING=1 when it starts removing its limits, and a STATUS=
 * line each time.
 * Context: the daemon's one thread.
 */
#ifndef IOLAT_DAEMON_SDNOTIFY_H
#define IOLAT_DAEMON_SDNOTIFY_H

/* Send @state ("READY=1\nSTATUS=...") to $NOTIFY_SOCKET. Return: 1 sent, 0 no socket set, -errno. */
int iolatd_sd_notify_send(const char *state);

#endif
