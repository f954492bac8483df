/* SPDX-License-Identifier: MIT */
/*
 * iolatency.h - the public API of libiolatency: io.latency, the Linux
 * latency-target I/O controller, in user space.
 *
 * A controller (one per device) holds a tree of groups. A group may have a
 * latency target. When a group misses its target over a window, its siblings
 * with a looser target (or none) get their queue depth clamped: halved per
 * step, grown back by nr_requests/16. Swap and metadata I/O bypass the clamp
 * but are charged to a throttled group as delay, served at a safe point by
 * iolat_maybe_throttle(). The rules: docs/controller.md; the design: docs/design.md.
 *
 * IOLAT_CTL_ADAPTIVE (docs/controller-adaptive.md) keeps the targets, windows
 * and siblings-only scope but throttles by rate: it finds the highest rate
 * of the siblings at which the protected group stays within target (the
 * device's knee), holds it still and follows it; call iolat_group_pace_due()
 * (or use iolat_throttle_bytes()) before each admission so that its rates
 * act. The default (no flag) stays the kernel's rules with the article's
 * release.
 *
 * Conventions: every function returns 0 or a negative errno unless noted.
 * Times are uint64_t nanoseconds. Handles are opaque. Each function says in
 * its "Context:" line which threads may call it and what it may take.
 */
#ifndef IOLATENCY_H
#define IOLATENCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct iolat_ctl;
struct iolat_group;

/* Private fields that the library changes atomically (a C11 keyword, no header). */
#ifdef __cplusplus
#define IOLAT_ATOMIC_U32 uint32_t
#else
#define IOLAT_ATOMIC_U32 _Atomic uint32_t
#endif

/* An injected clock. now_ns must be monotonic and callable from any thread. */
struct iolat_clock {
	uint64_t (*now_ns)(void *ctx);
	void *ctx;
};

/*
 * Controller flags.
 * IOLAT_CTL_COMPAT_B1:    reproduce the kernel's HDD carried-over mean bug B1
 *                         (the carried mean stays 0). Default: the fixed mean.
 * IOLAT_CTL_COMPAT_TIMER: the kernel's timer: forget the asking group 5 s after
 *                         its last scale event, then climb one cookie step per
 *                         tick, ticking only while I/O is submitted. Default:
 *                         unclamp everybody under a parent at the first tick
 *                         at which the asking group completed no I/O.
 * IOLAT_CTL_KERNEL_COMPAT: both of the above.
 * IOLAT_CTL_ADAPTIVE:     the adaptive mode (docs/controller-adaptive.md):
 *                         the same targets, windows (judged by the p90 rule
 *                         on every device), siblings-only scope and release
 *                         by the timer; throttled siblings get a paced rate
 *                         (bytes and I/Os per second, see
 *                         iolat_group_pace_due()) that a knee seeker sets:
 *                         small back-offs on a miss, backed-off probes,
 *                         futility detection. Not with
 *                         IOLAT_CTL_COMPAT_TIMER (-EINVAL). Without any of
 *                         these flags the controller runs the "article"
 *                         mode: the kernel's rules, the fixed HDD mean and
 *                         the article's release (the library's default).
 * IOLAT_CTL_BYPASS_SHARE: the 5 % rule (docs/controller.md R5) counts a
 *                         group's bypass I/O completed while it is throttled
 *                         among the I/O it did, as the rule's purpose says
 *                         ("a group that did 5 % or less of the I/O"); the
 *                         kernel counts only recorded latencies, so a group
 *                         whose throttled I/O is all bypass (swap written by
 *                         reclaim) is spared every scale-down. Latency
 *                         statistics are unchanged. Any mode; default off.
 */
#define IOLAT_CTL_COMPAT_B1     (1u << 0)
#define IOLAT_CTL_COMPAT_TIMER  (1u << 1)
#define IOLAT_CTL_KERNEL_COMPAT (IOLAT_CTL_COMPAT_B1 | IOLAT_CTL_COMPAT_TIMER)
#define IOLAT_CTL_ADAPTIVE      (1u << 2)
#define IOLAT_CTL_BYPASS_SHARE  (1u << 3)

/*
 * The controller's modes. One table in the library holds each mode's name,
 * the flags above that select it and the rule that judges its windows; these
 * functions read it, so a program names a mode and its rule the library's
 * way. 0 is no mode (a caller's "not chosen"); the modes count from 1.
 */
