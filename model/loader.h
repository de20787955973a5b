/* Private interface of the MJCF loader (model/).
 *
 * Loading has three stages:
 *   xml.c       libxml2 DOM -> a light node tree (ld_node, includes spliced
 *               in, every node knows its file and line) -> the "spec": plain
 *               C structs for bodies, joints, geoms ... with defaults applied
 *               (asset.c reads <asset>, mesh.c the mesh files);
 *   defaults.c  the built-in MJCF defaults, default classes, and the readers
 *               that apply an element's attributes onto a struct (shared by
 *               <default> children and real elements);
 *   compile.c   spec -> imp_model in one allocation (inertia_from_geom.c
 *               supplies the mass properties of geoms and bodies).
 * Errors longjmp back to the entry point with "file:line: message"; every
 * allocation of the spec lives in an arena or in vectors owned by the
 * context, so an error path frees everything in one place. */
#ifndef IMPETUS_LOADER_H
#define IMPETUS_LOADER_H

#include <setjmp.h>
#include <stddef.h>

#include "impetus.h"

/* ---- bounds on what a file can make the loader do (issue 15) ----
   Each is exceeded with a file:line error; each is far beyond what real
   models need. For scale: the deepest sample model shipped with MuJoCo
   (/usr/share/mujoco/model: humanoid and the files that include it) nests
   elements 9 deep (bodies 6 deep), and those files include at most 1 file. */

/* Elements nested in one another, all files together (bodies, frames,
   default classes ...). The readers recurse once a level; 1000 levels use
   well under 1 MB of stack, so a load in a thread with a small stack is
   safe too. libxml2 alone stops a single file at 256 levels; this bound
   holds across <include>s, which it does not see. */
#define LD_MAXDEPTH 1000
/* <include>s inside included files inside ... (a cycle ends here) */
#define LD_MAXINCLUDEDEPTH 20
/* <include> elements read in one load, and the bytes of the files they
   read: a file that includes the next twice, twenty times over, would
   otherwise read a million files. Real models include a handful. */
#define LD_MAXINCLUDES 10000
#define LD_MAXINCLUDEBYTES (64L << 20)
/* Bytes that entity references (<!ENTITY>, expanded when attributes are
   read) add to attribute values in one load: one 100 KB entity named 5,000
   times would make 500 MB. MuJoCo's own parser expands no entities, so
   MJCF written for it uses none. */
#define LD_MAXENTITYBYTES (4L << 20)
/* entities referring to entities ... (libxml2 refuses loops; this bounds the
   recursion that expands them) */
#define LD_MAXENTITYDEPTH 16

/* Objects of one kind in a model (bodies, joints, geoms, sites, cameras,
   lights, materials, textures, meshes, height fields, actuators, keyframes,
   pairs, excludes, equalities, tendons, tendon path objects): an error at
   the first element past it. Far above real models (MuJoCo Menagerie's
   largest have hundreds of bodies; loading is O(n log n), 100,000 bodies
   load in seconds), and low enough that every size the compiler derives
   (16 contact slots a geom, 3 rows a slot, dofs, mass-matrix entries)
   stays inside an int. Sensors have their own bounds (LD_MAXSENSOR). */
#define LD_MAXOBJECTS 1000000
/* <size>: contact slots, constraint rows, rows of one island (whose dense
   problem takes nislandmax^2 doubles: 800 MB at the bound) */
#define LD_MAXCONTACTS (1 << 25)
#define LD_MAXROWS (1 << 27)
#define LD_MAXISLANDROWS 10000
/* Entries of the tree-sparse mass matrix (each dof's ancestors): 1 GB an
   array; a chain 1,000 dofs deep has 500,500 */
#define LD_MAXMASSENTRIES (1 << 27)
/* Vertices and triangles of all meshes together, checked as each mesh file
   is read, before its hull is computed (MuJoCo Menagerie's most detailed
   models total well under a million) */
#define LD_MAXMESHVERT (1 << 24)
#define LD_MAXMESHFACE (1 << 24)

/* Largest magnitude of a mesh file's vertex coordinate (before scale):
   2^30, where MuJoCo 2.2.2 refuses an STL too ("vertex coordinates ...
   exceed maximum bounds"; found by loading files on either side of it).
   An STL's floats reach 3e38, whose volume and inertia overflow. */
#define LD_MAXMESHCOORD 1073741824.0

/* ---- the light node tree ---- */

typedef struct ld_attr {
  const char* name;
  const char* value;
  int used; /* read or knowingly accepted: no "unsupported" warning */
} ld_attr;

typedef struct ld_node {
  const char* name;
  const char* file; /* file the element was read from */
  int line;
  int nattr;
  ld_attr* attr;
  struct ld_node* child; /* first child element */
  struct ld_node* next;  /* next sibling element */
} ld_node;

/* ---- spec objects ---- */

