/* SPDX-License-Identifier: MIT */
/*
 * bench_memleak.c - the leaking-service sweep behind BENCHMARKS.md's memory
 * leak section: for each device model, leak speed (a multiple of the disk's
 * write bandwidth), mode and seed, one run of the scenario (src/scen/memleak)
 * in virtual time; one JSON object per run on stdout. bench/bench_memleak.py
 * runs it (one process per device) and aggregates the seeds.
 *
 * usage: bench_memleak [--device ssd|hdd] [--seeds N] [--speeds a,b,...]
 *                      [--modes none,full,...] [--no-bg] [--kernel-5pct] [--web W] [--oomd PRESET]
 *                      [--timeout S]
 *                      [--stock-timeout S]
 * Context: a benchmark program, one thread.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scen/memleak/memleak.h"

/* What to sweep: devices, leak speeds, modes, seeds; the scenario's options. */
struct sweep {
	const char *devices[2];
	int nr_dev, seeds;
	double speeds[8];
	int nr_speeds;
	double timeout, stock_timeout;
	bool want[IOLAT_ML_NR_MODES], bg, kernel_five_pct;
	int oomd;
	const char *web;
};

/* --modes LIST: the modes to run. 0, or 2 for an unknown mode. */
static int parse_modes(char *s, struct sweep *w)
{
	char *save = NULL;

	memset(w->want, 0, sizeof(w->want));
	for (char *t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		enum iolat_ml_mode m;

		if (iolat_ml_mode_parse(t, &m)) {
			fprintf(stderr, "bench_memleak: unknown mode '%s'\n", t);
			return 2;
		}
		w->want[m] = true;
	}
	return 0;
}

/* The command line into @w. 0, or 2 after a message. */
static int parse_args(int argc, char **argv, struct sweep *w)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--device") && i + 1 < argc) {
			w->devices[0] = argv[++i];
			w->nr_dev = 1;
		} else if (!strcmp(argv[i], "--seeds") && i + 1 < argc) {
			w->seeds = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) {
			w->timeout = atof(argv[++i]);
		} else if (!strcmp(argv[i], "--stock-timeout") && i + 1 < argc) {
			w->stock_timeout = atof(argv[++i]);
		} else if (!strcmp(argv[i], "--oomd") && i + 1 < argc) {
			if (iolat_ml_oomd_parse(argv[++i], &w->oomd)) {
				fprintf(stderr, "bench_memleak: unknown oomd preset '%s'\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--no-bg")) {
			w->bg = false;
		} else if (!strcmp(argv[i], "--web") && i + 1 < argc) {
			struct iolat_ml_config t;

			w->web = argv[++i];
			if (iolat_ml_web_preset(&t, w->web)) {
				fprintf(stderr, "bench_memleak: unknown web preset '%s'\n", w->web);
				return 2;
			}
		} else if (!strcmp(argv[i], "--kernel-5pct")) {
			w->kernel_five_pct = true;
		} else if (!strcmp(argv[i], "--modes") && i + 1 < argc) {
			if (parse_modes(argv[++i], w))
				return 2;
		} else if (!strcmp(argv[i], "--speeds") && i + 1 < argc) {
			char *s = argv[++i], *save = NULL;

			w->nr_speeds = 0;
			for (char *t = strtok_r(s, ",", &save); t && w->nr_speeds < 8; t = strtok_r(NULL, ",", &save))
				w->speeds[w->nr_speeds++] = atof(t);
		} else {
			fprintf(stderr, "usage: bench_memleak [--device ssd|hdd] [--seeds N] "
					"[--speeds a,b] [--modes LIST] [--no-bg] [--kernel-5pct] [--web W] [--oomd P] "
					"[--timeout S] "
					"[--stock-timeout S]\n");
			return 2;
		}
	}
	if (w->seeds < 1 || !w->nr_speeds || w->timeout < 10 || w->stock_timeout < 10) {
		fprintf(stderr, "bench_memleak: seeds >= 1, speeds, timeouts >= 10 s expected\n");
		return 2;
	}
	return 0;
}

/* One run of the scenario, its JSON object on stdout. 0, or 1 after a message. */
static int run_one(const struct sweep *w, const char *device, double speed, int m, int seed)
{
	struct iolat_ml_config c;
	struct iolat_ml_result *r;
	char err[256] = "";
	int ret;

	iolat_ml_defaults(&c, device);
	c.mode = (enum iolat_ml_mode)m;
	c.speed = speed;
	c.seed = (uint64_t)seed;
	c.bg = w->bg;
	c.kernel_five_pct = w->kernel_five_pct;
	if (w->web)
		iolat_ml_web_preset(&c, w->web);
	c.oomd = w->oomd;
	c.timeout_ns = (uint64_t)(w->timeout * 1e9);
	c.stock_timeout_ns = (uint64_t)(w->stock_timeout * 1e9);
	ret = iolat_ml_run(&c, &r, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "bench_memleak: %s %g %s seed %d: %s\n", device,
			speed, iolat_ml_mode_name(c.mode), seed, err[0] ? err : "failed");
		return 1;
	}
	iolat_ml_write_json(r, stdout);
	fflush(stdout);
	iolat_ml_result_free(r);
	return 0;
}

int main(int argc, char **argv)
{
	struct sweep w = {
		.devices = { "ssd", "hdd" }, .nr_dev = 2, .seeds = 5,
		.speeds = { 0.1, 0.25, 0.5, 1, 2 }, .nr_speeds = 5,
		.timeout = 300, .stock_timeout = 3600,
		.want = { true, true, true, true, true }, .bg = true,
	};

	iolat_ml_oomd_parse("percgroup", &w.oomd);
	if (parse_args(argc, argv, &w))
		return 2;
	for (int d = 0; d < w.nr_dev; d++)
		for (int s = 0; s < w.nr_speeds; s++)
			for (int m = 0; m < IOLAT_ML_NR_MODES; m++)
				for (int k = 1; k <= w.seeds && w.want[m]; k++)
					if (run_one(&w, w.devices[d], w.speeds[s], m, k))
						return 1;
	return 0;
}
