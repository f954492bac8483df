/* SPDX-License-Identifier: MIT */
/*
 * sdunit.h - systemd units as iolatd's groups, read through `systemctl
 * show` (no libsystemd): a unit's cgroup (ControlGroup=, empty while it does
 * not run), whether it is known (LoadState=), and its
 * IODeviceLatencyTargetSec= settings (shown as IODeviceLatencyTargetUSec=,
 * one "DEVICE TIMESPAN" line per device), the kernel io.latency's knob,
 * which iolatd takes on kernels that lack io.latency; and its IOWeight=
 * ("[not set]", or a number printed raw by older systemctl when unset) and
 * IODeviceWeight= (one "DEVICE WEIGHT" line per device), the kernel's
 * io.weight knobs, which do nothing on a disk without io.cost or BFQ
 * and which iolatd takes there. The command runs with
 * an argument vector (no shell), its output bounded and its time limited.
 * Context: the daemon's one thread (it waits for the child).
 */
#ifndef IOLAT_DAEMON_SDUNIT_H
#define IOLAT_DAEMON_SDUNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/config/config.h"

#define SDUNIT_MAX_TARGETS 8
#define SDUNIT_NAME_MAX IOLATD_UNIT_MAX
#define SDUNIT_TIMEOUT_MS 3000

struct sdunit_target {
	char dev[IOLATD_PATH_MAX];    /* as systemd shows it: /dev/vda */
	uint64_t ns;
};

struct sdunit_weight {
	char dev[IOLATD_PATH_MAX];    /* as systemd shows it: /dev/vda */
	unsigned weight;              /* 1..10000 */
};

struct sdunit {
	char id[SDUNIT_NAME_MAX];     /* web.service */
	char load_state[32];          /* loaded, not-found, masked ... */
	char cgroup[IOLATD_PATH_MAX]; /* "/system.slice/web.service", "" when it has none */
	unsigned nr_targets;
	struct sdunit_target target[SDUNIT_MAX_TARGETS];
	unsigned weight;              /* IOWeight=, 0: not set */
	unsigned nr_weights;
	struct sdunit_weight dev_weight[SDUNIT_MAX_TARGETS]; /* IODeviceWeight= */
};

/* The systemctl to run: @override when given, else /usr/bin/systemctl or /bin/systemctl, else NULL. */
const char *iolatd_sdunit_systemctl(const char *override);

/* Is @name a unit name: no '/', ending in .service, .slice, .scope, .socket, .mount or .swap? */
bool iolatd_sdunit_is_name(const char *name);

/* A systemd time span ("25ms", "1s 500ms", "750us", "2min") in ns. Return: 0 or -EINVAL. */
int iolatd_sdunit_parse_timespan(const char *s, uint64_t *ns);

/*
 * iolatd_sdunit_parse_show() - `systemctl show` output (KEY=VALUE lines, units
 * separated by blank lines) into @out (at most @max). A line that cannot
 * be read is -EINVAL with @err naming it. Return: the number of units.
 */
int iolatd_sdunit_parse_show(const char *text, struct sdunit *out, unsigned max, char *err, size_t errlen);

/*
 * iolatd_sdunit_show() - run `@systemctl show -p Id,LoadState,ControlGroup,
 * IODeviceLatencyTargetUSec,IOWeight,IODeviceWeight -- ARGS...` (units or
 * patterns) and parse it.
 * Return: the number of units, or -errno with one line in @err (not
 * found, failed, timed out, unreadable).
 */
int iolatd_sdunit_show(const char *systemctl, const char *const *args, unsigned nargs, struct sdunit *out,
		unsigned max, char *err, size_t errlen);

#endif
