/* SPDX-License-Identifier: MIT */
/*
 * life.c - creating, reloading and stopping iolatd's controller
 * loop (control.h): devices and cgroup root resolved, stale limits of a
 * previous run put back, one controller per device; on stop, every limit
 * written removed; and the getters and counters of control.h. Beside the
 * loop (loop.c), neither calls the other; it calls the status
 * (status/status.c), the tree (tree/tree.c, tree/tree_units.c), the limits
 * (limits/: a previous run's record put back, ours removed) and the device
 * checks of --check-config (checkconf.c).
 * Context: one thread for every call on one struct iolatd.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "daemon/checkconf.h"
#include "daemon/control_priv.h"
#include "daemon/sys/runlock.h"
#include "daemon/tree/tree.h"
#include "daemon/tree/tree_units.h"

static uint32_t sysfs_u32(const char *sysfs, dev_t dev, const char *attr, uint32_t dflt)
{
	char path[IOLATD_PATH_MAX + 64];
	unsigned v;
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/dev/block/%u:%u/queue/%s", sysfs, major(dev), minor(dev), attr);
	f = fopen(path, "r");
	if (!f)
		return dflt;
	ok = fscanf(f, "%u", &v) == 1;
	fclose(f);
	return ok ? v : dflt;
}

/*
 * The kernel's name of disk @dev (uevent's DEVNAME=, "vda": what node_exporter
 * calls it) into @out; @out unchanged (the configured name) when sysfs does not say.
 */
