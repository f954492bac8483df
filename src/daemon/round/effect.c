/* SPDX-License-Identifier: MIT */
/*
 * effect.c - the effect check and the use_delay acted on (effect.h).
 * Context: the daemon's one thread.
 */
#include <string.h>

#include "daemon/round/effect.h"

void iolatd_effect_period(struct effect *e, const struct rate_sample *s, const struct cg_limits *in_force,
		   uint64_t period_ns)
{
	double secs = (double)period_ns / 1e9;
	double v[CG_NR_LIMITS] = { (double)s->bytes[RATE_READ], (double)s->bytes[RATE_WRITE],
				   (double)s->ios[RATE_READ], (double)s->ios[RATE_WRITE] };

	e->periods++;
	e->secs += secs;
	for (int k = 0; k < CG_NR_LIMITS; k++) {
		e->used[k] += v[k];
		/* A new limit acts 100-200 ms later: the period is allowed the looser of it and the last. */
		if (in_force->v[k] && e->last[k]) {
			e->allowed[k] += (double)(in_force->v[k] > e->last[k] ? in_force->v[k] : e->last[k]) * secs;
			e->limited[k]++;
		}
		e->last[k] = in_force->v[k];
	}
}

/*
 * The kind most over its allowance over a second wholly limited, or -1.
 * Bytes only: the throttle counts bios against an IOPS limit, the BPF
 * program sees requests, and one bio may become several (a 1 MiB write,
 * two or more): requests above an IOPS limit do not mean it leaks.
 */
static int over_kind(const struct effect *e, uint64_t min_bps, uint64_t min_iops, double *ratio)
{
	int worst = -1;

	*ratio = 0;
	for (int k = CG_RBPS; k <= CG_WBPS; k++) {
		double slack = (double)(k == CG_RBPS || k == CG_WBPS ? min_bps : min_iops);
		double r;

		if (!e->periods || e->limited[k] != e->periods || e->allowed[k] <= 0)
			continue;
		if (e->used[k] <= EFFECT_OVER * e->allowed[k] + slack)
			continue;
		r = e->used[k] / e->allowed[k];
		if (r > *ratio) {
			*ratio = r;
			worst = k;
		}
	}
	return worst;
}

int iolatd_effect_second(struct effect *e, uint64_t min_bps, uint64_t min_iops)
{
	double ratio, secs = e->secs > 0 ? e->secs : 1;
	int k = over_kind(e, min_bps, min_iops, &ratio), change = 0;
	bool limited = false;

	for (int j = 0; j < CG_NR_LIMITS; j++)
		limited |= e->limited[j] > 0;
	if (k >= 0) {
		e->ok_secs = 0;
		if (++e->over_secs >= EFFECT_OVER_SECS && !e->ineffective) {
			e->ineffective = true;
			change = 1;
		}
		if (e->ineffective) {
			e->over_kind = k;
			e->over_rate = e->used[k] / secs;
			e->allowed_rate = e->allowed[k] / secs;
		}
	} else if (limited) {
		e->over_secs = 0;
		if (e->ineffective && ++e->ok_secs >= EFFECT_OK_SECS) {
			e->ineffective = false;
			change = -1;
		}
	}
	if (e->ineffective)
		e->ineffective_secs++;
	memset(e->used, 0, sizeof(e->used));
	memset(e->allowed, 0, sizeof(e->allowed));
	memset(e->limited, 0, sizeof(e->limited));
	e->periods = 0;
	e->secs = 0;
	return change;
}

int iolatd_effect_delay(struct effect *e, int core_use_delay, bool at_floor)
{
	int step = core_use_delay - e->core_delay;

	e->core_delay = core_use_delay;
	if (core_use_delay <= 0)
		e->delay = 0;
	else if (step < 0)
		e->delay = e->delay + step > 0 ? e->delay + step : 0;
	else if (step > 0 && !e->ineffective && !at_floor)
		e->delay += step;
	return e->delay;
}

void iolatd_effect_reset(struct effect *e)
{
	int core = e->core_delay, delay = e->delay;
	uint64_t total = e->ineffective_secs;

	memset(e, 0, sizeof(*e));
	e->core_delay = core;
	e->delay = delay;
	e->ineffective_secs = total;
}
