/* SIGINT/SIGTERM between units of work (see cli_interrupt.h). */
#define _POSIX_C_SOURCE 200809L

#include "cli_interrupt.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* set by the first signal: stop at the next boundary. Atomic, not only
   sig_atomic_t: `impetus batch` reads it on several threads while the
   handler runs on any of them (C11 7.14.1.1 allows lock-free atomics in a
   handler) */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the signal flags need lock-free atomic ints");
static atomic_int interrupted = 0;
/* set once the command stops by itself */
static atomic_int done = 0;
/* the file to remove on a forced exit; guarded by have_guard so the handler
   never reads it half-copied */
static char guard[4096];
static volatile sig_atomic_t have_guard = 0;
/* the forced exit's message */
static char message[256];
static volatile sig_atomic_t message_len = 0;

/* Remove the file in progress and exit 130 (async-signal-safe calls only). */
static void exit_now(void) {
  if (have_guard) unlink(guard);
  ssize_t w = write(STDERR_FILENO, message, (size_t)message_len);
  (void)w;
  _exit(130);
}

/* SIGINT/SIGTERM/SIGHUP: ask the command to stop; a second signal means now. */
static void on_signal(int sig) {
  (void)sig;
  if (interrupted && !done) exit_now();
  interrupted = 1;
  alarm(CLI_INTERRUPT_GRACE);
}

/* SIGALRM after a signal: the work in progress did not end in time. */
static void on_alarm(int sig) {
  (void)sig;
  if (interrupted && !done) exit_now();
}

/* The signals that stop a command, and the grace alarm. */
static void stop_signals(sigset_t* set) {
  sigemptyset(set);
  sigaddset(set, SIGINT);
  sigaddset(set, SIGTERM);
  sigaddset(set, SIGHUP);
  sigaddset(set, SIGALRM);
}

void cli_interrupt_install(const char* what, const char* forced) {
  int n = snprintf(message, sizeof message, "%s: interrupted in the middle of %s\n", what, forced);
  message_len = n < 0 ? 0 : n >= (int)sizeof message ? (int)sizeof message - 1 : n;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  /* one handler at a time: the alarm cannot interrupt the signal handler */
  stop_signals(&sa.sa_mask);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  /* a terminal that goes away stops the command as cleanly as Ctrl-C */
  sigaction(SIGHUP, &sa, NULL);
  sa.sa_handler = on_alarm;
  sigaction(SIGALRM, &sa, NULL);
}

int cli_interrupted(void) { return interrupted != 0; }

void cli_interrupt_guard(const char* path) {
  have_guard = 0;
  if (!path) return;
  snprintf(guard, sizeof guard, "%s", path);
  have_guard = 1;
}

void cli_interrupt_hold(sigset_t* old) {
  sigset_t block;
  stop_signals(&block);
  sigprocmask(SIG_BLOCK, &block, old);
}

void cli_interrupt_release(const sigset_t* old) { sigprocmask(SIG_SETMASK, old, NULL); }

void cli_interrupt_done(void) {
  done = 1;
  alarm(0);
}
