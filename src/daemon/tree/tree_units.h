/* SPDX-License-Identifier: MIT */
/*
 * tree_units.h - systemd units in iolatd's tree (tree_units.c).
 * Context: one thread for every call on one struct iolatd.
 */
#ifndef IOLAT_DAEMON_TREE_UNITS_H
#define IOLAT_DAEMON_TREE_UNITS_H

#include <stddef.h>

struct iolatd;
struct iolatd_config;

/*
 * iolatd_units_resolve() - @user with its unit names resolved and units'
 * targets added, into @eff. Return: 0; -EAGAIN when systemd could not be
 * asked though units were needed (@eff then has the named groups waiting);
 * -EINVAL with strict=1 and a unit group waiting. @err says why.
 */
int iolatd_units_resolve(struct iolatd *d, const struct iolatd_config *user, struct iolatd_config *eff,
			 char *err, size_t errlen);

#endif
