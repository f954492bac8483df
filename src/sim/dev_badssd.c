/* SPDX-License-Identifier: MIT */
/*
 * dev_badssd.c - the "bad-ssd" device model (a cheap DRAM-less QLC drive):
 * its parameter table (badssd_* keys) over the flash mechanics of dev_ssd.c.
 * Context: one simulation thread.
 */

/*
 * The model, and where its figures come from. The same mechanics as "ssd"
 * (see dev_ssd.c: units, chunks in one FIFO, a write buffer, pauses; here
 * the pauses are called stalls), with its own keys and figures:
 * - 4 units (a 4-channel DRAM-less controller); reads 100 us fixed (map
 *   lookups miss the absent DRAM) + 4 KiB at 300 MB/s a unit = ~115 us;
 * - a small write cache: 64 MiB (the SLC cache of a nearly full QLC drive
 *   shrinks to little; small here so it fills within a short run);
 * - once it is full, writes go at ~100 MB/s (4 units x 25 MB/s): 128 KiB
 *   chunks take ~5 ms on a unit, so a read queued behind a few writes waits
 *   tens of ms;
 * - stalls under write load: after every 256 MiB programmed the drive stops
 *   for 100 ms to 1 s (SLC-to-QLC folding, GC of a full drive).
 * Sources (measurement class, not one datasheet): reviews of Intel 660p,
 * Crucial P1/P3 and SATA QLC drives (Samsung 860 QVO) show post-cache
 * sequential writes of roughly 80-150 MB/s, and latency-under-load tests
 * (AnandTech "heavy"/"ATSB" traces, Tom's Hardware write-saturation plots)
 * show read latencies of tens of ms and multi-hundred-ms write stalls once
 * the cache is exhausted.
 */
#include <stddef.h>

#include "sim/flash.h"

#define P(n, f, d, lo, hi, h) { .name = "badssd_" n, .off = offsetof(struct iolat_sim_flash_cfg, f), \
				.def = d, .min = lo, .max = hi, .help = h }
static const struct iolat_sim_param badssd_params[] = {
	P("capacity_gib", capacity_gib, 1024, 1, 1e6, "drive size, GiB"),
	P("units", units, 4, 1, 1024, "internal units working at once"),
	P("chunk_kib", chunk_kib, 128, 4, 65536, "requests are cut into chunks of this size, KiB"),
	P("read_us", read_us, 100, 0, 1e6, "fixed cost of reading a chunk, us"),
	P("unit_read_mbps", unit_read_mbps, 300, 1, 1e6, "read transfer rate of one unit, MB/s"),
	P("jitter_pct", jitter_pct, 20, 0, 100, "+- uniform jitter on the fixed costs, %"),
	P("write_us", write_us, 30, 0, 1e6, "fixed cost of a write the cache absorbs, us"),
	P("host_mbps", host_mbps, 1800, 1, 1e6, "host link rate for absorbed writes, MB/s"),
	P("wbuf_mib", wbuf_mib, 64, 0, 1e7, "write cache, MiB"),
	P("prog_us", prog_us, 0, 0, 1e6, "fixed cost of programming a chunk, us"),
	P("unit_prog_mbps", unit_prog_mbps, 25, 0.01, 1e6, "program rate of one unit once the cache is full, MB/s"),
	P("stall_every_mib", pause_every_mib, 256, 0, 1e9, "a stall after this much programmed, MiB (0: never)"),
	P("stall_min_ms", pause_min_ms, 100, 0, 1e6, "shortest stall, ms"),
	P("stall_max_ms", pause_max_ms, 1000, 0, 1e6, "longest stall, ms"),
	{ .name = NULL },
};
#undef P

const struct iolat_sim_model iolat_sim_model_badssd = {
	.name = "bad-ssd",
	.prefix = "badssd_",
	.summary = "DRAM-less QLC: 4 units, 64 MiB cache, 100 MB/s after it, 0.1-1 s stalls",
	.rotational = 0,
	.nr_requests = 64,
	.params = badssd_params,
	.cfg_size = sizeof(struct iolat_sim_flash_cfg),
	.priv_size = sizeof(struct iolat_sim_flash),
	.init = iolat_sim_flash_init,
	.start = iolat_sim_flash_start,
	.destroy = iolat_sim_flash_destroy,
};
