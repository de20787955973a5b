/* impetus._impetus: the C extension under the Python package.
 *
 * Promises: a Model owns one imp_model (freed when the last reference
 * goes); a Data owns one imp_data and holds a reference to its Model, so the
 * model outlives every data made from it. The arrays it hands out (qpos,
 * xpos ...) are numpy views on the data's own memory, which never moves
 * (imp_make_data's single buffer), each holding a reference to its Data:
 * a view keeps the data alive, and writing through it writes the C state.
 * A view is made at each attribute access (none cached: a cache would make
 * a cycle, Data -> view -> Data, and free the data only at a collection).
 * Views of the state (qpos, qvel, ctrl, act, mocap, applied forces) are
 * writable, those of computed quantities read-only. step(n), rollout and
 * the like loop in C with the GIL released; a Data in use by one thread
 * refuses a second (Error) instead of racing. Nothing here calls the
 * library in a way imp_error would abort on: ranges are checked first.
 *
 * Why a C extension and not ctypes: per-step overhead for RL loops
 * (apps/bench/bench_python_step.py measures both). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <impetus/impetus.h>

/* impetus.Error, set by the Python package at import (a subclass of
   ValueError); until then ValueError. */
static PyObject* imp_py_error = NULL;

static PyObject* error_type(void) { return imp_py_error ? imp_py_error : PyExc_ValueError; }

/* ---------------------------------------------------------------- Model */

typedef struct {
  PyObject_HEAD imp_model* m;
} ModelObject;

static PyTypeObject ModelType;

static void model_dealloc(ModelObject* self) {
  imp_free_model(self->m);
  Py_TYPE(self)->tp_free((PyObject*)self);
}

static PyObject* model_wrap(PyTypeObject* type, imp_model* m) {
  ModelObject* self = (ModelObject*)type->tp_alloc(type, 0);
  if (!self) {
    imp_free_model(m);
    return NULL;
  }
  self->m = m;
  return (PyObject*)self;
}

/* Model._load(path_or_xml, is_string, dir, allow_unsupported): the loaders'
   "file:line: message" becomes the Error's message. */
static PyObject* model_load(PyObject* cls, PyObject* args) {
  const char* src;
  int is_string, allow;
  const char* dir = NULL;
  const char* name = NULL;
  if (!PyArg_ParseTuple(args, "spzzp", &src, &is_string, &dir, &name, &allow)) return NULL;
  char err[4096] = "";
  int opts = allow ? IMP_LOAD_ALLOW_UNSUPPORTED : 0;
  imp_model* m;
  Py_BEGIN_ALLOW_THREADS
  if (is_string)
    m = imp_load_xml_string_opt(src, dir, name ? name : "<string>", opts, err, sizeof err);
  else
    m = imp_load_xml_opt(src, opts, err, sizeof err);
  Py_END_ALLOW_THREADS
  if (!m) {
    size_t n = strlen(err);
    while (n > 0 && err[n - 1] == '\n') err[--n] = '\0';
    PyErr_SetString(error_type(), err[0] ? err : "the model could not be loaded");
    return NULL;
  }
  return model_wrap((PyTypeObject*)cls, m);
}

static int parse_objtype(PyObject* obj, int* type);

static PyObject* model_name2id(ModelObject* self, PyObject* args) {
  PyObject* t;
  const char* name;
  int type;
  if (!PyArg_ParseTuple(args, "Os", &t, &name) || parse_objtype(t, &type) < 0) return NULL;
  return PyLong_FromLong(imp_name2id(self->m, (imp_obj_type)type, name));
}

static PyObject* model_id2name(ModelObject* self, PyObject* args) {
  PyObject* t;
  int id, type;
  if (!PyArg_ParseTuple(args, "Oi", &t, &id) || parse_objtype(t, &type) < 0) return NULL;
  const char* name = imp_id2name(self->m, (imp_obj_type)type, id);
  if (!name) {
    PyErr_Format(PyExc_IndexError, "id %d out of range for object type %d", id, type);
    return NULL;
  }
  return PyUnicode_FromString(name);
}

static PyObject* model_get_warnings(ModelObject* self, void* closure) {
  (void)closure;
  return PyUnicode_FromString(self->m->warnings ? self->m->warnings : "");
}

static PyObject* model_get_timestep(ModelObject* self, void* closure) {
  (void)closure;
  return PyFloat_FromDouble(self->m->opt.timestep);
}

static PyObject* model_get_solver(ModelObject* self, void* closure) {
  (void)closure;
  const char* s = imp_solver_name(self->m->opt.solver);
  return PyUnicode_FromString(s ? s : "");
}

#define IMP_MODEL_SIZES(X)                                                                 \
  X(nq) X(nv) X(nu) X(na) X(nbody) X(njnt) X(ngeom) X(nsite) X(ncam) X(nlight) X(nkey)    \
  X(nmocap) X(nmesh) X(npair) X(neq) X(nsensor) X(nsensordata) X(ntendon) X(nconmax) \
  X(njmax)

/* the sizes are read through the pointer: getters, not members */
#define IMP_SIZE_GETTER(n)                                             \
  static PyObject* model_get_##n(ModelObject* self, void* closure) {   \
    (void)closure;                                                     \
    return PyLong_FromLong(self->m->n);                                \
  }
