/* SPDX-License-Identifier: MIT */
/*
 * tree.h - the discovered cgroup tree as the controllers' groups (tree.c).
 * Context: one thread for every call on one struct iolatd.
 */
#ifndef IOLAT_DAEMON_TREE_H
#define IOLAT_DAEMON_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct iolatd;
struct iolatd_config;

/* Look at the tree again (nodes added and removed, groups found or waited for). */
void iolatd_rescan(struct iolatd *d);
/* With strict=1, every configured group's cgroup must exist. Return: 0, -EINVAL (@err). */
int iolatd_check_groups(const struct iolatd *d, const struct iolatd_config *cfg, char *err, size_t errlen);
/* The targets and weights of every group as the configuration now says. */
void iolatd_apply_targets(struct iolatd *d);
/* The target of node @node on device @k. */
uint64_t iolatd_target_of(const struct iolatd *d, int node, unsigned k);

/* Node @node's weight on device @k, as the configuration says (100: none given). */
unsigned iolatd_weight_of(const struct iolatd *d, int node, unsigned k);
/* Do iolatd's weights act on device @k (weights given, control on, the kernel's not in force)? */
bool iolatd_weights_act(const struct iolatd *d, unsigned k);
/* "iolatd" (they act), "kernel" (the kernel's are in force: stood aside), "off". */
const char *iolatd_weights_word(const struct iolatd *d, unsigned k);
/* Look for the kernel's own weights on each disk; say once when iolatd stands aside. */
void iolatd_weights_check(struct iolatd *d);

#endif