enum iolat_ctl_mode {
	IOLAT_CTL_MODE_NONE = 0,
	IOLAT_CTL_MODE_ARTICLE,      /* no flag: the kernel's rules, the article's release */
	IOLAT_CTL_MODE_KERNEL,       /* IOLAT_CTL_KERNEL_COMPAT */
	IOLAT_CTL_MODE_ADAPTIVE,     /* IOLAT_CTL_ADAPTIVE */
};

/* How a latency window is judged against its target (docs/controller.md). */
enum iolat_window_rule {
	IOLAT_RULE_P90 = 0,          /* missed when more than 10 % of its I/Os exceed the target */
	IOLAT_RULE_MEAN,             /* missed when its mean latency exceeds the target */
};

/**
 * iolat_ctl_mode_name() - a mode's name: "article", "kernel", "adaptive".
 * Return: the name, or NULL for IOLAT_CTL_MODE_NONE and past the last mode
 * (so that for (m = 1; iolat_ctl_mode_name(m); m++) visits every mode).
 * Context: any thread.
 */
const char *iolat_ctl_mode_name(enum iolat_ctl_mode mode);

/**
 * iolat_ctl_mode_parse() - the mode of that name (exact, lower case).
 * Return: the mode, or IOLAT_CTL_MODE_NONE for any other string or NULL.
 * Context: any thread.
 */
enum iolat_ctl_mode iolat_ctl_mode_parse(const char *name);

/**
 * iolat_ctl_mode_flags() - the IOLAT_CTL_* flags that select @mode, for
 * iolat_ctl_config.flags (0 for the article's mode and for no mode).
 * Context: any thread.
 */
unsigned iolat_ctl_mode_flags(enum iolat_ctl_mode mode);

/**
 * iolat_ctl_mode_of() - the mode a controller created with @flags runs.
 * Context: any thread.
 */
enum iolat_ctl_mode iolat_ctl_mode_of(unsigned flags);

/**
 * iolat_ctl_window_rule() - the rule that judges a window in @mode on a
 * device that is @rotational (non-zero) or not: the mean on a rotational
 * device and the p90 elsewhere in the kernel's modes, the p90 on every
 * device in the adaptive mode. IOLAT_CTL_MODE_NONE: the article's rule.
 * Context: any thread.
 */
enum iolat_window_rule iolat_ctl_window_rule(enum iolat_ctl_mode mode, int rotational);

/** iolat_window_rule_name() - "mean" or "p90". Context: any thread. */
const char *iolat_window_rule_name(enum iolat_window_rule rule);

/* Depth value meaning "unlimited" (printed as "max"). */
#define IOLAT_DEPTH_MAX UINT32_MAX

struct iolat_ctl_config {
	uint32_t nr_requests;            /* device queue depth "qd"; 0 means 64 */
	int rotational;                  /* 1: HDD, 0: SSD; with the mode, picks the window
					  * rule (iolat_ctl_window_rule()) */
	const struct iolat_clock *clock; /* NULL: real CLOCK_MONOTONIC */
	unsigned flags;                  /* IOLAT_CTL_* */
	uint32_t max_groups;             /* arena capacity, root excluded; 0 means 1024 */
	uint32_t nr_stat_slots;          /* per-CPU stat slots per group (power of 2); 0 means 16 */
	uint64_t delay_cap_ns;           /* cap of one iolat_maybe_throttle() sleep; 0 means 250 ms */
};

/**
 * iolat_ctl_create() - create a controller for one device.
 * @cfg: configuration; NULL gives every default.
 * @out: the new controller.
 * Return: 0, -EINVAL on a bad configuration, -ENOMEM.
 * Context: any thread; not concurrently with other calls on the same @out.
 */
int iolat_ctl_create(const struct iolat_ctl_config *cfg, struct iolat_ctl **out);

/**
 * iolat_ctl_destroy() - stop the timer thread (if started) and free everything.
 * Every group must be idle: no I/O in flight, no waiter queued. After it
 * returns no callback runs.
 * Context: any thread, once, with no other call on @ctl running or to come.
 */
void iolat_ctl_destroy(struct iolat_ctl *ctl);

