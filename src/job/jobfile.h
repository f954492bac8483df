/* SPDX-License-Identifier: MIT */
/*
 * Job files: our own small INI parser for fio's job-file syntax plus our keys
 * ([group:PATH] sections, group=, burst_on/off, ioflags, device and model keys).
 * It turns a file or a buffer into a typed job description (struct
 * iolat_jobfile: settings, groups, jobs, each job's engine spec) for whoever
 * runs it (src/run, on either backend; a scenario of src/scen); it knows no
 * runner, does no I/O besides reading the file, never prints, and reports
 * each error as one line "FILE:LINE: key 'KEY': expected ..." in a caller
 * buffer (util/errmsg.h's convention).
 * The option table (iolat_jobfile_options()) drives parsing and `iolat help keys`.
 * The folder's public header, of no file of its own: its functions are in
 * the parser's files (jobfile_priv.h lists them and the way they call).
 * Context: any thread; a parsed struct iolat_jobfile is immutable and may be
 * read from many threads at once.
 */
#ifndef IOLAT_JOB_JOBFILE_H
#define IOLAT_JOB_JOBFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iolatency.h"
#include "conf/opt.h"
#include "conf/value.h"   /* iolat_parse_size(), shared with the CLI */
#include "util/optval.h"

#define IOLAT_JOB_NAME_MAX   64     /* job section name, NUL included */
#define IOLAT_GROUP_PATH_MAX 256    /* "a/b/c", NUL included */
#define IOLAT_GROUP_NAME_MAX 64     /* one path component, NUL included (core: 63 bytes) */
#define IOLAT_ENGINE_NAME_MAX 32    /* ioengine= value, NUL included */
#define IOLAT_PARAM_KEY_MAX  64     /* device-model parameter key, NUL included */
#define IOLAT_PARAM_VAL_MAX  128    /* device-model parameter value, NUL included */
#define IOLAT_JOBFILE_ERR_MAX 512   /* a buffer this large always holds the whole message */
#define IOLAT_JOB_MAX_KEYS   64     /* entries of the option table a job records lines for */
#define IOLAT_MAX_PERCENTILES 16    /* percentile_list= entries */
#define IOLAT_ENGOPT_VAL_MAX 32     /* an engine option's value (faulty.rate=...), NUL included */

/* Index meaning "the root group" (a job with no group=). */
#define IOLAT_GROUP_ROOT (-1)

enum iolat_rw {
	IOLAT_RW_READ = 0,      /* "read": sequential reads (fio's default) */
	IOLAT_RW_WRITE,         /* "write" */
	IOLAT_RW_RANDREAD,      /* "randread" */
	IOLAT_RW_RANDWRITE,     /* "randwrite" */
	IOLAT_RW_RW,            /* "rw" or "readwrite": sequential mix by rwmixread */
	IOLAT_RW_RANDRW,        /* "randrw": random mix by rwmixread */
};

/* rate_process= (fio's names): how the arrivals of an open-loop job are spaced. */
enum iolat_rate_process {
	IOLAT_RATE_PROCESS_UNSET = 0, /* not given: poisson for rate_iops=, the cap for rate= */
	IOLAT_RATE_LINEAR,            /* "linear": evenly spaced (rate= alone: the cap) */
	IOLAT_RATE_POISSON,           /* "poisson": exponential gaps (rate= too: open loop) */
};

enum iolat_verify {
	IOLAT_VERIFY_NONE = 0,
	IOLAT_VERIFY_CRC32C,
};

/* device= (simulator). */
enum iolat_device_kind {
	IOLAT_DEVICE_DEFAULT = 0, /* not given: the simulator's default */
	IOLAT_DEVICE_SSD,         /* "ssd" */
	IOLAT_DEVICE_HDD,         /* "hdd" */
	IOLAT_DEVICE_BAD_SSD,     /* "bad-ssd" */
	IOLAT_DEVICE_VDISK,       /* "vdisk" */
};