typedef struct ld_joint {
  const char* name;
  const char* file;
  int line;
  int body;
  int type;          /* imp_joint_type */
  double pos[3], axis[3];
  double range[2];   /* raw file units */
  int has_range;
  int limited;       /* 0, 1, or -1: auto */
  double damping, stiffness, springref, armature, ref; /* raw file units */
  double frictionloss; /* dry friction bound, force or torque units, >= 0 */
  double actfrcrange[2]; /* actuatorfrcrange */
  int has_actfrcrange;
  int actfrclimited;   /* actuatorfrclimited: 0, 1, or -1: auto */
  int actgravcomp;     /* actuatorgravcomp */
  double solref[2];  /* solreflimit: time constant (or -stiffness), damping ratio (or -damping) */
  double springdamper[2]; /* time constant, damping ratio; both > 0: stiffness and damping
                             set by the compiler (springdamper.c) */
  int angle_unit;    /* 0: the compiler's angle unit; 1 radian, 2 degree: a joint of an
                        attached model, in that model's unit (attach.c) */
} ld_joint;

typedef struct ld_geom {
  const char* name;
  const char* file;
  int line;
  int body;
  int type;          /* imp_geom_type */
  double size[3];
  int nsize;         /* size values given (defaults included) */
  double pos[3], quat[4];
  double fromto[6];
  int has_fromto;
  double density, mass;
  int has_mass;
  float rgba[4];
  double friction[3];
  int contype, conaffinity, condim, group, priority;
  double margin, gap;
  double solref[2];  /* contact solref */
  const char* material;
  const char* mesh;  /* a mesh geom's mesh, or the mesh a primitive is fitted to */
  double fitscale;   /* scales the sizes of a primitive fitted to a mesh */
  /* mesh geoms, set by the compiler: volume and principal moments per unit
     density of the mesh, in the mesh frame (which pos/quat then place) */
  double mesh_volume, mesh_inertia[3];
  int meshid;
  /* the enclosing <frame>s' pose in the body frame, applied by the compiler
     once fromto, mesh and fitting have placed the geom (as MuJoCo does) */
  double frame_pos[3], frame_quat[4];
  int has_frame;
} ld_geom;

typedef struct ld_camera {
  const char* name;
  const char* file;
  int line;
  int body;
  double pos[3], quat[4];
  int mode;
  const char* target;
  double fovy;
  int resolution[2];   /* pixels */
  double sensorsize[2], focal[2], focalpixel[2], principal[2], principalpixel[2];
} ld_camera;

typedef struct ld_light {
  const char* name;
  const char* file;
  int line;
  int body;
  double pos[3], dir[3];
  int directional, castshadow, active, mode;
  const char* target;
  float attenuation[3], cutoff, exponent, ambient[3], diffuse[3], specular[3];
} ld_light;

typedef struct ld_material {
  const char* name;
  const char* file;
  int line;
  const char* texture;
  float texrepeat[2], emission, specular, shininess, reflectance, rgba[4];
  int texuniform;
} ld_material;

typedef struct ld_texture {
  const char* name;
  const char* file;
  int line;
  int type, builtin, mark, width, height;
  float rgb1[3], rgb2[3], markrgb[3], random;
  int gridsize[2];      /* rows, columns */
  char gridlayout[13];  /* NUL-terminated */
  const char* path; /* resolved file path, NULL for builtin */
  int autoname;     /* named after its file: may repeat */
} ld_texture;

enum {
  LD_ACT_GENERAL = 0,
  LD_ACT_MOTOR,
  LD_ACT_POSITION,
  LD_ACT_VELOCITY,
  LD_ACT_INTVELOCITY, /* integrator of velocity into a position servo's setpoint */
  LD_ACT_DAMPER,      /* force -kv velocity ctrl */
  LD_ACT_CYLINDER,    /* filter, area gain, affine bias */
  LD_ACT_MUSCLE,      /* muscle dynamics, gain and bias */
  LD_ACT_ADHESION     /* body transmission, fixed gain, ctrl >= 0 */
};

typedef struct ld_actuator {
  const char* name;
  const char* file;
  int line;
  int kind; /* LD_ACT_* */
  const char* joint;
  const char* tendon;  /* a tendon transmission instead of joint */
  int trntype;         /* imp_trn_type of the target attribute given */
  const char* target;  /* the joint, tendon, site (cranksite) or body it names */
  const char* site2;   /* refsite (site) or slidersite (slider-crank), NULL none */
  double cranklength;  /* slider-crank rod length (class default too) */
  int id2;             /* resolved site2, -1 none */
  int fileidx; /* its place among the file's actuators, skipped ones included */
  double gear[6], ctrlrange[2], forcerange[2];
  int has_ctrlrange, has_forcerange;
  int ctrllimited, forcelimited; /* 0, 1, -1 auto */
  int gaintype, biastype, dyntype;
  double gainprm[IMP_NGAIN], biasprm[IMP_NGAIN];
  double dampratio;    /* position: damping as a ratio of critical (kv set at compile), 0 none */
  double inheritrange; /* position: ctrlrange from the joint's range, scaled; 0 none;
                          intvelocity: actrange from it */
  double dynprm[IMP_NGAIN];
  double actrange[2], lengthrange[2];
  int has_actrange;
  int actlimited;      /* 0, 1, -1 auto */
  int actearly;
  int actdim;          /* -1: from dyntype */
  int actfileadr;      /* its first activation among the file's actuators, skipped ones
                          included (keyframe act) */
} ld_actuator;

