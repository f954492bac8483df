/* SPDX-License-Identifier: MIT */
/*
 * config.c - iolatd's configuration (config.h) as a table over the
 * configuration grammar (src/conf): sections [global] and [group:PATH],
 * every key an entry of iolatd_opts[] (its type, field, range, default and
 * help; adding a key is one entry), read by the INI reader and the value
 * grammar the job file uses. Every problem is one line naming the file,
 * the line and the key; iolatd_config_check() collects them all.
 * Context: any thread; no global state.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iolatency.h"
#include "conf/ini.h"
#include "conf/opt.h"
#include "conf/value.h"
#include "daemon/config/config.h"
#include "util/readfile.h"
#include "util/strbuf.h"

/* The configuration's own types (conf/opt.h's user slots). */
#define CFG_DEVICES       IOLAT_OPT_USER0  /* device=: names or MAJ:MIN, comma-separated, added up */
#define CFG_CONTROL       IOLAT_OPT_USER1  /* control=0|1|MODE */
#define CFG_KERNEL_COMPAT IOLAT_OPT_USER2  /* kernel_compat=0|1 */
#define CFG_ABSDIR        IOLAT_OPT_USER3  /* an absolute directory */
#define CFG_PROMFILE      IOLAT_OPT_USER4  /* an absolute path ending in .prom */
#define CFG_EXEMPT        IOLAT_OPT_USER5  /* exempt=: cgroup paths or unit names, comma-separated, added up */

#define GLOBAL(f) .where = IOLAT_OPT_IN_GLOBAL, .off = offsetof(struct iolatd_config, f), \
		  .fsize = sizeof(((struct iolatd_config *)0)->f)
#define GROUP(f)  .where = IOLAT_OPT_IN_GROUP, .off = offsetof(struct iolatd_group_cfg, f), \
		  .fsize = sizeof(((struct iolatd_group_cfg *)0)->f)

/* Every key of iolatd.conf, in the order `unknown key` lists them. */
static const struct iolat_opt iolatd_opts[] = {
	{ .name = "device", .type = CFG_DEVICES, GLOBAL(devices),
	  .help = "the whole disks to control: a name (vda) or MAJ:MIN; comma-separated or repeated" },
	{ .name = "control", .type = CFG_CONTROL, GLOBAL(control), .def = "1",
	  .help = "the mode: adaptive, article, kernel; 1: the default mode; 0: measure only" },
	{ .name = "kernel_compat", .type = CFG_KERNEL_COMPAT, GLOBAL(mode), .def = "0",
	  .help = "1: control=kernel" },
	{ .name = "nr_requests", .type = IOLAT_OPT_COUNT, GLOBAL(nr_requests), .min = 1, .max = 65536,
	  .expect = "a queue depth 1..65536", .help = "the queue depth scaled from (default: the disk's)" },
	{ .name = "rotational", .type = IOLAT_OPT_BOOL, GLOBAL(rotational),
	  .help = "1: the mean rule, 0: the p90 rule (default: the disk's)" },
	{ .name = "min_bps", .type = IOLAT_OPT_RATE, GLOBAL(min_bps), .min = 1, .def = "1m",
	  .expect = "a positive rate in bytes/s like 1m", .help = "the lowest bytes/s limit written" },
	{ .name = "min_iops", .type = IOLAT_OPT_COUNT, GLOBAL(min_iops), .min = 1, .def = "10",
	  .expect = "a positive number like 10", .help = "the lowest IOPS limit written" },
	{ .name = "cgroup_root", .type = CFG_ABSDIR, GLOBAL(cgroup_root),
	  .help = "the cgroup hierarchy (default: found in /proc/self/mounts)" },
	{ .name = "strict", .type = IOLAT_OPT_BOOL, GLOBAL(strict), .def = "0",
	  .help = "1: a configured group whose cgroup is missing is an error" },
	{ .name = "systemd", .type = IOLAT_OPT_BOOL, GLOBAL(systemd), .def = "1",
	  .help = "1: units' IODeviceLatencyTargetSec= and IOWeight= make groups" },
	{ .name = "textfile", .type = CFG_PROMFILE, GLOBAL(textfile),
	  .help = "node_exporter's textfile, rewritten every second" },
	{ .name = "exempt", .type = CFG_EXEMPT, GLOBAL(exempt),
	  .help = "cgroups (a/b) or units (x.service) never limited, besides iolatd's own cgroup and "
		  "systemd-journald.service; comma-separated or repeated" },
	{ .name = "target", .type = IOLAT_OPT_TARGET, GROUP(target_ns), .max = IOLATD_MAX_TARGET_NS,
	  .expect = "a duration up to 10s such as 5ms, 750us, or max",
	  .help = "the group's latency target (max or 0: none)" },
	{ .name = "weight", .type = IOLAT_OPT_UINT, GROUP(weight), .min = IOLATD_WEIGHT_MIN,
	  .max = IOLATD_WEIGHT_MAX, .def = "100", .has_given = true,
	  .given_off = offsetof(struct iolatd_group_cfg, weight_given),
	  .help = "the group's share among its siblings, 1..10000 (io.weight's range)" },
	{ .name = NULL },
};

