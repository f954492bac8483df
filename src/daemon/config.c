/* SPDX-License-Identifier: MIT */
/*
 * config.c - parses iolatd's INI configuration (config.h): sections
 * [global] and [group:PATH], "key=value" lines, ';' and '#' comments.
 * Every error is one line naming the file, the line and the key.
 * Context: any thread; no global state.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iolatency.h"
#include "daemon/config.h"
#include "util/readfile.h"

struct cfg_parser {
	const char *file;
	unsigned line;
	struct iolatd_config *cfg;
	struct iolatd_group_cfg *group; /* NULL: [global] */
	bool in_section;
	char *err;
	size_t errlen;
};

static int fail(struct cfg_parser *p, const char *key, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (key)
		snprintf(p->err, p->errlen, "%s:%u: key '%s': %s", p->file, p->line, key, what);
	else
		snprintf(p->err, p->errlen, "%s:%u: %s", p->file, p->line, what);
	return -EINVAL;
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

static int parse_bool(const char *s, bool *out)
{
	if (!strcmp(s, "1") || !strcasecmp(s, "true") || !strcasecmp(s, "yes") || !strcasecmp(s, "on"))
		*out = true;
	else if (!strcmp(s, "0") || !strcasecmp(s, "false") || !strcasecmp(s, "no") ||
		 !strcasecmp(s, "off"))
		*out = false;
	else
		return -EINVAL;
	return 0;
}

/* An unsigned number with an optional k/m/g suffix (powers of 1024). */
static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mult = 1;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	switch (tolower((unsigned char)*end)) {
	case 'k': mult = 1ull << 10; end++; break;
	case 'm': mult = 1ull << 20; end++; break;
	case 'g': mult = 1ull << 30; end++; break;
	default: break;
	}
	if (*end || v > UINT64_MAX / mult)
		return -EINVAL;
	*out = v * mult;
	return 0;
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
	if (parse_bool(v, &c->control))
		return fail(p, k, "expected 0, 1, adaptive, article or kernel, got '%s'", v);
	return 0;
}

static int parse_kernel_compat(struct cfg_parser *p, const char *k, const char *v)
{
	struct iolatd_config *c = p->cfg;
	bool b;

	if (parse_bool(v, &b))
		return fail(p, k, "expected 0 or 1, got '%s'", v);
	if (!b)
		return 0;
	if (c->mode_given && c->mode != IOLAT_CTL_MODE_KERNEL)
		return fail(p, k, "1 conflicts with control=%s", iolat_ctl_mode_name(c->mode));
	c->mode = IOLAT_CTL_MODE_KERNEL;
	c->mode_given = true;
	return 0;
}

static int global_key(struct cfg_parser *p, const char *k, char *v)
{
	struct iolatd_config *c = p->cfg;
	uint64_t n;

	if (!strcmp(k, "device")) {
		c->device_line = c->device_line ? c->device_line : p->line;
		return add_devices(p, k, v);
	}
	if (!strcmp(k, "control"))
		return parse_control(p, k, v);
	if (!strcmp(k, "kernel_compat"))
		return parse_kernel_compat(p, k, v);
	if (!strcmp(k, "strict"))
		return parse_bool(v, &c->strict) ? fail(p, k, "expected 0 or 1, got '%s'", v) : 0;
	if (!strcmp(k, "systemd"))
		return parse_bool(v, &c->systemd) ? fail(p, k, "expected 0 or 1, got '%s'", v) : 0;
	if (!strcmp(k, "rotational")) {
		bool b;

		if (parse_bool(v, &b))
			return fail(p, k, "expected 0 or 1, got '%s'", v);
		c->rotational = b;
		return 0;
	}
	if (!strcmp(k, "nr_requests")) {
		if (parse_size(v, &n) || n == 0 || n > 65536)
			return fail(p, k, "expected a queue depth 1..65536, got '%s'", v);
		c->nr_requests = (uint32_t)n;
		return 0;
	}
	if (!strcmp(k, "min_bps") || !strcmp(k, "min_iops")) {
		if (parse_size(v, &n) || n == 0)
			return fail(p, k, "expected a positive number, got '%s'", v);
		*(k[4] == 'b' ? &c->min_bps : &c->min_iops) = n;
		return 0;
	}
	if (!strcmp(k, "textfile")) {
		size_t vl = strlen(v);

		if (v[0] != '/' || vl >= IOLATD_PATH_MAX || vl < 6 || strcmp(v + vl - 5, ".prom"))
			return fail(p, k, "expected an absolute path ending in .prom (node_exporter's textfile "
				    "collector reads only those), got '%s'", v);
		strcpy(c->textfile, v);
		c->textfile_line = p->line;
		return 0;
	}
	if (!strcmp(k, "cgroup_root")) {
		if (v[0] != '/' || strlen(v) >= IOLATD_PATH_MAX)
			return fail(p, k, "expected an absolute directory, got '%s'", v);
		strcpy(c->cgroup_root, v);
		c->cgroup_root_line = p->line;
		return 0;
	}
	return fail(p, k, "unknown key in [global] (device, control, kernel_compat, nr_requests, "
			  "rotational, min_bps, min_iops, cgroup_root, strict, systemd, textfile)");
}