/**
 * iolat_ctl_tick() - the once-a-second timer's work (docs/controller.md R13): release throttling whose asking group went quiet or
 * expired, climb cookies with no asking group. May call waiters' granted().
 * Context: any thread; concurrent with the fast path. Takes parents' locks.
 */
void iolat_ctl_tick(struct iolat_ctl *ctl);

/**
 * iolat_ctl_start_timer() - start a thread that calls iolat_ctl_tick() about
 * once a second of real time, until iolat_ctl_destroy().
 * Return: 0, -EALREADY if started, or the pthread error negated.
 * Context: any thread.
 */
int iolat_ctl_start_timer(struct iolat_ctl *ctl);

/** iolat_ctl_now() - the controller's clock, in ns. Context: any thread. */
uint64_t iolat_ctl_now(const struct iolat_ctl *ctl);

/**
 * iolat_ctl_set_nr_requests() - change the device queue depth (qd). Takes
 * effect at the next scale step, as in the kernel, which re-reads qd live.
 * Return: 0 or -EINVAL for 0.
 * Context: any thread, concurrent with I/O.
 */
int iolat_ctl_set_nr_requests(struct iolat_ctl *ctl, uint32_t nr_requests);
uint32_t iolat_ctl_nr_requests(const struct iolat_ctl *ctl);

/** iolat_ctl_root() - the root group: never throttled; top-level groups' parent. */
struct iolat_group *iolat_ctl_root(struct iolat_ctl *ctl);

/** iolat_ctl_enabled() - true while at least one group has a target. */
bool iolat_ctl_enabled(const struct iolat_ctl *ctl);

/**
 * iolat_group_create() - add a group under @parent (NULL or the root: top level).
 * @name: at most 63 bytes; unique among its siblings.
 * The new group takes its parent's current cookie, as the kernel does.
 * Return: 0, -EINVAL (bad name), -EEXIST (sibling of that name), -ENOSPC
 * (arena full).
 * Context: any thread, concurrent with I/O on other groups.
 */
int iolat_group_create(struct iolat_ctl *ctl, struct iolat_group *parent,
		       const char *name, struct iolat_group **out);

/**
 * iolat_group_destroy() - remove a group, as the kernel's cgroup offline:
 * clears its target (resetting its parent's throttling state) and frees it.
 * Return: 0, -EBUSY while it has I/O in flight, waiters, or children;
 * -EINVAL for the root.
 * Context: any thread. Completions of @g's last I/Os may run concurrently (a
 * completion finishes with a level before releasing its slot there, so an
 * idle group can be destroyed safely); no new admission on @g may start
 * once destroy is called, and no call on @g may follow a successful destroy.
 */
int iolat_group_destroy(struct iolat_group *g);

/**
 * iolat_group_set_target() - set the latency target; 0 means none ("max").
 * Recomputes the window (clamp(16 x target, 100 ms, 1 s)); when the value
 * changes, resets the parent's throttling state (cookie to default), so the
 * siblings return to unlimited depth (granting their waiters); clearing a
 * target clears the group's delay.
 * Return: 0, -EINVAL for the root.
 * Context: any thread, concurrent with I/O. Takes the parent's lock.
 */
int iolat_group_set_target(struct iolat_group *g, uint64_t target_ns);
uint64_t iolat_group_target(const struct iolat_group *g);

struct iolat_group *iolat_group_parent(const struct iolat_group *g); /* NULL for the root */
const char *iolat_group_name(const struct iolat_group *g);         /* "" for the root */
struct iolat_ctl *iolat_group_ctl(const struct iolat_group *g);

/* Per-I/O flags. */
#define IOLAT_IO_SWAP   (1u << 0)   /* bypass: never waits, charged as delay when throttled */
#define IOLAT_IO_META   (1u << 1)   /* bypass, likewise */
#define IOLAT_IO_NOWAIT (1u << 2)   /* -EAGAIN instead of waiting */
#define IOLAT_IO_ROOT   (1u << 3)   /* "issue as root": bypass, as the kernel's as_root */

/* Returned by iolat_throttle_async() when the I/O waits for a slot. */
#define IOLAT_QUEUED 1

/*
 * One I/O, owned by the caller from iolat_throttle*() to iolat_done*().
 * All fields are private to the library; zeroing is not required.
 */
