/* The small helpers every command of the command-line programs shares
   (impetus and impetus-compare): option matching, number parsing, model
   loading, the clock. Declared in cmd.h. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"

/* The command named in usage errors, set once by main before it dispatches
   (NULL: the program itself). */
static const char* usage_command = NULL;

void cli_set_command(const char* name) { usage_command = name; }

int cli_usage_error(const char* fmt, ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (usage_command)
    fprintf(stderr, "impetus %s: %s (see `impetus help %s`)\n", usage_command, msg,
            usage_command);
  else
    fprintf(stderr, "impetus: %s (see `impetus help`)\n", msg);
  return CLI_EXIT_USAGE;
}

int cli_is_help(const char* arg) {
  return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

int cli_option(int argc, char** argv, int* i, const char* name, const char** value) {
  const char* a = argv[*i];
  if (strncmp(a, "--", 2) != 0) return 0;
  size_t n = strlen(name);
  if (strncmp(a + 2, name, n) != 0) return 0;
  if (a[2 + n] == '=') {
    *value = a + 3 + n;
    return 1;
  }
  if (a[2 + n] != '\0') return 0;
  if (*i + 1 >= argc) {
    cli_usage_error("option --%s needs a value", name);
    return -1;
  }
  *i += 1;
  *value = argv[*i];
  return 1;
}

int cli_parse_ll(const char* opt, const char* s, long long min, long long* out) {
  char* end = NULL;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (!*s || *end || errno == ERANGE) {
    cli_usage_error("--%s: not an integer: '%s'", opt, s);
    return -1;
  }
  if (v < min) {
    cli_usage_error("--%s must be at least %lld, got %lld", opt, min, v);
    return -1;
  }
  *out = v;
  return 0;
}

int cli_parse_threads(const char* cmd, const char* s, long long* out) {
  if (cli_parse_ll("threads", s, 1, out)) return -1;
  if (*out > 64) {
    (void)cmd;
    cli_usage_error("--threads must be at most 64, got %lld", *out);
    return -1;
  }
  return 0;
}

int cli_parse_double(const char* opt, const char* s, int positive, double* out) {
  char* end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (!*s || *end) {
    cli_usage_error("--%s: not a number: '%s'", opt, s);
    return -1;
  }
  if (!isfinite(v) || (errno == ERANGE && fabs(v) > 1)) {
    cli_usage_error("--%s: not a finite number: '%s'", opt, s);
    return -1;
  }
  /* strtod says ERANGE when the value underflows: 0 or a denormal */
  if (errno == ERANGE || (v != 0 && fabs(v) < DBL_MIN)) {
    cli_usage_error("--%s: '%s' is too small (below %g, the smallest normal double)", opt, s,
                    DBL_MIN);
    return -1;
  }
  if (positive ? !(v > 0) : !(v >= 0)) {
    cli_usage_error("--%s must be %s, got %g", opt, positive ? "> 0" : ">= 0", v);
    return -1;
  }
  *out = v;
  return 0;
}

int cli_take_load_options(int* argc, char** argv) {
  int options = 0, n = 0;
  for (int i = 0; i < *argc; i++) {
    if (i > 0 && !strcmp(argv[i], "--allow-unsupported")) {
      options |= IMP_LOAD_ALLOW_UNSUPPORTED;
      continue;
    }
    argv[n++] = argv[i];
  }
  *argc = n;
  return options;
}

const char* cli_prefix(void) {
  static char prefix[64];
  snprintf(prefix, sizeof prefix, "impetus%s%.40s", usage_command ? " " : "",
           usage_command ? usage_command : "");
  return prefix;
}

int cli_take_flag(int* argc, char** argv, const char* flag) {
  int found = 0, n = 0;
  for (int i = 0; i < *argc; i++) {
    if (i > 0 && !strcmp(argv[i], flag)) {
      found = 1;
      continue;
    }
    argv[n++] = argv[i];
  }
  *argc = n;
  return found;
}

imp_model* cli_load(const char* path, int options) {
  /* the loader's "file:0: cannot open file" does not say why: a missing
     file gets the system's reason, with the path as the user typed it */
  if (access(path, R_OK) != 0) {
    fprintf(stderr, "%s: %s: %s\n", cli_prefix(), path, strerror(errno));
    return NULL;
  }
  char err[2048] = "";
  imp_model* m = imp_load_xml_opt(path, options, err, sizeof err);
  if (!m) {
    fprintf(stderr, "%s\n", err[0] ? err : "impetus: the model did not load");
    return NULL;
  }
  if (m->warnings && m->warnings[0]) {
    size_t n = strlen(m->warnings);
    fputs(m->warnings, stderr);
    if (m->warnings[n - 1] != '\n') fputc('\n', stderr);
  }
  return m;
}

int cli_find_key(const imp_model* m, const char* path, const char* name) {
  int k = imp_name2id(m, IMP_OBJ_KEY, name);
  if (k >= 0) return k;
  if (name[0] == '#' && name[1]) {
    char* end = NULL;
    errno = 0;
    long i = strtol(name + 1, &end, 10);
    if (!*end && errno == 0 && i >= 0 && i < m->nkey) return (int)i;
  }
  fprintf(stderr, "%s: %s: no keyframe named '%s'; ", cli_prefix(), path, name);
  if (m->nkey == 0) {
    fprintf(stderr, "the model has no keyframes\n");
    return -1;
  }
  fprintf(stderr, "the model has %d:", m->nkey);
  for (int i = 0; i < m->nkey; i++) {
    const char* key = imp_id2name(m, IMP_OBJ_KEY, i);
    if (key && key[0])
      fprintf(stderr, "%s %s", i ? "," : "", key);
    else
      fprintf(stderr, "%s #%d", i ? "," : "", i);
  }
  fputc('\n', stderr);
  return -1;
}

const char* cli_model_name(const imp_model* m) {
  return m->names && m->nnames > 0 ? m->names : "";
}

double cli_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