IMP_MODEL_SIZES(IMP_SIZE_GETTER)
#undef IMP_SIZE_GETTER

static PyGetSetDef model_getset[] = {
#define IMP_SIZE_GETSET(n) {#n, (getter)model_get_##n, NULL, "size " #n, NULL},
    IMP_MODEL_SIZES(IMP_SIZE_GETSET)
#undef IMP_SIZE_GETSET
    {"timestep", (getter)model_get_timestep, NULL, "opt.timestep, seconds", NULL},
    {"solver", (getter)model_get_solver, NULL, "the contact solver the model's option names", NULL},
    {"warnings", (getter)model_get_warnings, NULL, "the loader's warnings, one 'file:line: message' a line", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMethodDef model_methods[] = {
    {"_load", (PyCFunction)model_load, METH_VARARGS | METH_CLASS,
     "_load(src, is_string, dir, name, allow_unsupported)"},
    {"_name2id", (PyCFunction)model_name2id, METH_VARARGS, "_name2id(type, name) -> id or -1"},
    {"_id2name", (PyCFunction)model_id2name, METH_VARARGS, "_id2name(type, id) -> name"},
    {NULL, NULL, 0, NULL}};

static PyTypeObject ModelType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "impetus._impetus.Model",
    .tp_basicsize = sizeof(ModelObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "An immutable model loaded from MJCF (Model.from_xml).",
    .tp_dealloc = (destructor)model_dealloc,
    .tp_methods = model_methods,
    .tp_getset = model_getset,
};

/* object types by name, in imp_obj_type order */
static const char* const objtype_names[] = {
    "body", "joint", "geom", "site", "camera", "light", "actuator", "key", "material",
    "texture", "mesh", "pair", "equality", "sensor", "xbody", "tendon", "hfield"};
enum { NOBJTYPE = (int)(sizeof objtype_names / sizeof objtype_names[0]) };

static int parse_objtype(PyObject* obj, int* type) {
  if (PyLong_Check(obj)) {
    long t = PyLong_AsLong(obj);
    if (t >= 0 && t < NOBJTYPE) {
      *type = (int)t;
      return 0;
    }
  } else if (PyUnicode_Check(obj)) {
    const char* s = PyUnicode_AsUTF8(obj);
    if (!s) return -1;
    for (int i = 0; i < NOBJTYPE; i++)
      if (strcmp(s, objtype_names[i]) == 0) {
        *type = i;
        return 0;
      }
  }
  PyErr_Format(PyExc_ValueError, "unknown object type %R (one of: body joint geom site camera light "
               "actuator key material texture mesh pair equality sensor xbody tendon hfield)", obj);
  return -1;
}

/* ----------------------------------------------------------------- Data */

/* The arrays a Data shows: field, rows (a model size), columns, writable. */
typedef enum { ROWS_NQ, ROWS_NV, ROWS_NU, ROWS_NA, ROWS_NBODY, ROWS_NGEOM, ROWS_NSITE,
               ROWS_NMOCAP, ROWS_NSENSORDATA, ROWS_NJNT, ROWS_NTENDON, ROWS_NCON } rows_kind;

typedef struct {
  const char* name;
  size_t offset; /* of the double* in imp_data */
  rows_kind rows;
  int cols;      /* 0: a vector */
  int writable;  /* state the user sets */
  const char* doc;
} field_def;

#define F(name, rows, cols, w, doc) {#name, offsetof(imp_data, name), rows, cols, w, doc}
static const field_def fields[] = {
    F(qpos, ROWS_NQ, 0, 1, "nq: generalized positions (state)"),
    F(qvel, ROWS_NV, 0, 1, "nv: generalized velocities (state)"),
    F(ctrl, ROWS_NU, 0, 1, "nu: controls (input)"),
    F(act, ROWS_NA, 0, 1, "na: actuator activations (state)"),
    F(qfrc_applied, ROWS_NV, 0, 1, "nv: user-applied generalized force (input)"),
    F(xfrc_applied, ROWS_NBODY, 6, 1, "nbody x 6: user-applied force, torque at the com (input)"),
    F(mocap_pos, ROWS_NMOCAP, 3, 1, "nmocap x 3: mocap bodies' world positions (input)"),
    F(mocap_quat, ROWS_NMOCAP, 4, 1, "nmocap x 4: mocap bodies' orientations, w x y z (input)"),
    F(qacc, ROWS_NV, 0, 0, "nv: acceleration of the last forward"),
    F(xpos, ROWS_NBODY, 3, 0, "nbody x 3: body frame positions"),
    F(xquat, ROWS_NBODY, 4, 0, "nbody x 4: body frame orientations, w x y z"),
    F(xmat, ROWS_NBODY, 9, 0, "nbody x 9: body frame rotation matrices, row-major"),
    F(xipos, ROWS_NBODY, 3, 0, "nbody x 3: body centres of mass"),
    F(geom_xpos, ROWS_NGEOM, 3, 0, "ngeom x 3: geom centres"),
    F(geom_xmat, ROWS_NGEOM, 9, 0, "ngeom x 9: geom orientations"),
    F(site_xpos, ROWS_NSITE, 3, 0, "nsite x 3: site positions"),
    F(site_xmat, ROWS_NSITE, 9, 0, "nsite x 9: site orientations"),
    F(sensordata, ROWS_NSENSORDATA, 0, 0, "nsensordata: sensor values (of the state the last step started from)"),
    F(actuator_force, ROWS_NU, 0, 0, "nu: actuator forces"),
    F(act_dot, ROWS_NA, 0, 0, "na: activation derivatives"),
    F(qfrc_actuator, ROWS_NV, 0, 0, "nv: actuator generalized force"),
    F(qfrc_passive, ROWS_NV, 0, 0, "nv: passive generalized force"),
    F(qfrc_bias, ROWS_NV, 0, 0, "nv: Coriolis, centrifugal, gravity"),
    F(qfrc_constraint, ROWS_NV, 0, 0, "nv: constraint generalized force"),
    F(ten_length, ROWS_NTENDON, 0, 0, "ntendon: tendon lengths"),
    F(subtree_com, ROWS_NBODY, 3, 0, "nbody x 3: subtree centres of mass"),
    F(cfrc_ext, ROWS_NBODY, 6, 0, "nbody x 6: external wrenches (com-based)"),
};
#undef F
enum { NFIELD = (int)(sizeof fields / sizeof fields[0]) };

typedef struct {
  PyObject_HEAD PyObject* model; /* the ModelObject: kept alive while this data is */
  imp_data* d;
  int busy;                      /* a call runs with the GIL released */
} DataObject;

static PyTypeObject DataType;

static const imp_model* data_model(DataObject* self) { return ((ModelObject*)self->model)->m; }

static npy_intp rows_of(const imp_model* m, const imp_data* d, rows_kind k) {
  switch (k) {
    case ROWS_NQ: return m->nq;
    case ROWS_NV: return m->nv;
    case ROWS_NU: return m->nu;
    case ROWS_NA: return m->na;
    case ROWS_NBODY: return m->nbody;
    case ROWS_NGEOM: return m->ngeom;
    case ROWS_NSITE: return m->nsite;
    case ROWS_NMOCAP: return m->nmocap;
    case ROWS_NSENSORDATA: return m->nsensordata;
    case ROWS_NJNT: return m->njnt;
    case ROWS_NTENDON: return m->ntendon;
    case ROWS_NCON: return d->ncon;
  }
  return 0;
}

/* Data(model): the imp_data is made here, in __new__, so that no Data
   exists without one (every getter may read self->d) */
static PyObject* data_new(PyTypeObject* type, PyObject* args, PyObject* kwds) {
  static char* kwlist[] = {"model", NULL};
  PyObject* model;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!", kwlist, &ModelType, &model)) return NULL;
  DataObject* self = (DataObject*)type->tp_alloc(type, 0);
  if (!self) return NULL;
  self->d = imp_make_data(((ModelObject*)model)->m);
  if (!self->d) {
    Py_DECREF(self);
    return PyErr_NoMemory();
  }
  Py_INCREF(model);
  self->model = model;
  return (PyObject*)self;
}

/* Runs when the last view is gone too (each holds a reference): the
   memory goes at once, not at a garbage collection (no view is cached
   here, so no cycle) */
static void data_dealloc(DataObject* self) {
  imp_free_data(self->d);
  self->d = NULL;
  Py_CLEAR(self->model);
  Py_TYPE(self)->tp_free((PyObject*)self);
}

/* A view on n x cols doubles at p (a vector when cols is 0) that keeps
   owner alive. */
static PyObject* make_view(PyObject* owner, double* p, npy_intp n, int cols, int writable) {
  npy_intp dims[2] = {n, cols};
  int flags = NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | (writable ? NPY_ARRAY_WRITEABLE : 0);
  PyObject* arr = PyArray_New(&PyArray_Type, cols ? 2 : 1, dims, NPY_DOUBLE, NULL, p, 0, flags,
                              NULL);
  if (!arr) return NULL;
  Py_INCREF(owner);
  if (PyArray_SetBaseObject((PyArrayObject*)arr, owner) < 0) {
    Py_DECREF(arr);
    return NULL;
  }
  return arr;
}

static int check_ready(DataObject* self) {
  if (self->busy) {
    PyErr_SetString(error_type(), "this Data is in use by another thread (step or rollout)");
    return -1;
  }
  return 0;
}

static PyObject* data_get_field(DataObject* self, void* closure) {
  int i = (int)(intptr_t)closure;
  const field_def* f = &fields[i];
  double* p = *(double**)(void*)((char*)self->d + f->offset);
  npy_intp n = rows_of(data_model(self), self->d, f->rows);
  return make_view((PyObject*)self, p, n, f->cols, f->writable);
}

/* assigning to a writable field copies into the C array (d.qpos = x) */
static int data_set_field(DataObject* self, PyObject* value, void* closure) {
  int i = (int)(intptr_t)closure;
  if (!value) {
    PyErr_Format(PyExc_AttributeError, "cannot delete %s", fields[i].name);
    return -1;
  }
  if (!fields[i].writable) {
    PyErr_Format(PyExc_AttributeError, "%s is computed by the step: read-only", fields[i].name);
    return -1;
  }
  PyObject* view = data_get_field(self, closure);
  if (!view) return -1;
  int r = PyArray_CopyObject((PyArrayObject*)view, value);
  Py_DECREF(view);
  return r;
}

static PyObject* data_get_time(DataObject* self, void* closure) {
  (void)closure;
  return PyFloat_FromDouble(self->d->time);
}

static int data_set_time(DataObject* self, PyObject* value, void* closure) {
  (void)closure;
  double t = value ? PyFloat_AsDouble(value) : -1.0;
  if (!value || (t == -1.0 && PyErr_Occurred())) {
    if (!value) PyErr_SetString(PyExc_AttributeError, "cannot delete time");
    return -1;
  }
  self->d->time = t;
  return 0;
}

static PyObject* data_get_model(DataObject* self, void* closure) {
  (void)closure;
  Py_INCREF(self->model);
  return self->model;
}

#define IMP_DATA_INT(name)                                            \
  static PyObject* data_get_##name(DataObject* self, void* closure) { \
    (void)closure;                                                    \
    return PyLong_FromLongLong((long long)self->d->name);             \
  }
IMP_DATA_INT(ncon)
IMP_DATA_INT(nefc)
IMP_DATA_INT(nstep)
IMP_DATA_INT(solver_iter)
IMP_DATA_INT(nwarning_solver)
IMP_DATA_INT(nwarning_nan)
#undef IMP_DATA_INT

static PyObject* data_get_solver_residual(DataObject* self, void* closure) {
  (void)closure;
  return PyFloat_FromDouble(self->d->solver_residual);
}

static PyObject* data_get_solver(DataObject* self, void* closure) {
  (void)closure;
  const char* s = imp_solver_name(self->d->solver);
  return PyUnicode_FromString(s ? s : "");
}

static int data_set_solver(DataObject* self, PyObject* value, void* closure) {
  (void)closure;
  if (check_ready(self) < 0) return -1;
  const char* name = value ? PyUnicode_AsUTF8(value) : NULL;
  if (!name) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_AttributeError, "cannot delete solver");
    return -1;
  }
  if (imp_set_solver(data_model(self), self->d, name) != 0) {
    PyObject* names = PyUnicode_FromString("");
    for (int i = 0; names && i < imp_solver_count(); i++) {
      PyObject* s = PyUnicode_FromFormat("%U%s%s", names, i ? ", " : "", imp_solver_name(i));
      Py_SETREF(names, s);
    }
    if (names)
      PyErr_Format(error_type(), "unknown contact solver '%s' (or no memory for it); solvers: %U",
                   name, names);
    Py_XDECREF(names);
    return -1;
  }
  return 0;
}

