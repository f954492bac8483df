/* SPDX-License-Identifier: MIT */
/*
 * plot.h - running gnuplot on a script the caller wrote: found on PATH,
 * started without a shell in the script's directory, its output discarded.
 * Context: any thread of a tool (it forks and waits).
 */
#ifndef IOLAT_REPORT_PLOT_H
#define IOLAT_REPORT_PLOT_H

/*
 * iolat_plot_run() - run `gnuplot @script` in @dir.
 * Return: 0 when it succeeded; -ENOENT when gnuplot is not on PATH; -EIO
 * when it failed; another -errno when it could not be started.
 */
int iolat_plot_run(const char *dir, const char *script);

#endif /* IOLAT_REPORT_PLOT_H */
