/* SPDX-License-Identifier: MIT */
/*
 * vmap.c - the verify map (see vmap.h): per-block records of the last write,
 * kept in lazily allocated chunks, and the read-back check.
 * Context: any thread (one mutex); iolat_vmap_check() with no write running.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"
#include "engine/verify.h"
#include "run/vmap.h"

/* ---- the verify map: which write each block of a file must hold ---- */

#define VMAP_CHUNK_SHIFT 14u                 /* 16384 blocks per lazily allocated chunk */
#define VMAP_CHUNK (1u << VMAP_CHUNK_SHIFT)
#define VMAP_READ_MAX (1u << 20)             /* the check reads 1 MiB at a time */

enum vblk_state {
	VBLK_INITIAL = 0,     /* no write completed: as laid out (generation 0) */
	VBLK_WRITTEN,         /* holds generation gen */
	VBLK_UNSPECIFIED,     /* its last write failed or overlapped another: anything */
};

struct vblk {
	uint64_t gen;         /* VBLK_WRITTEN: the generation of its last write */
	uint64_t min_ok;      /* only a write with this ticket or later may set gen */
	uint32_t inflight;    /* writes issued and not completed */
	uint8_t state;        /* enum vblk_state */
};

struct iolat_vmap {
	pthread_mutex_t lock;
	uint64_t base, nr_blocks;
	uint32_t block;
	bool formatted;
	bool nomem;           /* a chunk could not be allocated: no verdict */
	uint64_t seq;         /* the last ticket handed out */
	struct vblk **chunks;
	uint64_t nr_chunks;
};

int iolat_vmap_create(uint64_t base, uint64_t size, uint32_t block, bool formatted,
		      struct iolat_vmap **out)
{
	struct iolat_vmap *m;

	*out = NULL;
	if (!block || block % IOLAT_ENG_VERIFY_BLOCK || (block & (block - 1)) ||
	    base % block || !size)
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->base = base;
	m->block = block;
	m->formatted = formatted;
	m->nr_blocks = (size + block - 1) / block;
	m->nr_chunks = (m->nr_blocks + VMAP_CHUNK - 1) >> VMAP_CHUNK_SHIFT;
	m->chunks = calloc(m->nr_chunks, sizeof(*m->chunks));
	if (!m->chunks) {
		free(m);
		return -ENOMEM;
	}
	pthread_mutex_init(&m->lock, NULL);
	*out = m;
	return 0;
}

