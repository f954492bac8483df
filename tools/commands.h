/* SPDX-License-Identifier: MIT */
/*
 * The iolat subcommands. tools/iolat.c dispatches `iolat run|sim|demo` to these;
 * each lives in its own file (cmd_run.c, cmd_sim.c, cmd_demo.c) owned by the
 * engineer of that runner. argv[0] is the subcommand name ("run"...).
 * Return (the process exit code): 0 ok, 1 run failed (I/O errors), 2 bad usage
 * or bad job file.
 * Context: the main thread of the CLI.
 */
#ifndef IOLAT_TOOLS_COMMANDS_H
#define IOLAT_TOOLS_COMMANDS_H

#include <stdbool.h>
#include <stdint.h>

#define IOLAT_EXIT_OK     0
#define IOLAT_EXIT_FAILED 1
#define IOLAT_EXIT_USAGE  2

int iolat_cmd_run(int argc, char **argv);
int iolat_cmd_sim(int argc, char **argv);
int iolat_cmd_demo(int argc, char **argv);
/* `iolat demo --memleak` and the leaking-service job files of `iolat sim` (demo_memleak.c) */
struct iolat_jobfile;
int iolat_demo_memleak(int argc, char **argv);
int iolat_sim_memleak(const struct iolat_jobfile *jf, const char *logdir, bool json,
		      const uint64_t *seed, int control);
int iolat_cmd_status(int argc, char **argv); /* cmd_status.c: iolatd's status */
int iolat_cmd_calibrate(int argc, char **argv); /* cmd_calibrate.c: a disk's knee and target */

#endif /* IOLAT_TOOLS_COMMANDS_H */
