/* SPDX-License-Identifier: MIT */
/*
 * memleak.h - the leaking-service scenario of the io.latency article, in the
 * simulator's virtual time: a web server (wl_hashd.c) protected by
 * memory.low and an io.latency target shares a machine with a service that
 * leaks memory (wl_memhog.c) and a small background service in the leak's
 * cgroup; reclaim writes the leak to swap on the same simulated disk
 * (src/sim/mm.c); PSI and an oomd model watch; the controller (libiolatency)
 * runs in one of five modes. Everything is seeded and deterministic.
 * docs/memleak-model.md describes the model, its parameters and its limits.
 *
 * Cgroups: "workload" (the web; io target, memory.low), "system" (io target)
 * with children "system/hog" (the leak) and "system/bg" (the background
 * service, optional).
 * Context: one thread per run; runs share nothing.
 */
#ifndef IOLAT_SCEN_MEMLEAK_H
#define IOLAT_SCEN_MEMLEAK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum iolat_ml_mode {
	IOLAT_ML_NONE = 0,    /* no io.latency; memory.low and oomd on */
	IOLAT_ML_BLOCK,       /* io.latency block side: clamp, bypass, delay charged */
	IOLAT_ML_FULL,        /* block side + memory side (congestion throttles the leak's faults) */
	IOLAT_ML_STOCK,       /* no io.latency, no memory.low, no oomd: kernel OOM + health checker */
	IOLAT_ML_NOBYPASS,    /* ablation: block side with swap I/O admitted like normal I/O */
	IOLAT_ML_NR_MODES
};

int iolat_ml_mode_parse(const char *s, enum iolat_ml_mode *out);
const char *iolat_ml_mode_name(enum iolat_ml_mode m);
/* oomd presets by name (sim/oomd.h's enum iolat_oomd_preset, kept as an int
 * here so that the tools need not reach src/sim). */
int iolat_ml_oomd_parse(const char *s, int *out);
const char *iolat_ml_oomd_name(int preset);

struct iolat_ml_config {
	const char *device;         /* "ssd", "hdd", "bad-ssd" */
	uint64_t seed;
	enum iolat_ml_mode mode;
	uint64_t mem_bytes;         /* machine memory (16 GiB) */
	uint64_t reserve_bytes;     /* kernel and others, never reclaimable (2 GiB) */
	uint64_t swap_bytes;        /* swap on the same disk (8 GiB) */
	uint64_t web_bytes;         /* web footprint; 0: memory - reserve - 512 MiB */
	double web_file_frac;       /* file-backed share of the footprint: 0.10 (iolat_ml_web_preset
				     * "hhvm", the default), 0.25 ("rdhashd") */
	double web_low_frac;        /* memory.low of workload / footprint (0.75) */
	double rps;                 /* web request rate (200) */
	unsigned workers;           /* 0: ceil(rps x 30 ms x 3) */
	double speed;               /* leak rate / the disk's write bandwidth (2.0) */
	double wbps;                /* the disk's write bandwidth, bytes/s; 0: measured */
	bool bg;                    /* the background service in system/bg (true) */
	unsigned fault_pages;       /* pages per fault of the leak (1) */
	uint64_t target_workload_ns;/* 0: 4 x the unloaded p90 of a 128 KiB read */
	uint64_t target_system_ns;  /* 0: 10 x workload's */
	int oomd;                   /* oomd preset, iolat_ml_oomd_parse(): percgroup
				     * (forced off in stock mode) */
	bool oomd_some;             /* read the "some" line instead of "full" */
	unsigned swappiness;        /* 60 */
	uint64_t baseline_ns;       /* web alone before the leak starts (30 s) */
	uint64_t timeout_ns;        /* after the leak starts (300 s) */
	uint64_t stock_timeout_ns;  /* the same in stock mode, where nothing but the kernel's
				     * OOM killer and the health checker ends it (3 600 s) */
	uint64_t recovery_ns;       /* kept after a kill (60 s) */
	uint64_t reboot_after_ns;   /* stock: RPS < 10 % this long reboots (300 s) */
	uint64_t reboot_ns;         /* a reboot: the machine is down (600 s) */
	uint64_t rejoin_ns;         /* then the web rejoins its cluster; also after the
				     * web's process was killed (1 800 s) */
	bool kernel_five_pct;       /* the kernel's 5 % count (no IOLAT_CTL_BYPASS_SHARE):
				     * the >= 1x escape, for comparison */
	uint64_t sample_ns;         /* series step (1 s) */
};

