/* Unique temporary files beside their target (see tmpfile.h).
 *
 * Why not mkstemp: it creates the file with mode 0600, and giving it the
 * umask's mode would need umask(2), which sets the process-wide mask (not
 * thread-safe). open(2) with O_CREAT | O_EXCL applies the umask itself and
 * fails with EEXIST on any existing name, a symbolic link included (POSIX,
 * open: "If O_CREAT and O_EXCL are set ... and path names a symbolic link,
 * open() shall fail"); O_NOFOLLOW says the same where O_EXCL alone might
 * not be honoured. The names are random (/dev/urandom), so a planted name
 * costs another try, not the recording. */
#define _DEFAULT_SOURCE /* flock */

#include "io/tmpfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef O_NOFOLLOW
#define O_NOFOLLOW 0
#endif
#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

/* names tried before giving up (each collision is a file someone made) */
#define TMPFILE_TRIES 100
/* letters of the random part */
#define TMPFILE_RANDOM 6

/* splitmix64's finalizer: spreads a counter into well-mixed bits */
static uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* 64 random bits: /dev/urandom, else the clock, the process and a stack
   address mixed (unpredictable enough that a collision is only a retry) */
static uint64_t random64(uint64_t salt) {
  uint64_t r = 0;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    ssize_t n = read(fd, &r, sizeof r);
    close(fd);
    if (n == (ssize_t)sizeof r) return r ^ salt;
  }
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return mix64((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 16) ^
               (uint64_t)(uintptr_t)&r ^ mix64(salt));
}

int imp_tmpfile_create(const char* path, char** tmp) {
  static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  *tmp = NULL;
  if (!path || !path[0]) {
    errno = EINVAL;
    return -1;
  }
  size_t n = strlen(path);
  char* name = malloc(n + 1 + TMPFILE_RANDOM + sizeof ".tmp");
  if (!name) {
    errno = ENOMEM;
    return -1;
  }
  memcpy(name, path, n);
  name[n] = '.';
  memcpy(name + n + 1 + TMPFILE_RANDOM, ".tmp", sizeof ".tmp");
  for (int t = 0; t < TMPFILE_TRIES; t++) {
    uint64_t r = random64((uint64_t)t);
    for (int k = 0; k < TMPFILE_RANDOM; k++, r /= 62) name[n + 1 + k] = letters[r % 62];
    int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) {
      *tmp = name;
      return fd;
    }
    if (errno != EEXIST && errno != ELOOP) break; /* no such directory, no permission ... */
  }
  int e = errno;
  free(name);
  errno = e;
  return -1;
}

int imp_tmpfile_target_ok(const char* path) {
  struct stat st;
  if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    errno = EISDIR;
    return -1;
  }
  return 0;
}

int imp_tmpfile_commit(const char* tmp, const char* path) {
  if (imp_tmpfile_target_ok(path) != 0) return -1;
  return rename(tmp, path);
}

int imp_tmpfile_lock_dir(const char* path) {
  const char* slash = strrchr(path, '/');
  char* dir;
  if (!slash) {
    dir = strdup(".");
  } else {
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    dir = malloc(n + 1);
    if (dir) memcpy(dir, path, n), dir[n] = '\0';
  }
  if (!dir) return -1;
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  free(dir);
  if (fd < 0) return -1;
  int rc;
  while ((rc = flock(fd, LOCK_EX)) != 0 && errno == EINTR) {
  }
  if (rc != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

void imp_tmpfile_unlock_dir(int fd) {
  if (fd < 0) return;
  flock(fd, LOCK_UN);
  close(fd);
}