const struct iolat_opt *iolatd_config_options(void)
{
	return iolatd_opts;
}

struct cfg_parser {
	struct iolat_conf_at at;        /* file, line; err: the problem being told */
	char msg[IOLATD_ERR_MAX];
	struct iolatd_config *cfg;
	struct iolatd_group_cfg *group; /* NULL: [global] */
	bool in_section;
	bool skip;                      /* a bad section header: its keys are not read */
	bool keep_going;                /* collect every problem, not just the first */
	unsigned nr_problems;
	bool bad_device, bad_target;    /* a device= or target= was refused: not "missing" too */
	bool bad_weight;                /* a weight= was refused (a group meant to be weighted) */
	char *first;                    /* the caller's buffer: the first problem */
	size_t firstlen;
	struct iolat_strbuf *all;       /* every problem, one a line; NULL: none */
};

/* A problem, its message in p->msg: kept, and whether to read on. */
static int problem(struct cfg_parser *p)
{
	if (!p->nr_problems++ && p->first && p->firstlen)
		snprintf(p->first, p->firstlen, "%s", p->msg);
	if (p->all)
		iolat_strbuf_addf(p->all, "%s\n", p->msg);
	return p->keep_going ? 0 : -EINVAL;
}

static int on_problem(void *ctx, int err)
{
	return problem(ctx);
}