/* The contacts of the last forward: a structured numpy array copied from
   d->contact (ncon records; copied because ncon changes every step). */
static PyObject* contact_dtype = NULL; /* set by the package: impetus._contact_dtype */

static PyObject* data_get_contact(DataObject* self, void* closure) {
  (void)closure;
  if (!contact_dtype) {
    PyErr_SetString(PyExc_RuntimeError, "contact dtype not set");
    return NULL;
  }
  npy_intp n = self->d->ncon;
  Py_INCREF(contact_dtype);
  PyObject* arr = PyArray_NewFromDescr(&PyArray_Type, (PyArray_Descr*)contact_dtype, 1, &n, NULL,
                                       NULL, 0, NULL);
  if (!arr) return NULL;
  if (n) memcpy(PyArray_DATA((PyArrayObject*)arr), self->d->contact, (size_t)n * sizeof(imp_contact));
  return arr;
}

/* contact_force(): ncon x 6, the world force then torque (about the contact
   point) geom1 applied to geom2 over the last step (imp_contact_force_world) */
static PyObject* data_contact_force(DataObject* self, PyObject* noargs) {
  (void)noargs;
  npy_intp dims[2] = {self->d->ncon, 6};
  PyObject* arr = PyArray_SimpleNew(2, dims, NPY_DOUBLE);
  if (!arr) return NULL;
  double* out = PyArray_DATA((PyArrayObject*)arr);
  for (int i = 0; i < self->d->ncon; i++)
    imp_contact_force_world(data_model(self), self->d, i, out + 6 * i, out + 6 * i + 3);
  return arr;
}