void iolat_vmap_destroy(struct iolat_vmap *m)
{
	if (!m)
		return;
	for (uint64_t i = 0; i < m->nr_chunks; i++)
		free(m->chunks[i]);
	free(m->chunks);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

/* Block @i, allocating its chunk; NULL when out of memory. Under the lock. */
static struct vblk *vmap_blk(struct iolat_vmap *m, uint64_t i, bool alloc)
{
	struct vblk **c = &m->chunks[i >> VMAP_CHUNK_SHIFT];

	if (!*c) {
		if (!alloc)
			return NULL;
		*c = calloc(VMAP_CHUNK, sizeof(**c));
		if (!*c) {
			m->nomem = true;
			return NULL;
		}
	}
	return &(*c)[i & (VMAP_CHUNK - 1)];
}

/* The blocks [*first, *end) that [off, off + len) touches, within the map. */
static bool vmap_span(const struct iolat_vmap *m, uint64_t off, uint32_t len,
		      uint64_t *first, uint64_t *end)
{
	uint64_t lo = off > m->base ? off - m->base : 0, hi;

	if (off + len <= m->base)
		return false;
	hi = off + len - m->base;
	*first = lo / m->block;
	*end = (hi + m->block - 1) / m->block;
	if (*end > m->nr_blocks)
		*end = m->nr_blocks;
	return *first < *end;
}

uint64_t iolat_vmap_write_begin(struct iolat_vmap *m, uint64_t off, uint32_t len)
{
	uint64_t first, end, t;

	pthread_mutex_lock(&m->lock);
	t = ++m->seq;
	if (vmap_span(m, off, len, &first, &end)) {
		for (uint64_t i = first; i < end; i++) {
			struct vblk *b = vmap_blk(m, i, true);

			if (!b)
				break;
			if (b->inflight)
				b->min_ok = t + 1;  /* two writes at once: either may land last */
			b->inflight++;
		}
	}
	pthread_mutex_unlock(&m->lock);
	return t;
}

void iolat_vmap_write_end(struct iolat_vmap *m, uint64_t off, uint32_t len, uint64_t ticket,
			  uint64_t gen, bool ok)
{
	uint64_t first, end;

	pthread_mutex_lock(&m->lock);
	if (vmap_span(m, off, len, &first, &end)) {
		for (uint64_t i = first; i < end; i++) {
			struct vblk *b = vmap_blk(m, i, false);
			uint64_t bstart = m->base + i * m->block;
			bool whole = off <= bstart && off + len >= bstart + m->block;

			if (!b)
				break;  /* its chunk could not be allocated (nomem) */
			if (b->inflight)
				b->inflight--;
			if (ok && whole && !b->inflight && ticket >= b->min_ok) {
				b->gen = gen;
				b->state = VBLK_WRITTEN;
			} else {
				b->state = VBLK_UNSPECIFIED;
			}
		}
	}
	pthread_mutex_unlock(&m->lock);
}

static void vmap_bad(struct iolat_vmap_stats *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void vmap_bad(struct iolat_vmap_stats *st, const char *fmt, ...)
{
	va_list ap;

	if (st->blocks_bad++ || !fmt)
		return;
	va_start(ap, fmt);
	vsnprintf(st->first_bad, sizeof(st->first_bad), fmt, ap);
	va_end(ap);
}

int iolat_vmap_check(struct iolat_vmap *m, int fd, struct iolat_vmap_stats *st)
{
	struct iolat_eng_verify_err verr;
	char msg[200];
	uint32_t per = VMAP_READ_MAX / m->block;
	unsigned char *buf;

	memset(st, 0, sizeof(*st));
	st->block_size = m->block;
	if (m->nomem)
		return -ENOMEM;
	buf = iolat_eng_buf_alloc(VMAP_READ_MAX);
	if (!buf)
		return -ENOMEM;
	pthread_mutex_lock(&m->lock);
	for (uint64_t i = 0; i < m->nr_blocks; i += per) {
		uint64_t n = m->nr_blocks - i < per ? m->nr_blocks - i : per, got = 0;
		uint64_t off = m->base + i * m->block;
		bool any = m->formatted;
		ssize_t rd = 0;
		int rerr = 0;

		/* Without a laid-out format only written blocks can be checked. */
		for (uint64_t k = 0; k < n && !any; k++) {
			const struct vblk *b = vmap_blk(m, i + k, false);

			any = b && b->state != VBLK_INITIAL;
		}
		if (!any)
			continue;
		while (got < n * m->block) {
			rd = pread(fd, buf + got, n * m->block - got, (off_t)(off + got));
			if (rd <= 0) {
				rerr = rd < 0 ? errno : 0;
				break;
			}
			got += (uint64_t)rd;
		}
		for (uint64_t k = 0; k < n; k++) {
			const struct vblk *b = vmap_blk(m, i + k, false);
			uint64_t boff = off + k * m->block;
			int state = b ? b->state : VBLK_INITIAL;

			if (state == VBLK_UNSPECIFIED) {
				st->blocks_unspecified++;
				continue;
			}
			if (state == VBLK_INITIAL && !m->formatted)
				continue;
			st->blocks_checked++;
			if (state == VBLK_WRITTEN)
				st->blocks_written++;
			if ((k + 1) * m->block > got) {
				vmap_bad(st, "block at offset %" PRIu64 ": cannot read it back (%s)",
					 boff, rerr ? strerror(rerr) : "end of file");
				continue;
			}
			if (iolat_eng_verify_check(buf + k * m->block, m->block, boff,
						   state == VBLK_WRITTEN ? b->gen : 0, NULL, &verr)) {
				iolat_eng_verify_format(&verr, msg, sizeof(msg));
				vmap_bad(st, "block at offset %" PRIu64 " (%s): %s", boff,
					 state == VBLK_WRITTEN ? "written" : "as laid out", msg);
			}
		}
	}
	pthread_mutex_unlock(&m->lock);
	iolat_eng_buf_free(buf);
	return 0;
}