/* "FILE:LINE: key 'KEY': WHAT" (@key NULL: "FILE:LINE: WHAT"), a problem. */
__attribute__((format(printf, 3, 4)))
static int fail(struct cfg_parser *p, const char *key, const char *fmt, ...)
{
	char what[256], k[IOLAT_CONF_ECHO_MAX + 8];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (key) {
		iolat_conf_echo(k, sizeof(k), key, strlen(key), IOLAT_CONF_ECHO_MAX);
		snprintf(p->msg, sizeof(p->msg), "%s:%u: key '%s': %s", p->at.file, p->at.line, k, what);
	} else {
		snprintf(p->msg, sizeof(p->msg), "%s:%u: %s", p->at.file, p->at.line, what);
	}
	return problem(p);
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* "a/b/c": components of [A-Za-z0-9._-], no "." or "..", no empty one. */
static bool valid_path(const char *s)
{
	const char *c = s;

	if (!*s || strlen(s) >= IOLATD_PATH_MAX)
		return false;
	while (*c) {
		const char *start = c;

		while (*c && *c != '/') {
			if (!isalnum((unsigned char)*c) && !strchr("._-:@+", *c))
				return false;
			c++;
		}
		if (c == start || (c - start == 1 && start[0] == '.') ||
		    (c - start == 2 && start[0] == '.' && start[1] == '.') || c - start >= 64)
			return false;
		if (*c == '/')
			c++;
		if (!*c && c[-1] == '/')
			return false;
	}
	return true;
}

/* exempt=a/b,x.service: added to the list (daemon/exempt.c matches them). */
static int add_exempt(struct cfg_parser *p, const char *key, char *v)
{
	struct iolatd_config *c = p->cfg;

	if (!c->exempt_line)
		c->exempt_line = p->at.line;
	for (char *save = NULL, *tok = strtok_r(v, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		tok = trim(tok);
		while (*tok == '/')
			tok++;
		if (!valid_path(tok))
			return fail(p, key, "expected a cgroup path under cgroup_root (system.slice/backup.service) "
				    "or a unit name (backup.service), got '%s'", tok);
		for (unsigned i = 0; i < c->nr_exempt; i++)
			if (!strcmp(c->exempt[i], tok))
				return fail(p, key, "'%s' given twice", tok);
		if (c->nr_exempt == IOLATD_MAX_EXEMPT)
			return fail(p, key, "at most %d exempt groups", IOLATD_MAX_EXEMPT);
		snprintf(c->exempt[c->nr_exempt++], sizeof(c->exempt[0]), "%s", tok);
	}
	return 0;
}

static int add_devices(struct cfg_parser *p, const char *key, char *v)
{
	for (char *save = NULL, *tok = strtok_r(v, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		tok = trim(tok);
		if (!*tok || strlen(tok) >= IOLATD_DEVNAME_MAX || strchr(tok, '/'))
			return fail(p, key, "expected a disk name (vda) or MAJ:MIN, got '%s'", tok);
		for (unsigned i = 0; i < p->cfg->nr_devices; i++)
			if (!strcmp(p->cfg->devices[i], tok))
				return fail(p, key, "device '%s' given twice", tok);
		if (p->cfg->nr_devices == IOLATD_MAX_DEVICES)
			return fail(p, key, "at most %d devices", IOLATD_MAX_DEVICES);
		strcpy(p->cfg->devices[p->cfg->nr_devices++], tok);
	}
	return 0;
}

/* control=0|1 or a mode's name (the core's: iolat_ctl_mode_parse()) */
static int parse_control(struct cfg_parser *p, const char *k, const char *v)
{
	struct iolatd_config *c = p->cfg;
	enum iolat_ctl_mode m = iolat_ctl_mode_parse(v);

	if (m != IOLAT_CTL_MODE_NONE) {
		if (c->mode_given && c->mode != m)
			return fail(p, k, "'%s' conflicts with kernel_compat=1 (control=kernel)", v);
		c->control = true;
		c->mode = m;
		c->mode_given = true;
		return 0;
	}
	if (iolat_conf_parse_bool(v, &c->control))
		return fail(p, k, "expected 0, 1, adaptive, article or kernel, got '%s'", v);
	return 0;
}

static int parse_kernel_compat(struct cfg_parser *p, const char *k, const char *v)
{
	struct iolatd_config *c = p->cfg;
	bool b;

	if (iolat_conf_parse_bool(v, &b))
		return fail(p, k, "expected 0 or 1, got '%s'", v);
	if (!b)
		return 0;
	if (c->mode_given && c->mode != IOLAT_CTL_MODE_KERNEL)
		return fail(p, k, "1 conflicts with control=%s", iolat_ctl_mode_name(c->mode));
	c->mode = IOLAT_CTL_MODE_KERNEL;
	c->mode_given = true;
	return 0;
}


static int set_path(struct cfg_parser *p, const struct iolat_opt *o, const char *k, const char *v)
{
	size_t vl = strlen(v);

	if (o->type == CFG_PROMFILE &&
	    (v[0] != '/' || vl >= IOLATD_PATH_MAX || vl < 6 || strcmp(v + vl - 5, ".prom")))
		return fail(p, k, "expected an absolute path ending in .prom (node_exporter's textfile "
			    "collector reads only those), got '%s'", v);
	if (v[0] != '/' || vl >= IOLATD_PATH_MAX)
		return fail(p, k, "expected an absolute directory, got '%s'", v);
	memcpy((char *)p->cfg + o->off, v, vl + 1);
	*(o->type == CFG_PROMFILE ? &p->cfg->textfile_line : &p->cfg->cgroup_root_line) = p->at.line;
	return 0;
}

/* A key of the configuration's own types, value @v (copied: may be cut). */
static int own_key(struct cfg_parser *p, const struct iolat_opt *o, const char *k, char *v)
{
	switch (o->type) {
	case CFG_DEVICES:
		if (!p->cfg->device_line)   /* the first device= line (checkconf.c's messages) */
			p->cfg->device_line = p->at.line;
		return add_devices(p, k, v);
	case CFG_CONTROL:
		return parse_control(p, k, v);
	case CFG_KERNEL_COMPAT:
		return parse_kernel_compat(p, k, v);
	case CFG_EXEMPT:
		return add_exempt(p, k, v);
	default:
		return set_path(p, o, k, v);
	}
}

/* "device, control, ..." : the keys of the sections @where. */
static void key_list(unsigned where, char *buf, size_t len)
{
	struct iolat_strbuf sb;

	iolat_strbuf_init(&sb, buf, len);
	for (const struct iolat_opt *o = iolatd_opts; o->name; o++)
		if (o->where & where)
			iolat_strbuf_addf(&sb, "%s%s", sb.used ? ", " : "", o->name);
}

static int unknown_key(struct cfg_parser *p, const char *k)
{
	const struct iolat_opt *o = iolat_opt_find(iolatd_opts, k);
	const char *best = iolat_opt_suggest(iolatd_opts, k);
	char list[256], hint[96] = "";

	key_list(p->group ? IOLAT_OPT_IN_GROUP : IOLAT_OPT_IN_GLOBAL, list, sizeof(list));
	if (o)
		snprintf(hint, sizeof(hint), "; it belongs in %s",
			 o->where & IOLAT_OPT_IN_GROUP ? "a [group:PATH] section" : "[global]");
	else if (best)
		snprintf(hint, sizeof(hint), "; did you mean '%s'?", best);
	return fail(p, k, "unknown key in %s (%s)%s", p->group ? "a [group:] section" : "[global]",
		    list, hint);
}

static int do_key(struct cfg_parser *p, const char *k, char *v)
{
	const struct iolat_opt *o = iolat_opt_find(iolatd_opts, k);
	unsigned where = p->group ? IOLAT_OPT_IN_GROUP : IOLAT_OPT_IN_GLOBAL;
	unsigned before;
	int r;

	if (!p->in_section)
		return fail(p, k, "outside a section: put it under [global] or [group:PATH]");
	if (!o || !(o->where & where))
		return unknown_key(p, k);
	if (v && !*v)
		return fail(p, k, "expected a value");
	before = p->nr_problems;
	r = iolat_opt_apply(&p->at, o, p->group ? (void *)p->group : (void *)p->cfg, k, v);
	if (r == IOLAT_OPT_NOT_MINE)
		r = v ? own_key(p, o, k, v) : fail(p, k, "expected a value (%s=...)", k);
	else if (r)
		r = problem(p);
	else if (o->has_given) /* a group key that says it was written (weight=) */
		*(bool *)((char *)p->group + o->given_off) = true;
	if (p->nr_problems != before) {
		p->bad_device |= o->type == CFG_DEVICES;
		p->bad_target |= o->type == IOLAT_OPT_TARGET;
		p->bad_weight |= o->has_given;
	}
	return r;
}

static int on_key(void *ctx, const char *key, size_t kn, const char *v, size_t vn)
{
	struct cfg_parser *p = ctx;
	char k[64], val[4096];

	if (p->skip)
		return 0;
	if (kn >= sizeof(k)) {
		iolat_conf_echo(val, sizeof(val), key, kn, IOLAT_CONF_ECHO_MAX);
		return fail(p, val, "unknown key (a key has at most %zu bytes)", sizeof(k) - 1);
	}
	memcpy(k, key, kn);
	k[kn] = '\0';
	if (vn >= sizeof(val))
		return fail(p, k, "expected a value of at most %zu bytes", sizeof(val) - 1);
	if (v) {
		memcpy(val, v, vn);
		val[vn] = '\0';
	}
	return do_key(p, k, v ? val : NULL);
}

/* A new group's keys at the table's defaults (weight=100). */
static void group_defaults(struct cfg_parser *p, struct iolatd_group_cfg *g)
{
	memset(g, 0, sizeof(*g));
	for (const struct iolat_opt *o = iolatd_opts; o->name; o++) {
		char v[16];

		if (!o->def || !(o->where & IOLAT_OPT_IN_GROUP))
			continue;
		snprintf(v, sizeof(v), "%s", o->def);
		iolat_opt_apply(&p->at, o, g, o->name, v);
	}
}

/* [group:PATH]: the checks of PATH; 0 or a problem. */
static int group_section(struct cfg_parser *p, const char *name, char *path)
{
	struct iolatd_config *c = p->cfg;

	if (*path == '/')
		return fail(p, NULL, "section [%s]: an absolute path: give the path under cgroup_root "
			    "(e.g. app/main for /sys/fs/cgroup/blkio/app/main)", name);
	if (!strcmp(path, "..") || !strncmp(path, "../", 3) || strstr(path, "/../") ||
	    (strlen(path) >= 3 && !strcmp(path + strlen(path) - 3, "/..")))
		return fail(p, NULL, "section [%s]: '..' is not allowed: a group is a cgroup below cgroup_root", name);
	if (!valid_path(path))
		return fail(p, NULL, "section [%s]: expected a cgroup path such as web/frontend", name);
	if (iolatd_config_group(c, path))
		return fail(p, NULL, "section [%s]: group given twice", name);
	if (c->nr_groups == IOLATD_MAX_GROUPS)
		return fail(p, NULL, "at most %d groups", IOLATD_MAX_GROUPS);
	p->group = &c->groups[c->nr_groups++];
	group_defaults(p, p->group);
	snprintf(p->group->path, sizeof(p->group->path), "%s", path);
	p->group->line = p->at.line;
	p->skip = false;
	return 0;
}

static int on_section(void *ctx, const char *s, size_t n)
{
	struct cfg_parser *p = ctx;
	char name[IOLATD_PATH_MAX + 8];

	p->in_section = true;
	p->group = NULL;
	p->skip = true;   /* until the header is found good */
	if (n >= sizeof(name))
		return fail(p, NULL, "section [%.40s...]: expected a name of at most %zu bytes", s,
			    sizeof(name) - 1);
	memcpy(name, s, n);
	name[n] = '\0';
	if (!strcmp(name, "global")) {
		p->skip = false;
		return 0;
	}
	if (strncmp(name, "group:", 6))
		return fail(p, NULL, "section [%s]: expected [global] or [group:CGROUP/PATH]", name);
	return group_section(p, name, trim(name + 6));
}

/* Every key's default: the table's, by the same code as a value written. */
static void set_defaults(struct cfg_parser *p, const char *file)
{
	struct iolatd_config *cfg = p->cfg;

	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->file, sizeof(cfg->file), "%s", file);
	cfg->mode = IOLATD_DEFAULT_MODE;
	cfg->rotational = -1;
	for (const struct iolat_opt *o = iolatd_opts; o->name; o++) {
		char v[16];

		if (!o->def || !(o->where & IOLAT_OPT_IN_GLOBAL))
			continue;
		snprintf(v, sizeof(v), "%s", o->def);
		if (iolat_opt_apply(&p->at, o, cfg, o->name, v) == IOLAT_OPT_NOT_MINE)
			own_key(p, o, o->name, v);
	}
	p->in_section = false;
}

/* The checks across the file, at its end (not for a key already told as refused). */
static void check_whole(struct cfg_parser *p)
{
	struct iolatd_config *cfg = p->cfg;

	if (!cfg->nr_devices && !p->bad_device)
		fail(p, "device", "missing: [global] needs device=NAME or MAJ:MIN");
	if (!cfg->nr_groups) {
		fail(p, NULL, "no [group:PATH] section: nothing to protect");
		return;
	}
	for (unsigned i = 0; i < cfg->nr_groups; i++)
		if (cfg->groups[i].target_ns || cfg->groups[i].weight_given || p->bad_target || p->bad_weight)
			return;
	p->at.line = cfg->groups[0].line;
	fail(p, "target", "no group has a target or a weight: nothing would ever be throttled");
}

/* Parse @text into @cfg: the number of problems, the first in @err, every one in @all. */
static unsigned parse(const char *file, const char *text, struct iolatd_config *cfg, bool keep_going,
		      char *err, size_t errlen, struct iolat_strbuf *all)
{
	static const struct iolat_ini_ops ops = {
		.section = on_section, .key = on_key, .problem = on_problem,
	};
	struct cfg_parser p = {
		.cfg = cfg, .keep_going = keep_going, .first = err, .firstlen = errlen, .all = all,
	};

	p.at = (struct iolat_conf_at){ .file = file, .err = p.msg, .errlen = sizeof(p.msg) };
	set_defaults(&p, file);
	iolat_ini_read(&p.at, text, strlen(text), &ops, &p);
	if (keep_going || !p.nr_problems)
		check_whole(&p);
	return p.nr_problems;
}

int iolatd_config_parse(const char *file, const char *text, struct iolatd_config *cfg,
			char *err, size_t errlen)
{
	return parse(file, text, cfg, false, err, errlen, NULL) ? -EINVAL : 0;
}

/* @file's text into *@text (free() it); -errno with one line in @err. */
static int read_config(const char *file, char **text, char *err, size_t errlen)
{
	size_t len;
	int ret = iolat_read_file(file, 1 << 20, text, &len);

	if (ret == -EFBIG) {
		snprintf(err, errlen, "%s: cannot read: larger than 1 MiB", file);
		return -EINVAL;
	}
	if (ret) {
		snprintf(err, errlen, "%s: cannot open: %s", file, strerror(-ret));
		return ret;
	}
	if (memchr(*text, '\0', len)) {
		free(*text);
		snprintf(err, errlen, "%s: not a text file", file);
		return -EINVAL;
	}
	return 0;
}

int iolatd_config_load(const char *file, struct iolatd_config *cfg, char *err, size_t errlen)
{
	char *text;
	int ret = read_config(file, &text, err, errlen);

	if (ret)
		return ret;
	ret = iolatd_config_parse(file, text, cfg, err, errlen);
	free(text);
	return ret;
}

int iolatd_config_check_text(const char *file, const char *text, char *out, size_t len)
{
	struct iolatd_config *cfg = malloc(sizeof(*cfg));
	struct iolat_strbuf all;
	unsigned n;

	if (!cfg) {
		snprintf(out, len, "%s: out of memory\n", file);
		return -ENOMEM;
	}
	iolat_strbuf_init(&all, out, len);
	n = parse(file, text, cfg, true, NULL, 0, &all);
	free(cfg);
	return (int)n;
}

int iolatd_config_check(const char *file, char *out, size_t len)
{
	char *text, line[IOLATD_ERR_MAX];
	int ret = read_config(file, &text, line, sizeof(line));

	if (ret) {
		snprintf(out, len, "%s\n", line);
		return ret;
	}
	ret = iolatd_config_check_text(file, text, out, len);
	free(text);
	return ret;
}

unsigned iolatd_config_weight(const struct iolatd_group_cfg *g, unsigned k)
{
	if (!g)
		return IOLATD_WEIGHT_DEFAULT;
	if (k < IOLATD_MAX_DEVICES && g->dev_weight[k])
		return g->dev_weight[k];
	return g->weight ? g->weight : IOLATD_WEIGHT_DEFAULT; /* 0: a group made in code, not parsed */
}

bool iolatd_config_weighted(const struct iolatd_config *cfg)
{
	for (unsigned i = 0; i < cfg->nr_groups; i++)
		if (cfg->groups[i].weight_given)
			return true;
	return false;
}

const struct iolatd_group_cfg *iolatd_config_group(const struct iolatd_config *cfg,
						   const char *path)
{
	for (unsigned i = 0; i < cfg->nr_groups; i++)
		if (!strcmp(cfg->groups[i].path, path))
			return &cfg->groups[i];
	return NULL;
}