struct iolat_io {
	struct iolat_ctl *ctl_;
	struct iolat_waiter *waiter_;
	uint64_t issue_ns_;      /* stamped at admission: latency includes waiting */
	uint32_t group_;         /* arena index of the issuing group */
	IOLAT_ATOMIC_U32 wait_level_; /* arena index of the level it waits at; ~0u: none */
	uint32_t flags_;         /* IOLAT_IO_* */
	uint32_t state_;         /* library-private state bits */
};

/*
 * An asynchronous admission's continuation. Set granted; the rest is private.
 * It must stay valid from iolat_throttle_async() until granted() has been
 * called or iolat_throttle_cancel() returned 0.
 */
struct iolat_waiter {
	void (*granted)(struct iolat_waiter *w);
	struct iolat_waiter *next_;
	struct iolat_io *io_;
};

/**
 * iolat_throttle_async() - admit one I/O of @g.
 * Takes one slot at every level from @g up to (not including) the root,
 * waiting FIFO where a level is full. Bypass I/O (SWAP, META, ROOT) takes
 * its slots without waiting.
 * Return: 0 when the I/O holds all its slots now (granted() is not called);
 * IOLAT_QUEUED when it waits: then w->granted(w) is called exactly once, once
 * it holds every slot, from the thread of whichever call freed or raised
 * slots (a completion, a tick, a target change, another submit that applied a
 * scale-up); -EAGAIN with IOLAT_IO_NOWAIT when it would wait (nothing held).
 * Context: any thread; lock-free unless it has to wait.
 */
int iolat_throttle_async(struct iolat_group *g, unsigned io_flags,
			 struct iolat_io *io, struct iolat_waiter *w);

/** iolat_throttle_async_at() - the same, with the caller's clock reading. */
int iolat_throttle_async_at(struct iolat_group *g, unsigned io_flags,
			    struct iolat_io *io, struct iolat_waiter *w,
			    uint64_t now_ns);

/**
 * iolat_throttle_cancel() - withdraw a queued admission.
 * Return: 0 when it was still waiting: slots already held at lower levels are
 * released and granted() will not be called; -EALREADY when it was granted
 * (or is being granted): the caller then issues or completes it as usual.
 * Context: any thread.
 */
int iolat_throttle_cancel(struct iolat_io *io);

/**
 * iolat_throttle() - blocking admission: iolat_throttle_async() and a sleep
 * until granted.
 * Return: 0, or -EAGAIN with IOLAT_IO_NOWAIT.
 * Context: a thread that may sleep and holds no lock a completion needs.
 */
int iolat_throttle(struct iolat_group *g, unsigned io_flags, struct iolat_io *io);

/**
 * iolat_done() - complete an admitted I/O: records its latency (completion
 * time minus admission time, waiting included) at each level with a target,
 * releases its slots, wakes waiters, and closes the window when it is due.
 * Completing the same admission twice is a no-op.
 * Context: any thread; lock-free except the one window close per window.
 */
void iolat_done(struct iolat_io *io);

/** iolat_done_at() - the same, with the caller's clock reading. */
void iolat_done_at(struct iolat_io *io, uint64_t now_ns);

/**
 * iolat_done_unissued() - release an admitted I/O that was never issued (the
 * kernel's BLK_STS_AGAIN): slots are released, no latency is recorded.
 * Context: any thread.
 */
void iolat_done_unissued(struct iolat_io *io);

/**
 * iolat_maybe_throttle() - serve the delay charged to @g (or an ancestor):
 * sleeps at most the delay cap (250 ms) per call. Sleeping does not pay the
 * delay off: only time-based decay does, as in the kernel.
 * Return: ns slept.
 * Context: the application's safe point, holding none of its own locks.
 */
uint64_t iolat_maybe_throttle(struct iolat_group *g);

/**
 * iolat_group_delay_due() - the same decision without sleeping: the ns the
 * caller should wait now (for event loops and virtual time). Decays the delay.
 * Context: any thread.
 */
uint64_t iolat_group_delay_due(struct iolat_group *g);

/**
 * iolat_group_note_slept() - account @ns of delay served by a caller of
 * iolat_group_delay_due() (reported as slept_ns).
 */
void iolat_group_note_slept(struct iolat_group *g, uint64_t ns);

