/* Model lifetime and name lookup. A model is its struct, the one buffer all
   arrays live in, and the loader's warnings text. */
#include <stdlib.h>
#include <string.h>

#include "impetus.h"

void imp_free_model(imp_model* m) {
  if (!m) return;
  free(m->buffer);
  free(m->warnings);
  free(m);
}

/* the name offsets and count of one object type, NULL when unknown */
static const int* name_table(const imp_model* m, imp_obj_type type, int* n) {
  switch (type) {
    case IMP_OBJ_BODY:
    case IMP_OBJ_XBODY: *n = m->nbody; return m->name_bodyadr;
    case IMP_OBJ_JOINT: *n = m->njnt; return m->name_jntadr;
    case IMP_OBJ_GEOM: *n = m->ngeom; return m->name_geomadr;
    case IMP_OBJ_SITE: *n = m->nsite; return m->name_siteadr;
    case IMP_OBJ_CAMERA: *n = m->ncam; return m->name_camadr;
    case IMP_OBJ_LIGHT: *n = m->nlight; return m->name_lightadr;
    case IMP_OBJ_ACTUATOR: *n = m->nu; return m->name_actuatoradr;
    case IMP_OBJ_KEY: *n = m->nkey; return m->name_keyadr;
    case IMP_OBJ_MATERIAL: *n = m->nmat; return m->name_matadr;
    case IMP_OBJ_TEXTURE: *n = m->ntex; return m->name_texadr;
    case IMP_OBJ_MESH: *n = m->nmesh; return m->name_meshadr;
    case IMP_OBJ_PAIR: *n = m->npair; return m->name_pairadr;
    case IMP_OBJ_EQUALITY: *n = m->neq; return m->name_eqadr;
    case IMP_OBJ_SENSOR: *n = m->nsensor; return m->name_sensoradr;
    case IMP_OBJ_TENDON: *n = m->ntendon; return m->name_tendonadr;
    case IMP_OBJ_HFIELD: *n = m->nhfield; return m->name_hfieldadr;
    default: *n = 0; return NULL;
  }
}

int imp_name2id(const imp_model* m, imp_obj_type type, const char* name) {
  int n;
  const int* adr = m && name && name[0] ? name_table(m, type, &n) : NULL;
  if (!adr) return -1;
  for (int i = 0; i < n; i++)
    if (!strcmp(m->names + adr[i], name)) return i;
  return -1;
}

const char* imp_id2name(const imp_model* m, imp_obj_type type, int id) {
  int n;
  const int* adr = m ? name_table(m, type, &n) : NULL;
  if (!adr || id < 0 || id >= n) return NULL;
  return m->names + adr[id];
}