/* contact_impulse(): ncon x 6, each contact's impulse in its frame (normal,
   t1, t2, torsional, rolling), zero-padded past its dimension */
static PyObject* data_contact_impulse(DataObject* self, PyObject* noargs) {
  (void)noargs;
  npy_intp dims[2] = {self->d->ncon, 6};
  PyObject* arr = PyArray_SimpleNew(2, dims, NPY_DOUBLE);
  if (!arr) return NULL;
  double* out = PyArray_DATA((PyArrayObject*)arr);
  for (int i = 0; i < self->d->ncon; i++)
    imp_contact_impulse(data_model(self), self->d, i, out + 6 * i);
  return arr;
}

/* step(n=1): n steps in C, the GIL released when n > 1 */
static PyObject* data_step(DataObject* self, PyObject* const* args, Py_ssize_t nargs) {
  if (check_ready(self) < 0) return NULL;
  const imp_model* m = data_model(self);
  if (nargs == 0) {
    imp_step(m, self->d);
    Py_RETURN_NONE;
  }
  long n = nargs == 1 ? PyLong_AsLong(args[0]) : -1;
  if (n < 0) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "step(n=1): n is a count >= 0");
    return NULL;
  }
  imp_data* d = self->d;
  self->busy = 1;
  Py_BEGIN_ALLOW_THREADS
  for (long i = 0; i < n; i++) imp_step(m, d);
  Py_END_ALLOW_THREADS
  self->busy = 0;
  Py_RETURN_NONE;
}

