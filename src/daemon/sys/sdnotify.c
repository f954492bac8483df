/* SPDX-License-Identifier: MIT */
/*
 * sdnotify.c - the readiness protocol of sdnotify.h: a datagram to the
 * socket $NOTIFY_SOCKET names; and when the watchdog's WATCHDOG=1 is due.
 * Context: the daemon's one thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/sys/sdnotify.h"

int iolatd_sd_notify_send(const char *state)
{
	const char *where = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len;
	socklen_t salen;
	ssize_t n;
	int fd, err = 0;

	if (!where || !*where)
		return 0;
	len = strlen(where);
	if ((where[0] != '/' && where[0] != '@') || len >= sizeof(sa.sun_path))
		return -EINVAL;
	memcpy(sa.sun_path, where, len);
	if (where[0] == '@')
		sa.sun_path[0] = '\0'; /* an abstract socket: its name is not a path */
	salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len + (where[0] == '/'));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	n = sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa, salen);
	if (n < 0)
		err = -errno;
	close(fd);
	return err ? err : 1;
}

/* A decimal number, all of @s. */
static int parse_u64(const char *s, uint64_t *v)
{
	int n = 0;

	if (!s || *s < '0' || *s > '9' || sscanf(s, "%" SCNu64 "%n", v, &n) != 1 || s[n])
		return -EINVAL;
	return 0;
}

int iolatd_sd_watchdog_init(struct sd_watchdog *w, const char *usec, const char *pid, long self,
			    uint64_t now_ns)
{
	uint64_t us, p;

	w->every_ns = 0;
	w->next_ns = now_ns;
	if (!usec || !*usec)
		return 0;
	if (parse_u64(usec, &us) || us > UINT64_MAX / 1000 || (pid && *pid && parse_u64(pid, &p)))
		return -EINVAL;
	if (pid && *pid && p != (uint64_t)self)
		return 0;
	w->every_ns = us * 1000 / 2;
	return 0;
}

bool iolatd_sd_watchdog_due(struct sd_watchdog *w, uint64_t now_ns)
{
	if (!w->every_ns || now_ns < w->next_ns)
		return false;
	w->next_ns = now_ns + w->every_ns;
	return true;
}
