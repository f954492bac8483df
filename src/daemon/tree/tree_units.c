/* SPDX-License-Identifier: MIT */
/*
 * tree_units.c - systemd units in iolatd's tree (tree_units.h): groups configured by
 * unit name ([group:web.service]) resolved to their cgroups, and units
 * whose IODeviceLatencyTargetSec= names a controlled disk taken as groups
 * with that target (the kernel's io.latency knob, honoured on kernels that
 * lack io.latency), and units with IOWeight= (IODeviceWeight= naming a
 * controlled disk) taken as groups with that weight. From the configuration as written (d->user) this makes
 * the one the tree follows (d->cfg), at start, on reload and every
 * UNITS_RESOLVE_NS: a unit that restarts gets a new cgroup (a new inode),
 * which the rescan follows; one that stops is waited for. Units' IOWeight=
 * and IODeviceWeight= make weighted groups the same way. Entries of the
 * configuration win over a unit's own setting: a configured group's target=
 * wholesale, its weight= where it gives one.
 * Context: one thread for every call on one struct iolatd.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon/control_priv.h"
#include "daemon/tree/devpath.h"
#include "daemon/tree/sdunit.h"
#include "daemon/tree/tree_units.h"
#include "daemon/tree/unitpath.h"

#define UNITS_MAX 512

static struct sdunit units[UNITS_MAX]; /* scratch: the daemon has one thread */

/*
 * The controlled disk a unit's target names, or -1. Resolved by devpath.c:
 * under iolatd's own PrivateDevices=yes the path itself is not there to stat.
 * A name equal to a configured disk's (tests: "254:0") is that disk.
 */
static int target_device(const struct iolatd *d, const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	dev_t dev;
	bool found = !iolatd_devpath_disk(path, d->sysfs, d->opts.udev_data ? d->opts.udev_data : IOLATD_UDEV_DATA,
					  &dev);

	for (unsigned k = 0; k < d->nr_devs; k++)
		if ((found && dev == d->devs[k].dev) || !strcmp(base, d->devs[k].disk))
			return (int)k;
	return -1;
}

/*
 * A kernel with its own io.latency (CONFIG_BLK_CGROUP_IOLATENCY) shows the
 * io.latency file in every v2 cgroup with the io controller: systemd then
 * writes a unit's IODeviceLatencyTargetSec= there itself, and the kernel
 * enforces it. Such a unit is left to the kernel (once said in the log, and
 * in the status file as unit_targets=kernel).
 */
static bool kernel_takes(struct iolatd *d, const struct sdunit *u)
{
	char dir[IOLATD_PATH_MAX * 2], file[IOLATD_PATH_MAX * 2 + 16];

	if (d->root.version != 2)
		return false;
	iolatd_cgfs_dir(&d->root, u->cgroup + 1, dir, sizeof(dir));
	snprintf(file, sizeof(file), "%s/io.latency", dir);
	if (access(file, F_OK))
		return false;
	if (!d->unit_targets_kernel)
		iolatd_log_at(d, LOG_NOTICE, "the kernel has io.latency (%s): units' IODeviceLatencyTargetSec= are "
			      "left to it (systemd writes them there); iolatd controls the groups of %s", file,
			      d->user.file);
	d->unit_targets_kernel = true;
	return true;
}

static const struct sdunit *unit_named(unsigned n, const char *name)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(units[i].id, name))
			return &units[i];
	return NULL;
}

static void note_waiting(struct iolatd *d, const char *name, const char *why)
{
	if (d->nr_unit_waits < IOLATD_MAX_GROUPS) {
		snprintf(d->unit_waits[d->nr_unit_waits].name, sizeof(d->unit_waits[0].name), "%s", name);
		snprintf(d->unit_waits[d->nr_unit_waits].why, sizeof(d->unit_waits[0].why), "%s", why);
		d->nr_unit_waits++;
	}
}

static struct iolatd_group_cfg *add_group(struct iolatd_config *eff, const char *path)
{
	struct iolatd_group_cfg *g;

	if (iolatd_config_group(eff, path) || eff->nr_groups == IOLATD_MAX_GROUPS)
		return NULL;
	g = &eff->groups[eff->nr_groups++];
	memset(g, 0, sizeof(*g));
	g->weight = IOLATD_WEIGHT_DEFAULT;
	snprintf(g->path, sizeof(g->path), "%s", path);
	return g;
}

/* A configured group for unit @ug at cgroup @rel (relative to the root). */
static void add_unit_group(struct iolatd_config *eff, const struct iolatd_group_cfg *ug, const char *rel)
{
	struct iolatd_group_cfg *g = add_group(eff, rel);

	if (!g)
		return;
	g->target_ns = ug->target_ns;
	g->weight = ug->weight;
	g->weight_given = ug->weight_given;
	g->line = ug->line;
	snprintf(g->unit, sizeof(g->unit), "%.*s", (int)sizeof(g->unit) - 1, ug->path); /* a unit name fits */
}