#define IMP_DATA_CALL(fn, call)                                    \
  static PyObject* data_##fn(DataObject* self, PyObject* noargs) { \
    (void)noargs;                                                  \
    if (check_ready(self) < 0) return NULL;                        \
    call(data_model(self), self->d);                               \
    Py_RETURN_NONE;                                                \
  }
IMP_DATA_CALL(forward, imp_forward)
IMP_DATA_CALL(step1, imp_step1)
IMP_DATA_CALL(step2, imp_step2)
#undef IMP_DATA_CALL

/* _reset(key): key -1 the model's reference configuration, else keyframe
   key (range checked by the package, again here: imp_error aborts) */
static PyObject* data_reset(DataObject* self, PyObject* arg) {
  if (check_ready(self) < 0) return NULL;
  long key = PyLong_AsLong(arg);
  if (key == -1 && PyErr_Occurred()) return NULL;
  const imp_model* m = data_model(self);
  if (key < -1 || key >= m->nkey) {
    PyErr_Format(PyExc_IndexError, "keyframe %ld out of range (the model has %d)", key, m->nkey);
    return NULL;
  }
  if (key < 0)
    imp_reset_data(m, self->d);
  else
    imp_reset_data_keyframe(m, self->d, (int)key);
  Py_RETURN_NONE;
}

static PyObject* data_set_threads(DataObject* self, PyObject* arg) {
  if (check_ready(self) < 0) return NULL;
  long n = PyLong_AsLong(arg);
  if (n == -1 && PyErr_Occurred()) return NULL;
  if (n < 1 || n > 64 || imp_set_threads(data_model(self), self->d, (int)n) != 0) {
    PyErr_Format(error_type(), "set_threads(%ld): n must be in [1, 64] and the threads available", n);
    return NULL;
  }
  Py_RETURN_NONE;
}

/* _jac(kind, id, point): (jacp, jacr), each 3 x nv, of the last forward.
   kind: 0 body origin, 1 body com, 2 geom, 3 site, 4 point on body */
static PyObject* data_jac(DataObject* self, PyObject* args) {
  int kind, id;
  double p[3] = {0, 0, 0};
  if (!PyArg_ParseTuple(args, "ii|(ddd)", &kind, &id, &p[0], &p[1], &p[2])) return NULL;
  const imp_model* m = data_model(self);
  int n = kind == 2 ? m->ngeom : kind == 3 ? m->nsite : m->nbody;
  if (kind < 0 || kind > 4 || id < 0 || id >= n) {
    PyErr_Format(PyExc_IndexError, "id %d out of range (%d)", id, n);
    return NULL;
  }
  npy_intp dims[2] = {3, m->nv};
  PyObject* jp = PyArray_SimpleNew(2, dims, NPY_DOUBLE);
  PyObject* jr = jp ? PyArray_SimpleNew(2, dims, NPY_DOUBLE) : NULL;
  if (!jr) {
    Py_XDECREF(jp);
    return NULL;
  }
  double* a = PyArray_DATA((PyArrayObject*)jp);
  double* b = PyArray_DATA((PyArrayObject*)jr);
  switch (kind) {
    case 0: imp_jac_body(m, self->d, a, b, id); break;
    case 1: imp_jac_body_com(m, self->d, a, b, id); break;
    case 2: imp_jac_geom(m, self->d, a, b, id); break;
    case 3: imp_jac_site(m, self->d, a, b, id); break;
    default: imp_jac(m, self->d, a, b, p, id); break;
  }
  return Py_BuildValue("(NN)", jp, jr);
}

static PyGetSetDef data_getset[NFIELD + 16];

static PyMethodDef data_methods[] = {
    {"step", (PyCFunction)(void (*)(void))data_step, METH_FASTCALL,
     "step(n=1): advance n time steps (n > 1 loops in C without the GIL)"},
    {"forward", (PyCFunction)data_forward, METH_NOARGS,
     "forward(): compute everything that depends on the state, no integration"},
    {"step1", (PyCFunction)data_step1, METH_NOARGS,
     "step1(): the position and velocity stages of a step; then set ctrl and call step2()"},
    {"step2", (PyCFunction)data_step2, METH_NOARGS, "step2(): the rest of the step begun by step1()"},
    {"_reset", (PyCFunction)data_reset, METH_O, "_reset(key): -1 or a keyframe index"},
    {"set_threads", (PyCFunction)data_set_threads, METH_O,
     "set_threads(n): solve contact islands on n threads (bitwise the same results)"},
    {"contact_force", (PyCFunction)data_contact_force, METH_NOARGS,
     "contact_force() -> ncon x 6: world force, torque geom1 applied to geom2 (last step)"},
    {"contact_impulse", (PyCFunction)data_contact_impulse, METH_NOARGS,
     "contact_impulse() -> ncon x 6: impulse in each contact's frame, zero-padded"},
    {"_jac", (PyCFunction)data_jac, METH_VARARGS, "_jac(kind, id[, point])"},
    {NULL, NULL, 0, NULL}};

static PyTypeObject DataType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "impetus._impetus.Data",
    .tp_basicsize = sizeof(DataObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Data(model): one simulation's state and scratch, reset to the model's configuration.",
    .tp_new = data_new,
    .tp_dealloc = (destructor)data_dealloc,
    .tp_methods = data_methods,
    .tp_getset = data_getset,
};