/*
 * Scenario keys (src/scen, jobfile_scen.c and jobfile_scenreg.c): a
 * scenario registers its own keys; their values, checked as they are read,
 * are kept as numbers beside the section that set them (a job's include its
 * [global]'s).
 */
struct iolat_scen_val {
	const struct iolat_opt *opt;  /* the key, in its scenario's table */
	uint64_t value;
	unsigned line;                   /* the line that set it */
};
struct iolat_scen_vals {
	struct iolat_scen_val *v;        /* owned by the jobfile */
	unsigned nr;
};

/* One group: a [group:PATH] section, a parent created implicitly, or a group= target. */
struct iolat_jobfile_group {
	char path[IOLAT_GROUP_PATH_MAX]; /* full path, "system/fbpkg" */
	const char *name;                /* last component, points into path */
	int parent;                      /* index in groups[], or IOLAT_GROUP_ROOT */
	uint64_t target_ns;              /* 0: none ("max" or not given) */
	unsigned weight;                 /* 1..10000; 0: not given (IOLAT_WEIGHT_DEFAULT) */
	uint64_t throttle_bps;           /* iolat sim: a static kernel-throttle cap, bytes/s; 0: none */
	struct iolat_scen_vals scen_vals;/* scenario keys set in its section */
	bool declared;                   /* a [group:PATH] section exists */
	unsigned line;                   /* line of the section, or of the first use */
};

/*
 * An engine option a job file set, ENGINE.OPTION=VALUE ("faulty.rate=0.01"):
 * an option of the table the engine declares (src/engine/engopt.h), its value
 * read once by the engine's own parser into its typed form, and kept as
 * written for messages and iolat_job_engine_options().
 */
struct iolat_job_engopt {
	const char *engine;              /* the engine's registry name ("faulty"): constant */
	const char *name;                /* the option's name in that table: constant */
	unsigned index;                  /* its position in that table */
	union iolat_optval v;            /* its value, typed */
	char value[IOLAT_ENGOPT_VAL_MAX];/* as written */
	unsigned line;                   /* the line that set it */
	bool inherited;                  /* from a [global] section above the job */
	bool used;                       /* the parser's: a [global] one a job used */
};

/*
 * One job section. Values from [global] sections above it are inherited; keys
 * in the section override them. Fields not given keep the defaults listed in
 * the option table (fio's: rw=read, bs=4k, iodepth=1, numjobs=1, rwmixread=50).
 * Runners expand numjobs themselves (clone 0..numjobs-1 of the same job).
 */
struct iolat_jobfile_scen;
struct iolat_eng_spec;