/**
 * iolat_group_pace_due() - the pace gate of IOLAT_CTL_ADAPTIVE: may an I/O of
 * @bytes of @g be admitted at @now_ns? Call it before iolat_throttle_async*()
 * for every non-bypass I/O (the runner, the simulator and iolat_throttle_bytes()
 * do). Return: 0 when it may go now (it is counted at every watched level
 * from @g up, and charged to every paced one: the next I/O may go
 * max(bytes/bps, 1/iops) later; one I/O of any size always fits, so the debt
 * is at most one I/O); otherwise the ns to wait before asking again (nothing
 * charged). An event loop sleeps that long or schedules a retry event;
 * virtual time works the same way. Returns 0 at once, after one load, while
 * no group of the controller is watched (every mode but adaptive; adaptive
 * outside its episodes). A level is not paced while the group it protects
 * has been idle for 250 ms.
 * Context: any thread; lock-free.
 */
uint64_t iolat_group_pace_due(struct iolat_group *g, uint64_t bytes, uint64_t now_ns);

/**
 * iolat_throttle_bytes() - iolat_throttle() for an I/O of @bytes: first
 * sleeps until iolat_group_pace_due() lets it go (bypass I/O never waits),
 * then blocks for its slots.
 * Return: as iolat_throttle().
 * Context: a thread that may sleep and holds no lock a completion needs.
 */
int iolat_throttle_bytes(struct iolat_group *g, unsigned io_flags, uint64_t bytes,
			 struct iolat_io *io);

/**
 * iolat_group_congested() - this group or an ancestor has use_delay != 0:
 * it was pushed below depth 1 (adaptive: it is paced) and its bypassed work
 * is charged as delay.
 * The signal for the application's memory manager to throttle allocations.
 * Context: any thread; lock-free.
 */
bool iolat_group_congested(const struct iolat_group *g);

struct iolat_group_stat {          /* a snapshot */
	uint32_t depth;            /* current max depth; IOLAT_DEPTH_MAX: unlimited */
	uint32_t inflight;
	uint32_t waiters;          /* I/Os queued for a slot at this level */
	uint32_t nr_children;
	uint64_t target_ns, win_ns, avg_lat_ns;
	uint64_t missed, total;    /* current window (SSD rule counts) */
	uint64_t nr_done;          /* completions of I/O issued by this group */
	uint64_t nr_bypass;        /* bypass I/Os issued by this group */
	uint64_t throttled_ns;     /* total time this group's I/O waited for slots */
	uint64_t delay_ns;         /* delay charged now (delay_nsec), before decay */
	uint64_t slept_ns;         /* delay served by iolat_maybe_throttle() */
	int use_delay;
	bool congested;
	uint64_t windows_ok, windows_missed;
	uint64_t scale_downs, scale_ups; /* depth steps applied to this group */
	uint64_t last_window_mean_ns;    /* mean latency of the last closed window */
	/* This group as a parent of its children ("child_lat"). */
	uint32_t child_cookie;           /* scale cookie; 1000000 is "no throttling" */
	uint64_t child_scale_lat_ns;     /* lowest target that asked for throttling */
	uint64_t child_nr_samples;
	uint64_t cur_stat_samples;       /* samples carried in cur_stat */
	uint64_t cur_stat_mean_ns;       /* carried mean (0 under IOLAT_CTL_COMPAT_B1) */
	uint32_t cookie;                 /* the parent's cookie this group last acted on */
	/* IOLAT_CTL_ADAPTIVE only (0 otherwise). This group as a throttled child: */
	uint32_t last_step;              /* enum iolat_step: the last rate applied */
	uint64_t pace_bps, pace_iops;    /* the rate it may have; 0: not paced */
	uint64_t paced_ios;              /* I/Os told to wait by the pace gate */
	uint64_t paced_ns;               /* waits the pace gate handed out, summed */
	/* ... and as a parent: the knee seeker over its throttled children. */
	uint32_t last_decision;          /* enum iolat_step: the last decision */
	bool unattainable;               /* lowering the children stopped helping */
	uint64_t limit_bps, limit_iops;  /* the children's rate, together; 0: none */
	uint64_t base_bps;               /* what they did unthrottled (episode start) */
	uint64_t knee_bps;               /* best rate of a good period in the last 10 s */
	uint64_t best_mean_ns;           /* unattainable: the asker's best mean latency */
	uint64_t probe_hold_ns;          /* time to the next probe, at cruise */
	uint64_t probes, probe_fails, backoffs;
	/* ... and as a protected group: windows closed while its I/O stalled
	 * (outstanding, none completed for longer than its target), counted
	 * missed with the stalled I/O late (windows_missed counts them too). */
	uint64_t stalled_windows;
};

