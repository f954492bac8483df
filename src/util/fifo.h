/* SPDX-License-Identifier: MIT */
/*
 * fifo.h - the one intrusive FIFO: a singly linked queue, head and tail, of
 * elements that carry their own link (a pointer to their own type), so a
 * push or pop never allocates. IOLAT_FIFO(name, type, link) defines
 *   struct name { type *head, *tail; };
 * and its operations, all O(1) but name_remove():
 *   name_init(q)        empty @q (a zeroed struct name is empty too)
 *   name_empty(q)       true when nothing is queued
 *   name_peek(q)        the head, NULL when empty; walk on with e->link
 *   name_push(q, e)     @e at the tail (its link is overwritten)
 *   name_pop(q)         take the head, NULL when empty; its link is cleared
 *   name_remove(q, e)   take @e from wherever it stands (a walk, O(n));
 *                       false when it is not queued
 *   name_splice(q, src) every element of @src after @q's, in order; @src empty
 * An element is on one queue at a time through one link.
 * Context: not thread-safe; whoever shares a queue holds its own lock over
 * every call (the core's wq_lock, the psync engine's mutex), else the queue
 * belongs to one thread. C11 headers only: the core may include it.
 */
#ifndef IOLAT_UTIL_FIFO_H
#define IOLAT_UTIL_FIFO_H

#include <stdbool.h>
#include <stddef.h>

/* Each user needs only some of the operations; clang warns of the others. */
#define IOLAT_FIFO_FN_ static inline __attribute__((unused))

#define IOLAT_FIFO(name, type, link)                                           \
struct name {                                                                  \
	type *head, *tail;                                                     \
};                                                                             \
IOLAT_FIFO_FN_ void name##_init(struct name *q)                                \
{                                                                              \
	q->head = q->tail = NULL;                                              \
}                                                                              \
IOLAT_FIFO_FN_ bool name##_empty(const struct name *q)                         \
{                                                                              \
	return !q->head;                                                       \
}                                                                              \
IOLAT_FIFO_FN_ type *name##_peek(const struct name *q)                         \
{                                                                              \
	return q->head;                                                        \
}                                                                              \
IOLAT_FIFO_FN_ void name##_push(struct name *q, type *e)                       \
{                                                                              \
	e->link = NULL;                                                        \
	if (q->tail)                                                           \
		q->tail->link = e;                                             \
	else                                                                   \
		q->head = e;                                                   \
	q->tail = e;                                                           \
}                                                                              \
IOLAT_FIFO_FN_ type *name##_pop(struct name *q)                                \
{                                                                              \
	type *e = q->head;                                                     \
                                                                               \
	if (e) {                                                               \
		q->head = e->link;                                             \
		if (!q->head)                                                  \
			q->tail = NULL;                                        \
		e->link = NULL;                                                \
	}                                                                      \
	return e;                                                              \
}                                                                              \
IOLAT_FIFO_FN_ bool name##_remove(struct name *q, type *e)                     \
{                                                                              \
	type *prev = NULL, *cur = q->head;                                     \
                                                                               \
	while (cur && cur != e) {                                              \
		prev = cur;                                                    \
		cur = cur->link;                                               \
	}                                                                      \
	if (!cur)                                                              \
		return false;                                                  \
	if (prev)                                                              \
		prev->link = e->link;                                          \
	else                                                                   \
		q->head = e->link;                                             \
	if (q->tail == e)                                                      \
		q->tail = prev;                                                \
	e->link = NULL;                                                        \
	return true;                                                           \
}                                                                              \
IOLAT_FIFO_FN_ void name##_splice(struct name *q, struct name *src)            \
{                                                                              \
	if (!src->head)                                                        \
		return;                                                        \
	if (q->tail)                                                           \
		q->tail->link = src->head;                                     \
	else                                                                   \
		q->head = src->head;                                           \
	q->tail = src->tail;                                                   \
	src->head = src->tail = NULL;                                          \
}

#endif /* IOLAT_UTIL_FIFO_H */