struct iolat_job {
	char name[IOLAT_JOB_NAME_MAX];   /* section name */
	unsigned line;                   /* line of the [name] header */
	unsigned index;                  /* position in jobs[] */
	char *filename;                  /* owned by the jobfile; NULL: not given */
	uint64_t size;                   /* bytes; 0: not given (runner uses the file size) */
	uint64_t offset;                 /* bytes: start of the region */
	enum iolat_rw rw;
	uint32_t rwmixread;              /* % of reads for rw/randrw, 0..100 */
	uint32_t bs;                     /* bytes, > 0 */
	uint32_t iodepth;                /* >= 1 */
	uint64_t runtime_ns;             /* 0: not given */
	bool time_based;                 /* run for runtime even when size is done */
	uint64_t startdelay_ns;
	uint64_t rate_iops;              /* 0: none; else open-loop arrivals at this rate
					  * (rate_split: the reads' rate) */
	uint64_t rate_iops_write;        /* rate_split: the writes' rate; else 0 */
	bool rate_split;                 /* rate_iops=R,W: reads and writes arrive apart */
	uint64_t rate_bps;               /* 0: none; else bytes/s: a token-bucket cap, or with
					  * rate_process=poisson (and no rate_iops) the
					  * open-loop arrival rate, rate / bs I/Os per second */
	enum iolat_rate_process rate_process; /* how open-loop arrivals are spaced */
	uint64_t thinktime_ns;           /* pause after each completion */
	bool direct;                     /* O_DIRECT */
	char ioengine[IOLAT_ENGINE_NAME_MAX]; /* as written ("faulty:psync"); "" if not given */
	const char *engine;              /* the (inner) engine's registry name ("uring" for
					  * io_uring), "sim", NULL: not given (job/engines.h) */
	const char *engine_wrapper;      /* "faulty" for faulty:<inner>, else NULL */
	const struct iolat_eng_spec *spec; /* the engine to create and its options, typed,
					  * the default engine when ioengine= is not given
					  * (engine/engspec.h; owned by the jobfile); NULL
					  * for ioengine=sim */
	uint32_t numjobs;                /* >= 1 */
	enum iolat_verify verify;
	int group;                       /* index in groups[], or IOLAT_GROUP_ROOT */
	char cgroup[IOLAT_GROUP_PATH_MAX]; /* cgroup=: the kernel cgroup its threads run in (fio's
					  * meaning; src/run/jobcg.h), relative to the hierarchy's
					  * root; "": none */
	uint64_t cgroup_write_bps;       /* cgroup_write_bps=: the kernel's block throttle on
					  * that cgroup for the job's disk (writes, bytes/s)
					  * for the run (src/run/jobcg.h); 0: none */
	uint64_t burst_on_ns;            /* both 0: always on; else on/off cycle */
	uint64_t burst_off_ns;
	unsigned ioflags;                /* IOLAT_IO_META | IOLAT_IO_SWAP (iolatency.h) */
	const struct iolat_jobfile_scen *scen; /* rw= named a workload of this scenario;
					  * NULL: plain I/O (rw= above) */
	const char *workload;            /* that rw= word ("hashd"): constant; NULL: plain I/O */
	struct iolat_scen_vals scen_vals;/* scenario keys of the job and its [global] */
	bool randrepeat;                 /* fio's; always 1 here */
	bool norandommap;                /* fio's; always 1 here */
	bool allow_mounted_write;        /* write to a mounted or held block device */
	bool allow_signature_write;      /* write over a filesystem/partition signature */
	struct iolat_job_engopt *engopts;/* ENGINE.OPTION keys, [global]'s first, in the
					  * order written (owned by the jobfile); read them
					  * with iolat_job_engine_options() */
	unsigned nr_engopts;
	unsigned key_line[IOLAT_JOB_MAX_KEYS]; /* line that set each key (0: default);
					        * read it with iolat_job_key_line() */
};

struct iolat_jobfile;

/*
 * The mode a run uses (an enum iolat_ctl_mode of iolatency.h, whose table
 * names the modes): @opt_mode (command line; IOLAT_CTL_MODE_NONE: none), else
 * --kernel-compat (@opt_compat 1), else the job file's control=MODE, else its
 * kernel_compat=1, else @def_mode, else the article's.
 */
int iolat_mode_pick(const struct iolat_jobfile *jf, int opt_mode, int opt_compat, int def_mode);

/* Device and controller settings ([global] only). */
struct iolat_jobfile_global {
	enum iolat_device_kind device;
	uint32_t nr_requests;            /* 0: not given (controller default 64) */
	int rotational;                  /* -1: not given (follow the device), 0, 1 */
	bool control;                    /* default true; control=0 runs without the controller */
	bool kernel_compat;              /* IOLAT_CTL_KERNEL_COMPAT */
	int mode;                        /* control=MODE: an enum iolat_ctl_mode; 0: not given */
	uint64_t seed;                   /* default 1 */
	bool seed_set;
	struct iolat_scen_vals scen_vals;/* [global]-only scenario keys */
	uint64_t ramp_ns;                /* ramp_time: the jobs run this long before
					  * runtime starts; the report leaves it out */
	double percentiles[IOLAT_MAX_PERCENTILES]; /* percentile_list=, in the JSON */
	unsigned nr_percentiles;
	/* iolat sim's kernel-throttle plant (docs/simulator-scenarios.md section 6); all 0: off */
	uint64_t throttle_slice_ns;      /* the throttle grants its budget per slice; 0: smoothly */
	uint64_t actuate_period_ns;      /* the actuator reads the controller's rate this often */
	uint64_t actuate_delay_ns;       /* ... and the value takes effect this much later */
};