/*
 * The web's calibration by name: "hhvm" (the default: an anonymous-heavy web
 * tier, 10 % of its footprint file-backed) or "rdhashd" (resctl-bench's
 * rd-hashd: 25 %). Return: 0, or -EINVAL for another name.
 */
int iolat_ml_web_preset(struct iolat_ml_config *c, const char *name);
const char *iolat_ml_web_preset_name(const struct iolat_ml_config *c);

/** iolat_ml_defaults() - the defaults above, for @device. */
void iolat_ml_defaults(struct iolat_ml_config *c, const char *device);

/* One second (sample_ns) of the run. */
struct iolat_ml_sample {
	double t_s;                 /* since the leak started (negative: baseline) */
	double rps;                 /* web completions per second */
	double p95_ms;              /* web request latency, this sample */
	uint64_t lost;              /* requests refused (no free worker) */
	double free_mib, web_mib, hog_mib, sys_mib, swap_mib, hog_swap_mib;
	double psi_wl_some10, psi_wl_full10, psi_sys_some10, psi_sys_full10, psi_sys_full60;
	double psi_hog_full10, psi_bg_full10;  /* system's children, each on its own */
	uint32_t sys_depth;         /* io.latency depth of system (UINT32_MAX: max) */
	int sys_use_delay;
	bool hog_congested;
	double delay_ms;            /* delay charged to system, now */
	double slept_ms;            /* delay served by system's tasks, cumulative */
	double read_ms;             /* mean latency of the web's reads, this sample */
};

struct iolat_ml_result {
	char device[16];
	char web[16];               /* the web's calibration ("hhvm") */
	enum iolat_ml_mode mode;
	uint64_t seed;
	bool bg, kernel_five_pct;
	int oomd;                   /* the preset */
	double speed, wbps;
	uint64_t target_workload_ns, target_system_ns;
	double base_rps, base_p95_ms;
	/* over the leak's life (start to kill, or to the timeout) */
	double isol_mean, isol_p10, isol_min, lat_imp_mean;
	double engage_s;            /* first second system had use_delay (-1: never) */
	double isol_before, isol_after; /* mean isolation before engage_s and from it on */
	double isol_60s;            /* mean isolation over the first 60 s, whatever happened */
	double downtime_s;          /* thrash_s + outage_s */
	double thrash_s;            /* seconds with isol < 0.5 since the leak started */
	double outage_s;            /* charged: reboot + rejoin, or rejoin after the web's kill */
	double loss_s;              /* the web's output lost from the leak's start to the end,
				     * in seconds of its baseline: sum of (1 - isol) + outage_s */
	bool killed;
	double kill_s;              /* leak start to kill (or reboot) */
	char killer[48];            /* oomd rule, "kernel OOM", "reboot" or "" */
	char victim[32];            /* group killed, "" */
	double hog_written_mib;     /* swap written of the leak's memory */
	double hog_alloc_mib, hog_loss_mib;
	uint64_t lost, served;      /* web requests over the leak's life */
	double hog_slept_s;         /* delay the leak served (memory side) */
	double hog_stall_s;         /* the leak's memory-stall time (PSI, its own) */
	uint64_t nr_bypass_hog, nr_bypass_wl; /* bypassed I/Os charged to the leak's / web's group */
	uint64_t swap_of_hog, swap_of_wl, swap_of_bg; /* swap-outs of each group's pages */
	uint64_t hog_swap_by_web;   /* the leak's pages written by the web's workers */
	uint64_t swap_writes;       /* swap-outs issued (any owner, any issuer) */
	uint64_t swap_by_web, swap_by_hog, swap_by_kswapd; /* who issued them */
	uint64_t hog_swap_at_depth1;/* swap-outs of the leak's pages while system was at depth 1 */
	uint64_t swap_waited;       /* swap-outs that waited for a slot (0 with the bypass) */
	uint64_t hog_max_sleep_ns;  /* the leak's longest single sleep at a fault */
	uint64_t swap_after_kill;   /* swap-outs of a killed group's pages issued after its kill */
	uint64_t io_at_kill;        /* device requests submitted by the kill itself (0: none) */
	int max_use_delay;          /* of system, over the samples */
	uint64_t events;
	struct iolat_ml_sample *samples;
	size_t nr_samples;
};

