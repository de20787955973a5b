/* Errors (API misuse, internal bugs) and run-time warnings, with user hooks. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine.h"

static void (*error_handler)(const char*) = NULL;
static void (*warning_handler)(const char*) = NULL;

void imp_set_error_handler(void (*handler)(const char* msg)) { error_handler = handler; }

void imp_set_warning_handler(void (*handler)(const char* msg)) { warning_handler = handler; }

void imp_error(const char* fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (error_handler) error_handler(msg);
  fprintf(stderr, "impetus error: %s\n", msg);
  abort();
}

void imp_warning(const char* fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (warning_handler) {
    warning_handler(msg);
  } else {
    fprintf(stderr, "impetus warning: %s\n", msg);
  }
}

void imp_format_error(char* err, int errsz, const char* fmt, ...) {
  if (!err || errsz <= 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, (size_t)errsz, fmt, ap);
  va_end(ap);
}