/* A device-model parameter (hdd_*, ssd_*, badssd_*), kept verbatim for the simulator. */
struct iolat_jobfile_param {
	char key[IOLAT_PARAM_KEY_MAX];
	char value[IOLAT_PARAM_VAL_MAX];
	unsigned line;
};

struct iolat_jobfile {
	char *file;                          /* name used in messages */
	struct iolat_jobfile_global global;
	struct iolat_jobfile_group *groups;  /* parents precede their children */
	unsigned nr_groups;
	struct iolat_job *jobs;              /* in file order */
	unsigned nr_jobs;
	struct iolat_jobfile_param *params;  /* in file order */
	unsigned nr_params;
};

/**
 * iolat_jobfile_parse_buf() - parse a job file held in memory.
 * @buf: the text; may hold NULs (an error) and need not be NUL-terminated.
 * @len: its length in bytes.
 * @file: name used in messages ("FILE:LINE: ..."); NULL means "<buffer>".
 * @out: the result, to free with iolat_jobfile_free(); NULL on error.
 * @err: buffer for a one-line message (no newline); may be NULL.
 * @errlen: its size; IOLAT_JOBFILE_ERR_MAX always suffices.
 * Return: 0; -EINVAL for a bad job file (message in @err); -ENOMEM.
 * Context: any thread.
 */
int iolat_jobfile_parse_buf(const char *buf, size_t len, const char *file,
			    struct iolat_jobfile **out, char *err, size_t errlen);

/**
 * iolat_jobfile_parse_file() - read @path and parse it as iolat_jobfile_parse_buf().
 * Return: 0; -EINVAL (bad job file); -ENOENT, -EACCES, ... when it cannot be
 * read ("PATH: cannot read: REASON" in @err); -EFBIG over 16 MiB; -ENOMEM.
 * Context: any thread.
 */
int iolat_jobfile_parse_file(const char *path, struct iolat_jobfile **out,
			     char *err, size_t errlen);

/** iolat_jobfile_free() - free a parsed job file; NULL is allowed. */
void iolat_jobfile_free(struct iolat_jobfile *jf);

/**
 * iolat_job_key_line() - the line of @jf's file that set @key for @job (in its
 * section or in a [global] above it), or the line of the job's header when
 * the key kept its default. For messages that name the key's own line.
 */
unsigned iolat_job_key_line(const struct iolat_job *job, const char *key);

/**
 * iolat_job_engine_options() - @job's options for engine @engine ("faulty")
 * as the job file wrote them, "kind=eio,rate=0.1": its ENGINE.OPTION keys
 * for that engine, in the order written, then @extra (the command line's
 * --faults, or NULL), which wins key by key when the engine reads it. (A
 * runner takes the typed spec, @job->spec, instead.) As
 * snprintf: the length needed.
 */
int iolat_job_engine_options(const struct iolat_job *job, const char *engine, const char *extra,
			     char *buf, size_t len);

/** iolat_jobfile_has_weights() - some group has weight= (the run turns weights on). */
bool iolat_jobfile_has_weights(const struct iolat_jobfile *jf);

/** iolat_jobfile_find_group() - index of the group with path @path, or -ENOENT. */
int iolat_jobfile_find_group(const struct iolat_jobfile *jf, const char *path);

/* Names of enum values, as written in job files ("randread", "bad-ssd", "psync"...). */
const char *iolat_rw_name(enum iolat_rw rw);
const char *iolat_device_name(enum iolat_device_kind d);   /* "" for DEFAULT */
bool iolat_rw_is_random(enum iolat_rw rw);
bool iolat_rw_is_mixed(enum iolat_rw rw);    /* rw, randrw */
bool iolat_rw_has_write(enum iolat_rw rw);   /* may issue a write */