/* one object of a tendon's path, names resolved by the compiler (tendon.c) */
typedef struct ld_wrap {
  const char* file;
  int line;
  int type;              /* imp_wrap_type */
  const char* name;      /* the joint, site or geom; NULL for a pulley */
  const char* sidesite;  /* a geom's side site, NULL none */
  double prm;            /* joint coef, pulley divisor */
  int objid, sideid;     /* resolved: joint, site or geom id (-1 pulley); side site, -1 */
} ld_wrap;

/* a tendon: attributes from its class, its path in c->wraps */
typedef struct ld_tendon {
  const char* name;
  const char* file;
  int line;
  int spatial;           /* 1 spatial, 0 fixed */
  int wrapadr, wrapnum;  /* its path: c->wraps[wrapadr ...] */
  int limited;           /* 0, 1, or -1: auto */
  int actfrclimited;     /* 0, 1, or -1: auto */
  int has_range, has_actfrcrange;
  double range[2], actfrcrange[2];
  double solref[2];      /* solreflimit */
  double margin, frictionloss, width, armature;
  double stiffness[3], damping[3];
  double springlength[2]; /* both -1: the length at qpos_spring */
  int group;
  float rgba[4];
  const char* material;
} ld_tendon;

typedef struct ld_key {
  const char* name;
  const char* file;
  int line;
  double time;
  double *qpos, *qvel, *ctrl, *act;
  int nqpos, nqvel, nctrl, nact; /* -1 when absent */
  double *mpos, *mquat;    /* mocap bodies' poses (nmocap x 3, x 4) */
  int nmpos, nmquat;       /* -1 when absent */
} ld_key;

typedef struct ld_body {
  const char* name;
  const char* file;
  int line;
  int parent;
  int childclass; /* default class for the body's descendants */
  double pos[3], quat[4];
  int has_inertial;
  double ipos[3], iquat[4], mass, inertia[3];
  double gravcomp; /* fraction of the body's weight lifted at its centre of mass */
  int mocap;       /* mocap="true": posed by d->mocap_pos/quat (mocap.c) */
} ld_body;

/* <mesh inertia=...>: how a geom's mass spreads over its mesh */
enum { LD_MESH_CONVEX = 0, LD_MESH_EXACT, LD_MESH_LEGACY, LD_MESH_SHELL };

/* a mesh asset: read, hull and frame computed while the asset is parsed */
typedef struct ld_mesh {
  const char* name;
  const char* file; /* XML file and line of the <mesh> element */
  int line;
  const char* path; /* resolved mesh file path */
  int autoname;     /* named after its file: may repeat */
  double scale[3];
  double refpos[3], refquat[4]; /* the vertices' frame in the file: v <- R(refquat)' (v - refpos) */
  int inertia_mode;  /* LD_MESH_*: solid (convex, exact, legacy) or shell */
  int maxhullvert;   /* most vertices of the collision hull: -1 no limit, else > 3 */
  int flat;          /* no volume: its frame from its surface, no mass to give */
  int from_hull;     /* mass properties from the hull (open surface of volume surface_volume) */
  double surface_volume;
  int nvert, nface, nhull;
  double* vert;  /* nvert x 3: in the mesh frame once loaded */
  int* face;     /* nface x 3 */
  int* hull;     /* nhull: indices of the convex hull's vertices, ascending */
  int ngraph;    /* the hull's vertex adjacency (mesh_graph.c), 0 when none */
  int* graph;    /* ngraph */
  int ntexcoord;      /* OBJ texture coordinates (0: none) */
  float* texcoord;    /* ntexcoord x 2: u, and v from the image's top (MuJoCo's 1 - v) */
  int* facetexcoord;  /* nface x 3: the corners' indices into texcoord; NULL when none */
  int texcoord_missing; /* corners without one in a file that has some: none kept */
  double volume;      /* of the mesh, or of its hull when the mesh is open; area for a shell,
                         0 when flat */
  double inertia[3];  /* principal moments per unit density, decreasing */
  double pos[3], quat[4]; /* mesh frame (centroid, principal axes) in the file's frame */
  double aabb[6];     /* hull vertices' box in the mesh frame: centre, half sizes */
  double rbound;      /* largest vertex distance from the mesh frame's origin */
  double size[3];     /* largest |coordinate| along each mesh-frame axis (MuJoCo's geom size) */
} ld_mesh;

