/* Stopping a long command cleanly on SIGINT (Ctrl-C), SIGTERM or SIGHUP
   (the terminal closed).

   The first signal sets a flag the command reads between units of work
   (steps, frames) and stops at the next boundary, leaving every file it
   wrote complete. Work that does not come back (a step that hangs, an
   image too big to encode) would never read it, so the signal also arms
   an alarm: if the command has not stopped GRACE seconds later, or a
   second signal comes first, the handler removes the file being written
   (cli_interrupt_guard) and exits 130, with async-signal-safe calls only.
   `impetus run` and `impetus render` use it. */
#ifndef IMPETUS_APPS_CLI_INTERRUPT_H
#define IMPETUS_APPS_CLI_INTERRUPT_H

#include <signal.h>

/* seconds the work in progress may take after a signal */
#define CLI_INTERRUPT_GRACE 2

/* Install the handlers. The message of a forced exit is "WHAT: interrupted
   in the middle of FORCED" (what: "impetus run"; forced: "a step that did
   not end; nothing written"). */
void cli_interrupt_install(const char* what, const char* forced);

/* Block the stop signals (old: the mask to restore), e.g. while a file is
   created and guarded, so no forced exit comes between the two. */
void cli_interrupt_hold(sigset_t* old);
void cli_interrupt_release(const sigset_t* old);

/* True once SIGINT, SIGTERM or SIGHUP came. */
int cli_interrupted(void);

/* The file being written now, removed if the process must exit before it
   is complete; NULL when none. The path is copied (at most 4095 bytes). */
void cli_interrupt_guard(const char* path);

/* The command has stopped by itself: a late signal is no longer forced. */
void cli_interrupt_done(void);

#endif
