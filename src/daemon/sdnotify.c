/* SPDX-License-Identifier: MIT */
/*
 * sdnotify.c - the readiness protocol of sdnotify.h: a datagram to the
 * socket $NOTIFY_SOCKET names.
 * Context: the daemon's one thread.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/sdnotify.h"

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
