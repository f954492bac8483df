/* SPDX-License-Identifier: MIT */
/*
 * bench_memleak.c - the leaking-service sweep behind BENCHMARKS.md's memory
 * leak section: for each device model, leak speed (a multiple of the disk's
 * write bandwidth), mode and seed, one run of the scenario (src/job/memleak)
 * in virtual time; one JSON object per run on stdout. bench/bench_memleak.py
 * runs it (one process per device) and aggregates the seeds.
 *
 * usage: bench_memleak [--device ssd|hdd] [--seeds N] [--speeds a,b,...]
 *                      [--modes none,full,...] [--no-bg] [--oomd PRESET] [--timeout S]
 *                      [--stock-timeout S]
 * Context: a benchmark program, one thread.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/memleak.h"

int main(int argc, char **argv)
{
	const char *devices[2] = { "ssd", "hdd" };
	int nr_dev = 2, seeds = 5;
	double speeds[8] = { 0.1, 0.25, 0.5, 1, 2 };
	int nr_speeds = 5;
	double timeout = 300, stock_timeout = 3600;
	bool want[IOLAT_ML_NR_MODES] = { true, true, true, true, true }, bg = true;
	enum iolat_oomd_preset oomd = IOLAT_OOMD_FB2018;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--device") && i + 1 < argc) {
			devices[0] = argv[++i];
			nr_dev = 1;
		} else if (!strcmp(argv[i], "--seeds") && i + 1 < argc) {
			seeds = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) {
			timeout = atof(argv[++i]);
		} else if (!strcmp(argv[i], "--stock-timeout") && i + 1 < argc) {
			stock_timeout = atof(argv[++i]);
		} else if (!strcmp(argv[i], "--oomd") && i + 1 < argc) {
			if (iolat_oomd_preset_parse(argv[++i], &oomd)) {
				fprintf(stderr, "bench_memleak: unknown oomd preset '%s'\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--no-bg")) {
			bg = false;
		} else if (!strcmp(argv[i], "--modes") && i + 1 < argc) {
			char *s = argv[++i], *save = NULL;

			memset(want, 0, sizeof(want));
			for (char *t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
				enum iolat_ml_mode m;

				if (iolat_ml_mode_parse(t, &m)) {
					fprintf(stderr, "bench_memleak: unknown mode '%s'\n", t);
					return 2;
				}
				want[m] = true;
			}
		} else if (!strcmp(argv[i], "--speeds") && i + 1 < argc) {
			char *s = argv[++i], *save = NULL;

			nr_speeds = 0;
			for (char *t = strtok_r(s, ",", &save); t && nr_speeds < 8; t = strtok_r(NULL, ",", &save))
				speeds[nr_speeds++] = atof(t);
		} else {
			fprintf(stderr, "usage: bench_memleak [--device ssd|hdd] [--seeds N] "
					"[--speeds a,b] [--modes LIST] [--no-bg] [--oomd P] [--timeout S] "
					"[--stock-timeout S]\n");
			return 2;
		}
	}
	if (seeds < 1 || !nr_speeds || timeout < 10 || stock_timeout < 10) {
		fprintf(stderr, "bench_memleak: seeds >= 1, speeds, timeouts >= 10 s expected\n");
		return 2;
	}
	for (int d = 0; d < nr_dev; d++)
		for (int s = 0; s < nr_speeds; s++)
			for (int m = 0; m < IOLAT_ML_NR_MODES; m++)
				for (int k = 1; k <= seeds && want[m]; k++) {
					struct iolat_ml_config c;
					struct iolat_ml_result *r;
					char err[256] = "";
					int ret;

					iolat_ml_defaults(&c, devices[d]);
					c.mode = (enum iolat_ml_mode)m;
					c.speed = speeds[s];
					c.seed = (uint64_t)k;
					c.bg = bg;
					c.oomd = oomd;
					c.timeout_ns = (uint64_t)((m == IOLAT_ML_STOCK ? stock_timeout : timeout) * 1e9);
					ret = iolat_ml_run(&c, &r, err, sizeof(err));
					if (ret) {
						fprintf(stderr, "bench_memleak: %s %g %s seed %d: %s\n", devices[d],
							speeds[s], iolat_ml_mode_name(c.mode), k, err[0] ? err : "failed");
						return 1;
					}
					iolat_ml_write_json(r, stdout);
					fflush(stdout);
					iolat_ml_result_free(r);
				}
	return 0;
}
