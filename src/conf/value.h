/* SPDX-License-Identifier: MIT */
/*
 * value.h - the value grammar every configuration of the project reads:
 * job files (src/job), iolatd.conf (src/daemon), engine options
 * (src/engine) and the simulator's device parameters (src/sim):
 *
 *   size      "4k", "1.5m", "2g", "512", "10MiB", "4kib": k m g t p are
 *             powers of 1024, with an optional "b" or "ib", any case
 *   count     a size's grammar for a number of things ("1k" is 1024)
 *   integer   decimal digits, or 0x and hexadecimal digits
 *   real      a finite decimal number ("0.01", "1e-3")
 *   boolean   1 0 true false yes no on off, any case
 *   duration  "30s", "500ms", "1.5s", "2m", "750us" (core/duration.c's
 *             grammar: ns us ms s m min h d); a bare number in the unit the
 *             key names; "max" only where a latency target is read
 *   choice    one of the words of "a|b|c"
 *
 * Every parser returns 0 or a negative errno (-EINVAL: not of the grammar;
 * -ERANGE where said) and writes nothing on failure.
 * Context: any thread; no state.
 */
#ifndef IOLAT_CONF_VALUE_H
#define IOLAT_CONF_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Blank within a line (space, tab, CR, VT, FF) and decimal digit, ASCII only. */
bool iolat_conf_is_space(char c);
bool iolat_conf_is_digit(char c);

/**
 * iolat_parse_size() - "4k", "1m", "2g", "512", "10MiB" -> bytes. Suffixes
 * k, m, g, t, p (with optional "b" or "ib", any case) are powers of 1024, as
 * fio's default; a fraction is allowed ("1.5m"). -EINVAL on junk, negative
 * numbers or overflow.
 */
int iolat_parse_size(const char *s, uint64_t *bytes);

/* Decimal digits, or "0x" and hexadecimal ones, nothing else: -EINVAL, or
 * -ERANGE above 2^64 - 1. */
int iolat_conf_parse_uint(const char *s, uint64_t *out);

/* A finite real number, strtod's syntax, nothing after it. */
int iolat_conf_parse_real(const char *s, double *out);

/* 1 0 true false yes no on off, any case. */
int iolat_conf_parse_bool(const char *s, bool *out);

/* A duration; a bare number counts @bare_unit_ns. No "max". */
int iolat_conf_parse_duration(const char *s, uint64_t bare_unit_ns, uint64_t *ns);

/* A latency target: a duration (bare: microseconds) or "max" (0: none). */
int iolat_conf_parse_target(const char *s, uint64_t *ns);

/* Position of @word in the '|'-separated @choices, or -1. */
int iolat_conf_choice_index(const char *choices, const char *word);

/* The same for the @n bytes at @word. */
int iolat_conf_choice_index_n(const char *choices, const char *word, size_t n);

#endif /* IOLAT_CONF_VALUE_H */
