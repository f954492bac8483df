/* SPDX-License-Identifier: MIT */
/*
 * checkconf.c - a configuration checked without acting (checkconf.h): the
 * disks, the cgroup root, the metrics textfile's directory, each group's
 * cgroup (with the io controller on v2), each unit named, and weights given
 * on a disk where the kernel's own are in force (tree/kweights.h). At the
 * daemon's top beside the life, which asks its device checks: it reads
 * units and weights through the tree's parts (tree/sdunit.h, tree/kweights.h).
 * Context: any thread; no global state.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <syslog.h>
#include <unistd.h>

#include "daemon/checkconf.h"
#include "daemon/sys/cgroupfs.h"
#include "daemon/tree/kweights.h"
#include "daemon/tree/sdunit.h"

#define CHECK_UNITS_MAX 64

struct check {
	const struct iolatd_config *cfg;
	const struct iolatd_check_env *env;
	unsigned errors;
	dev_t devs[IOLATD_MAX_DEVICES]; /* each configured disk's number; 0: not found */
};

static void __attribute__((format(printf, 4, 5)))
report(struct check *c, int priority, unsigned line, const char *fmt, ...)
{
	char what[IOLATD_ERR_MAX], out[IOLATD_ERR_MAX + IOLATD_PATH_MAX + 32];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (line)
		snprintf(out, sizeof(out), "%s:%u: %s%s", c->cfg->file, line,
			 priority == LOG_WARNING ? "warning: " : "", what);
	else
		snprintf(out, sizeof(out), "%s: %s%s", c->cfg->file, priority == LOG_WARNING ? "warning: " : "",
			 what);
	c->errors += priority <= LOG_ERR;
	c->env->report(c->env->ctx, priority, out);
}

static bool sysfs_has(const char *sysfs, dev_t dev, const char *what)
{
	char path[IOLATD_PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/dev/block/%u:%u%s", sysfs, major(dev), minor(dev), what);
	return access(path, F_OK) == 0;
}

int iolatd_check_device(const char *name, const char *sysfs, dev_t *dev, char *err, size_t errlen)
{
	if (iolatd_cgfs_parse_device(name, dev) || !sysfs_has(sysfs, *dev, "")) {
		snprintf(err, errlen, "device '%s': no such block device (give a disk name or MAJ:MIN)", name);
		return -ENODEV;
	}
	if (!iolatd_cgfs_request_based(sysfs, *dev)) {
		snprintf(err, errlen, "device '%s': bio-based (no /sys/dev/block/%u:%u/mq): its I/O never "
			 "becomes block requests, which is what iolatd measures; give the disk below it",
			 name, major(*dev), minor(*dev));
		return -EINVAL;
	}
	if (sysfs_has(sysfs, *dev, "/partition")) {
		snprintf(err, errlen, "device '%s': a partition; the block throttle takes whole disks: "
			 "give the disk it is on", name);
		return -EINVAL;
	}
	return 0;
}

static void check_devices(struct check *c)
{
	const char *sysfs = c->env->sysfs_root ? c->env->sysfs_root : "/sys";
	dev_t *devs = c->devs;
	char err[IOLATD_ERR_MAX];

	for (unsigned k = 0; k < c->cfg->nr_devices; k++) {
		if (iolatd_check_device(c->cfg->devices[k], sysfs, &devs[k], err, sizeof(err))) {
			report(c, LOG_ERR, c->cfg->device_line, "key 'device': %s", err);
			devs[k] = 0;
			continue;
		}
		for (unsigned j = 0; j < k; j++)
			if (devs[j] == devs[k])
				report(c, LOG_ERR, c->cfg->device_line, "key 'device': '%s' is the same disk as '%s'",
				       c->cfg->devices[k], c->cfg->devices[j]);
	}
}

int iolatd_check_textfile(const struct iolatd_config *cfg, char *err, size_t errlen)
{
	char dir[IOLATD_PATH_MAX];
	char *slash;

	if (!cfg->textfile[0])
		return 0;
	snprintf(dir, sizeof(dir), "%s", cfg->textfile);
	slash = strrchr(dir, '/');
	*(slash == dir ? slash + 1 : slash) = '\0';
	if (!access(dir, W_OK | X_OK))
		return 0;
	snprintf(err, errlen, "key 'textfile': %s: not a writable directory (node_exporter's "
		 "--collector.textfile.directory)", dir);
	return -EINVAL;
}

/* A group's cgroup @rel (under @root): there, with the io controller; else when it is waited for. */
static void check_cgroup(struct check *c, const struct cgfs_root *root, unsigned line, const char *name,
			 const char *rel)
{
	char dir[IOLATD_PATH_MAX * 2];

	iolatd_cgfs_dir(root, rel, dir, sizeof(dir));
	if (!iolatd_cgfs_ino(dir))
		report(c, c->cfg->strict ? LOG_ERR : LOG_WARNING, line, "group %s: no cgroup %s%s", name, dir,
		       c->cfg->strict ? " (strict=1: every group's cgroup must exist)" :
		       root->version == 1 && strcmp(name, rel) ?
		       ": iolatd waits for it (on cgroup v1 systemd makes a unit's blkio cgroup only with "
		       "IOAccounting=yes)" : ": iolatd waits for it");
	else if (!iolatd_cgfs_has_io(root, dir))
		report(c, LOG_WARNING, line, "group %s: cgroup %s has no io controller: its I/O is counted "
		       "in its parent's (enable io in the parent's cgroup.subtree_control, or IOAccounting=yes)",
		       name, dir);
}

static const struct sdunit *unit_of(const struct sdunit *u, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(u[i].id, name))
			return &u[i];
	return NULL;
}