/* a height field asset (hfield.c): its data read and normalized as the
   element is parsed */
typedef struct ld_hfield {
  const char* name;
  const char* file; /* XML file and line of the <hfield> element */
  int line;
  const char* path; /* resolved file path, NULL without a file */
  int autoname;     /* named after its file: may repeat */
  double size[4];   /* radius_x, radius_y, elevation_z, base_z */
  int nrow, ncol;
  float* data;      /* nrow x ncol, row 0 at -y, normalized to [0, 1] */
} ld_hfield;

/* Most elevation values of one height field and of a model (errors beyond,
   checked before a file's pixels are decoded): 4096 x 4096. */
#define LD_MAXHFIELDDATA (1 << 24)

/* Most pixels of a PNG texture file (4096 x 4096; the largest texture of
   MuJoCo's samples and of MuJoCo Menagerie is 2048 x 2048), checked from
   the file's header at its <texture> element; the renderer checks every
   texture file the same way before decoding it (render/texture.h). */
#define LD_MAXTEXTUREPIXELS (1 << 24)

/* an explicit contact pair: geom names, resolved by the compiler */
typedef struct ld_pair {
  const char* name;
  const char* file;
  int line;
  const char *geom1, *geom2;
  int condim;
  double friction[5], margin, gap, solref[2];
} ld_pair;

/* an equality constraint: names resolved and eq_data computed by the
   compiler */
typedef struct ld_equality {
  const char* name;
  const char* file;
  int line;
  int type;                  /* imp_eq_type */
  const char *obj1, *obj2;   /* body1/body2 or joint1/joint2; obj2 NULL when omitted */
  const char *site1, *site2; /* connect, weld by sites (MuJoCo 3.x): both, or neither */
  int active;
  double solref[2];
  double anchor[3];          /* connect: in body1's frame */
  double relpose[7];         /* weld: pos, quat; quat all zero: from qpos0 */
  double polycoef[5];        /* joint */
} ld_equality;

typedef struct ld_exclude {
  const char* name;
  const char* file;
  int line;
  const char *body1, *body2;
} ld_exclude;

/* a sensor: objects by name, resolved by the compiler (sensor.c) */
typedef struct ld_sensor {
  const char* name;
  const char* file;
  int line;
  int type;             /* imp_sensor_type */
  int objtype;          /* imp_obj_type of the sensed object, -1 none */
  const char* objname;
  int reftype;          /* imp_obj_type of the reference frame, -1 world */
  const char* refname;
  double noise, cutoff;
  int dim, datatype, needstage; /* from the type, or read (user sensors) */
  int objid, refid;     /* resolved by the compiler */
  int actuator_in_file; /* the file has an actuator of that name (kept or skipped) */
} ld_sensor;

/* Most sensors and sensor values a model may have (errors beyond). */
#define LD_MAXSENSOR 100000
#define LD_MAXSENSORDATA 400000

/* a default class: the values every element of the class starts from */
typedef struct ld_class {
  const char* name;
  int parent;
  ld_joint joint;
  ld_geom geom;
  ld_geom site; /* sites share the geom struct: type, size, pos, quat, rgba ... */
  ld_camera camera;
  ld_light light;
  ld_material material;
  ld_actuator actuator;
  ld_pair pair;
  ld_equality equality;
  ld_tendon tendon;
  double mesh_scale[3];
  int mesh_inertia; /* LD_MESH_* */
  int mesh_maxhullvert; /* -1: no limit */
} ld_class;

/* <statistic>: values that replace the computed ones (statistic.c) */
typedef struct ld_statistic {
  double center[3], extent, meansize, meanmass, meaninertia;
  int has_center, has_extent, has_meansize, has_meanmass, has_meaninertia;
} ld_statistic;

/* a growable array of fixed-size elements */
typedef struct ld_vec {
  char* data;
  int n, cap;
  size_t elsz;
} ld_vec;

/* <compiler><lengthrange> (MJCF reference): which actuators get a computed
   lengthrange and the settings of the simulation that finds it */
typedef struct ld_lropt {
  int mode;         /* 0 none, 1 muscle, 2 muscleuser, 3 all */
  int useexisting;  /* keep a given range */
  int uselimit;     /* copy a limited joint's range */
  double accel, maxforce, timeconst, timestep, inttotal, interval, tolrange;
} ld_lropt;

typedef struct ld_block { struct ld_block* next; size_t used, cap; } ld_block;

