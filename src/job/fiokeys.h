/* SPDX-License-Identifier: MIT */
/*
 * fiokeys.h - what fio's own keys that iolat does not take are called here
 * (randseed -> seed, ...), for job-file messages and `iolat help keys`.
 * Context: any thread; no state.
 */
#ifndef IOLAT_JOB_FIOKEYS_H
#define IOLAT_JOB_FIOKEYS_H

#include <stddef.h>

/**
 * iolat_fio_key_hint() - for a fio key iolat does not take, one phrase saying
 * what to write instead ("fio's randseed is seed= here, in [global]"), or NULL.
 */
const char *iolat_fio_key_hint(const char *key);

/**
 * iolat_fio_format_keys() - the "fio keys" part of `iolat help keys`: the fio
 * keys accepted under another name or as-is, and those that are not, with
 * what to use. As snprintf: writes at most @len bytes, returns the length
 * needed.
 */
int iolat_fio_format_keys(char *buf, size_t len);

#endif