/* Units named as groups: known to systemd, running, their cgroup in this hierarchy. */
static void check_units(struct check *c, const struct cgfs_root *root)
{
	static struct sdunit units[CHECK_UNITS_MAX];
	const char *args[IOLATD_MAX_GROUPS], *systemctl = iolatd_sdunit_systemctl(c->env->systemctl);
	unsigned nargs = 0, first = 0;
	char err[IOLATD_ERR_MAX];
	int n;

	for (unsigned g = 0; g < c->cfg->nr_groups && nargs < CHECK_UNITS_MAX; g++)
		if (iolatd_sdunit_is_name(c->cfg->groups[g].path)) {
			first = first ? first : c->cfg->groups[g].line;
			args[nargs++] = c->cfg->groups[g].path;
		}
	if (!nargs)
		return;
	if (!c->env->systemctl && access("/run/systemd/system", F_OK)) {
		report(c, LOG_WARNING, first, "systemd is not running: the units named are not checked");
		return;
	}
	n = systemctl ? iolatd_sdunit_show(systemctl, args, nargs, units, CHECK_UNITS_MAX, err, sizeof(err)) : -ENOENT;
	for (unsigned g = 0; g < c->cfg->nr_groups; g++) {
		const struct iolatd_group_cfg *gc = &c->cfg->groups[g];
		const struct sdunit *u = n >= 0 ? unit_of(units, n, gc->path) : NULL;
		int prio = c->cfg->strict ? LOG_ERR : LOG_WARNING;

		if (!iolatd_sdunit_is_name(gc->path))
			continue;
		if (n < 0)
			report(c, LOG_WARNING, gc->line, "group %s: not checked: %s", gc->path,
			       systemctl ? err : "no systemctl found");
		else if (!u || !strcmp(u->load_state, "not-found"))
			report(c, prio, gc->line, "group %s: no such unit%s", gc->path,
			       c->cfg->strict ? "" : ": iolatd waits for it");
		else if (!u->cgroup[0] || !strcmp(u->cgroup, "/"))
			report(c, prio, gc->line, "group %s: not running (no cgroup)%s", gc->path,
			       c->cfg->strict ? "" : ": iolatd waits for it");
		else
			check_cgroup(c, root, gc->line, gc->path, u->cgroup + 1);
	}
}

/* Weights configured on a disk where the kernel's own are in force: iolatd would stand aside there. */
static void check_kweights(struct check *c, const struct cgfs_root *root)
{
	const char *sysfs = c->env->sysfs_root ? c->env->sysfs_root : "/sys";
	unsigned line = 0;

	for (unsigned g = 0; g < c->cfg->nr_groups && !line; g++)
		if (c->cfg->groups[g].weight_given)
			line = c->cfg->groups[g].line;
	for (unsigned k = 0; line && k < c->cfg->nr_devices; k++) {
		enum iolatd_kweights kw = c->devs[k] ? iolatd_kweights_of(sysfs, root, c->devs[k]) : KWEIGHTS_NONE;

		if (kw != KWEIGHTS_NONE)
			report(c, LOG_WARNING, line, "device '%s': the kernel's own weights are in force (%s): "
			       "iolatd stands aside there and writes no weight budget (weight= is the kernel's to "
			       "enforce on it; targets still act)", c->cfg->devices[k], iolatd_kweights_why(kw));
	}
}

unsigned iolatd_check_config(const struct iolatd_config *cfg, const struct iolatd_check_env *env)
{
	struct check c = { .cfg = cfg, .env = env };
	struct cgfs_root root;
	char why[IOLATD_ERR_MAX];

	check_devices(&c);
	if (iolatd_check_textfile(cfg, why, sizeof(why)))
		report(&c, LOG_ERR, cfg->textfile_line, "%s", why);
	if (iolatd_cgfs_find_root(cfg->cgroup_root, env->allow_plain_root, &root, why, sizeof(why))) {
		report(&c, LOG_ERR, cfg->cgroup_root_line, "%scgroup hierarchy: %s",
		       cfg->cgroup_root_line ? "key 'cgroup_root': " : "", why);
		return c.errors;
	}
	for (unsigned g = 0; g < cfg->nr_groups; g++)
		if (!iolatd_sdunit_is_name(cfg->groups[g].path))
			check_cgroup(&c, &root, cfg->groups[g].line, cfg->groups[g].path, cfg->groups[g].path);
	check_units(&c, &root);
	check_kweights(&c, &root);
	return c.errors;
}
