/* Files written whole and then renamed into place ("complete or absent"),
   without trusting what already lies beside the target.
   Promises: imp_tmpfile_create makes a NEW file "<path>.XXXXXX.tmp" (six
   random letters or digits) in path's directory, so the final rename stays
   in one file system. It never opens a file it did not create and never
   follows a symbolic link (O_CREAT | O_EXCL | O_NOFOLLOW): a link or file
   planted at any name is left alone and another name is tried. The mode is
   0666 less the umask, like any new file. Two writers of one path get two
   temporary files. imp_tmpfile_commit renames the temporary file over path,
   refusing when path is a directory; a symbolic link at path is replaced
   itself (rename(2)), its target untouched. Thread-safe (no state). */
#ifndef IMPETUS_TMPFILE_H
#define IMPETUS_TMPFILE_H

/* A new temporary file for path: a descriptor open for writing, its name
   in *tmp (malloc'ed, the caller frees it); -1 with errno set (*tmp NULL). */
int imp_tmpfile_create(const char* path, char** tmp);

/* 0 when a finished file could be renamed to path (nothing there, or a
   file or link); -1 with errno EISDIR when path is a directory. */
int imp_tmpfile_target_ok(const char* path);

/* Rename tmp over path (see imp_tmpfile_target_ok); 0, or -1 with errno. */
int imp_tmpfile_commit(const char* tmp, const char* path);

/* Hold an exclusive lock on path's directory (flock) while several renames
   must land together, e.g. a recording and its sidecar: other writers of
   the same directory through this function wait. The lock's descriptor,
   or -1 when none could be had (the caller goes on without it). */
int imp_tmpfile_lock_dir(const char* path);
/* Release a lock of imp_tmpfile_lock_dir (-1: nothing to release). */
void imp_tmpfile_unlock_dir(int fd);

#endif
