/* Internal interface of the engine: every stage's header, and the data's
   lifecycle (engine/data.c). Not installed; apps and tests may use it.
   Every stage has the form void imp_<stage>(const imp_model*, imp_data*)
   and reads only what earlier stages of the same step wrote. The stages'
   own headers say what each promises:
     core/core.h             the arena, errors, the clock
     smooth/smooth.h         kinematics, inertia, dynamics, tendons, actuators
     collision/collision.h   contacts from geometry (and rays)
     constraint/constraint.h constraint rows; constraint/contact.h the contact stage
     sensor/sensor.h, integrate/integrate.h */
#ifndef IMPETUS_ENGINE_H
#define IMPETUS_ENGINE_H

#include <stddef.h>

#include "impetus.h"
#include "core/core.h"
#include "smooth/smooth.h"
#include "constraint/constraint.h"
#include "sensor/sensor.h"
#include "integrate/integrate.h"

/* ---- the data's lifecycle (data.c) ---- */

/* Bytes of arena a step of model m needs with contact solver `solver`. */
size_t imp_arena_bytes(const imp_model* m, int solver);
/* Make d->solver = solver with its scratch reserved: the arena and, with
   threads, the workers' scratch grown to the solver's need. 0, or -1 when
   the memory cannot be had (d keeps its solver). */
int imp_contact_fit_solver(const imp_model* m, imp_data* d, int solver);

#endif
