/* SPDX-License-Identifier: MIT */
/*
 * logsink.c - a log line in the form of its destination (logsink.h).
 * Context: any thread; no state.
 */
#include <stdio.h>
#include <sys/stat.h>
#include <syslog.h>

#include "daemon/log/logsink.h"

bool iolatd_log_stderr_is_journal(const char *journal_stream)
{
	unsigned long long dev, ino;
	struct stat st;

	if (!journal_stream || sscanf(journal_stream, "%llu:%llu", &dev, &ino) != 2)
		return false;
	return fstat(2, &st) == 0 && (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

const char *iolatd_log_level_name(int priority)
{
	switch (priority) {
	case LOG_WARNING: return "warning";
	case LOG_NOTICE: return "notice";
	case LOG_INFO: return "info";
	case LOG_DEBUG: return "debug";
	default: return "error"; /* LOG_ERR and the graver ones */
	}
}

char *iolatd_log_format(enum log_sink sink, int priority, const char *line, char *out, size_t len)
{
	bool marked;

	if (priority < LOG_EMERG || priority > LOG_DEBUG)
		priority = LOG_ERR;
	marked = priority <= LOG_WARNING;
	if (sink == LOG_SINK_JOURNAL)
		snprintf(out, len, "<%d>%s", priority, line);
	else
		snprintf(out, len, "%s%s%s%s", sink == LOG_SINK_TERMINAL ? "iolatd: " : "",
			 marked ? iolatd_log_level_name(priority) : "", marked ? ": " : "", line);
	return out;
}