static void disk_name(const char *sysfs, dev_t dev, char *out, size_t len)
{
	char path[IOLATD_PATH_MAX + 64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/dev/block/%u:%u/uevent", sysfs, major(dev), minor(dev));
	if (!(f = fopen(path, "r")))
		return;
	while (fgets(line, sizeof(line), f)) {
		size_t n = strcspn(line + 8, "\n");

		if (!strncmp(line, "DEVNAME=", 8) && n && n < len) {
			memcpy(out, line + 8, n);
			out[n] = '\0';
			break;
		}
	}
	fclose(f);
}

static int resolve_devices(const struct iolatd_config *cfg, const char *sysfs, dev_t *devs, char *err,
			   size_t len)
{
	for (unsigned k = 0; k < cfg->nr_devices; k++) {
		int ret = iolatd_check_device(cfg->devices[k], sysfs, &devs[k], err, len);

		if (ret)
			return ret;
		for (unsigned j = 0; j < k; j++)
			if (devs[j] == devs[k]) {
				snprintf(err, len, "device '%s': the same disk as '%s'", cfg->devices[k],
					 cfg->devices[j]);
				return -EINVAL;
			}
	}
	return 0;
}

/*
 * The whole disk holding @path (a partition's parent, through @sysfs), or 0.
 */
static dev_t disk_of_path(const char *sysfs, const char *path)
{
	char p[IOLATD_PATH_MAX + 64], buf[64];
	unsigned maj, min;
	struct stat st;
	FILE *f;

	if (stat(path, &st))
		return 0;
	snprintf(p, sizeof(p), "%s/dev/block/%u:%u/partition", sysfs, major(st.st_dev), minor(st.st_dev));
	if (access(p, F_OK))
		return st.st_dev;
	snprintf(p, sizeof(p), "%s/dev/block/%u:%u/../dev", sysfs, major(st.st_dev), minor(st.st_dev));
	if (!(f = fopen(p, "r")))
		return st.st_dev;
	maj = min = 0;
	if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%u:%u", &maj, &min) != 2)
		maj = min = 0;
	fclose(f);
	return maj || min ? makedev(maj, min) : st.st_dev;
}

/*
 * A run directory on a disk iolatd controls: its status (each second) and
 * record of limits (before each write) are files there, and replacing one
 * can wait behind the very I/O being throttled (on ext4 with discard, each
 * replaced file's blocks are discarded synchronously): the loop then
 * stalls, unable to drain, decide or write (docs/iolatd.md, issue 26).
 */
static void warn_run_dir(struct iolatd *d)
{
	dev_t rd = disk_of_path(d->sysfs, d->opts.run_dir);

	for (unsigned k = 0; rd && k < d->nr_devs; k++)
		if (d->devs[k].dev == rd)
			iolatd_logf(d, "run directory %s is on %s, a disk this daemon controls: writing its status "
				    "and record there can wait behind the I/O it throttles, and the control loop with "
				    "it; put it on a tmpfs (/run, --run-dir)", d->opts.run_dir, d->devs[k].name);
}

static int make_ctls(struct iolatd *d, const dev_t *devs, char *err, size_t errlen)
{
	for (unsigned k = 0; k < d->cfg.nr_devices; k++) {
		struct dev_ctl *c = &d->devs[k];
		struct iolat_ctl_config cc = { 0 };
		int ret;

		c->dev = devs[k];
		snprintf(c->name, sizeof(c->name), "%u:%u", major(devs[k]), minor(devs[k]));
		memcpy(c->disk, d->cfg.devices[k], sizeof(c->disk)); /* same size, NUL-terminated */
		disk_name(d->sysfs, devs[k], c->disk, sizeof(c->disk));
		c->rotational_configured = d->cfg.rotational >= 0;
		c->nr_requests = d->cfg.nr_requests ? d->cfg.nr_requests :
				 sysfs_u32(d->sysfs, devs[k], "nr_requests", 64);
		c->rotational = d->cfg.rotational >= 0 ? d->cfg.rotational :
				(int)sysfs_u32(d->sysfs, devs[k], "rotational", 0);
		cc.nr_requests = c->nr_requests;
		cc.rotational = c->rotational;
		cc.clock = d->opts.clock;
		cc.flags = iolat_ctl_mode_flags(d->cfg.mode);
		cc.max_groups = DISC_MAX_NODES + 8;
		cc.nr_stat_slots = 2;
		ret = iolat_ctl_create(&cc, &c->ctl);
		if (ret) {
			snprintf(err, errlen, "device %s: cannot create a controller: %s", c->name, strerror(-ret));
			return ret;
		}
		d->nr_devs++;
	}
	return 0;
}

/* The metrics textfile's directory must exist and be writable. */
static int check_textfile(const struct iolatd_config *cfg, char *err, size_t errlen)
{
	char why[IOLATD_ERR_MAX];

	if (!iolatd_check_textfile(cfg, why, sizeof(why)))
		return 0;
	snprintf(err, errlen, "%s: %s", cfg->file, why);
	return -EINVAL;
}

/* The start-up lines: the mode, each disk, the rule that judges its windows and why. */
static void log_devices(struct iolatd *d)
{
	bool adaptive = d->cfg.mode == IOLAT_CTL_MODE_ADAPTIVE;

	iolatd_logf(d, "mode %s%s", iolat_ctl_mode_name(d->cfg.mode),
		    adaptive ? ": rates that find the disk's knee" : "");
	for (unsigned k = 0; k < d->nr_devs; k++) {
		const struct dev_ctl *c = &d->devs[k];
		enum iolat_window_rule rule = iolat_ctl_window_rule(d->cfg.mode, c->rotational);

		/* A rule the mode fixes whatever the disk says needs no reason. */
		if (rule == iolat_ctl_window_rule(d->cfg.mode, !c->rotational)) {
			iolatd_logf(d, "disk %s (%s): %s rule (the %s mode's on every disk), "
				    "nr_requests %u", c->disk, c->name, iolat_window_rule_name(rule),
				    iolat_ctl_mode_name(d->cfg.mode), c->nr_requests);
			continue;
		}
		iolatd_logf(d, "disk %s (%s): %s rule (%s), nr_requests %u%s", c->disk, c->name,
			    iolat_window_rule_name(rule),
			    c->rotational_configured ? "rotational= in the configuration" :
			    c->rotational ? "its queue/rotational says 1" : "its queue/rotational says 0",
			    c->nr_requests, c->rotational && !c->rotational_configured ?
			    "; virtual disks often say rotational: set rotational=0 for the p90 rule" : "");
	}
}

/* iolatd's own cgroup, exempt (exempt.c); a file that cannot be read: said, none. */
static void read_self(struct iolatd *d, const char *file)
{
	int err = iolatd_exempt_self(file, d->root.version, d->self_cg, sizeof(d->self_cg));

	if (err)
		iolatd_log_at(d, LOG_WARNING, "%s: %s: iolatd's own cgroup is not known, so not exempt", file,
			      strerror(-err));
	else if (d->self_cg[0])
		iolatd_logf(d, "own cgroup %s: exempt, never limited", d->self_cg);
}

int iolatd_create(const struct iolatd_config *cfg, const struct iolatd_opts *opts,
		  struct iolatd **out, char *err, size_t errlen)
{
	dev_t devs[IOLATD_MAX_DEVICES];
	struct iolatd *d;
	char why[256];
	int ret;

	if (!opts->run_dir || access(opts->run_dir, W_OK | X_OK)) {
		snprintf(err, errlen, "run directory %s: not a writable directory",
			 opts->run_dir ? opts->run_dir : "(none)");
		return -ENOENT;
	}
	if ((ret = resolve_devices(cfg, opts->sysfs_root ? opts->sysfs_root : "/sys", devs, err, errlen)))
		return ret;
	d = calloc(1, sizeof(*d));
	if (!d || !(d->disc = calloc(1, sizeof(*d->disc))) || !(d->usage = calloc(1, sizeof(*d->usage))) ||
	    !(d->lim = calloc(1, sizeof(*d->lim)))) {
		if (d) {
			free(d->disc);
			free(d->usage);
		}
		free(d);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	d->lock_fd = -1;
	d->cfg = *cfg;
	d->opts = *opts;
	d->lim->direct = opts->direct_limits;
	snprintf(d->run_dir, sizeof(d->run_dir), "%s", opts->run_dir);
	d->opts.run_dir = d->run_dir;
	snprintf(d->sysfs, sizeof(d->sysfs), "%s", opts->sysfs_root ? opts->sysfs_root : "/sys");
	/* Before anything is looked at or put back: another daemon may own the run dir. */
	if ((ret = d->lock_fd = iolatd_runlock_take(d->run_dir, err, errlen)) < 0)
		goto fail;
	if ((ret = iolatd_cgfs_find_root(cfg->cgroup_root, opts->allow_plain_root, &d->root, why, sizeof(why)))) {
		snprintf(err, errlen, "cgroup hierarchy: %s", why);
		goto fail;
	}
	d->user = *cfg;
	if ((ret = make_ctls(d, devs, err, errlen)) || (ret = check_textfile(cfg, err, errlen)))
		goto fail;
	ret = iolatd_units_resolve(d, cfg, &d->cfg, err, errlen);
	if (ret == -EAGAIN)
		iolatd_log_at(d, LOG_WARNING, "%s: the groups named as units wait", err); /* systemd may come later */
	else if (ret)
		goto fail;
	if ((ret = iolatd_check_groups(d, &d->cfg, err, errlen)))
		goto fail;
	/* What a previous run left behind goes first. */
	if (!opts->dry_run) {
		ret = iolatd_state_cleanup(d->run_dir, &d->root, why, sizeof(why));
		if (ret < 0) {
			snprintf(err, errlen, "stale limits: %s (move the file away to start)", why);
			goto fail;
		}
		d->restored_at_start = ret;
		if (ret)
			iolatd_log_at(d, LOG_NOTICE, "removed %d stale limit(s) left by a previous run", ret);
	}
	log_devices(d);
	iolatd_weights_check(d);
	if (opts->direct_why)
		iolatd_logf(d, "limits: %s", opts->direct_why);
	warn_run_dir(d);
	read_self(d, opts->self_cgroup ? opts->self_cgroup : "/proc/self/cgroup");
	iolatd_disc_init(d->disc, &d->root);
	d->started_ns = d->last_period = d->last_second = d->last_resolve = iolat_ctl_now(d->devs[0].ctl);
	d->started_wall = (int64_t)time(NULL);
	iolatd_rescan(d);
	iolatd_write_status(d, d->started_ns);
	*out = d;
	return 0;
fail:
	iolatd_destroy(d);
	return ret;
}

int iolatd_reload(struct iolatd *d, const struct iolatd_config *cfg, char *err, size_t errlen)
{
	static struct iolatd_config eff;
	bool same = cfg->nr_devices == d->user.nr_devices && !strcmp(cfg->cgroup_root, d->user.cgroup_root);

	for (unsigned k = 0; same && k < cfg->nr_devices; k++)
		same = !strcmp(cfg->devices[k], d->user.devices[k]);
	if (!same) {
		snprintf(err, errlen, "device= and cgroup_root= cannot change on reload: restart iolatd");
		return -EINVAL;
	}
	if (cfg->nr_exempt != d->user.nr_exempt ||
	    memcmp(cfg->exempt, d->user.exempt, sizeof(cfg->exempt[0]) * cfg->nr_exempt)) {
		snprintf(err, errlen, "exempt= cannot change on reload: restart iolatd");
		return -EINVAL;
	}
	if (cfg->mode != d->user.mode || cfg->nr_requests != d->user.nr_requests ||
	    cfg->rotational != d->user.rotational) {
		snprintf(err, errlen, "the mode (control=, kernel_compat=), nr_requests= and rotational= "
			 "cannot change on reload: restart iolatd");
		return -EINVAL;
	}
	if (iolatd_units_resolve(d, cfg, &eff, err, errlen) || iolatd_check_groups(d, &eff, err, errlen))
		return -EINVAL; /* -EAGAIN too: what the units are is unknown, the running configuration stays */
	d->user = *cfg;
	d->cfg = eff;
	memset(d->group_checked, 0, sizeof(d->group_checked));
	iolatd_rescan(d);
	iolatd_apply_targets(d);
	iolatd_weights_check(d);
	if (!d->cfg.control)
		iolatd_stop_limits(d, iolat_ctl_now(d->devs[0].ctl));
	return 0;
}

int iolatd_stop_limits(struct iolatd *d, uint64_t now)
{
	int first = 0;

	for (int i = 0; i < LIMTAB_MAX; i++) {
		struct limtab_ent *e = &d->lim->e[i];
		bool was = e->act.active;
		int ret;

		if (!e->used)
			continue;
		ret = iolatd_act_release(&e->act, &d->root, now, d->opts.dry_run);
		if (ret < 0 && !first) {
			first = ret;
			iolatd_log_at(d, LOG_ERR, "%s: cannot remove a limit: %s", e->rel, strerror(-ret));
		}
		if (!e->act.active) {
			d->removed_at_stop += was;
			e->used = false;
		}
	}
	return first;
}

/* Remove every limit; the record of writes goes once nothing of ours is left
 * (what could not be removed stays recorded: the next start retries it). */
static int release_all(struct iolatd *d, uint64_t now)
{
	int ret = iolatd_stop_limits(d, now);
	bool left = false;

	for (int i = 0; i < LIMTAB_MAX && !left; i++)
		left |= d->lim->e[i].used && d->lim->e[i].act.active;
	if (!left && !d->opts.dry_run)
		iolatd_state_save(d->run_dir, NULL, 0);
	return ret;
}

int iolatd_stop(struct iolatd *d, uint64_t now)
{
	char path[IOLATD_PATH_MAX + 16];
	int ret;

	d->removed_at_stop = 0;
	ret = release_all(d, now);

	snprintf(path, sizeof(path), "%s/%s", d->run_dir, IOLATD_STATUS_FILE);
	unlink(path);
	if (d->cfg.textfile[0])
		unlink(d->cfg.textfile); /* no metrics of a daemon that is gone */
	return ret;
}

void iolatd_destroy(struct iolatd *d)
{
	if (!d)
		return;
	if (d->disc && d->nr_devs) {
		for (int i = DISC_MAX_NODES - 1; i >= 0; i--) {
			/* Children were created after their parents: newest first. */
			int newest = -1;

			for (int j = 0; j < DISC_MAX_NODES; j++)
				if (d->nd[j] && (newest < 0 || d->disc->nodes[j].seq > d->disc->nodes[newest].seq))
					newest = j;
			if (newest < 0)
				break;
			for (unsigned k = 0; k < d->nr_devs; k++)
				if (d->nd[newest][k].g)
					iolat_group_destroy(d->nd[newest][k].g);
			free(d->nd[newest]);
			d->nd[newest] = NULL;
		}
	}
	for (unsigned k = 0; k < d->nr_devs; k++)
		iolat_ctl_destroy(d->devs[k].ctl);
	free(d->disc);
	free(d->usage);
	free(d->lim);
	if (d->lock_fd >= 0)
		close(d->lock_fd);
	free(d);
}

unsigned iolatd_devices(const struct iolatd *d, dev_t *devs, unsigned max)
{
	unsigned n = 0;

	for (; n < d->nr_devs && n < max; n++)
		devs[n] = d->devs[n].dev;
	return n;
}

int iolatd_cgroup_version(const struct iolatd *d)
{
	return d->root.version;
}

const char *iolatd_cgroup_root(const struct iolatd *d)
{
	return d->root.path;
}

void iolatd_counters(const struct iolatd *d, struct iolatd_counters *c)
{
	memset(c, 0, sizeof(*c));
	c->observed = d->observed;
	c->unattributed = d->unattributed;
	for (int i = 0; i < DISC_MAX_NODES; i++) {
		if (!d->nd[i])
			continue;
		c->nodes++;
	}
	for (int i = 0; i < LIMTAB_MAX; i++) {
		const struct act *a = &d->lim->e[i].act;

		if (!d->lim->e[i].used)
			continue;
		c->writes += a->writes;
		c->write_errors += a->write_errors;
		c->limits_active += a->active;
	}
	c->removed_at_stop = d->removed_at_stop;
}

void iolatd_note_pid(struct iolatd *d)
{
	iolatd_runlock_note_pid(d->lock_fd);
}

void iolatd_set_source_lost(struct iolatd *d, bool lost)
{
	d->source_lost = lost;
	d->measure_gen++; /* completions were not seen meanwhile */
}

void iolatd_note_dropped(struct iolatd *d, uint64_t dropped)
{
	if (dropped != d->dropped)
		d->measure_gen++;
	d->dropped = dropped;
}

int iolatd_source_lost(struct iolatd *d, uint64_t now)
{
	int ret;

	d->source_lost = true;
	d->measure_gen++;
	ret = release_all(d, now);
	iolatd_write_status(d, now);
	return ret;
}