static void fill_data_getset(void) {
  int k = 0;
  for (int i = 0; i < NFIELD; i++)
    data_getset[k++] = (PyGetSetDef){fields[i].name, (getter)data_get_field,
                                     fields[i].writable ? (setter)data_set_field : NULL,
                                     fields[i].doc, (void*)(intptr_t)i};
  data_getset[k++] = (PyGetSetDef){"time", (getter)data_get_time, (setter)data_set_time,
                                   "simulated time, s", NULL};
  data_getset[k++] = (PyGetSetDef){"model", (getter)data_get_model, NULL, "the Model", NULL};
  data_getset[k++] = (PyGetSetDef){"ncon", (getter)data_get_ncon, NULL, "contacts of the last forward", NULL};
  data_getset[k++] = (PyGetSetDef){"nefc", (getter)data_get_nefc, NULL, "constraint rows of the last forward", NULL};
  data_getset[k++] = (PyGetSetDef){"nstep", (getter)data_get_nstep, NULL, "steps since reset", NULL};
  data_getset[k++] = (PyGetSetDef){"solver_iter", (getter)data_get_solver_iter, NULL,
                                   "contact solver iterations of the last step", NULL};
  data_getset[k++] = (PyGetSetDef){"solver_residual", (getter)data_get_solver_residual, NULL,
                                   "largest relative residual of the last contact solve", NULL};
  data_getset[k++] = (PyGetSetDef){"nwarning_solver", (getter)data_get_nwarning_solver, NULL,
                                   "forwards where the contact solver did not converge", NULL};
  data_getset[k++] = (PyGetSetDef){"nwarning_nan", (getter)data_get_nwarning_nan, NULL,
                                   "times the state went bad and was reset", NULL};
  data_getset[k++] = (PyGetSetDef){"solver", (getter)data_get_solver, (setter)data_set_solver,
                                   "contact solver in use, by name (impetus.solvers())", NULL};
  data_getset[k++] = (PyGetSetDef){"contact", (getter)data_get_contact, NULL,
                                   "the last forward's contacts: a structured array (copy)", NULL};
  data_getset[k] = (PyGetSetDef){NULL, NULL, NULL, NULL, NULL};
}

/* ------------------------------------------------------------ functions */

/* rollout(data, ctrl, out): for each row of ctrl (nstep x nu, float64,
   C order) set d->ctrl, step, and write qpos, qvel, act into that row of
   out (nstep x (nq+nv+na)); all in C without the GIL. */
static PyObject* py_rollout(PyObject* mod, PyObject* args) {
  (void)mod;
  DataObject* self;
  PyArrayObject *ctrl, *out;
  if (!PyArg_ParseTuple(args, "O!O!O!", &DataType, &self, &PyArray_Type, &ctrl, &PyArray_Type, &out))
    return NULL;
  if (check_ready(self) < 0) return NULL;
  const imp_model* m = data_model(self);
  imp_data* d = self->d;
  npy_intp nstep = PyArray_DIM(out, 0);
  npy_intp width = (npy_intp)m->nq + m->nv + m->na;
  int ok_types = PyArray_TYPE(ctrl) == NPY_DOUBLE && PyArray_TYPE(out) == NPY_DOUBLE &&
                 PyArray_IS_C_CONTIGUOUS(ctrl) && PyArray_IS_C_CONTIGUOUS(out) &&
                 PyArray_ISWRITEABLE(out) && PyArray_NDIM(ctrl) == 2 && PyArray_NDIM(out) == 2;
  if (!ok_types || PyArray_DIM(ctrl, 0) != nstep || PyArray_DIM(ctrl, 1) != m->nu ||
      PyArray_DIM(out, 1) != width) {
    PyErr_SetString(PyExc_ValueError, "_rollout: ctrl nstep x nu and out nstep x (nq+nv+na), "
                    "C-contiguous float64");
    return NULL;
  }
  const double* u = PyArray_DATA(ctrl);
  double* s = PyArray_DATA(out);
  int nq = m->nq, nv = m->nv, na = m->na, nu = m->nu;
  self->busy = 1;
  Py_BEGIN_ALLOW_THREADS
  for (npy_intp i = 0; i < nstep; i++) {
    if (nu) memcpy(d->ctrl, u + i * nu, sizeof(double) * (size_t)nu);
    imp_step(m, d);
    double* row = s + i * width;
    memcpy(row, d->qpos, sizeof(double) * (size_t)nq);
    memcpy(row + nq, d->qvel, sizeof(double) * (size_t)nv);
    if (na) memcpy(row + nq + nv, d->act, sizeof(double) * (size_t)na);
  }
  Py_END_ALLOW_THREADS
  self->busy = 0;
  Py_RETURN_NONE;
}

/* The doubles of a C-contiguous float64 array of n values (writable when
   asked), NULL for None; NULL with ValueError otherwise (*bad set). */
