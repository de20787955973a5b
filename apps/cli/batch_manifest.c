/* The manifest of `impetus batch` (batch.h): rows written as CSV lines,
   read back for --resume, rewritten whole at the end of a run. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch.h"
#include "engine.h" /* imp_format_error */

#define MANIFEST_COLUMNS \
  "rollout,seed,file,init_hash,status,nan_resets,steps,steps_not_converged,wall_seconds"
#define MANIFEST_MAX_LINE 4096

static const char* const status_names[] = {"not_run", "ok", "nonfinite", "interrupted",
                                           "write_error"};

const char* batch_status_name(int status) {
  return status >= 0 && status <= BATCH_WRITE_ERROR ? status_names[status] : "unknown";
}

/* the status called name, or -1 */
static int status_by_name(const char* name) {
  for (int s = 0; s <= BATCH_WRITE_ERROR; s++)
    if (strcmp(name, status_names[s]) == 0) return s;
  return -1;
}

int batch_row_done(const batch_row* r) {
  return r->status == BATCH_OK || r->status == BATCH_NONFINITE;
}

void batch_file_name(int rollout, char* buf, int n) {
  snprintf(buf, (size_t)n, "rollout_%06d.npy", rollout);
}

/* the row as one line, newline included */
static void format_row(const batch_row* r, uint64_t seed, char* line, int n) {
  char file[64], hash[24] = "";
  batch_file_name(r->rollout, file, sizeof file);
  if (r->has_hash) snprintf(hash, sizeof hash, "%016" PRIx64, r->init_hash);
  snprintf(line, (size_t)n, "%d,%" PRIu64 ",%s,%s,%s,%d,%" PRId64 ",%" PRId64 ",%.6f\n",
           (int)r->rollout, seed, file, hash, batch_status_name(r->status), (int)r->nan_resets,
           r->steps, r->not_converged, r->wall_seconds);
}

int batch_manifest_append(FILE* f, const batch_row* r, uint64_t seed) {
  char line[512];
  format_row(r, seed, line, sizeof line);
  /* one write of the whole line, pushed out at once: a kill leaves whole
     lines, or a last line without its newline */
  if (fputs(line, f) == EOF || fflush(f) != 0) return -1;
  return 0;
}

/* Parse one data line into r; 0, or -1 when it is not a row. */
static int parse_row(char* line, int nroll, batch_row* r) {
  char* field[9];
  int n = 0;
  field[n++] = line;
  for (char* p = line; *p; p++) {
    if (*p != ',') continue;
    if (n == 9) return -1; /* too many fields */
    *p = '\0';
    field[n++] = p + 1;
  }
  if (n != 9) return -1;
  char* end;
  long id = strtol(field[0], &end, 10);
  if (*end || id < 0 || id >= nroll) return -1;
  int status = status_by_name(field[4]);
  if (status < 0) return -1;
  batch_row row = {0};
  row.rollout = (int32_t)id;
  row.status = status;
  row.has_hash = field[3][0] != '\0';
  row.init_hash = row.has_hash ? strtoull(field[3], NULL, 16) : 0;
  row.nan_resets = (int32_t)strtol(field[5], NULL, 10);
  row.steps = strtoll(field[6], NULL, 10);
  row.not_converged = strtoll(field[7], NULL, 10);
  row.wall_seconds = strtod(field[8], NULL);
  *r = row;
  return 0;
}

int batch_manifest_read(const char* path, const char* settings, int nroll, batch_row* rows,
                        char* err, int errsz) {
  FILE* f = fopen(path, "r");
  if (!f) {
    if (errno == ENOENT) return 1;
    imp_format_error(err, errsz, "%s: %s", path, strerror(errno));
    return -1;
  }
  char* line = malloc(MANIFEST_MAX_LINE);
  int lineno = 0, rc = 0;
  while (rc == 0 && line && fgets(line, MANIFEST_MAX_LINE, f)) {
    lineno++;
    size_t len = strlen(line);
    /* a line without its newline was cut by a kill: dropped */
    if (len == 0 || line[len - 1] != '\n') break;
    line[len - 1] = '\0';
    if (lineno == 1 && strcmp(line, BATCH_MANIFEST_MAGIC) != 0) {
      imp_format_error(err, errsz, "%s:1: not a manifest of impetus batch", path);
      rc = -1;
    } else if (lineno == 2 && strcmp(line, settings) != 0) {
      imp_format_error(err, errsz,
                       "%s:2: written by another batch; it says\n  %s\nthis run is\n  %s", path,
                       line, settings);
      rc = -1;
    } else if (lineno >= 3 && strcmp(line, MANIFEST_COLUMNS) != 0) {
      batch_row r;
      if (parse_row(line, nroll, &r) != 0) {
        imp_format_error(err, errsz, "%s:%d: not a row of this manifest", path, lineno);
        rc = -1;
      } else {
        rows[r.rollout] = r;
      }
    }
  }
  if (!line) {
    imp_format_error(err, errsz, "out of memory");
    rc = -1;
  } else if (rc == 0 && lineno < 2) {
    imp_format_error(err, errsz, "%s: not a manifest of impetus batch (too short)", path);
    rc = -1;
  }
  free(line);
  fclose(f);
  return rc;
}

int batch_manifest_write(const char* path, const char* settings, int nroll, const batch_row* rows,
                         uint64_t seed, char* err, int errsz) {
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
  int fd = mkstemp(tmp);
  FILE* f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f) {
    imp_format_error(err, errsz, "%s: cannot write: %s", path, strerror(errno));
    if (fd >= 0) {
      close(fd);
      unlink(tmp);
    }
    return -1;
  }
  int bad = fprintf(f, "%s\n%s\n%s\n", BATCH_MANIFEST_MAGIC, settings, MANIFEST_COLUMNS) < 0;
  for (int i = 0; i < nroll && !bad; i++) {
    char line[512];
    format_row(&rows[i], seed, line, sizeof line);
    bad = fputs(line, f) == EOF;
  }
  /* mkstemp makes the file 0600; a manifest is as readable as the NPYs */
  mode_t mask = umask(0);
  umask(mask);
  bad |= fchmod(fileno(f), 0666 & ~mask) != 0;
  bad |= fclose(f) != 0;
  if (bad || rename(tmp, path) != 0) {
    imp_format_error(err, errsz, "%s: cannot write: %s", path, strerror(errno));
    unlink(tmp);
    return -1;
  }
  return 0;
}