/**
 * iolat_ml_run() - one run. @err gets one line for a bad configuration.
 * Return: 0, -EINVAL, -ENOMEM.
 */
int iolat_ml_run(const struct iolat_ml_config *c, struct iolat_ml_result **out,
		 char *err, size_t errlen);
void iolat_ml_result_free(struct iolat_ml_result *r);

/**
 * iolat_ml_outage_s() - the downtime charged beyond the thrash, the way the
 * article counts it: a reboot costs reboot_ns + rejoin_ns (once: it ends the
 * run); a killed web (its process restarted) costs rejoin_ns; else 0.
 */
double iolat_ml_outage_s(const struct iolat_ml_config *c, bool rebooted, bool web_killed);

/**
 * iolat_ml_calibrate() - on a fresh @device: the 128 KiB sequential write
 * bandwidth (bytes/s, deep queue) and the unloaded p90 of a 128 KiB random
 * read (ns). Return: 0 or -errno.
 */
int iolat_ml_calibrate(const char *device, uint64_t seed, double *wbps, uint64_t *read_p90_ns);

/** iolat_ml_write_csv() - the series of @r as CSV (header line first). */
int iolat_ml_write_csv(const struct iolat_ml_result *r, const char *path);

/**
 * iolat_ml_write_svg() - @n runs as one SVG chart at @path: the web's RPS
 * (share of its baseline) over time, a marker at each kill labelled with its
 * rule. Return: 0 or -errno.
 */
int iolat_ml_write_svg(const struct iolat_ml_result *const *runs, size_t n, const char *path,
		       const char *title);

/** iolat_ml_write_json() - @r's figures as one JSON object on one line. */
void iolat_ml_write_json(const struct iolat_ml_result *r, FILE *f);

struct iolat_jobfile;

/**
 * iolat_ml_register_jobfile() - make the scenario's workloads (rw=hashd,
 * memhog, bgservice) and keys known to the job-file parser. Return: 0, or
 * -EINVAL (a clash with a key known already).
 * Context: the program's start, before any job file is parsed.
 */
int iolat_ml_register_jobfile(void);

/**
 * iolat_ml_jobfile_kind() - 1 when @jf's jobs are the leaking-service
 * scenario (rw=hashd/memhog/bgservice), 0 when they are not, -EINVAL (one
 * line in @err) when it mixes them with ordinary jobs.
 */
int iolat_ml_jobfile_kind(const struct iolat_jobfile *jf, char *err, size_t errlen);

/**
 * iolat_ml_config_from_jobfile() - the scenario's configuration from @jf
 * (see memleak_job.c for the keys). Return: 0 or -EINVAL with one line
 * "FILE:LINE: key 'KEY': ..." in @err.
 */
int iolat_ml_config_from_jobfile(const struct iolat_jobfile *jf, struct iolat_ml_config *c,
				 char *err, size_t errlen);

#endif /* IOLAT_SCEN_MEMLEAK_H */