/*
 * systemctl did not answer: the unit's cgroup by its name in the tree
 * (unitpath.h), said once. Return: whether it was found.
 */
static bool found_by_name(struct iolatd *d, const struct iolatd_group_cfg *ug, struct iolatd_config *eff)
{
	char rel[IOLATD_PATH_MAX];
	int ret = iolatd_unitpath_find(d->root.path, ug->path, rel, sizeof(rel));

	if (ret) {
		note_waiting(d, ug->path, ret == -EEXIST ? "systemd silent, several cgroups of that name" :
			     "systemd silent, no cgroup of that name");
		return false;
	}
	if (!d->units_logged)
		iolatd_logf(d, "group %s: systemctl show did not answer: its cgroup %s found by name", ug->path, rel);
	add_unit_group(eff, ug, rel);
	return true;
}

/* A group named as a unit: its cgroup, or why it is waited for. Return: false when systemd was needed. */
static bool resolve_named(struct iolatd *d, const struct iolatd_group_cfg *ug, unsigned n, bool shown,
			  struct iolatd_config *eff)
{
	const struct sdunit *u = shown ? unit_named(n, ug->path) : NULL;

	if (!shown)
		return found_by_name(d, ug, eff);
	if (!u || !strcmp(u->load_state, "not-found"))
		note_waiting(d, ug->path, "no such unit");
	else if (!u->cgroup[0] || !strcmp(u->cgroup, "/"))
		note_waiting(d, ug->path, "not running (no cgroup)");
	else
		add_unit_group(eff, ug, u->cgroup + 1);
	return true;
}

/* A unit's IODeviceLatencyTargetSec= on controlled disks into @t, by device index. Return: any. */
static bool unit_targets(struct iolatd *d, const struct sdunit *u, uint64_t t[IOLATD_MAX_DEVICES])
{
	bool any = false;

	memset(t, 0, sizeof(t[0]) * IOLATD_MAX_DEVICES);
	if (!u->nr_targets || kernel_takes(d, u))
		return false;
	for (unsigned j = 0; j < u->nr_targets; j++) {
		int k = target_device(d, u->target[j].dev);

		if (k < 0 || u->target[j].ns > IOLATD_MAX_TARGET_NS) {
			if (!d->units_logged)
				iolatd_log_at(d, LOG_WARNING, "%s: IODeviceLatencyTargetSec=%s: %s: ignored", u->id, u->target[j].dev,
					    k < 0 ? "not a disk iolatd controls" : "above 10 s");
			continue;
		}
		t[k] = u->target[j].ns;
		any = true;
	}
	return any;
}

/* A unit's IODeviceWeight= on controlled disks into @w, by device index (0: none there). Return: any. */
static bool unit_dev_weights(struct iolatd *d, const struct sdunit *u, unsigned w[IOLATD_MAX_DEVICES])
{
	bool any = false;

	memset(w, 0, sizeof(w[0]) * IOLATD_MAX_DEVICES);
	for (unsigned j = 0; j < u->nr_weights; j++) {
		int k = target_device(d, u->dev_weight[j].dev);

		if (k < 0) {
			if (!d->units_logged)
				iolatd_log_at(d, LOG_WARNING, "%s: IODeviceWeight=%s: not a disk iolatd controls: ignored",
					      u->id, u->dev_weight[j].dev);
			continue;
		}
		w[k] = u->dev_weight[j].weight;
		any = true;
	}
	return any;
}

/*
 * A unit's weights on group @g (its cgroup's): IOWeight= for every disk,
 * IODeviceWeight= over it on the disks it names (systemd's own precedence).
 * A weight= in the configuration wins: the unit's are then ignored, said.
 */
static void take_unit_weights(struct iolatd *d, const struct sdunit *u, const unsigned w[IOLATD_MAX_DEVICES],
			      struct iolatd_group_cfg *g)
{
	if (g->weight_given) {
		if (!d->units_logged)
			iolatd_log_at(d, LOG_NOTICE, "%s: IOWeight=/IODeviceWeight= ignored: the configuration gives its "
				      "cgroup %s weight=%u", u->id, g->path, g->weight);
		return;
	}
	g->weight = u->weight ? u->weight : IOLATD_WEIGHT_DEFAULT;
	memcpy(g->dev_weight, w, sizeof(g->dev_weight));
	g->weight_given = true;
	g->weight_from_unit = true;
}

static struct iolatd_group_cfg *group_at(struct iolatd_config *eff, const char *path)
{
	for (unsigned i = 0; i < eff->nr_groups; i++)
		if (!strcmp(eff->groups[i].path, path))
			return &eff->groups[i];
	return NULL;
}

