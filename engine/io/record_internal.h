/* Shared by the recorder's files (record.c, record_describe.c); not API. */
#ifndef IMPETUS_RECORD_INTERNAL_H
#define IMPETUS_RECORD_INTERNAL_H

#include <stddef.h>

#include "record.h"

/* Column c of a recording of m (nstat solver columns at the end), in
   words, into buf (n bytes; n 0: only measured); returns its length. */
size_t imp_record_describe(const imp_model* m, int nstat, int c, char* buf, size_t n);

#endif