typedef struct ld_ctx {
  jmp_buf jb;
  char* err;
  int errsz;
  const char* dir; /* directory of the main file, "" or ending in '/' */
  ld_block* arena;

  /* compiler settings */
  int degree;            /* angles in degrees */
  int fitaabb;           /* fit primitives to meshes' bounding boxes, not inertia boxes */
  int exactmeshinertia;  /* legacy meshes integrated exactly (compiler, 2.x) */
  int inertiafromgeom;   /* 0 false, 1 true, 2 auto */
  int autolimits;
  int allow_unsupported; /* IMP_LOAD_ALLOW_UNSUPPORTED: warn instead of refusing */
  int nactuator_file; /* <actuator> children read, skipped ones included (keyframe ctrl) */
  int nact_file;      /* their activations, skipped actuators' included (keyframe act) */
  ld_lropt lr;        /* <compiler><lengthrange> (lengthrange.c) */
  char eulerseq[4];
  const char* meshdir;
  const char* texturedir;
  double boundmass, boundinertia;
  double settotalmass;   /* scale all masses to this total when > 0 (0 when absent) */
  int inertiagroup[2];
  int nconmax;           /* <size nconmax>, 0 when absent */
  int njmax;             /* <size njmax>, -1 when absent */
  int nislandmax;        /* <size nislandmax> (our extension), -1 when absent */

  const char* modelname;
  imp_option opt;
  imp_visual vis;
  ld_statistic stat;

  ld_vec bodies, joints, geoms, sites, cameras, lights, materials, textures,
      actuators, keys, classes, meshes, pairs, excludes, equalities, sensors, tendons, wraps;
  ld_vec hfields;
  imp_model* building; /* the model under construction, freed on error */

  /* warnings */
  char* warn;
  size_t nwarn_bytes, capwarn;
  int nwarning;
  ld_vec warnkeys; /* const char* keys already warned about */

  /* what the files made the loader do so far (bounds above) */
  int nincludes;        /* <include> elements read */
  long include_bytes;   /* bytes of the files they read */
  long entity_bytes;    /* bytes entity references added to attribute values */
  long mesh_vert_read;  /* vertices of the mesh files read (LD_MAXMESHVERT) */
  long mesh_face_read;  /* and their triangles (LD_MAXMESHFACE) */
  struct ld_name_index* name_index; /* names.c: the vectors' sorted names */
  struct ld_attach_state* attach;   /* attach.c: sub-models and attachments, NULL until one */
} ld_ctx;

/* ---- loader_util.c: utilities shared by the loader files ---- */

void* ld_alloc(ld_ctx* c, size_t n);           /* zeroed arena memory */
/* mesh_graph.c: the adjacency of a closed hull's vertices (positions in hull)
   from its nface triangles (vertex ids below nvert) into *graph; its length,
   0 (and NULL) when the hull is not a closed triangulated sphere */
int ld_mesh_graph(ld_ctx* c, const int* hull, int nhull, const int* face, int nface, int nvert,
                  int** graph);
const char* ld_strdup(ld_ctx* c, const char* s);
void* ld_push(ld_ctx* c, ld_vec* v);           /* new zeroed element */
#define LD_AT(vec, type, i) (&((type*)(vec).data)[i])
void ld_error(ld_ctx* c, const char* file, int line, const char* fmt, ...)
    __attribute__((format(printf, 4, 5), noreturn));
void ld_warning(ld_ctx* c, const char* key, const char* file, int line, const char* fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* "KIND 'name' (file 'path'): ..." at the asset's element (without the file
   part when path is NULL): errors of meshes and height fields */
void ld_asset_error(ld_ctx* c, const char* kind, const char* name, const char* path,
                    const char* file, int line, const char* fmt, ...)
    __attribute__((format(printf, 7, 8), noreturn));

/* attribute access: each marks the attribute used */
const char* ld_attr_str(ld_node* n, const char* name);          /* NULL when absent */
int ld_attr_nums(ld_ctx* c, ld_node* n, const char* name, double* out, int nmin, int nmax);
int ld_attr_float(ld_ctx* c, ld_node* n, const char* name, float* out, int nmin, int nmax);
/* a list of any length: the count (-1 when absent), the first max values in out */
int ld_attr_numlist(ld_ctx* c, ld_node* n, const char* name, double* out, int max);
int ld_attr_int(ld_ctx* c, ld_node* n, const char* name, int* out);
int ld_attr_bool(ld_ctx* c, ld_node* n, const char* name, int* out);
int ld_attr_limited(ld_ctx* c, ld_node* n, const char* name, int* out); /* true/false/auto */
int ld_attr_keyword(ld_ctx* c, ld_node* n, const char* name, const char* const* words, int* out);
void ld_accept(ld_node* n, const char* const* names); /* NULL-terminated, no warnings */
/* Physics we do not implement: an error at file:line naming it, unless the
   caller allowed unsupported features (IMP_LOAD_ALLOW_UNSUPPORTED), then a
   warning. Appearance and data the simulation never reads only warn. */
