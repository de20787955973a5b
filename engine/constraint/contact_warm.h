/* Warm starts of the contact stage (contact_warm.c), internal to the stage
 * (contact.c). It promises: imp_warm_save keeps every block's impulses of
 * the step just solved, with what identifies the block in the next step,
 * and sorts them by key (no allocation: the data's warm_* arrays);
 * imp_warm_match writes block k's start into efc_impulse from the saved
 * block of the same key (for a contact, the nearest within IMP_WARM_MATCH
 * of its geoms' size, the first of equals), its friction turned into the
 * new frame. The same block is found whatever the order of the search. */
#ifndef IMPETUS_CONTACT_WARM_H
#define IMPETUS_CONTACT_WARM_H

#include "engine.h"

/* save the step's impulses of every block, keyed and sorted */
void imp_warm_save(const imp_model* m, imp_data* d);
/* block k's start impulses from the saved ones; 1 when matched, 3 when
   the saved block's island kept its contacts' targets at 0 (warm_retarget) */
int imp_warm_match(const imp_model* m, imp_data* d, int k);

#endif
