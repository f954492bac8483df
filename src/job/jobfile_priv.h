/* SPDX-License-Identifier: MIT */
/*
 * jobfile_priv.h - PRIVATE to the job-file parser's files: the parser's
 * state and what the files call of each other, which is one way only
 * (docs/design.md, "No circles in a folder"), from the top:
 *   jobfile_build.c (job files built in code) and jobfile_help.c (`iolat
 *     help keys`) call the files below them;
 *   jobfile_parse.c (the parser's side of the INI reader, a parser's life,
 *     the entry points) calls the files below;
 *   jobfile_scen.c (registering a scenario, its values) calls the applier;
 *   jobfile_apply.c (groups, applying one key: the job file's own types;
 *     the rest is conf/opt.c's) calls the files below it;
 *   jobfile_engopt.c (ENGINE.OPTION keys), jobfile_scenreg.c (the scenario
 *     registry: keys and rw= words), jobfile_table.c (the option table,
 *     names) and, under all, jobfile_msg.c (messages and memory).
 * A header of no file of its own; job/jobfile.h is the folder's public
 * header, of no file either (its functions are in several of these).
 * Context: any thread; a parser belongs to one call.
 */
#ifndef IOLAT_JOB_JOBFILE_PRIV_H
#define IOLAT_JOB_JOBFILE_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf/opt.h"
#include "conf/value.h"
#include "job/jobfile.h"

#define MAX_FILE_BYTES  (16u << 20)   /* parse_file() refuses larger files */
#define MAX_JOBS        4096u
#define MAX_GROUPS      1024u          /* the controller's default arena */
#define MAX_PARAMS      1024u
#define MAX_KEY_LEN     63u
#define MAX_VALUE_LEN   4095u
#define MAX_ECHO        IOLAT_CONF_ECHO_MAX           /* bytes of user text echoed in a message */
#define MAX_FILE_ECHO   200u           /* bytes of a file name in a message */

enum section { SEC_NONE, SEC_GLOBAL, SEC_JOB, SEC_GROUP };

struct parser {
	struct iolat_jobfile *jf;
	char *err;
	size_t errlen;
	unsigned line;
	enum section sec;
	struct iolat_job defaults;       /* [global] values so far */
	unsigned def_lines[IOLAT_JOB_MAX_KEYS];     /* line each default was set at (0: built-in) */
	unsigned cur_lines[IOLAT_JOB_MAX_KEYS];     /* same for the current job */
	int cur_group;                   /* SEC_GROUP: the group */
	unsigned cap_jobs, cap_groups, cap_params;
	struct iolat_conf_at at;         /* where messages go (jf_at()) */
};

/* Keys valid in [global] (as defaults) and in jobs. */
#define IN_JOBS  (IOLAT_OPT_IN_GLOBAL | IOLAT_OPT_IN_JOB)

/* The option table (jobfile_table.c) and its length; whether @o is one of
 * its entries (else a scenario's key). */
extern const struct iolat_opt jf_opts[];
extern const size_t jf_nr_opts;
bool jf_is_table_opt(const struct iolat_opt *o);

/* jobfile_msg.c: messages ("FILE:LINE: key 'KEY': expected ..."; returns -EINVAL),
 * out of memory (-ENOMEM), user text made printable for a message, and
 * growing the parser's arrays. */
__attribute__((format(printf, 4, 5)))
int jf_perr(struct parser *p, unsigned line, const char *key, const char *fmt, ...);
int jf_oom(struct parser *p);
const struct iolat_conf_at *jf_at(struct parser *p);
void jf_echo(char *dst, size_t dlen, const char *s, size_t n);
void jf_echo_max(char *dst, size_t dlen, const char *s, size_t n, size_t max);
int jf_grow(void **arr, unsigned *cap, unsigned need, size_t elem);

/* jobfile_parse.c: a parser's life, shared by the INI reader and the builder
 * (jobfile_build.c): a new job file holding the table's defaults; a job
 * named @name (@n bytes, checked by the caller) with the defaults so far;
 * the checks across one job's keys; the end: the checks across the file,
 * then *@out (on success), the parser freed either way. */
int jf_parser_new(const char *file, char *err, size_t errlen, struct parser **out);
int jf_add_job(struct parser *p, const char *name, size_t n);
int jf_check_job(struct parser *p, const struct iolat_job *j);
int jf_parser_end(struct parser *p, int r, struct iolat_jobfile **out);

/* Characters and values: the value grammar's (conf/value.h). */
#define jf_is_digit iolat_conf_is_digit
#define jf_is_space iolat_conf_is_space

/* jobfile_apply.c: the option called @key; group paths; applying one value
 * to @base (a job, the defaults, a group) as option @o says. */
const struct iolat_opt *jf_find_opt(const char *key);
int jf_normalise_group_path(const char *s, char *out, size_t outlen, const char **why);
int jf_get_group(struct parser *p, const char *path, unsigned line, const char *key);
int jf_apply(struct parser *p, const struct iolat_opt *o, void *base,
	     const char *key, const char *v);

/* jobfile_engopt.c: ENGINE.OPTION keys (IOLAT_OPT_ENGOPT). @key names an
 * engine that declares options; setting one (checked by the engine's parser);
 * copying [global]'s to a new job; at the end of a job its engine spec
 * (job->spec: the engine, the default one when none is named, and its
 * options typed) and the check of an option of an engine the job does not
 * use; at the end of the file a [global] one no job used; every such key's
 * name (did you mean); the `help keys` lines. */
#define JF_ENGOPT_NAME_MAX 48
bool jf_engopt_matches(const char *key);
int jf_set_engopt(struct parser *p, struct iolat_job *job, const char *key, const char *v);
int jf_engopt_dup(struct parser *p, struct iolat_job *j);
int jf_engopt_resolve(struct parser *p, struct iolat_job *job);
int jf_engopt_finish_job(struct parser *p, struct iolat_job *job);
int jf_engopt_finish(struct parser *p);
size_t jf_engopt_names(char (*names)[JF_ENGOPT_NAME_MAX], size_t max);
int jf_engopt_format_help(char *buf, size_t len, const char *sections);

/* jobfile_scenreg.c: the scenario registry (struct iolat_jobfile_scen).
 * Whether @s is registered; adding it (-EINVAL when full; jobfile_scen.c
 * checks it first); a scenario's key called @key; the scenario and constant
 * word of rw=@word; the registered words, each after @sep, and rw='s added
 * help (as snprintf: the length needed); the i-th scenario key (NULL past
 * the last). */
bool jf_scen_registered(const struct iolat_jobfile_scen *s);
int jf_scen_add(const struct iolat_jobfile_scen *s);
const struct iolat_opt *jf_scen_find_opt(const char *key);
bool jf_scen_workload(const char *word, const struct iolat_jobfile_scen **scen,
		      const char **name);
size_t jf_scen_words(char *buf, size_t len, const char *sep);
size_t jf_scen_rw_help(char *buf, size_t len);
const struct iolat_opt *jf_scen_key(unsigned i);

/* jobfile_scen.c: scenario values: setting one into @vals (the last value
 * wins); copying [global]'s to a new job; freeing. */
int jf_scen_set(struct parser *p, struct iolat_scen_vals *vals, const struct iolat_opt *o,
		const char *key, const char *v);
int jf_scen_dup(struct parser *p, struct iolat_scen_vals *to, const struct iolat_scen_vals *from);
void jf_scen_free(struct iolat_scen_vals *vals);

#endif /* IOLAT_JOB_JOBFILE_PRIV_H */
