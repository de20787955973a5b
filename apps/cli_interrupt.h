/* Stopping a long command cleanly on SIGINT (Ctrl-C), SIGTERM or SIGHUP
   (the terminal closed).

   The first signal sets a flag the command reads between units of work
   (steps, frames) and stops at the next boundary, leaving every file it
   wrote complete. Work that does not come back (a step that hangs, an
   image too big to encode) would never read it, so the signal also arms
   an alarm: if the command has not stopped GRACE seconds later, or a
   second signal comes first, the handler removes the file being written
   (cli_interrupt_guard) and exits 130, with async-signal-safe calls only.
   `impetus render` uses it; `impetus run` has the same scheme of its own
   (cmd_run.c), which also knows its recording's temporary file. */
#ifndef IMPETUS_APPS_CLI_INTERRUPT_H
#define IMPETUS_APPS_CLI_INTERRUPT_H

/* seconds the work in progress may take after a signal */
#define CLI_INTERRUPT_GRACE 2

/* Install the handlers; what names the command in the message of a forced
   exit ("impetus render"). */
void cli_interrupt_install(const char* what);

/* True once SIGINT, SIGTERM or SIGHUP came. */
int cli_interrupted(void);

/* The file being written now, removed if the process must exit before it
   is complete; NULL when none. The path is copied (at most 4095 bytes). */
void cli_interrupt_guard(const char* path);

/* The command has stopped by itself: a late signal is no longer forced. */
void cli_interrupt_done(void);

#endif