/* Why an adaptive group's rate or a parent's limit last moved. */
enum iolat_step {
	IOLAT_STEP_NONE = 0,
	IOLAT_STEP_PACE,        /* child: a rate applied (its share of the limit) */
	IOLAT_STEP_RELEASE,     /* child: unpaced */
	IOLAT_STEP_MEASURE,     /* parent: a miss: the children's own rate is measured */
	IOLAT_STEP_LIMIT,       /* parent: a second miss: first limit, 0.9 x that rate */
	IOLAT_STEP_BACKOFF,     /* parent: a bad period (or an emergency): a cut */
	IOLAT_STEP_HOLD,        /* parent: within target: held still, or back to cruise */
	IOLAT_STEP_PROBE,       /* parent: a short period a little above the knee estimate */
	IOLAT_STEP_PROBE_OK,    /* parent: the probe held: the estimate rises with it */
	IOLAT_STEP_PROBE_FAIL,  /* parent: the probe did not hold: a drain under the estimate */
	IOLAT_STEP_FUTILE,      /* parent: lowering stopped helping: held at the best level */
	IOLAT_STEP_ATTAINED,    /* parent: the target is met again after futility */
	IOLAT_STEP_LIFT,        /* parent: the limit went unused or above need: lifted */
	IOLAT_STEP_RESET,       /* parent: throttling forgotten (tick release, target) */
	IOLAT_STEP_COUNT
};

/** iolat_step_name() - "pace", "backoff", ...; "?" if unknown. Context: any. */
const char *iolat_step_name(unsigned step);

/** iolat_group_stat() - snapshot @g's counters. Context: any thread. */
int iolat_group_stat(const struct iolat_group *g, struct iolat_group_stat *st);

/**
 * iolat_group_scale_grp() - the child of @g that asked for throttling, or NULL.
 * Context: any thread (a racy snapshot).
 */
struct iolat_group *iolat_group_scale_grp(const struct iolat_group *g);

/**
 * iolat_group_format_stat() - the io.stat-style line:
 * "depth=<n|max> avg_lat=<us> win=<ms> missed=<n> total=<n> use_delay=<n> delay=<ns>",
 * followed under IOLAT_CTL_ADAPTIVE by " pace_bps=<n|max> limit_bps=<n|max>
 * step=<name> hold_ms=<n>" (the group's own rate; the rate of its children
 * and its last decision as their parent), and " unattainable" while lowering
 * its children has stopped helping.
 * Return: the length it needed (as snprintf), or a negative errno.
 * Context: any thread.
 */
int iolat_group_format_stat(const struct iolat_group *g, char *buf, size_t len);

/**
 * iolat_parse_duration() - parse "5ms", "750us", "2s", "1500ns", "1.5ms",
 * a bare number (microseconds, as the kernel's io.latency file), or "max"
 * (meaning no target: 0).
 * Return: 0 or -EINVAL (empty, junk, negative, overflow).
 * Context: any thread.
 */
int iolat_parse_duration(const char *s, uint64_t *ns);

/*
 * Completions observed elsewhere. A caller that does not issue the I/O itself
 * (iolatd measures the kernel's block layer per cgroup) feeds each completed
 * request to its group: the latency is recorded and windows close exactly as
 * for iolat_done(), and the group looks at its parent's cookie as a submit
 * would, so its allowed depth follows the same scale steps. No slot is taken
 * or released and nothing ever waits: acting on the allowed depth (a rate
 * limit, say) is the caller's business.
 */

/**
 * iolat_observe_done_at() - record one request of @g completed at @now_ns
 * after @lat_ns, moving @bytes. @io_flags: IOLAT_IO_* (SWAP, META and ROOT
 * are bypass I/O: on a throttled level their latency is charged as delay, as
 * for admitted bypass I/O). A latency of 0 is not recorded but still closes a
 * window that is due.
 * Return: 0, -EINVAL for no group.
 * Context: any thread; lock-free except the one window close per window.
 */
