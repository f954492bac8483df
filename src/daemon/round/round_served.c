/* SPDX-License-Identifier: MIT */
/*
 * round_served.c - what the block throttle's own counters say each node
 * was served, period by period (cgroupfs.h: iolatd_cgfs_read_served): for
 * every node that carries a budget or has a target, and every node of a
 * disk where iolatd's weights act (their use is what the core divides
 * shares by), once a control round,
 * its subtree's bytes and requests since the last round, per direction, and
 * over how long. The delta is valid only when both readings worked, found
 * the device and did not go backwards (a cgroup recreated, stats reset):
 * otherwise the reading is only the base of the next one. The adaptive core
 * can be told the rate a limited node was delivered from here instead of
 * the BPF completions. A node's first failed reading is logged once.
 *
 * The same counters tell the core how many of a node's requests are
 * outstanding (iolat_group_observe_inflight(): for a protected node a stall
 * is not idleness; where weights act, a group served nothing with nothing
 * outstanding has stopped, one with requests outstanding is starved). Both
 * v2 io.stat and v1 blkio.throttle.io_service_bytes count a bio when it is
 * submitted, BPF a request when it completes; bios merge
 * into requests, so their counts do not compare, but their bytes do: bytes
 * submitted minus bytes completed since a common base are the bytes
 * outstanding, turned into requests by the node's mean completed size. Read
 * once a round at no extra cost (the counters are read anyway), exact for
 * reads and writes with data; what it cannot see (a discard, counted apart
 * by io.stat) completes more than it submits and is rebased to 0, the safe
 * side: idle, as before. Completions BPF lost (a full ring, the source
 * gone) would leave bytes that never complete: the base is taken afresh
 * when that happens, and the core believes a stall for 30 s at most. The
 * other choices: /sys/block/DEV/inflight is per device, not per cgroup, and
 * counts only requests issued to the driver (a read queued in the
 * scheduler behind the writer is missed); a BPF count of issue against
 * completion per cgroup would be exact but needs a map and a second
 * program, and misses the same queued requests at block_rq_issue.
 * Context: one thread for every call on one struct iolatd.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/control_priv.h"
#include "daemon/round/round_served.h"
#include "daemon/tree/tree.h"

/* Does node @i on device @k want the counters read? */
static bool wants_served(const struct iolatd *d, int i, unsigned k)
{
	const struct node_dev *nd = &d->nd[i][k];

	return !iolatd_limits_empty(&nd->want) || iolatd_target_of(d, i, k) != 0 || iolatd_weights_act(d, k);
}

/*
 * A count of requests outstanding that has stood still (nothing of the node
 * submitted, nothing of it completed) for INFL_STALE_NS while the disk kept
 * completing requests of others is not a stall but bytes that will never be
 * seen to complete: on this project's disk a reader's counters and BPF's
 * completions ended four runs of six 3 to 66 requests apart, in no pattern
 * found (no ring drop, no BPF recursion miss), and that offset kept a reader that had
 * gone quiet "stalled" (its sibling's limit held and cut while it idled).
 * A request really waiting that long while the disk serves others is past
 * mq-deadline's read expiry (500 ms). A disk that completes nothing for
 * INFL_DISK_QUIET_NS stalls whole: the span starts again after it. Only
 * for a node with a target: where weights act a writer held in the device
 * behind its sibling stands still 300-600 ms at times (docs/weights.md), and
 * a stale count there only delays a stop to the period's end.
 */
#define INFL_STALE_NS 500000000ull
#define INFL_DISK_QUIET_NS 100000000ull

static bool count_is_stale(struct iolatd *d, struct node_dev *nd, unsigned k, uint64_t sub, uint64_t done,
			   uint64_t out, uint64_t now)
{
	if (d->devs[k].completed != nd->infl_others) {
		nd->infl_others = d->devs[k].completed;
		nd->infl_disk_at = now;
	}
	if (!out || sub != nd->infl_sub_seen || done != nd->infl_done_seen || !nd->infl_still_since ||
	    now - nd->infl_disk_at > INFL_DISK_QUIET_NS) {
		nd->infl_sub_seen = sub;
		nd->infl_done_seen = done;
		nd->infl_still_since = out ? now : 0;
		return false;
	}
	return now - nd->infl_still_since >= INFL_STALE_NS;
}

