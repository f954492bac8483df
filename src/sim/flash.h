/* SPDX-License-Identifier: MIT */
/*
 * flash.h - the flash model shared by "ssd" (dev_ssd.c, which implements it)
 * and "bad-ssd" (dev_badssd.c: the same mechanics, its own keys, defaults and
 * sources). The config is one struct of doubles; each model's parameter table
 * maps its own keys onto it.
 * Context: one simulation thread.
 */
#ifndef IOLAT_SIM_FLASH_H
#define IOLAT_SIM_FLASH_H

#include "sim/device.h"

struct iolat_sim_flash_cfg {
	double capacity_gib;
	double units;          /* internal units that work at once (channels x dies) */
	double chunk_kib;      /* a request is cut into chunks of this size, one unit each */
	double read_us;        /* fixed part of reading a chunk */
	double unit_read_mbps; /* read transfer rate of one unit */
	double jitter_pct;     /* +- uniform jitter on the fixed parts */
	double write_us;       /* fixed part of a write absorbed by the buffer */
	double host_mbps;      /* host link: absorbed writes cross it one after another */
	double wbuf_mib;       /* write buffer (DRAM or SLC cache) */
	double prog_us;        /* fixed part of programming a chunk */
	double unit_prog_mbps; /* program rate of one unit */
	double pause_every_mib;/* a pause (GC, folding) after this much programmed; 0: never */
	double pause_min_ms;   /* pause length: uniform in [min, max] */
	double pause_max_ms;
};

int iolat_sim_flash_init(struct iolat_sim_dev *d);
int iolat_sim_flash_start(struct iolat_sim_dev *d, struct iolat_sim_req *r, uint64_t now_ns);
void iolat_sim_flash_destroy(struct iolat_sim_dev *d);

/* Counters of a flash device, for tests and reports. */
struct iolat_sim_flash_stat {
	uint64_t bytes_absorbed;   /* writes taken by the buffer */
	uint64_t bytes_through;    /* writes programmed straight to flash */
	uint64_t bytes_drained;    /* buffer contents programmed in the background */
	uint64_t nr_pauses, pause_ns;
	double wbuf_bytes;         /* buffer fill now */
};

/* A chunk waiting for a unit. */
struct iolat_sim_flash_chunk {
	struct iolat_sim_req *r;
	uint32_t bytes;
};

/* The model state (dev->priv): only dev_ssd.c touches it; sized here for both tables. */
struct iolat_sim_flash {
	uint32_t units, busy;
	uint64_t chunk_bytes;
	double read_ns_per_byte;   /* per unit */
	double prog_ns_per_byte;   /* per unit */
	double prog_bytes_per_ns;  /* per unit, for the drain */
	struct iolat_sim_flash_chunk *fifo; /* ring of chunks waiting for a unit */
	size_t head, nr, cap;
	uint64_t link_free_ns;     /* host link busy until */
	double wbuf_cap, wbuf;     /* bytes */
	uint64_t wbuf_t;           /* time wbuf was last brought up to date */
	double since_pause;        /* bytes programmed since the last pause */
	uint64_t paused_until;
	struct iolat_sim_flash_stat st;
};

int iolat_sim_flash_stat(const struct iolat_sim_dev *d, struct iolat_sim_flash_stat *st);

#endif /* IOLAT_SIM_FLASH_H */