static double* array_buffer(PyObject* o, npy_intp n, int writable, const char* name, int* bad) {
  if (o == Py_None) return NULL;
  PyArrayObject* a = (PyArrayObject*)o;
  if (!PyArray_Check(o) || PyArray_TYPE(a) != NPY_DOUBLE || !PyArray_IS_C_CONTIGUOUS(a) ||
      PyArray_SIZE(a) != n || (writable && !PyArray_ISWRITEABLE(a))) {
    if (!*bad) PyErr_Format(PyExc_ValueError, "_rollouts: %s must be a C-contiguous float64 array "
                            "of %zd values%s", name, (Py_ssize_t)n, writable ? ", writable" : "");
    *bad = 1;
    return NULL;
  }
  return PyArray_DATA(a);
}

/* The Datas of a list (or None: made by imp_rollout) for nthread threads,
   marked busy; NULL with an error set (nothing marked) on failure. *ok
   tells a NULL for None from one for an error. */
static imp_data** take_datas(PyObject* list, int nthread, DataObject*** objs, int* ok) {
  *ok = 1;
  *objs = NULL;
  if (list == Py_None) return NULL;
  *ok = 0;
  if (!PyList_Check(list) || PyList_GET_SIZE(list) < nthread) {
    PyErr_SetString(PyExc_ValueError, "_rollouts: datas must be a list of at least nthread Data");
    return NULL;
  }
  imp_data** ds = PyMem_Calloc((size_t)nthread, sizeof *ds);
  DataObject** os = PyMem_Calloc((size_t)nthread, sizeof *os);
  if (!ds || !os) {
    PyMem_Free(ds);
    PyMem_Free(os);
    PyErr_NoMemory();
    return NULL;
  }
  for (int t = 0; t < nthread; t++) {
    PyObject* o = PyList_GET_ITEM(list, t);
    int dup = 0;
    for (int k = 0; k < t; k++) dup |= (PyObject*)os[k] == o;
    if (!PyObject_TypeCheck(o, &DataType) || dup || check_ready((DataObject*)o) < 0) {
      if (!PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "_rollouts: datas must be distinct Data objects");
      PyMem_Free(ds);
      PyMem_Free(os);
      return NULL;
    }
    os[t] = (DataObject*)o;
    ds[t] = os[t]->d;
  }
  for (int t = 0; t < nthread; t++) os[t]->busy = 1;
  *objs = os;
  *ok = 1;
  return ds;
}

/* _rollouts(model, datas, nroll, nstep, nthread, ctrl, init_qpos,
   init_qvel, init_act, key, perturb_qpos, perturb_qvel, seed, out_qpos,
   out_qvel, out_act, out_sensordata, out_status, out_wall): imp_rollout
   (rollout.h) with the GIL released. datas: None (made inside) or a list of
   nthread Data of model; arrays float64, C order, None where not wanted;
   out_status int64 nroll x 4 (exit, nan_resets, steps, not_converged). */
static PyObject* py_rollouts(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject *model, *datas, *ctrl, *iq, *iv, *ia, *oq, *ov, *oa, *os, *ost, *ow;
  Py_ssize_t nroll, nstep;
  int nthread, key;
  double pq, pv;
  unsigned long long seed;
  if (!PyArg_ParseTuple(args, "O!OnniOOOOiddKOOOOOO", &ModelType, &model, &datas, &nroll, &nstep,
                        &nthread, &ctrl, &iq, &iv, &ia, &key, &pq, &pv, &seed, &oq, &ov, &oa, &os,
                        &ost, &ow))
    return NULL;
  const imp_model* m = ((ModelObject*)model)->m;
  if (nroll < 0 || nroll > INT_MAX || nstep < 0) {
    PyErr_SetString(PyExc_ValueError, "_rollouts: nroll or nstep out of range");
    return NULL;
  }
  npy_intp rows = (npy_intp)nroll * (npy_intp)nstep;
  imp_rollout_opt o;
  imp_rollout_default(&o);
  o.nthread = nthread;
  o.key = key;
  o.perturb_qpos = pq;
  o.perturb_qvel = pv;
  o.seed = (uint64_t)seed;
  int bad = 0;
  o.ctrl = array_buffer(ctrl, rows * m->nu, 0, "ctrl", &bad);
  o.init_qpos = array_buffer(iq, (npy_intp)nroll * m->nq, 0, "initial qpos", &bad);
  o.init_qvel = array_buffer(iv, (npy_intp)nroll * m->nv, 0, "initial qvel", &bad);
  o.init_act = array_buffer(ia, (npy_intp)nroll * m->na, 0, "initial act", &bad);
  o.qpos = array_buffer(oq, rows * m->nq, 1, "out qpos", &bad);
  o.qvel = array_buffer(ov, rows * m->nv, 1, "out qvel", &bad);
  o.act = array_buffer(oa, rows * m->na, 1, "out act", &bad);
  o.sensordata = array_buffer(os, rows * m->nsensordata, 1, "out sensordata", &bad);
  double* wall = array_buffer(ow, (npy_intp)nroll, 1, "out wall", &bad);
  PyArrayObject* st = (PyArrayObject*)ost;
  if (!bad && (!PyArray_Check(ost) || PyArray_TYPE(st) != NPY_INT64 ||
               !PyArray_IS_C_CONTIGUOUS(st) || PyArray_SIZE(st) != 4 * (npy_intp)nroll ||
               !PyArray_ISWRITEABLE(st) || !wall)) {
    PyErr_SetString(PyExc_ValueError, "_rollouts: out status int64 nroll x 4 and wall nroll");
    bad = 1;
  }
  if (bad) return NULL;
  imp_rollout_status* status = PyMem_Calloc((size_t)nroll + 1, sizeof *status);
  if (!status) return PyErr_NoMemory();
  o.status = status;
  DataObject** objs = NULL;
  int ok = 1;
  if (nthread >= 1 && nthread <= IMP_ROLLOUT_THREADS_MAX) {
    o.datas = take_datas(datas, nthread, &objs, &ok);
    o.ndata = nthread;
  }
  if (!ok) {
    PyMem_Free(status);
    return NULL;
  }
  char err[256] = "";
  int rc;
  Py_BEGIN_ALLOW_THREADS
  rc = imp_rollout(m, (int)nroll, nstep, &o, err, sizeof err);
  Py_END_ALLOW_THREADS
  if (objs)
    for (int t = 0; t < nthread; t++) objs[t]->busy = 0;
  PyMem_Free(objs);
  PyMem_Free(o.datas);
  if (rc == 0) {
    int64_t* out = PyArray_DATA(st);
    for (Py_ssize_t i = 0; i < nroll; i++) {
      out[4 * i] = status[i].exit;
      out[4 * i + 1] = status[i].nan_resets;
      out[4 * i + 2] = status[i].steps;
      out[4 * i + 3] = status[i].not_converged;
      wall[i] = status[i].wall_seconds;
    }
  }
  PyMem_Free(status);
  if (rc != 0) {
    PyErr_SetString(error_type(), err);
    return NULL;
  }
  Py_RETURN_NONE;
}

