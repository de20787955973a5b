/* The sensors (engine/sensor/sensor.c): every sensor of the model into
   d->sensordata, after the stages it reads. */
#ifndef IMPETUS_SENSOR_H
#define IMPETUS_SENSOR_H

#include "core/core.h"

/* ---- sensor.c ---- */

/* State of the sensor noise generator after imp_reset_data. */
#define IMP_SENSOR_RNG_SEED 0x1234567887654321ULL
/* Every sensor into d->sensordata (promises and definitions in sensor.c).
   Needs a whole forward of the current state, up to the contact stage. */
void imp_sensor(const imp_model* m, imp_data* d);
/* imp_sensor in the two phases of imp_step1 and imp_step2: the sensors of
   positions and velocities a controller reads (all but the limit sensors,
   which read constraint rows; needs the position and velocity stages and
   the transmission), then the rest (needs the contact stage). The noise is
   drawn in that order. */
void imp_sensor_pos_vel(const imp_model* m, imp_data* d);
void imp_sensor_acc(const imp_model* m, imp_data* d);
/* cacc, cfrc_ext and cfrc_int from this forward's qacc and impulses (RNE
   after the constraints, Featherstone's recursion with the step's
   accelerations); imp_sensor calls it when a sensor needs it. */
void imp_rne_post_constraint(const imp_model* m, imp_data* d);
/* subtree_linvel and subtree_angmom from cvel (imp_sensor calls it when a
   sensor needs it). */
void imp_subtree_vel(const imp_model* m, imp_data* d);
#endif