int iolat_observe_done_at(struct iolat_group *g, uint64_t lat_ns, uint64_t bytes,
			  unsigned io_flags, uint64_t now_ns);

/** iolat_observe_done() - the same at the controller's clock's now. */
int iolat_observe_done(struct iolat_group *g, uint64_t lat_ns, uint64_t bytes,
		       unsigned io_flags);

/* What a caller acting for the controller reads of a group. */
struct iolat_observe_stat {
	uint32_t depth;          /* allowed depth; IOLAT_DEPTH_MAX: unlimited */
	int use_delay;           /* > 0: pushed below depth 1 that many steps */
	bool throttled;          /* depth limited or use_delay > 0 */
	uint32_t cookie;         /* the parent's cookie this group acted on */
	uint64_t scale_downs, scale_ups;
	uint64_t nr_observed;    /* requests fed by iolat_observe_done*() */
	uint64_t bytes_observed;
	/* IOLAT_CTL_ADAPTIVE: the rate to hold the group to (0: none), and no
	 * longer while the group it protects is idle. */
	uint64_t pace_bps, pace_iops;
};

/**
 * iolat_group_observe_stat() - @g first looks at its parent's cookie, as
 * a submit would (a group whose requests are only observed may be idle, and
 * a tick's release must reach it all the same), then its depth and scale
 * state are read.
 * Return: 0, -EINVAL.
 * Context: any thread.
 */
int iolat_group_observe_stat(struct iolat_group *g, struct iolat_observe_stat *st);

/*
 * Acting for the adaptive mode. A caller that enforces the rates itself
 * (iolatd writes them as the kernel throttle's limits) tells the controller
 * what it actually did, so that the decision judges what was in force and
 * what was served, not what it asked for. Without these calls a rate is
 * taken to be in force the moment it is decided (the pace gate), and what a
 * group was served is counted by the gate or by iolat_observe_done*().
 */

/**
 * iolat_group_observe_applied() - the rate in force for @g from @now_ns on:
 * @bps bytes and @iops I/Os per second, what iolat_group_observe_stat()'s
 * pace_* asked for or a slightly different value (rounding, a floor), 0 for
 * none in force. Call it after every write of @g's limits, and at least once
 * a control round while @g is paced (also when a change was not written: the
 * old value is what is in force). From the first call on, the parent's
 * decision judges a change of its limit only once the groups' reports show
 * it in force (the sum moved at least half way to it after the change); one
 * never put in force within 3 s is given up for the value reported.
 * Return: 0, -EINVAL (no group, or the root).
 * Context: any thread; lock-free.
 */
int iolat_group_observe_applied(struct iolat_group *g, uint64_t bps, uint64_t iops,
				uint64_t now_ns);

/**
 * iolat_group_observe_served() - @g (its whole subtree) was served @bytes
 * and @ios since the previous call, counted up to @now_ns by the caller
 * (the block throttle's own counters: v1 blkio.throttle.io_service_bytes
 * and _serviced, v2 io.stat rbytes+wbytes, rios+wios). From the first call
 * on, what @g was delivered is taken from these reports only, not from
 * iolat_observe_done*() (report every round, 0 when nothing was served).
 * With weights on, a report with bytes from a group that was idle activates
 * it and divides the shares again at once, and a donor reported at its
 * reduced budget gets its part back (docs/weights.md).
 * Return: 0, -EINVAL (no group, or the root).
 * Context: any thread; lock-free, except that an activation takes the
 * controller's weight lock (a leaf lock) for one division.
 */
int iolat_group_observe_served(struct iolat_group *g, uint64_t bytes, uint64_t ios,
			       uint64_t now_ns);

/**
 * iolat_group_observe_inflight() - @g (its whole subtree) has @n requests
 * submitted and not completed at @now_ns, as the caller counts them (iolatd:
 * the bytes the block layer's per-cgroup counters saw submitted minus those
 * BPF saw complete). IOLAT_CTL_ADAPTIVE: a protected group with requests
 * outstanding is stalled, not idle: the limit on its siblings holds (the
 * pace gate and the tick do not let go), and once nothing of it has
 * completed for longer than its target, a window overdue closes as missed
 * with the @n requests counted late (iolat_group_stat's stalled_windows).
 * Report every control round (0 when nothing is outstanding); from the
 * first call on, this count replaces @g's own count of admitted I/O. A stall
 * is believed for 30 s at most. The other modes only store the count.
 * Weights: a group whose served reports show nothing for 200 ms while this
 * count is 0 has stopped, and its share goes to its siblings at once
 * (docs/weights.md, "stop").
 * Return: 0, -EINVAL (no group, or the root).
 * Context: any thread; lock-free except a window's close (as a completion's).
 */
