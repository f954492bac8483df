/* SPDX-License-Identifier: MIT */
/*
 * logsink.h - one log line with its syslog priority (LOG_ERR, LOG_WARNING,
 * LOG_NOTICE, LOG_INFO, LOG_DEBUG) written where iolatd's lines go, in the
 * form the reader there understands:
 *   journal   stderr connected to journald (systemd sets $JOURNAL_STREAM to
 *             "DEV:INODE" of that stream): "<N>line", the sd-daemon(3)
 *             prefix, which journald turns into the entry's PRIORITY=, so
 *             that `journalctl -p warning` shows warnings and errors;
 *   terminal  stderr otherwise: "iolatd: line", "iolatd: warning: line",
 *             "iolatd: error: line";
 *   file      --log-file: "TIME iolatd[PID]: warning: line" (a word for
 *             warnings and errors, as on a terminal).
 * Syslog (once detached) takes the priority itself (vsyslog).
 * Context: any thread; no state.
 */
#ifndef IOLAT_DAEMON_LOGSINK_H
#define IOLAT_DAEMON_LOGSINK_H

#include <stdbool.h>
#include <stddef.h>

enum log_sink { LOG_SINK_TERMINAL, LOG_SINK_JOURNAL, LOG_SINK_FILE };

/* Is stderr journald's stream? @journal_stream: $JOURNAL_STREAM (NULL: not set). */
bool iolatd_log_stderr_is_journal(const char *journal_stream);

/* "error", "warning", "notice", "info", "debug" for a syslog priority (above LOG_ERR: "error"). */
const char *iolatd_log_level_name(int priority);

/*
 * iolatd_log_format() - @line at @priority for @sink into @out (NUL-ended,
 * no newline), without the file's time stamp and pid. Return: @out.
 */
char *iolatd_log_format(enum log_sink sink, int priority, const char *line, char *out, size_t len);

#endif