static PyObject* py_solvers(PyObject* mod, PyObject* noargs) {
  (void)mod;
  (void)noargs;
  int n = imp_solver_count();
  PyObject* list = PyList_New(n);
  for (int i = 0; list && i < n; i++) {
    PyObject* t = Py_BuildValue("(ss)", imp_solver_name(i), imp_solver_description(i));
    if (!t) {
      Py_CLEAR(list);
      break;
    }
    PyList_SET_ITEM(list, i, t);
  }
  return list;
}

/* _setup(error_class, contact_dtype): the package's pieces made in Python */
static PyObject* py_setup(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject *err, *dtype;
  if (!PyArg_ParseTuple(args, "OO!", &err, &PyArrayDescr_Type, &dtype)) return NULL;
  Py_INCREF(err);
  Py_XSETREF(imp_py_error, err);
  Py_INCREF(dtype);
  Py_XSETREF(contact_dtype, dtype);
  Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"_rollout", py_rollout, METH_VARARGS, "_rollout(data, ctrl, out)"},
    {"_rollouts", py_rollouts, METH_VARARGS, "_rollouts(model, datas, nroll, nstep, nthread, ...)"},
    {"solvers", py_solvers, METH_NOARGS, "solvers() -> [(name, description)], the first the default"},
    {"_setup", py_setup, METH_VARARGS, "_setup(error_class, contact_dtype)"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "impetus._impetus",
                                        "The C extension of the impetus package.", -1,
                                        module_methods, NULL, NULL, NULL, NULL};

/* the layout of imp_contact, for the package's structured dtype */
static PyObject* contact_layout(void) {
  return Py_BuildValue(
      "{s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n}", "itemsize", (Py_ssize_t)sizeof(imp_contact),
      "dist", (Py_ssize_t)offsetof(imp_contact, dist), "pos", (Py_ssize_t)offsetof(imp_contact, pos),
      "frame", (Py_ssize_t)offsetof(imp_contact, frame), "friction",
      (Py_ssize_t)offsetof(imp_contact, friction), "margin", (Py_ssize_t)offsetof(imp_contact, margin),
      "gap", (Py_ssize_t)offsetof(imp_contact, gap), "dim", (Py_ssize_t)offsetof(imp_contact, dim),
      "geom1", (Py_ssize_t)offsetof(imp_contact, geom1), "geom2", (Py_ssize_t)offsetof(imp_contact, geom2),
      "pair", (Py_ssize_t)offsetof(imp_contact, pair), "efc_adr", (Py_ssize_t)offsetof(imp_contact, efc_adr));
}

PyMODINIT_FUNC PyInit__impetus(void) {
  import_array();
  fill_data_getset();
  if (PyType_Ready(&ModelType) < 0 || PyType_Ready(&DataType) < 0) return NULL;
  PyObject* mod = PyModule_Create(&module_def);
  if (!mod) return NULL;
  Py_INCREF(&ModelType);
  Py_INCREF(&DataType);
  PyObject* layout = contact_layout();
  PyObject* types = PyTuple_New(NOBJTYPE);
  for (int i = 0; types && i < NOBJTYPE; i++) PyTuple_SET_ITEM(types, i, PyUnicode_FromString(objtype_names[i]));
  if (PyModule_AddObject(mod, "Model", (PyObject*)&ModelType) < 0 ||
      PyModule_AddObject(mod, "Data", (PyObject*)&DataType) < 0 || !layout ||
      PyModule_AddObject(mod, "_contact_layout", layout) < 0 || !types ||
      PyModule_AddObject(mod, "OBJECT_TYPES", types) < 0 ||
      PyModule_AddStringConstant(mod, "LIBRARY_VERSION", IMP_VERSION_STRING) < 0) {
    Py_DECREF(mod);
    return NULL;
  }
  return mod;
}