void ld_unsupported(ld_ctx* c, const char* key, const char* file, int line, const char* fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* unread attributes, an unknown element: a warning when they change
   nothing the simulation computes, else ld_unsupported */
void ld_warn_unused(ld_ctx* c, ld_node* n);
void ld_warn_element(ld_ctx* c, ld_node* n);
/* The whole of a regular file into the arena (NUL-terminated, *size bytes);
   NULL with *why set when it cannot be opened or read, is larger than max
   bytes, or is not a regular file (a FIFO would block the load forever, a
   device never end). */
char* ld_read_regular_file(ld_ctx* c, const char* path, long max, long* size, const char** why);
/* file relative to dir ("" or NULL: as given); absolute paths unchanged */
const char* ld_join_path(ld_ctx* c, const char* dir, const char* file);
/* reads pos/quat/axisangle/euler/xyaxes/zaxis; 1 when an orientation was given */
int ld_read_frame(ld_ctx* c, ld_node* n, double pos[3], double quat[4]);
/* a pose (pos, quat) given in a <frame> re-expressed in the frame's parent:
   pos <- fpos + R(fquat) pos, quat <- fquat quat */
void ld_frame_apply(const double fpos[3], const double fquat[4], double pos[3], double quat[4]);

/* ---- defaults.c ---- */

void ld_defaults_builtin(ld_class* cls);  /* MJCF's built-in values */
int ld_find_class(ld_ctx* c, ld_node* at, const char* name); /* error if missing */
void ld_parse_defaults(ld_ctx* c, ld_node* n, int parent);
/* apply an element's attributes onto a struct (from a class or an element) */
void ld_read_joint(ld_ctx* c, ld_node* n, ld_joint* j);
void ld_read_geom(ld_ctx* c, ld_node* n, ld_geom* g);
void ld_read_site(ld_ctx* c, ld_node* n, ld_geom* s);
void ld_read_camera(ld_ctx* c, ld_node* n, ld_camera* cam);
/* A camera's resolution, sensor size and intrinsics (focal length, principal
   point offset, in length units) for the model, checked as MuJoCo does;
   with a sensor, fovy follows from it. */
void ld_camera_intrinsics(ld_ctx* c, const ld_camera* cam, int resolution[2],
                          double sensorsize[2], double intrinsic[4], double* fovy);
void ld_read_light(ld_ctx* c, ld_node* n, ld_light* l);
void ld_read_material(ld_ctx* c, ld_node* n, ld_material* m);
void ld_read_actuator(ld_ctx* c, ld_node* n, ld_actuator* a, int kind);
void ld_read_pair(ld_ctx* c, ld_node* n, ld_pair* p);
/* active, solref (solimp accepted) of <equality> children and their default;
   with type >= 0 (a real element) also its bodies or joints, anchor, relpose
   and polycoef */
void ld_read_equality(ld_ctx* c, ld_node* n, ld_equality* e, int type);
int ld_actuator_kind(const char* elem); /* -1 when not an actuator shortcut */

/* ---- asset.c ---- */

/* <asset>: textures, materials, meshes (read at once, mesh.c), height
   fields (hfield.c) */
void ld_parse_asset(ld_ctx* c, ld_node* n);
/* scale, inertia and maxhullvert (checked: -1 or > 3) of a <mesh> or of a
   class's <mesh> default */
void ld_read_mesh_attrs(ld_ctx* c, ld_node* n, double scale[3], int* inertia, int* maxhullvert);
/* repeated names among textures and meshes (file-derived ones may repeat) */
void ld_check_asset_names(ld_ctx* c);

/* ---- hfield.c ---- */

/* an <hfield> element into c->hfields, its data read and normalized */
void ld_parse_hfield(ld_ctx* c, ld_node* n);

/* ---- inertia_from_geom.c ---- */

/* volume of a geom (0 for planes) */
double ld_geom_volume(const ld_geom* g);
/* mass and principal moments of a geom about its centre, in its own frame */
void ld_geom_inertia(const ld_geom* g, double* mass, double inertia[3]);
/* body mass properties from its geoms (indices gi[0..n-1] into c->geoms) */
void ld_body_from_geoms(ld_ctx* c, const int* gi, int n, double* mass, double ipos[3],
                        double iquat[4], double inertia[3]);

/* ---- body_mass.c: the bodies' mass properties into m (body_jntnum,
   body_geomadr and body_geomnum set; errors at the offending element) ---- */
void ld_body_mass_properties(ld_ctx* c, imp_model* m);

/* ---- scene_assets.c: cameras, lights, materials (mattex: each one's
   texture or -1), textures, meshes and height fields into m ---- */
void ld_put_scene_assets(ld_ctx* c, imp_model* m, const int* mattex);


/* ---- mesh.c ---- */

/* Read mesh->path (STL binary or ASCII, OBJ by extension), scale it, find its
   convex hull and its mass frame, and re-express the vertices in that frame.
   Errors name the mesh file and the <mesh> element's file:line. */
void ld_mesh_load(ld_ctx* c, ld_mesh* mesh);
/* geom g takes mass from mesh me: an error at g's line when me is flat and
   g would have mass; the warning of a mesh whose mass comes from its hull */
void ld_mesh_check_mass(ld_ctx* c, const ld_mesh* me, const ld_geom* g);

/* ---- mesh_fit.c ---- */

/* 1 when g is a primitive to be fitted to a mesh (a mesh attribute on a
   sphere, capsule, cylinder, ellipsoid or box) */
int ld_geom_fits_mesh(const ld_geom* g);
/* size g from its mesh (compiler fitaabb), place it in the mesh frame, and
   make it an ordinary primitive (g->mesh NULL) */
void ld_fit_geom_to_mesh(ld_ctx* c, ld_geom* g);

/* ---- names.c ---- */

/* index of the element of v named name, -1 when none (the first of it in
   order), through a sorted index of v's names kept in c: O(log n) */
int ld_lookup_name(ld_ctx* c, const ld_vec* v, const char* name);
/* the first of names[0..n) (NULL or "" for none) that an earlier one
   repeats, -1 when none: O(n log n) */
int ld_first_repeated(ld_ctx* c, const char* const* names, int n);

/* index of the element of v named name, -1 when none (every spec struct
   starts with its name, as the compiler's uniqueness check relies on) */
int ld_find_name(const ld_vec* v, const char* name);
/* the same, with an error at the referring element (file, line) naming
   what was looked for when there is none */
int ld_named_id(ld_ctx* c, const ld_vec* v, const char* what, const char* name,
                const char* file, int line);

/* ---- equality.c ---- */

/* values per equality in eq_data (types.h) */
#define LD_NEQDATA 11

/* Each equality's objects into obj1, obj2: body ids (body2 omitted: the
   world), the bodies of site1 and site2, or joint ids (joint2 omitted: -1),
   checked as MuJoCo 2.2.2 does. */
void ld_resolve_equalities(ld_ctx* c, int* obj1, int* obj2);
/* the equalities into m, with eq_data from the body poses at qpos0 (xpos,
   xquat per body) or from the sites' poses */
void ld_put_equalities(ld_ctx* c, imp_model* m, const int* obj1, const int* obj2,
                       const double* xpos, const double* xquat);

/* ---- tendon.c ---- */

/* attributes of a <spatial> or <fixed> tendon or of a class's <tendon> default */
void ld_read_tendon(ld_ctx* c, ld_node* n, ld_tendon* t);
/* <tendon>: its spatial and fixed children, with their paths */
void ld_parse_tendons(ld_ctx* c, ld_node* n);
/* Resolve and check every tendon's path (after joints, sites and geoms have
   their final ids) and its limits; returns the number of wrap objects. */
int ld_resolve_tendons(ld_ctx* c);
/* The most dofs a tendon's Jacobian may touch, closed under ancestors
   (nJten), and the most a row of a tendon equality may (both tendons),
   from the bodies each path can involve; m's dof tree must be set. */
void ld_tendon_dof_bounds(ld_ctx* c, const imp_model* m, int* nJten, int* nJeq);
/* the tendons into m (ntendon, nwrap set) */
void ld_put_tendons(ld_ctx* c, imp_model* m);
/* tendon_length0 at qpos0, and the rest lengths left to the compiler
   (springlength -1) at qpos_spring, by the engine's own tendon stage */
void ld_tendons_at_qpos0(ld_ctx* c, imp_model* m);

/* ---- actuator.c ---- */

/* Resolve every actuator's joint (an error names an unknown one), skip
   those on free and ball joints with a warning, apply inheritrange and
   autolimits and check the ranges. Fills the kept actuators' joints
   (actjnt) and spec indices (keep), returns how many are kept. */
int ld_resolve_actuators(ld_ctx* c, const ld_joint* J, int* actjnt, int* keep);
/* the kept (permuted) actuators into m, m->nu of them */
void ld_put_actuators(ld_ctx* c, imp_model* m, const int* actjnt);
/* dampratio into kv, and the warning for velocity feedback beyond the
   explicit integrator's stability limit, from the inertia at qpos0; each
   actuator's acc0 (muscles scale their force by it) */
void ld_actuators_at_qpos0(ld_ctx* c, imp_model* m);
/* activations of the first nu (kept) actuators: 1 for each with dynamics
   (actdim checked) */
int ld_count_activations(ld_ctx* c, int nu);
/* activations of an actuator read from the file (-1 actdim: 1 with dynamics) */
int ld_actuator_actnum(const ld_actuator* a);
/* a key's act: na values, or the file's count when actuators with state
   were skipped (then those of the kept actuators stay), else an error */
void ld_key_act(ld_ctx* c, ld_key* k, int na);
/* ---- lengthrange.c ---- */

/* MJCF's <compiler><lengthrange> defaults */
void ld_lengthrange_defaults(ld_lropt* o);
/* <compiler><lengthrange> into c->lr */
void ld_parse_lengthrange(ld_ctx* c, ld_node* n);
/* every selected actuator's lengthrange (m complete but for it): kept,
   copied from its joint (uselimit) or found by MuJoCo's simulation; a run
   that fails is an error at the actuator's line */
void ld_compute_lengthranges(ld_ctx* c, imp_model* m);

/* ---- springdamper.c ---- */

/* <joint springdamper>: each such joint's stiffness and damping from its
   time constant, damping ratio and its inertia at qpos0 (J: the joints in
   model order). */
void ld_joints_springdamper(ld_ctx* c, imp_model* m, const ld_joint* J);

/* ---- capacity.c ---- */
/* <size>'s nconmax, njmax and nislandmax, checked against the bounds above */
void ld_parse_size(ld_ctx* c, ld_node* size);

/* nconmax, njmax and nislandmax from <size> or the model (m->ngeom and
   m->neq set; the joints' limits and frictionloss rows and the tendons'
   rows counted by the caller) */
void ld_size_rows(const ld_ctx* c, imp_model* m, int nlimited, int nfrictionloss,
                  int ntendon_rows);
/* nJrow from the dof tree, nJten and nJeq (the most entries of a tendon's
   row and of a tendon equality's), and nJnnz from it */
void ld_size_jacobian(imp_model* m, int nJeq);
/* once the model is complete: an automatic nislandmax lowered to the rows
   the model can make, and nJnnz again */
void ld_bound_rows(const ld_ctx* c, imp_model* m);

/* ---- statistic.c ---- */

/* MuJoCo's meansize of a compiled model (its extent set): the mean over bodies
   of how far joint anchors and geoms reach from the centre of mass. */
double ld_mean_body_size(const imp_model* m);
/* center, extent, meansize, meanmass, meaninertia of a compiled model at
   qpos0, then the values <statistic> gave */
void ld_compute_statistic(ld_ctx* c, imp_model* m);
/* read a <statistic> element into c->stat */
void ld_parse_statistic(ld_ctx* c, ld_node* n);

/* ---- sensor.c ---- */

/* <sensor>: each child into c->sensors (root: the whole file, to tell the
   actuators the loader skipped from unknown ones). Tendon sensors and
   elements we do not know are skipped with a warning. */
void ld_parse_sensors(ld_ctx* c, ld_node* root, ld_node* n);
/* Resolve every sensor's objects (after the compiler has ordered joints,
   geoms, sites, cameras and actuators), check them as MuJoCo 2.2.2 does,
   drop the sensors on skipped actuators with a warning, and return the
   number of sensor values. */
int ld_resolve_sensors(ld_ctx* c, const ld_joint* J);
/* the resolved sensors into m (m->nsensor of them) */
void ld_put_sensors(ld_ctx* c, imp_model* m);

/* ---- mocap.c ---- */

/* Number the mocap bodies (mocapid[b], -1 for others) after checking each
   is a child of the world without joints (jntnum per body), as MuJoCo
   requires; check every keyframe's mpos and mquat sizes. Returns nmocap. */
int ld_resolve_mocap(ld_ctx* c, const int* jntnum, int* mocapid);
/* each keyframe's key_mpos, key_mquat into m (m->body_mocapid set): the
   body's pos and quat where a key gives none; quaternions normalized */
void ld_put_mocap_keys(ld_ctx* c, imp_model* m);

/* ---- composite.c ---- */

/* <composite> n in body: its bodies, joints, geoms, sites, tendons,
   equalities and excludes into the spec, as MuJoCo 2.2.2 expands them */
void ld_parse_composite(ld_ctx* c, ld_node* n, int body);

/* ---- attach.c: <asset><model> and <attach> (MuJoCo 3.x) ---- */

/* <model name file>: a sub-model, read at once (its errors at this line) */
void ld_parse_model_asset(ld_ctx* c, ld_node* n);
/* <attach model body|frame prefix> in body (inside frames: frame, their pose
   in the body, else NULL): the sub-model's subtree, defaults, assets and
   the elements outside the tree that refer to it, names prefixed */
void ld_attach(ld_ctx* c, ld_node* n, int body, int childclass, const double* frame);
/* after the main file's sections: the attached models' contact, equality,
   tendon, actuator and sensor sections, in attachment order */
void ld_attach_finish(ld_ctx* c);

/* xml.c's readers for attach.c: a file's text into a node tree, includes
   spliced (relative to c->dir; level: the depth the tree starts at); a
   section (compiler, option, contact, equality, actuator) read as in the
   main file; the children of a body or frame node (parse_children) */
ld_node* ld_xml_read_text(ld_ctx* c, const char* file, const char* text, int level);
void ld_xml_section(ld_ctx* c, ld_node* n);
void ld_xml_children(ld_ctx* c, ld_node* n, int body, int childclass, const double* frame);

/* ---- compile.c ---- */

imp_model* ld_compile(ld_ctx* c);

#endif