/* ---- the option table (conf/opt.h's struct iolat_opt), the job file's own types ---- */

#define IOLAT_OPT_ENGINE  IOLAT_OPT_USER0  /* ioengine: a name of the engine registry (job/engines.h) */
#define IOLAT_OPT_GROUP   IOLAT_OPT_USER1  /* a group path; creates the group (and parents) when new */
#define IOLAT_OPT_PARAM   IOLAT_OPT_USER2  /* a device-model key family (prefix*), kept verbatim */
#define IOLAT_OPT_JOBNAME IOLAT_OPT_USER3  /* fio's name=: the job's name */
#define IOLAT_OPT_PCTLIST IOLAT_OPT_USER4  /* percentiles separated by ':' (fio's percentile_list) */
#define IOLAT_OPT_ENGOPT  IOLAT_OPT_USER5  /* a key family ENGINE.OPTION: an option an engine
					    * declares in its table (src/engine/engopt.h), kept
					    * in iolat_job.engopts */
#define IOLAT_OPT_CGROUP  IOLAT_OPT_USER6  /* a kernel cgroup path, checked as a group path, into
					    * a char array */

/*
 * A scenario job files can describe (src/scen): the rw= words of its
 * workloads and its own keys, registered once at the program's start the
 * way an engine declares its options (docs/design.md, "Scenario keys"). A
 * job whose rw= is one of the words records the scenario and the word (its
 * rw stays read); a key's value is kept in the scen_vals of the section
 * that set it, read with iolat_scen_value().
 */
struct iolat_jobfile_scen {
	const char *name;                 /* "memleak" */
	const char *what;                 /* for messages: "the leaking-service scenario" */
	const char *const *workloads;     /* its rw= words, ended by NULL */
	const char *rw_help;              /* added to rw='s help line */
	const struct iolat_opt *keys;  /* its keys, ended by name NULL: numbers only (size,
					   * rate, time, target, int, choice, plain bool);
					   * off and fsize are not used */
	/* iolat sim --parse-only's check of a file of this scenario: 0, or
	 * -EINVAL with one line in @err. */
	int (*check)(const struct iolat_jobfile *jf, char *err, size_t errlen);
};

/**
 * iolat_jobfile_register_scen() - add @s to the scenarios job files may use
 * (again: nothing). Call before any job file is parsed.
 * Return: 0; -EINVAL when a key or word clashes with one known already, a
 * key is not a number, a default does not parse, or the registry is full.
 * Context: the program's start (it writes the registry, unlocked).
 */
int iolat_jobfile_register_scen(const struct iolat_jobfile_scen *s);

/**
 * iolat_scen_value() - scenario key @key in @vals (a job's, the [global]'s or
 * a group's), else its default (0 without one). @line, if not NULL: the line
 * that set it, 0 for the default. Return: 0, or -ENOENT for an unknown key.
 */
int iolat_scen_value(const struct iolat_scen_vals *vals, const char *key, uint64_t *value,
		     unsigned *line);

/**
 * iolat_jobfile_scenario() - the scenario whose workloads @jf's jobs are
 * (*@out NULL: plain I/O jobs only). Return: 0, or -EINVAL with one line in
 * @err when the file mixes them with ordinary jobs or another scenario's.
 */
int iolat_jobfile_scenario(const struct iolat_jobfile *jf, const struct iolat_jobfile_scen **out,
			   char *err, size_t errlen);

/** iolat_jobfile_options() - the option table, ended by an entry with name NULL. */
const struct iolat_opt *iolat_jobfile_options(void);

/**
 * iolat_jobfile_format_keys() - the `iolat help keys` listing, one line a key:
 * name, type, where, default, help. Like snprintf: writes at most @len bytes,
 * always NUL-terminated when @len > 0.
 * Return: the length the whole listing needs (excluding the NUL).
 */
int iolat_jobfile_format_keys(char *buf, size_t len);

#endif /* IOLAT_JOB_JOBFILE_H */