int iolat_group_observe_inflight(struct iolat_group *g, uint32_t n, uint64_t now_ns);

/*
 * Weights (docs/weights.md): proportional shares, io.weight's hweight and
 * donation. A group's weight is 1..10000 (IOLAT_WEIGHT_DEFAULT until set).
 * The controller divides nothing until the first iolat_group_set_weight()
 * on any of its groups; from then on, once a period (1 s), each parent's
 * active children (did I/O in the last period) share what their parent may
 * use in proportion to their weights: the device's capacity, estimated
 * online from the throughput it delivers (no model, no calibration). A child
 * that used less than its share keeps its use plus headroom and donates the
 * rest to its busy siblings, and gets its share back when it reaches its
 * reduced budget; a lone active child is unlimited; a group with a latency
 * target is never budgeted (its use comes off its siblings' pool). The
 * budget is enforced by iolat_group_pace_due() (the library) or written by
 * the caller as the group's io.max (iolatd); what each group was delivered
 * is counted by the gate, by iolat_observe_done*() or, from its first call,
 * by iolat_group_observe_served().
 */
#define IOLAT_WEIGHT_MIN 1
#define IOLAT_WEIGHT_MAX 10000
#define IOLAT_WEIGHT_DEFAULT 100

/**
 * iolat_group_set_weight() - set @g's weight (1..10000). The first call on a
 * controller turns its weights on (a period starts then).
 * Return: 0, -EINVAL outside 1..10000, for the root or no group.
 * Context: any thread, concurrent with I/O.
 */
int iolat_group_set_weight(struct iolat_group *g, unsigned weight);

/** iolat_group_weight() - @g's weight (IOLAT_WEIGHT_DEFAULT until set). Context: any thread. */
unsigned iolat_group_weight(const struct iolat_group *g);

/* A group's share, as decided at the end of the last period. */
struct iolat_group_share {
	unsigned weight;          /* as set */
	bool active;              /* did I/O in the last period */
	double hweight;           /* product along the path of weight / sum of ACTIVE siblings' weights */
	uint64_t share_bps;       /* hweight x the capacity estimate, bytes/s (0 while unknown) */
	uint64_t use_bps;         /* delivered over the last period */
	uint64_t donated_bps;     /* share given to busy siblings (share - budget when it donates) */
	uint64_t budget_bps;      /* what the group may use next period (UINT64_MAX: unlimited) */
	uint64_t capacity_bps;    /* the device capacity estimate the shares divide */
};

/**
 * iolat_group_share() - @g's weight, hweight, share, use, donation and
 * budget as of the last period. While the controller's weights are off
 * (and during the first period): the weight, hweight 1, budget UINT64_MAX,
 * the rest 0. For the root: hweight 1, share and capacity the estimate, use
 * the device's total.
 * Return: 0, -EINVAL.
 * Context: any thread (takes the controller's weight lock briefly).
 */
int iolat_group_share(const struct iolat_group *g, struct iolat_group_share *out);

/* Constants of the controller, for users and tests (docs/controller.md, Constants). */
#define IOLAT_DEFAULT_COOKIE    1000000u
#define IOLAT_MIN_WIN_NS        100000000ull    /* 100 ms */
#define IOLAT_MAX_WIN_NS        1000000000ull   /* 1 s */
#define IOLAT_MIN_ADJUST_NS     500000000ull    /* 500 ms between scale events */
#define IOLAT_MIN_GOOD_SAMPLES  5
#define IOLAT_DELAY_CAP_NS      250000000ull    /* one maybe_throttle() sleep */
#define IOLAT_SCALE_GRP_EXPIRY_NS 5000000000ull /* kernel timer: forget asker */

#ifdef __cplusplus
}
#endif
#endif /* IOLATENCY_H */