static int group_key(struct cfg_parser *p, const char *k, const char *v)
{
	if (!strcmp(k, "target")) {
		if (iolat_parse_duration(v, &p->group->target_ns) || p->group->target_ns > IOLATD_MAX_TARGET_NS)
			return fail(p, k, "expected a duration up to 10s such as 5ms, 750us, or max, got '%s'", v);
		return 0;
	}
	return fail(p, k, "unknown key in a [group:] section (target)");
}

static int section(struct cfg_parser *p, char *name)
{
	struct iolatd_config *c = p->cfg;
	char *path;

	p->in_section = true;
	p->group = NULL;
	if (!strcmp(name, "global"))
		return 0;
	if (strncmp(name, "group:", 6))
		return fail(p, NULL, "section [%s]: expected [global] or [group:CGROUP/PATH]", name);
	path = trim(name + 6);
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
	snprintf(p->group->path, sizeof(p->group->path), "%s", path);
	p->group->line = p->line;
	return 0;
}

static int parse_line(struct cfg_parser *p, char *line)
{
	char *s = trim(line), *eq, *k, *v;

	if (!*s || *s == ';' || *s == '#')
		return 0;
	if (*s == '[') {
		char *end = strchr(s, ']'), after;

		after = end ? trim(end + 1)[0] : '\0';
		if (!end || (after && after != ';' && after != '#'))
			return fail(p, NULL, "expected a section header such as [global]");
		*end = '\0';
		return section(p, trim(s + 1));
	}
	eq = strchr(s, '=');
	if (!eq)
		return fail(p, NULL, "expected key=value, got '%s'", s);
	*eq = '\0';
	k = trim(s);
	v = eq + 1;
	for (char *c = v; *c; c++)
		if ((*c == ';' || *c == '#') && (c == v || isspace((unsigned char)c[-1]))) {
			*c = '\0';
			break;
		}
	v = trim(v);
	if (!p->in_section)
		return fail(p, k, "outside a section: put it under [global] or [group:PATH]");
	if (!*v)
		return fail(p, k, "expected a value");
	return p->group ? group_key(p, k, v) : global_key(p, k, v);
}

int iolatd_config_parse(const char *file, const char *text, struct iolatd_config *cfg,
			char *err, size_t errlen)
{
	struct cfg_parser p = { .file = file, .cfg = cfg, .err = err, .errlen = errlen };
	const char *s = text;
	char line[1024];

	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->file, sizeof(cfg->file), "%s", file);
	cfg->control = true;
	cfg->mode = IOLATD_DEFAULT_MODE;
	cfg->systemd = true;
	cfg->rotational = -1;
	cfg->min_bps = 1ull << 20;
	cfg->min_iops = 10;
	while (*s) {
		size_t n = strcspn(s, "\n");

		p.line++;
		if (n >= sizeof(line))
			return fail(&p, NULL, "line longer than %zu bytes", sizeof(line) - 1);
		memcpy(line, s, n);
		line[n] = '\0';
		if (parse_line(&p, line))
			return -EINVAL;
		s += n + (s[n] == '\n');
	}
	if (!cfg->nr_devices)
		return fail(&p, "device", "missing: [global] needs device=NAME or MAJ:MIN");
	if (!cfg->nr_groups)
		return fail(&p, NULL, "no [group:PATH] section: nothing to protect");
	for (unsigned i = 0; i < cfg->nr_groups; i++)
		if (cfg->groups[i].target_ns)
			return 0;
	p.line = cfg->groups[0].line;
	return fail(&p, "target", "no group has a target: nothing would ever be throttled");
}

int iolatd_config_load(const char *file, struct iolatd_config *cfg, char *err, size_t errlen)
{
	size_t len;
	char *text;
	int ret;

	ret = iolat_read_file(file, 1 << 20, &text, &len);
	if (ret == -EFBIG) {
		snprintf(err, errlen, "%s: cannot read: larger than 1 MiB", file);
		return -EINVAL;
	}
	if (ret) {
		snprintf(err, errlen, "%s: cannot open: %s", file, strerror(-ret));
		return ret;
	}
	if (memchr(text, '\0', len)) {
		free(text);
		snprintf(err, errlen, "%s: not a text file", file);
		return -EINVAL;
	}
	ret = iolatd_config_parse(file, text, cfg, err, errlen);
	free(text);
	return ret;
}

const struct iolatd_group_cfg *iolatd_config_group(const struct iolatd_config *cfg,
						   const char *path)
{
	for (unsigned i = 0; i < cfg->nr_groups; i++)
		if (!strcmp(cfg->groups[i].path, path))
			return &cfg->groups[i];
	return NULL;
}
