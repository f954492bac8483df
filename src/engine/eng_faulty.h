/* SPDX-License-Identifier: MIT */
/*
 * eng_faulty.h - the fault-injecting wrapper engine "faulty:<inner>": its
 * options and the counts of what it injected, which tests compare with what
 * they observed. The options (config "options", "key=val,key=val"; declared
 * as data in eng_faulty.c's table, parsed by engopt.c):
 *
 *   kind=eio|enospc|short|spike|stall  joined with '+'; none: pass-through
 *   rate=P      chance an eligible I/O past the countdown faults (default 1)
 *   after=N     countdown: the first N eligible I/Os pass (default 0)
 *   persist=0|1 1: keep injecting (default); 0: transient, count defaults to 1
 *   count=N     stop after N injections (0: no limit)
 *   ms=N        spike: hold the completion N ms; stall: no completion for N ms
 *   dir=read|write|any  which I/Os are eligible (default any)
 *   seed=N      the PRNG seed (default 1)
 *
 * eio/enospc complete the I/O with that error without issuing it (enospc:
 * writes only); short issues half the length (aligned) and reports that;
 * spike issues it and holds its completion; stall holds every completion.
 * Context: as every engine: the loop thread.
 */
#ifndef IOLAT_ENGINE_ENG_FAULTY_H
#define IOLAT_ENGINE_ENG_FAULTY_H

#include <stdint.h>

#include "engine/engine.h"

#define IOLAT_FAULT_EIO    (1u << 0)
#define IOLAT_FAULT_ENOSPC (1u << 1)
#define IOLAT_FAULT_SHORT  (1u << 2)
#define IOLAT_FAULT_SPIKE  (1u << 3)
#define IOLAT_FAULT_STALL  (1u << 4)

struct iolat_eng_fault_stats {
	uint64_t seen;        /* requests queued through the wrapper */
	uint64_t eligible;    /* requests a configured fault could apply to */
	uint64_t eio;         /* completed with -EIO, not issued */
	uint64_t enospc;      /* completed with -ENOSPC, not issued */
	uint64_t short_io;    /* issued with half the length */
	uint64_t spikes;      /* completions held ms */
	uint64_t stalls;      /* stalls started */
	uint64_t held;        /* completions delayed by a spike or a stall */
};

/**
 * iolat_eng_faulty_stats() - what a faulty engine injected so far.
 * Return: 0, or -EINVAL when @e is not a faulty engine.
 */
int iolat_eng_faulty_stats(const struct iolat_eng *e, struct iolat_eng_fault_stats *st);

#endif /* IOLAT_ENGINE_ENG_FAULTY_H */