/*
 * A unit's settings on controlled disks: IODeviceLatencyTargetSec= makes a
 * group with per-device targets, IOWeight=/IODeviceWeight= a weighted one.
 * Where the configuration names the unit's cgroup, its target= wins
 * wholesale (the unit's targets are ignored) and its weight= wins when it
 * gives one (else the unit's weights apply to it).
 */
static void take_unit(struct iolatd *d, const struct sdunit *u, struct iolatd_config *eff)
{
	struct iolatd_group_cfg *g;
	uint64_t t[IOLATD_MAX_DEVICES];
	unsigned w[IOLATD_MAX_DEVICES];
	bool any_t, any_w;

	if (!u->cgroup[0] || !strcmp(u->cgroup, "/"))
		return;
	any_t = unit_targets(d, u, t);
	any_w = unit_dev_weights(d, u, w) || u->weight;
	if ((g = group_at(eff, u->cgroup + 1))) {
		if (any_t && !d->units_logged)
			iolatd_log_at(d, LOG_NOTICE, "%s: IODeviceLatencyTargetSec= ignored: the configuration names its cgroup %s",
				    u->id, u->cgroup + 1);
		if (any_w)
			take_unit_weights(d, u, w, g);
		return;
	}
	if ((!any_t && !any_w) || !(g = add_group(eff, u->cgroup + 1)))
		return;
	if (any_t) {
		g->per_device = true;
		memcpy(g->dev_target_ns, t, sizeof(t));
		for (unsigned k = 0; k < IOLATD_MAX_DEVICES; k++)
			g->target_ns = t[k] > g->target_ns ? t[k] : g->target_ns;
	}
	if (any_w)
		take_unit_weights(d, u, w, g);
	snprintf(g->unit, sizeof(g->unit), "%.*s", (int)sizeof(g->unit) - 1, u->id);
}

/* Ask systemd about the named units and, with systemd=1, every unit's targets. Return: units, -errno. */
static int ask_systemd(struct iolatd *d, const struct iolatd_config *user, char *err, size_t errlen)
{
	const char *args[IOLATD_MAX_GROUPS + 4], *systemctl = iolatd_sdunit_systemctl(d->opts.systemctl);
	unsigned nargs = 0;

	for (unsigned i = 0; i < user->nr_groups && nargs < 11; i++)
		if (iolatd_sdunit_is_name(user->groups[i].path))
			args[nargs++] = user->groups[i].path;
	if (user->systemd) {
		args[nargs++] = "*.service";
		args[nargs++] = "*.slice";
		args[nargs++] = "*.scope";
	}
	if (!nargs)
		return 0;
	if (!d->opts.systemctl && access("/run/systemd/system", F_OK)) {
		snprintf(err, errlen, "systemd is not running (no /run/systemd/system)");
		return -ENOSYS;
	}
	if (!systemctl) {
		snprintf(err, errlen, "no systemctl found");
		return -ENOENT;
	}
	return iolatd_sdunit_show(systemctl, args, nargs, units, UNITS_MAX, err, errlen);
}

int iolatd_units_resolve(struct iolatd *d, const struct iolatd_config *user, struct iolatd_config *eff,
			 char *err, size_t errlen)
{
	char why[IOLATD_ERR_MAX] = "";
	int n = ask_systemd(d, user, why, sizeof(why));
	bool named = false, lost = false, was_ok = d->systemd_ok;

	d->systemd_ok = n >= 0;
	*eff = *user;
	eff->nr_groups = 0;
	d->nr_unit_waits = 0;
	for (unsigned i = 0; i < user->nr_groups; i++) {
		if (!iolatd_sdunit_is_name(user->groups[i].path)) {
			eff->groups[eff->nr_groups++] = user->groups[i];
			continue;
		}
		named = true;
		lost |= !resolve_named(d, &user->groups[i], n > 0 ? (unsigned)n : 0, n >= 0, eff);
	}
	for (int i = 0; user->systemd && i < n; i++)
		take_unit(d, &units[i], eff);
	if (n < 0 && n != -ENOSYS && !named && !was_ok && !d->units_logged)
		iolatd_log_at(d, LOG_WARNING, "systemd units not read (%s): no unit's IODeviceLatencyTargetSec= is taken", why);
	d->units_logged = true;
	if (n < 0 && (lost || (was_ok && user->systemd))) {
		snprintf(err, errlen, "systemd units not read: %s", why);
		return -EAGAIN;
	}
	if (user->strict && d->nr_unit_waits) {
		snprintf(err, errlen, "%s: group %s: %s (strict=1: every group's cgroup must exist)", user->file,
			 d->unit_waits[0].name, d->unit_waits[0].why);
		return -EINVAL;
	}
	for (unsigned w = 0; w < d->nr_unit_waits; w++)
		iolatd_log_at(d, LOG_WARNING, "group %s: %s: waiting for it", d->unit_waits[w].name, d->unit_waits[w].why);
	return 0;
}