/*
 * Node @i's requests outstanding on device @k, to the core (see the top):
 * for a protected node in the adaptive mode (a stall is not idleness), and
 * for every node where weights act once the counters know the disk (a group
 * served nothing with nothing outstanding has stopped: its share goes to its
 * siblings at once). Its counters were just read into served_last.
 */
static void feed_inflight(struct iolatd *d, int i, unsigned k, uint64_t now)
{
	struct node_dev *nd = &d->nd[i][k];
	uint64_t sub = nd->served_last.bytes[0] + nd->served_last.bytes[1];
	uint64_t done = nd->bytes_total[RATE_READ] + nd->bytes_total[RATE_WRITE];
	uint64_t ios = nd->ios_total[RATE_READ] + nd->ios_total[RATE_WRITE], out, size;
	bool protected = d->cfg.mode == IOLAT_CTL_MODE_ADAPTIVE && iolatd_target_of(d, i, k);

	if (!nd->g || (!protected && !(iolatd_weights_act(d, k) && nd->served_last.found)))
		return;
	if (!nd->infl_based || nd->infl_gen != d->measure_gen || sub < nd->infl_sub_base ||
	    sub - nd->infl_sub_base < done - nd->infl_done_base) {
		nd->infl_sub_base = sub; /* afresh, or more completed than submitted: 0 */
		nd->infl_done_base = done;
		nd->infl_gen = d->measure_gen;
		nd->infl_based = true;
	}
	out = (sub - nd->infl_sub_base) - (done - nd->infl_done_base);
	if (protected && count_is_stale(d, nd, k, sub, done, out, now)) {
		nd->infl_sub_base = sub;
		nd->infl_done_base = done;
		nd->infl_stale++;
		out = 0;
	}
	size = ios ? (done ? done / ios : 0) : 0;
	size = size ? size : 4096;
	out = (out + size - 1) / size;
	nd->inflight = out > UINT32_MAX ? UINT32_MAX : (uint32_t)out;
	iolat_group_observe_inflight(nd->g, nd->inflight, now);
}

static void read_node(struct iolatd *d, int i, unsigned k, uint64_t now)
{
	struct node_dev *nd = &d->nd[i][k];
	char dir[IOLATD_PATH_MAX * 2];
	struct cg_served cur;
	const struct cg_served *was = &nd->served_last;
	int err;

	iolatd_cgfs_dir(&d->root, d->disc->nodes[i].rel, dir, sizeof(dir));
	err = iolatd_cgfs_read_served(&d->root, dir, d->devs[k].dev, &cur);
	memset(&nd->served, 0, sizeof(nd->served));
	/* A cgroup without the io controller has no counters: its own warning said so. */
	if (err && !nd->served_error_logged && (err != -ENOENT || iolatd_cgfs_has_io(&d->root, dir))) {
		iolatd_logf(d, "%s %s: cannot read what the throttle served it: %s", d->disc->nodes[i].rel,
			    d->devs[k].name, strerror(-err));
		nd->served_error_logged = true;
	}
	nd->served.valid = !err && nd->served_last_ns && now > nd->served_last_ns;
	for (int dir_i = 0; dir_i < 2 && nd->served.valid; dir_i++)
		nd->served.valid = cur.bytes[dir_i] >= was->bytes[dir_i] && cur.ios[dir_i] >= was->ios[dir_i];
	if (nd->served.valid) {
		for (int dir_i = 0; dir_i < 2; dir_i++) {
			nd->served.bytes[dir_i] = cur.bytes[dir_i] - was->bytes[dir_i];
			nd->served.ios[dir_i] = cur.ios[dir_i] - was->ios[dir_i];
		}
		nd->served.ns = now - nd->served_last_ns;
	}
	nd->served_last = cur;
	nd->served_last_ns = err ? 0 : now;
	if (!err)
		feed_inflight(d, i, k, now);
	else
		nd->infl_based = false;
}

void iolatd_served_round(struct iolatd *d, unsigned k, uint64_t now)
{
	for (int i = 0; i < DISC_MAX_NODES; i++) {
		if (!d->nd[i])
			continue;
		if (wants_served(d, i, k)) {
			read_node(d, i, k, now);
			continue;
		}
		memset(&d->nd[i][k].served, 0, sizeof(d->nd[i][k].served));
		d->nd[i][k].served_last_ns = 0; /* the next reading starts afresh */
	}
}
