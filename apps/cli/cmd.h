/* The subcommands of the impetus program and the helpers they share
   (defined in impetus.c).
   Exit status of every command: 0 success; 1 an error the user's files
   caused (a model that does not load, an unknown keyframe, a file that
   cannot be written); 2 bad usage (unknown option, missing or malformed
   value); 3 `run` finished but the state went non-finite on the way. */
#ifndef IMPETUS_APPS_CMD_H
#define IMPETUS_APPS_CMD_H

#include "impetus.h"

enum { CLI_EXIT_ERROR = 1, CLI_EXIT_USAGE = 2, CLI_EXIT_NONFINITE = 3 };

/* Each command gets its own arguments: argv[0] is the command's name. */
int cmd_check(int argc, char** argv);
int cmd_run(int argc, char** argv);
int cmd_bench(int argc, char** argv);
/* cmd_batch.c: many rollouts (imp_rollout), their files and manifest */
int cmd_batch(int argc, char** argv);
int cmd_solvers(int argc, char** argv);
/* impetus solvers --compare (argv as cmd_solvers gets it): in the impetus
   program it runs the impetus-compare program beside it (compare_exec.c),
   in that program the comparison itself (cmd_compare.c) */
int cli_solvers_compare(int argc, char** argv);
/* the usage of impetus solvers (cmd_solvers.c) */
extern const char* const cli_usage_solvers;
/* cmd_render.c; without the renderer (IMP_BUILD_RENDER=OFF) it says so and exits 2 */
int cmd_render(int argc, char** argv);
extern const char* const cli_usage_render;
/* cmd_view.c, cmd_replay.c: the interactive viewer (apps/viewer/); without
   the renderer they say so and exit 2 (apps/cli/cmd_view_missing.c) */
int cmd_view(int argc, char** argv);
int cmd_replay(int argc, char** argv);
extern const char* const cli_usage_view;
extern const char* const cli_usage_replay;

/* Name the command being run (argv[1] of the program: "run", "view" ...)
   for usage errors; main calls it once before it dispatches. */
void cli_set_command(const char* name);

/* A usage error, on one line of stderr: "impetus CMD: MESSAGE (see
   `impetus help CMD`)" (printf-style fmt). Returns CLI_EXIT_USAGE. Every
   bad-usage message of every command goes through it, so none prints the
   whole usage text. */
int cli_usage_error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print the usage of command name (NULL: the program) to stdout (to_stderr
   0) or stderr (1). Returns 0 when name is a known command, else -1. */
int cli_usage(const char* name, int to_stderr);

/* True when arg is -h or --help. */
int cli_is_help(const char* arg);

/* Match argv[*i] against the option "--name", taking its value from
   "--name=V" or from the next argument. Returns 1 and sets *value (advancing
   *i past a separate value) when it matches, 0 when argv[*i] is another
   argument, -1 (message printed) when the value is missing. */
int cli_option(int argc, char** argv, int* i, const char* name, const char** value);

/* Parse an integer option value >= min; -1 with a message on failure. */
int cli_parse_ll(const char* opt, const char* s, long long min, long long* out);
/* Parse --threads (1 to 64, imp_set_threads' range); -1 with a message. */
int cli_parse_threads(const char* cmd, const char* s, long long* out);
/* Parse a finite double option value; positive: must be > 0, else >= 0. */
int cli_parse_double(const char* opt, const char* s, int positive, double* out);

/* Every command that loads a model takes --allow-unsupported (anywhere
   after the command's name): load a file that uses physics Impetus does not
   implement, dropping it with a warning, instead of refusing it. Removes
   the option from argv and returns the imp_load_option bits. */
int cli_take_load_options(int* argc, char** argv);

/* Remove every argv[i] (i > 0) equal to flag ("--quiet"); 1 when there
   was one. Options a command takes besides its own parser's. */
int cli_take_flag(int* argc, char** argv, const char* flag);

/* Load a model with those options, printing the loader's error (returns
   NULL) or its warnings to stderr. */
imp_model* cli_load(const char* path, int options);

/* The keyframe of m called name, or "#I" for keyframe I (how `impetus
   check` lists an unnamed one). When there is none, -1 after telling
   stderr which keyframes the model at path has. */
int cli_find_key(const imp_model* m, const char* path, const char* name);

/* "impetus CMD" for messages: the command main named, or "impetus". */
const char* cli_prefix(void);

/* The model's name ("" when it has none). */
const char* cli_model_name(const imp_model* m);

/* 0 when name is a registered contact solver; otherwise -1 after telling
   stderr, on behalf of command cmd, which solvers there are. */
int cli_check_solver(const char* cmd, const char* name);

/* Name of a solver exit reason (imp_solver_exit in contact.h): converged,
   maxiter, stalled, diverged, failed; "unknown" out of range. */
const char* cli_exit_name(int exit_reason);

/* Seconds on the monotonic clock. */
double cli_now(void);

#endif
