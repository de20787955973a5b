/* Impetus: the model and data structs.
 *
 * imp_model is immutable after loading: flat arrays named <object>_<field>,
 * indexed with adr/num pairs, each with its dimension in a comment.
 * imp_data holds the state and every scratch array of a step, carved out of
 * one allocation made by imp_make_data, so stepping never calls malloc.
 *
 * Layout of qpos/qvel is MuJoCo's for the same file: joints in body
 * depth-first order, then file order inside a body. Free joint: qpos =
 * (x y z, qw qx qy qz), qvel = (world linear velocity, body-frame angular
 * velocity). Ball joint: qpos = quaternion, qvel = child-frame angular
 * velocity. Quaternions are (w, x, y, z). */
#ifndef IMPETUS_TYPES_H
#define IMPETUS_TYPES_H

#include <stddef.h>
#include <stdint.h>

#define IMP_NGAIN 10 /* parameters of an actuator gain, bias or dynamics */

typedef enum imp_joint_type {
  IMP_JNT_FREE = 0, /* 7 qpos, 6 qvel */
  IMP_JNT_BALL = 1, /* 4 qpos, 3 qvel */
  IMP_JNT_SLIDE = 2,
  IMP_JNT_HINGE = 3
} imp_joint_type;

typedef enum imp_geom_type {
  IMP_GEOM_PLANE = 0,
  IMP_GEOM_HFIELD = 1, /* height field: a grid of triangular prisms (collide_hfield.c) */
  IMP_GEOM_SPHERE = 2,
  IMP_GEOM_CAPSULE = 3,
  IMP_GEOM_ELLIPSOID = 4,
  IMP_GEOM_CYLINDER = 5,
  IMP_GEOM_BOX = 6,
  IMP_GEOM_MESH = 7, /* collides as the convex hull of its vertices */
  IMP_NGEOMTYPES
} imp_geom_type;

/* MJCF option integrator, numbered as MuJoCo numbers them (integrate.c) */
typedef enum imp_integrator {
  IMP_INT_EULER = 0,       /* semi-implicit Euler, joint damping implicit */
  IMP_INT_RK4 = 1,         /* classic 4th-order Runge-Kutta, damping explicit */
  IMP_INT_IMPLICIT = 2,    /* implicit in velocity: damping, actuator and Coriolis
                              derivatives (M - h D, LU factor) */
  IMP_INT_IMPLICITFAST = 3 /* implicit in velocity without the Coriolis derivatives,
                              D symmetrized (M - h D, L'DL factor) */
} imp_integrator;

typedef enum imp_disable_bit {
  IMP_DSBL_CONTACT = 1 << 0,
  IMP_DSBL_GRAVITY = 1 << 1,
  IMP_DSBL_LIMIT = 1 << 2,
  IMP_DSBL_PASSIVE = 1 << 3,
  IMP_DSBL_ACTUATION = 1 << 4,
  IMP_DSBL_EULERDAMP = 1 << 5,  /* damping explicit in Euler */
  IMP_DSBL_CLAMPCTRL = 1 << 6,  /* ctrl not clamped to ctrlrange */
  IMP_DSBL_CONSTRAINT = 1 << 7, /* every constraint: contacts, limits, ... */
  IMP_DSBL_EQUALITY = 1 << 8,   /* equality constraints */
  IMP_DSBL_ISLAND = 1 << 9,     /* one contact-space problem for all constraints, not per island */
  IMP_DSBL_STABILIZE = 1 << 10, /* b = 0 on every row: no gap closing or drift correction
                                   (Todorov 2010's tests, "We set b = 0") */
  IMP_DSBL_FRICTIONLOSS = 1 << 11, /* joint frictionloss rows */
  IMP_DSBL_SENSOR = 1 << 12        /* sensors: sensordata is left as it was (sensor.c) */
} imp_disable_bit;

/* Optional features, off by default (MJCF option/flag enable words). */
typedef enum imp_enable_bit {
  IMP_ENBL_SENSORNOISE = 1 << 0 /* add each sensor's Gaussian noise to sensordata */
} imp_enable_bit;

/* what the contact stage did with an island (imp_data.island_flags) */
enum {
  IMP_ISLAND_HELD = 1,    /* solved again with its corrections held */
  IMP_ISLAND_RESCUED = 2, /* its answer added energy: pgs solved it again */
  IMP_ISLAND_BOUNDED = 4, /* stopped unconverged by the work bound */
  IMP_ISLAND_OVER_BUDGET = 8, /* stopped unconverged by the step's work budget */
  IMP_ISLAND_RETARGETED = 16  /* kept the answer with its contacts' targets at 0 */
};

/* Actuator transmissions, numbered as MuJoCo numbers them. */
typedef enum imp_trn_type {
  IMP_TRN_JOINT = 0,         /* hinge, slide: gear q; ball: gear (child frame) . rotation
                                vector; free: force gear[0:3] (world), torque gear[3:6]
                                (child frame), length 0 */
  IMP_TRN_JOINTINPARENT = 1, /* the same with the ball's and free joint's rotational gear
                                in the parent frame */
  IMP_TRN_SLIDERCRANK = 2,   /* slider-crank: trnid (cranksite, slidersite), cranklength */
  IMP_TRN_TENDON = 3,        /* length gear ten_length, moment gear ten_J */
  IMP_TRN_SITE = 4,          /* wrench gear (site frame) at a site: trnid (site, refsite or
                                -1); length 0 without refsite */
  IMP_TRN_BODY = 5           /* adhesion: minus the mean normal Jacobian of the body's
                                contacts, length 0 */
} imp_trn_type;

/* Objects of a tendon's path (wrap_type), numbered as MuJoCo numbers them.
   A fixed tendon's path is joints only; a spatial tendon's is sites,
   wrapping geoms (each between two sites) and pulleys that start branches. */
typedef enum imp_wrap_type {
  IMP_WRAP_JOINT = 1,   /* length += coef q (wrap_prm: coef) */
  IMP_WRAP_PULLEY = 2,  /* a new branch, its length / divisor (wrap_prm: divisor) */
  IMP_WRAP_SITE = 3,    /* the path passes through the site */
  IMP_WRAP_SPHERE = 4,  /* the path wraps around the sphere (wrap_prm: side site, -1 none) */
  IMP_WRAP_CYLINDER = 5 /* the same around the infinite cylinder along the geom's z */
} imp_wrap_type;
/* Activation dynamics (MJCF actuator dyntype), numbered as MuJoCo 3.x
   numbers them; an actuator with a state has one activation act (actnum 1,
   at actuator_actadr) and its force is gain * act + bias (activation.c). */
typedef enum imp_dyn_type {
  IMP_DYN_NONE = 0,        /* no state: force = gain * ctrl + bias */
  IMP_DYN_INTEGRATOR = 1,  /* act_dot = ctrl */
  IMP_DYN_FILTER = 2,      /* act_dot = (ctrl - act) / dynprm[0], Euler step */
  IMP_DYN_FILTEREXACT = 3, /* the same, integrated exactly over a step */
  IMP_DYN_MUSCLE = 4,      /* act_dot = (ctrl - act) / tau(act), two time constants */
  IMP_DYN_USER = 5         /* no callbacks here: act_dot = 0 (MuJoCo without mjcb_act_dyn) */
} imp_dyn_type;
typedef enum imp_gain_type {
  IMP_GAIN_FIXED = 0, /* gain = gainprm[0] */
  IMP_GAIN_AFFINE = 1, /* gain = gainprm[0] + gainprm[1] length + gainprm[2] velocity */
  IMP_GAIN_MUSCLE = 2  /* MuJoCo's muscle FLV curve (activation.c) */
} imp_gain_type;
typedef enum imp_bias_type {
  IMP_BIAS_NONE = 0,
  IMP_BIAS_AFFINE = 1,
  IMP_BIAS_MUSCLE = 2 /* MuJoCo's passive muscle force (activation.c) */
} imp_bias_type;

/* How a camera or light moves (MJCF's mode attribute), cam_mode/light_mode. */
typedef enum imp_camlight_mode {
  IMP_CAMLIGHT_FIXED = 0,        /* rigidly with its body */
  IMP_CAMLIGHT_TRACK = 1,        /* body origin + qpos0's world offset, qpos0's orientation */
  IMP_CAMLIGHT_TRACKCOM = 2,     /* the same about the body's subtree centre of mass */
  IMP_CAMLIGHT_TARGETBODY = 3,   /* body-fixed position, aimed at the target body's origin */
  IMP_CAMLIGHT_TARGETBODYCOM = 4 /* body-fixed position, aimed at the target's subtree com */
} imp_camlight_mode;

typedef enum imp_obj_type {
  IMP_OBJ_BODY = 0,
  IMP_OBJ_JOINT,
  IMP_OBJ_GEOM,
  IMP_OBJ_SITE,
  IMP_OBJ_CAMERA,
  IMP_OBJ_LIGHT,
  IMP_OBJ_ACTUATOR,
  IMP_OBJ_KEY,
  IMP_OBJ_MATERIAL,
  IMP_OBJ_TEXTURE,
  IMP_OBJ_MESH,
  IMP_OBJ_PAIR,
  IMP_OBJ_EQUALITY,
  IMP_OBJ_SENSOR,
  IMP_OBJ_XBODY, /* a body's own frame (xpos, xmat), not its inertial one: frame sensors */
  IMP_OBJ_TENDON,
  IMP_OBJ_HFIELD, /* a height field asset */
  IMP_NOBJTYPES
} imp_obj_type;

/* One contact between two geoms, as the collision stage reports it.
 * Conventions (../shared/DESIGN.md): the frame's rows are the unit normal n,
 * pointing from geom1 to geom2, then two unit tangents t1, t2 with
 * t1 x t2 = n; impulses and velocities of the contact stage are expressed in
 * this frame. dist is the signed distance between the surfaces along n:
 * positive when apart, negative when penetrating. pos is the midpoint
 * between the two surface points. A contact exists when dist <= margin. */
typedef struct imp_contact {
  double dist;        /* signed distance, m */
  double pos[3];      /* world position: midpoint between the surfaces */
  double frame[9];    /* rows n, t1, t2 (world) */
  double friction[5]; /* tangent1, tangent2, torsional, rolling1, rolling2 */
  double margin;      /* generated when dist <= margin */
  double gap;         /* the solver acts when dist < margin - gap */
  int dim;            /* condim: 1, 3, 4 or 6 */
  int geom1, geom2;   /* normal points from geom1 to geom2 */
  int pair;           /* index of the explicit contact/pair, -1 for dynamic */
  int surface;        /* where the rows act (imp_contact_point): 1 geom1's
                         surface, 2 geom2's, set by a narrow phase that knows
                         the reference face of a flat pair; 0 by geom type */
  int efc_adr;        /* first constraint row (contact stage), -1 until then */
} imp_contact;

/* Equality constraints (MJCF <equality>). */
typedef enum imp_eq_type {
  IMP_EQ_CONNECT = 0, /* a point of body1 and body2 coincide: 3 rows */
  IMP_EQ_WELD = 1,    /* body2 keeps its pose relative to body1: 6 rows */
  IMP_EQ_JOINT = 2,   /* joint1 = polynomial of joint2 (or fixed): 1 row */
  IMP_EQ_TENDON = 3   /* tendon1 = polynomial of tendon2 (or fixed), lengths from
                         tendon_length0: 1 row */
} imp_eq_type;

/* Sensors (MJCF <sensor>, engine/sensor/sensor.c), numbered as MuJoCo 2.2.2 numbers
   them so sensor_type reads the same in both. */
typedef enum imp_sensor_type {
  IMP_SENS_TOUCH = 0,     /* 1: normal contact forces in the site's volume (>= 0) */
  IMP_SENS_ACCELEROMETER, /* 3: site's linear acceleration, gravity offset, site frame */
  IMP_SENS_VELOCIMETER,   /* 3: site's linear velocity, site frame */
  IMP_SENS_GYRO,          /* 3: site's angular velocity, site frame */
  IMP_SENS_FORCE,         /* 3: force the parent applies to the site's body, site frame */
  IMP_SENS_TORQUE,        /* 3: its torque about the site, site frame */
  IMP_SENS_MAGNETOMETER,  /* 3: option magnetic in the site frame */
  IMP_SENS_RANGEFINDER,   /* 1: distance along the site's +z to the nearest geom, -1 none */
  IMP_SENS_JOINTPOS,      /* 1: hinge or slide qpos */
  IMP_SENS_JOINTVEL,      /* 1: hinge or slide qvel */
  IMP_SENS_TENDONPOS,     /* 1: ten_length */
  IMP_SENS_TENDONVEL,     /* 1: ten_velocity */
  IMP_SENS_ACTUATORPOS,   /* 1: actuator_length */
  IMP_SENS_ACTUATORVEL,   /* 1: actuator_velocity */
  IMP_SENS_ACTUATORFRC,   /* 1: actuator_force */
  IMP_SENS_BALLQUAT,      /* 4: ball joint quaternion */
  IMP_SENS_BALLANGVEL,    /* 3: ball joint angular velocity (child frame) */
  IMP_SENS_JOINTLIMITPOS, /* 1: the joint's limit row's distance (< 0 violated), 0 without one */
  IMP_SENS_JOINTLIMITVEL, /* 1: that row's velocity */
  IMP_SENS_JOINTLIMITFRC, /* 1: that row's force */
  IMP_SENS_TENDONLIMITPOS, /* 1: the tendon's limit row's distance, 0 without one */
  IMP_SENS_TENDONLIMITVEL, /* 1: that row's velocity */
  IMP_SENS_TENDONLIMITFRC, /* 1: that row's force */
  IMP_SENS_FRAMEPOS,      /* 3: object position, world or reference frame */
  IMP_SENS_FRAMEQUAT,     /* 4: object orientation */
  IMP_SENS_FRAMEXAXIS,    /* 3: its x axis */
  IMP_SENS_FRAMEYAXIS,    /* 3: its y axis */
  IMP_SENS_FRAMEZAXIS,    /* 3: its z axis */
  IMP_SENS_FRAMELINVEL,   /* 3: linear velocity of its origin */
  IMP_SENS_FRAMEANGVEL,   /* 3: its angular velocity */
  IMP_SENS_FRAMELINACC,   /* 3: linear acceleration of its origin, gravity offset, world */
  IMP_SENS_FRAMEANGACC,   /* 3: its angular acceleration, world */
  IMP_SENS_SUBTREECOM,    /* 3: centre of mass of a body's subtree */
  IMP_SENS_SUBTREELINVEL, /* 3: its linear velocity */
  IMP_SENS_SUBTREEANGMOM, /* 3: the subtree's angular momentum about it */
  IMP_SENS_CLOCK,         /* 1: simulation time */
  IMP_SENS_USER,          /* dim values the engine never writes (no callback) */
  IMP_SENS_JOINTACTFRC,   /* 1: qfrc_actuator at a hinge's or slide's dof (MuJoCo 3.x) */
  IMP_SENS_TENDONACTFRC   /* 1: the sum of actuator_force of the actuators on a tendon (3.x) */
} imp_sensor_type;

/* What a sensor's values are, for cutoff and noise (MuJoCo's data types). */
typedef enum imp_sensor_datatype {
  IMP_SENSDATA_REAL = 0,     /* any values: cutoff clamps to [-cutoff, cutoff] */
  IMP_SENSDATA_POSITIVE = 1, /* >= 0 when active (touch; rangefinder's -1 is "none"): <= cutoff */
  IMP_SENSDATA_AXIS = 2,     /* a unit 3-vector: no cutoff, noise keeps it unit */
  IMP_SENSDATA_QUATERNION = 3 /* a unit quaternion: likewise */
} imp_sensor_datatype;

/* The stage of a step whose results a sensor reads. */
typedef enum imp_stage {
  IMP_STAGE_NONE = 0,
  IMP_STAGE_POS = 1, /* positions */
  IMP_STAGE_VEL = 2, /* velocities */
  IMP_STAGE_ACC = 3  /* accelerations and forces: after the contact stage */
} imp_stage;

/* Kinds of constraint block the contact stage hands to a solver. */
typedef enum imp_constraint_type {
  IMP_CNSTR_EQUALITY = 0, /* bilateral rows: v = b, f free */
  IMP_CNSTR_LIMIT = 1,    /* one unilateral row: f >= 0, v >= b, f (v - b) = 0;
                             id: the joint, or njnt + 2 tendon + side (0 lower, 1 upper) */
  IMP_CNSTR_CONTACT = 2,  /* normal, then friction rows inside the cone */
  IMP_CNSTR_FRICTION = 3  /* one row of dry friction with a fixed bound (joint or
                             tendon frictionloss): |f| <= bound, v = 0 while |f| < bound;
                             id: the dof, or nv + tendon */
} imp_constraint_type;

/* Default rows of stabilization: MJCF's solref (time constant, damping
   ratio) default. Penetration and drift decay with the time constant,
   never faster than 2 steps (see constraints.c). */
#define IMP_SOLREF_TIMECONST 0.02
/* the fastest a violated constraint row is pushed back (m/s or rad/s,
   constraints.c): stabilization never injects more than this velocity */
#define IMP_STAB_VMAX 1.0
#define IMP_SOLREF_DAMPRATIO 1.0

/* Most contacts one pair of geoms produces (a box-box manifold). */
#define IMP_MAXCONPAIR 8

/* Timers of a step (seconds, accumulated since reset; see imp_data.timer). */
typedef enum imp_timer {
  IMP_TIMER_STEP = 0,   /* the whole imp_step */
  IMP_TIMER_COLLISION,  /* broad and narrow phase */
  IMP_TIMER_SOLVER,     /* the contact stage: Delassus matrices and solvers */
  IMP_NTIMER
} imp_timer;

typedef struct imp_option {
  double timestep;   /* seconds */
  double gravity[3]; /* m/s^2 */
  double magnetic[3]; /* global magnetic flux (magnetometer sensors only) */
  int integrator;    /* imp_integrator */
  int disableflags;  /* imp_disable_bit */
  int enableflags;   /* imp_enable_bit */
  int solver;        /* contact solver: index in the registry (contact.h), option solver="..." */
  int iterations;    /* most iterations of the contact solver */
  double tolerance;  /* contact solver tolerance, on each solver's own stopping measure (contact.h) */
  int warmstart;     /* 1: start each solve from the last step's impulses */
  double density;    /* of the medium, kg/m^3: quadratic drag (fluid forces, dynamics.c) */
  double viscosity;  /* of the medium, Pa s: viscous resistance */
  double wind[3];    /* the medium's velocity, m/s */
} imp_option;

typedef struct imp_visual {
  double fovy;         /* free camera vertical field of view, degrees */
  double azimuth, elevation; /* the free camera's initial direction, degrees (MJCF visual/global) */
  double znear, zfar;  /* clip planes, in units of the model extent */
  double headlight_ambient[3], headlight_diffuse[3], headlight_specular[3];
  int headlight_active;
  int offwidth, offheight; /* offscreen buffer size */
  float haze[4];           /* fog colour */
  /* <scale>, in units of the model's meansize as in MJCF: contact discs'
     radius and half height, force arrows' width */
  double contactwidth, contactheight, forcewidth;
} imp_visual;

typedef struct imp_model {
  /* sizes */
  int nq;      /* generalized coordinates */
  int nv;      /* degrees of freedom */
  int nu;      /* actuators */
  int na;      /* activation states (actuators with dynamics) */
  int nbody;   /* bodies, world included */
  int njnt;    /* joints */
  int ngeom;   /* geoms */
  int nsite;   /* sites */
  int ncam;    /* cameras */
  int nlight;  /* lights */
  int nmat;    /* materials */
  int ntex;    /* textures */
  int nkey;    /* keyframes */
  int nmocap;  /* mocap bodies (body mocap="true"): posed by d->mocap_pos/quat */
  int nmesh;   /* meshes */
  int nmeshvert; /* vertices of all meshes */
  int nmeshface; /* triangles of all meshes */
  int nmeshhull; /* convex-hull vertex indices of all meshes */
  int nmeshgraph; /* entries of the hulls' vertex adjacency (mesh_graph) */
  int nmeshtexcoord; /* texture coordinates of all meshes (OBJ vt) */
  int nhfield;   /* height fields */
  int nhfielddata; /* elevation values of all height fields */
  int npair;   /* explicit contact pairs (contact/pair) */
  int nexclude; /* excluded body pairs (contact/exclude) */
  int nconmax; /* contacts a data holds (size nconmax, or chosen from ngeom) */
  int neq;     /* equality constraints */
  int nsensor; /* sensors */
  int nsensordata; /* values of all sensors (sensordata) */
  int ntendon; /* tendons */
  int nwrap;   /* objects of all tendon paths */
  int nJten;   /* most non-zeros of a tendon's Jacobian row: its dofs closed under ancestors */
  int njmax;   /* constraint rows a data holds (size njmax, or chosen) */
  int nislandmax; /* rows of the largest contact-space problem (its dense Delassus
                     matrix) a data holds: size nislandmax, or min(njmax, 1000,
                     the rows the model can make: capacity.c bound_island_rows) */
  int nJrow;   /* most non-zeros of a constraint row: 2 x the longest dof chain */
  int nJnnz;   /* non-zeros all constraint rows together may hold (efc_J and the
                  contact stage's half-solves): min(njmax nJrow, nislandmax nv),
                  capacity.c jacobian_capacity */
  int nM;      /* non-zeros of the tree-sparse mass matrix */
  int nnames;  /* bytes in names */
  int npaths;  /* bytes in paths */

  imp_option opt;
  imp_visual vis;
  /* statistics at qpos0 (MJCF <statistic> replaces any of them; statistic.c) */
  double extent;    /* model size, for the renderer */
  double meansize;  /* mean body size (MuJoCo's statistic), the unit of contact marks */
  double center[3]; /* middle of the box extent measures, for the renderer's default camera */
  double meanmass;    /* mean body mass, world excluded */
  double meaninertia; /* mean diagonal element of the joint-space inertia */

  /* bodies: body 0 is the world */
  int* body_parentid;    /* nbody */
  int* body_rootid;      /* nbody: top-level ancestor below the world */
  int* body_jntnum;      /* nbody */
  int* body_jntadr;      /* nbody: -1 when none */
  int* body_dofnum;      /* nbody */
  int* body_dofadr;      /* nbody: -1 when none */
  int* body_geomnum;     /* nbody */
  int* body_geomadr;     /* nbody: -1 when none */
  double* body_pos;      /* nbody x 3: offset in the parent frame */
  double* body_quat;     /* nbody x 4: orientation in the parent frame */
  double* body_ipos;     /* nbody x 3: centre of mass in the body frame */
  double* body_iquat;    /* nbody x 4: principal axes in the body frame */
  double* body_mass;     /* nbody */
  double* body_gravcomp; /* nbody: fraction of the weight lifted at the centre of mass (passive) */
  double* body_inertia;  /* nbody x 3: principal moments about the com */
  double* body_subtreemass; /* nbody */
  int* body_weldid;      /* nbody: the body's closest ancestor-or-self with a joint or
                            mocap="true", 0 (world) if none */
  int* body_mocapid;     /* nbody: index into d->mocap_pos/quat of a mocap body, -1 for others */

  /* joints */
  int* jnt_type;         /* njnt: imp_joint_type */
  int* jnt_qposadr;      /* njnt */
  int* jnt_dofadr;       /* njnt */
  int* jnt_bodyid;       /* njnt */
  int* jnt_limited;      /* njnt */
  double* jnt_pos;       /* njnt x 3: anchor in the body frame */
  double* jnt_axis;      /* njnt x 3: unit axis in the body frame */
  double* jnt_stiffness; /* njnt */
  int* jnt_actfrclimited;  /* njnt: total actuator force on the joint clamped (hinge, slide) */
  double* jnt_actfrcrange; /* njnt x 2: that force's range */
  int* jnt_actgravcomp;    /* njnt: gravcomp on the joint's dofs counts as actuator force */
  double* jnt_range;     /* njnt x 2: radians or metres; ball: (0, cone angle) */
  double* jnt_solref;    /* njnt x 2: solreflimit (time constant, damping ratio) */

  /* degrees of freedom */
  int* dof_bodyid;       /* nv */
  int* dof_jntid;        /* nv */
  int* dof_parentid;     /* nv: previous dof on the path to the root, -1 */
  int* dof_Madr;         /* nv: start of row i in qM (diagonal first) */
  double* dof_armature;  /* nv */
  double* dof_damping;   /* nv */
  double* dof_frictionloss; /* nv: dry friction's bound (force or torque); 0 none */

  /* geoms */
  int* geom_type;        /* ngeom: imp_geom_type */
  int* geom_contype;     /* ngeom */
  int* geom_conaffinity; /* ngeom */
  int* geom_condim;      /* ngeom: 1, 3, 4 or 6 */
  int* geom_bodyid;      /* ngeom */
  int* geom_group;       /* ngeom */
  int* geom_matid;       /* ngeom: -1 when none */
  double* geom_size;     /* ngeom x 3 */
  double* geom_pos;      /* ngeom x 3: in the body frame */
  double* geom_quat;     /* ngeom x 4: in the body frame */
  double* geom_friction; /* ngeom x 3: sliding, torsional, rolling */
  double* geom_margin;   /* ngeom */
  double* geom_gap;      /* ngeom */
  double* geom_solref;   /* ngeom x 2: contact solref (time constant, damping ratio) */
  int* geom_dataid;      /* ngeom: mesh id for mesh geoms, hfield id for hfield geoms, -1 otherwise */
  int* geom_priority;    /* ngeom: contact parameters come from the higher priority */
  double* geom_rbound;   /* ngeom: bounding-sphere radius about geom_xpos, 0 for planes */
  double* geom_aabb;     /* ngeom x 6: box in the geom frame: centre (3), half sizes (3); planes 0 */
  float* geom_rgba;      /* ngeom x 4 */

  /* meshes: vertices in the mesh frame (the volume centroid, principal
     axes), the frame a mesh geom's pos/quat place */
  int* mesh_vertadr;     /* nmesh */
  int* mesh_vertnum;     /* nmesh */
  int* mesh_faceadr;     /* nmesh */
  int* mesh_facenum;     /* nmesh */
  int* mesh_hulladr;     /* nmesh */
  int* mesh_hullnum;     /* nmesh */
  double* mesh_vert;     /* nmeshvert x 3 */
  int* mesh_face;        /* nmeshface x 3: vertex indices local to the mesh, outward CCW */
  int* mesh_hull;        /* nmeshhull: indices (local to the mesh) of the hull's vertices */
  /* the hull's vertex adjacency for support search by hill climbing, -1 when
     none (a flat hull): at mesh_graph + adr, hull positions p have their
     neighbours' positions (ascending) at offsets [g[p], g[p + 1]) */
  int* mesh_graphadr;    /* nmesh */
  int* mesh_graph;       /* nmeshgraph */
  int* mesh_pathadr;     /* nmesh: offset of the file path in paths */
  /* texture coordinates (MJCF reference: mesh texcoord; OBJ "vt"), per
     face corner since a seam gives one vertex two: corner k of face f of
     mesh i has mesh_texcoord[2 * (mesh_texcoordadr[i] + mesh_facetexcoord[3 * (faceadr + f) + k])].
     v is measured from the image's first (top) row, MuJoCo's 1 - v of the file */
  int* mesh_texcoordadr;  /* nmesh: first in mesh_texcoord, -1 when the mesh has none */
  int* mesh_texcoordnum;  /* nmesh */
  float* mesh_texcoord;   /* nmeshtexcoord x 2 */
  int* mesh_facetexcoord; /* nmeshface x 3: local to the mesh's texcoords; -1 without them */

  /* height fields (MJCF asset/hfield): an nrow x ncol grid of elevations
     over [-size0, size0] x [-size1, size1] of the geom frame, row r at
     y = -size1 + 2 size1 r / (nrow - 1) (row 0 at -y, so the first row of
     a PNG or of inline elevation, the top of the picture, is at +y),
     column c at x likewise; the surface at z = data size2, the solid
     reaching down to z = -size3 (MuJoCo's layout) */
  double* hfield_size;   /* nhfield x 4: radius_x, radius_y, elevation_z, base_z */
  int* hfield_nrow;      /* nhfield */
  int* hfield_ncol;      /* nhfield */
  int* hfield_adr;       /* nhfield: first value in hfield_data */
  float* hfield_data;    /* nhfielddata: elevations, row-major, normalized to [0, 1] at load
                            (values a user writes later are taken as they are) */

  /* explicit contact pairs: checked whatever the filters say, with their
     own parameters */
  int* pair_geom1;       /* npair */
  int* pair_geom2;       /* npair */
  int* pair_dim;         /* npair: condim */
  double* pair_friction; /* npair x 5: tangent1, tangent2, torsional, rolling1, rolling2 */
  double* pair_margin;   /* npair */
  double* pair_gap;      /* npair */
  double* pair_solref;   /* npair x 2 */

  /* equality constraints */
  int* eq_type;          /* neq: imp_eq_type */
  int* eq_obj1id;        /* neq: body1 (connect, weld) or joint1 */
  int* eq_obj2id;        /* neq: body2 (0, the world, when omitted) or joint2 (-1 when omitted) */
  int* eq_active;        /* neq: 0 when active="false" */
  double* eq_solref;     /* neq x 2 */
  double* eq_data;       /* neq x 11: connect: anchor in body1's frame (3), the same
                            point in body2's frame at qpos0 (3), or the two
                            sites' positions; weld: a point in body1's frame
                            (3), body2's orientation relative to body1 (quat
                            4), the point of body2 that must coincide with it,
                            in body2's frame (3): body2's origin (0) and its
                            place from relpose or qpos0, or the two sites'
                            positions; joint: polycoef (5) */

  /* excluded body pairs, body1 < body2, sorted by (body1, body2) */
  int* exclude_body1;    /* nexclude */
  int* exclude_body2;    /* nexclude */

  /* sites */
  int* site_type;        /* nsite: imp_geom_type */
  int* site_bodyid;      /* nsite */
  int* site_group;       /* nsite */
  int* site_matid;       /* nsite */
  double* site_size;     /* nsite x 3 */
  double* site_pos;      /* nsite x 3 */
  double* site_quat;     /* nsite x 4 */
  float* site_rgba;      /* nsite x 4 */

  /* cameras */
  int* cam_bodyid;       /* ncam */
  int* cam_mode;         /* ncam: 0 fixed, 1 track, 2 trackcom, 3 targetbody, 4 targetbodycom */
  int* cam_targetbodyid; /* ncam: -1 when none */
  double* cam_pos;       /* ncam x 3 */
  double* cam_quat;      /* ncam x 4: camera looks along its -z, y up */
  double* cam_fovy;      /* ncam: degrees */
  double* cam_pos0;      /* ncam x 3: world offset from the body origin at qpos0 (track) */
  double* cam_poscom0;   /* ncam x 3: world offset from the body's subtree com at qpos0 (trackcom) */
  double* cam_mat0;      /* ncam x 9: world orientation at qpos0 (track, trackcom) */
  /* intrinsics (MJCF camera resolution, sensorsize, focal, principal):
     with a sensor (cam_sensorsize > 0) the image is the sensor seen
     through a pinhole at focal distance, and cam_fovy follows from it */
  int* cam_resolution;    /* ncam x 2: width, height in pixels */
  double* cam_sensorsize; /* ncam x 2: width, height, length units; 0 0: none (fovy) */
  double* cam_intrinsic;  /* ncam x 4: focal x, y; principal point offset x, y from the
                             image centre; length units; 0 without a sensor */

  /* lights */
  int* light_bodyid;       /* nlight */
  int* light_mode;         /* nlight: as cam_mode */
  int* light_targetbodyid; /* nlight */
  int* light_directional;  /* nlight */
  int* light_castshadow;   /* nlight */
  int* light_active;       /* nlight */
  double* light_pos;       /* nlight x 3 */
  double* light_dir;       /* nlight x 3 */
  double* light_pos0;      /* nlight x 3: as cam_pos0 */
  double* light_poscom0;   /* nlight x 3: as cam_poscom0 */
  double* light_dir0;      /* nlight x 3: world direction at qpos0 (track, trackcom) */
  float* light_attenuation;/* nlight x 3 */
  float* light_cutoff;     /* nlight */
  float* light_exponent;   /* nlight */
  float* light_ambient;    /* nlight x 3 */
  float* light_diffuse;    /* nlight x 3 */
  float* light_specular;   /* nlight x 3 */

  /* materials */
  int* mat_texid;        /* nmat: -1 when none */
  int* mat_texuniform;   /* nmat */
  float* mat_texrepeat;  /* nmat x 2 */
  float* mat_emission;   /* nmat */
  float* mat_specular;   /* nmat */
  float* mat_shininess;  /* nmat */
  float* mat_reflectance;/* nmat */
  float* mat_rgba;       /* nmat x 4 */

  /* textures: kept as described; the renderer makes the pixels */
  int* tex_type;         /* ntex: 0 2d, 1 cube, 2 skybox */
  int* tex_builtin;      /* ntex: 0 none (file), 1 gradient, 2 checker, 3 flat */
  int* tex_width;        /* ntex */
  int* tex_height;       /* ntex */
  int* tex_fileadr;      /* ntex: offset in paths, -1 when builtin */
  float* tex_rgb1;       /* ntex x 3 */
  float* tex_rgb2;       /* ntex x 3 */
  float* tex_markrgb;    /* ntex x 3 */
  int* tex_mark;         /* ntex: 0 none, 1 edge, 2 cross, 3 random */
  float* tex_random;     /* ntex */
  int* tex_gridsize;     /* ntex x 2: rows, columns of a cube or skybox file's grid */
  char* tex_gridlayout;  /* ntex x 13: which face each grid cell holds, row-major:
                            R L U D F B, '.' none (MJCF gridlayout) */

  /* actuators */
  int* actuator_trntype;    /* nu: imp_trn_type */
  int* actuator_trnid;      /* nu x 2: joint, tendon, site (cranksite) or body id; second:
                               refsite or slidersite id, -1 none */
  double* actuator_cranklength; /* nu: slider-crank connecting rod length */
  int* actuator_dofadr;     /* nu: actuator u's moment is 0 outside dofs dofadr ..  */
  int* actuator_dofnum;     /* nu:   dofadr + dofnum - 1 (transmission.c) */
  int* actuator_dyntype;    /* nu: imp_dyn_type */
  int* actuator_gaintype;   /* nu: imp_gain_type */
  int* actuator_biastype;   /* nu: imp_bias_type */
  int* actuator_ctrllimited;  /* nu */
  int* actuator_forcelimited; /* nu */
  double* actuator_gear;    /* nu x 6 */
  double* actuator_gainprm; /* nu x IMP_NGAIN */
  double* actuator_biasprm; /* nu x IMP_NGAIN */
  double* actuator_ctrlrange;  /* nu x 2 */
  double* actuator_forcerange; /* nu x 2 */
  double* actuator_dynprm;  /* nu x IMP_NGAIN: dynamics parameters (filter: tau; muscle:
                               tau_act, tau_deact, tausmooth) */
  int* actuator_actadr;     /* nu: first activation in act, -1 without a state */
  int* actuator_actnum;     /* nu: activations (0 or 1) */
  int* actuator_actlimited; /* nu: act clamped to actrange after each step */
  double* actuator_actrange;   /* nu x 2 */
  int* actuator_actearly;   /* nu: the force uses the next step's act (MuJoCo 3.x) */
  double* actuator_lengthrange; /* nu x 2: feasible actuator lengths (muscles) */
  double* actuator_acc0;    /* nu: |M^-1 moment| at qpos0, the acceleration of unit force */

  /* tendons (tendon.c): tendon i's path is wrap objects tendon_adr[i] ..
     tendon_adr[i] + tendon_num[i] - 1 */
  int* tendon_adr;          /* ntendon */
  int* tendon_num;          /* ntendon */
  int* tendon_limited;      /* ntendon: length limits are constraint rows */
  int* tendon_actfrclimited;/* ntendon: the actuators' total force on it is clamped */
  int* tendon_group;        /* ntendon */
  int* tendon_matid;        /* ntendon: -1 none */
  double* tendon_range;     /* ntendon x 2: length limits */
  double* tendon_actfrcrange; /* ntendon x 2 */
  double* tendon_solref;    /* ntendon x 2: of the limit rows */
  double* tendon_margin;    /* ntendon: the limit acts at range[0] + margin, range[1] - margin */
  double* tendon_stiffness; /* ntendon x 3: spring force -(a x + b x^2 + c x^3) */
  double* tendon_damping;   /* ntendon x 3: damping force -(a v + b v|v| + c v^3) */
  double* tendon_frictionloss; /* ntendon: dry friction bound, a constraint row */
  double* tendon_armature;  /* ntendon: inertia of length changes, qM += a J'J */
  double* tendon_lengthspring; /* ntendon x 2: the spring's rest band (equal: a point) */
  double* tendon_length0;   /* ntendon: length at qpos0 */
  double* tendon_width;     /* ntendon: drawing radius */
  float* tendon_rgba;       /* ntendon x 4 */
  int* wrap_type;           /* nwrap: imp_wrap_type */
  int* wrap_objid;          /* nwrap: joint, site or geom id; -1 pulley */
  double* wrap_prm;         /* nwrap: joint coef, pulley divisor, geom's side site (-1 none) */

  /* sensors, in file order; sensor i writes sensordata[sensor_adr[i] ..
     sensor_adr[i] + sensor_dim[i] - 1] (MuJoCo's layout) */
  int* sensor_type;      /* nsensor: imp_sensor_type */
  int* sensor_datatype;  /* nsensor: imp_sensor_datatype */
  int* sensor_needstage; /* nsensor: imp_stage whose results it reads */
  int* sensor_objtype;   /* nsensor: imp_obj_type of the sensed object, -1 none (clock) */
  int* sensor_objid;     /* nsensor: its id, -1 none */
  int* sensor_reftype;   /* nsensor: imp_obj_type of the reference frame, -1 world */
  int* sensor_refid;     /* nsensor: its id, -1 world */
  int* sensor_dim;       /* nsensor: values written */
  int* sensor_adr;       /* nsensor: first value in sensordata */
  double* sensor_cutoff; /* nsensor: |value| limit (real), upper limit (positive); 0 none */
  double* sensor_noise;  /* nsensor: noise standard deviation (flag sensornoise) */

  /* keyframes */
  double* key_time;      /* nkey */
  double* key_qpos;      /* nkey x nq */
  double* key_qvel;      /* nkey x nv */
  double* key_ctrl;      /* nkey x nu */
  double* key_act;       /* nkey x na */
  double* key_mpos;      /* nkey x nmocap x 3: mocap_pos (default: the bodies' pos) */
  double* key_mquat;     /* nkey x nmocap x 4: mocap_quat, unit (default: the bodies' quat) */

  /* reference configuration */
  double* qpos0;         /* nq: the configuration of the model file */
  double* qpos_spring;   /* nq: joint spring rest positions */

  /* names: offsets into names, one per object, "" when unnamed */
  int* name_bodyadr;     /* nbody */
  int* name_jntadr;      /* njnt */
  int* name_geomadr;     /* ngeom */
  int* name_siteadr;     /* nsite */
  int* name_camadr;      /* ncam */
  int* name_lightadr;    /* nlight */
  int* name_actuatoradr; /* nu */
  int* name_keyadr;      /* nkey */
  int* name_matadr;      /* nmat */
  int* name_texadr;      /* ntex */
  int* name_meshadr;     /* nmesh */
  int* name_hfieldadr;   /* nhfield */
  int* name_pairadr;     /* npair */
  int* name_eqadr;       /* neq */
  int* name_sensoradr;   /* nsensor */
  int* name_tendonadr;   /* ntendon */
  char* names;           /* nnames: the model's name first */
  char* paths;           /* npaths: texture and mesh file paths, resolved */

  /* what the loader said: one warning a line, "file:line: message" */
  int nwarning;
  char* warnings;

  void* buffer; /* the one allocation all arrays above live in */
  size_t nbuffer;
} imp_model;

/* A controller called by every forward at the point where the controls
   are read (imp_set_control_callback, impetus.h); user is its own pointer. */
struct imp_data;
struct imp_cproblem; /* one island's contact-space problem (contact.h) */
typedef void (*imp_control_fn)(const imp_model* m, struct imp_data* d, void* user);

typedef struct imp_data {
  /* arena for the scratch of a step: a stack in its own allocation, sized
     for the model and the contact solver in use (imp_set_solver grows it) */
  void* arena;
  size_t narena;  /* bytes */
  size_t pstack;  /* bytes in use */
  size_t maxuse_arena;

  int nwarning_nan;   /* times the state went bad and was reset */
  long long nstep;    /* steps taken since reset */
  /* the control callback and its pointer (imp_set_control_callback): not
     state, so imp_reset_data and imp_copy_data leave them as they are */
  imp_control_fn control_fn;
  void* control_user;

  /* state */
  double time;
  double* qpos;  /* nq */
  double* qvel;  /* nv */
  double* ctrl;  /* nu */
  double* act;   /* na: actuator activations (state, integrated with qpos, qvel) */
  double* qacc;  /* nv: acceleration of the last forward */
  double* qfrc_applied; /* nv: user-applied generalized force */
  double* xfrc_applied; /* nbody x 6: user-applied force, torque at com */
  /* mocap bodies (m->body_mocapid): their world pose, set by the user
     between steps (a mocap body has no dofs and moves only when these are
     set; its velocity is taken as zero). Kinematics places mocap body i
     and its subtree at (mocap_pos[i], mocap_quat[i]) instead of its
     body_pos/quat; the quaternion need not be unit (kinematics normalizes
     a copy). Reset to the bodies' pos/quat, or to a keyframe's mpos/mquat. */
  double* mocap_pos;    /* nmocap x 3: world position of the body frame */
  double* mocap_quat;   /* nmocap x 4: world orientation (w, x, y, z) */

  /* kinematics */
  double* xpos;     /* nbody x 3 */
  double* xquat;    /* nbody x 4 */
  double* xmat;     /* nbody x 9 */
  double* xipos;    /* nbody x 3: centre of mass */
  double* ximat;    /* nbody x 9: principal axes */
  double* xanchor;  /* njnt x 3 */
  double* xaxis;    /* njnt x 3 */
  double* geom_xpos;  /* ngeom x 3 */
  double* geom_xmat;  /* ngeom x 9 */
  double* site_xpos;  /* nsite x 3 */
  double* site_xmat;  /* nsite x 9 */
  double* cam_xpos;   /* ncam x 3 */
  double* cam_xmat;   /* ncam x 9 */
  double* light_xpos; /* nlight x 3 */
  double* light_xdir; /* nlight x 3 */
  double* subtree_com; /* nbody x 3 */

  /* com-based spatial quantities, (angular; linear) about subtree_com of the root */
  double* cdof;     /* nv x 6: motion subspace of each dof */
  double* cinert;   /* nbody x 10: body inertia in the com frame */
  double* cvel;     /* nbody x 6 */
  double* cdof_dot; /* nv x 6 */
  double* crb;      /* nbody x 10: composite inertia */

  /* inertia */
  double* qM;        /* nM: tree-sparse joint-space inertia */
  double* qLD;       /* nM: L'DL factor, D on the diagonal */
  double* qLDiagInv; /* nv */
  double* qH;        /* nM: factor of the matrix the step uses, M - h D (integrate.c):
                        L'DL of M + h diag(damping) (Euler), of M - h (D + D')/2
                        (implicitfast, and the contact stage's of implicit) */
  double* qHDiagInv; /* nv */
  double* qLU;       /* nM: implicit's unsymmetric M - h D = U D L: L and D as in qH */
  double* qLUt;      /* nM: ... and U transposed, stored where L is (inertia.c) */
  double* qLUDiagInv;/* nv */

  /* tendons (tendon.c): lengths and Jacobians after the positions, rows
     sparse with dofs descending, row i at ten_J_rowadr[i] = i nJten */
  double* ten_length;        /* ntendon */
  double* ten_velocity;      /* ntendon: ten_J qvel */
  int* ten_J_rownnz;         /* ntendon */
  int* ten_J_rowadr;         /* ntendon */
  int* ten_J_colind;         /* ntendon x nJten */
  double* ten_J;             /* ntendon x nJten: d ten_length / d qpos (velocity space) */
  int* ten_wrapadr;          /* ntendon: first point of its path in wrap_xpos */
  int* ten_wrapnum;          /* ntendon: points of its path (drawing) */
  int* wrap_obj;             /* nwrap x 2: per point: -1 site, -2 pulley, geom id on a wrap */
  double* wrap_xpos;         /* nwrap x 6: the path's points, world */

  /* forces */
  double* actuator_length;   /* nu */
  double* actuator_moment;   /* nu x nv: d actuator_length / d qpos (as qvel), transmission.c */
  double* actuator_velocity; /* nu */
  double* actuator_force;    /* nu */
  double* act_dot;           /* na: activation derivatives of the last forward */
  double* qfrc_actuator;     /* nv */
  double* qfrc_passive;      /* nv */
  double* qfrc_gravcomp;     /* nv: gravity compensation (body gravcomp), in passive or actuator */
  double* qfrc_bias;         /* nv: Coriolis, centrifugal, gravity */
  double* qfrc_smooth;       /* nv: passive + actuator + applied - bias */
  double* qacc_smooth;       /* nv: M^-1 qfrc_smooth */
  double* qfrc_constraint;   /* nv: from the contact stage (zero until contacts) */

  /* sensors (sensor.c): computed by imp_forward from the state it starts
     with, so after imp_step they describe the state before the step, as
     MuJoCo's mj_step leaves them */
  double* sensordata;        /* nsensordata: sensor i at sensor_adr[i] */
  double* cacc;              /* nbody x 6: body acceleration, gravity offset (com-based);
                                only when a sensor needs it */
  double* cfrc_int;          /* nbody x 6: wrench the parent applies to the body (com-based) */
  double* cfrc_ext;          /* nbody x 6: external wrench: applied, contacts, connect, weld */
  double* subtree_linvel;    /* nbody x 3: velocity of the subtree's centre of mass */
  double* subtree_angmom;    /* nbody x 3: the subtree's angular momentum about it */
  uint64_t sensor_rng;       /* state of the noise generator (flag sensornoise) */

  /* collision: contacts of the last forward, in pair order */
  int ncon;                  /* contacts in contact[] */
  imp_contact* contact;      /* nconmax */
  int ncon_dropped;          /* contacts lost at the last forward because contact[] was full */
  int nwarning_contactfull;  /* forwards that ran out of contact slots */
  int npair_broad;           /* geom pairs that passed the broad phase and filters */
  int npair_narrow;          /* of those, pairs whose bounding volumes met (narrow phase ran) */
  double timer[IMP_NTIMER];  /* seconds per imp_timer, accumulated since reset */

  /* constraints of the last forward (constraints.c): rows grouped in blocks
     (one per contact, limit side or equality). Rows of a contact are in its
     frame: normal, t1, t2, torsional, rolling1, rolling2. The Jacobian is
     stored by rows, each row's non-zeros on the dofs of the chains of its
     bodies (tree-sparse), so no row costs nv. */
  int nefc;                  /* rows */
  int nblk;                  /* blocks */
  int nefc_dropped;          /* rows lost at the last forward: more than njmax */
  int nwarning_efcfull;      /* forwards that ran out of rows */
  int nefc_J;                /* entries of efc_J the rows reserved (each row its
                                dofs' ancestor closure), at most m->nJnnz */
  int nefc_dropped_J;        /* of nefc_dropped, rows lost because efc_J was full */
  int* efc_type;             /* njmax: imp_constraint_type of the row's block */
  int* efc_id;               /* njmax: contact index, joint id or equality id */
  int* efc_blk;              /* njmax: block of the row */
  int* efc_J_rownnz;         /* njmax: non-zeros of the row */
  int* efc_J_rowadr;         /* njmax: first non-zero in efc_J_colind / efc_J */
  int* efc_J_colind;         /* nJnnz: dof of each non-zero */
  double* efc_J;             /* nJnnz: Jacobian values */
  double* efc_pos;           /* njmax: violation: dist - (margin - gap) for contacts,
                                distance to the limit, equality residual; 0 on friction rows */
  double* efc_b;             /* njmax: stabilization target of v (Todorov 2010, eq. 11) */
  double* efc_v0;            /* njmax: row velocity at the end of the step without constraint impulses */
  double* efc_vel;           /* njmax: row velocity at the end of the step, with them */
  double* efc_impulse;       /* njmax: impulse of the row (force = impulse / h);
                                for a contact, what geom1 applies to geom2 in the
                                contact frame: normal >= 0 pushes geom2 along +n */
  int* blk_efcadr;           /* njmax: first row of each block */
  int* blk_dim;              /* njmax: rows of each block */
  int* blk_type;             /* njmax: imp_constraint_type */
  int* blk_id;               /* njmax: contact index, joint id or equality id */
  int* blk_island;           /* njmax: island of the block */
  double* blk_mu;            /* njmax: cone coefficient in solver variables (sliding friction) */
  double* blk_scale;         /* njmax x 6: solver variable g = impulse / scale per row;
                                1 for normal and sliding rows, (torsional or rolling
                                friction) / sliding friction otherwise, so that the
                                MJCF elliptic cone becomes a circular cone */
  int nisland;               /* islands of the last forward: trees coupled by constraints */
  int* island_blkadr;        /* njmax: first entry of each island in island_blk */
  int* island_blknum;        /* njmax: blocks of each island */
  int* island_blk;           /* njmax: blocks, island by island */
  /* per island, written by its solve (contact.c), summed below in island order */
  int* island_iter;          /* njmax: solver iterations, retries included */
  int* island_newton;        /* njmax: of which accepted a Newton point */
  int* island_exit;          /* njmax: imp_solver_exit of the answer kept */
  int* island_flags;         /* njmax: IMP_ISLAND_HELD | _RESCUED | _BOUNDED | _OVER_BUDGET */
  double* island_work;       /* njmax: work of its solves (iterations x rows^work_power, contact.h) */
  double* island_budget;     /* njmax: its share of the step's work budget */
  double* island_residual;   /* njmax: relative common residual of the answer */
  double* island_residual_abs; /* njmax: absolute */
  /* the islands' worker pool (imp_set_threads): NULL for one thread */
  int nthread;
  struct imp_pool* pool;
  void* worker_scratch;      /* worker_scratch_bytes: the threads' scratch (contact.c) */
  size_t worker_scratch_bytes;

  /* contact stage statistics of the last forward, summed over islands */
  int solver;                /* registry index of the contact solver in use (imp_set_solver) */
  int solver_iter;           /* iterations, all islands */
  int solver_newton;         /* iterations whose Newton point was accepted (todorov) */
  int solver_held;           /* islands solved again with their corrections held (contact.c) */
  int solver_rescued;        /* islands whose answer added energy, solved again by pgs */
  int solver_bounded;        /* islands stopped unconverged by the work bound (IMP_SOLVE_WORK_MAX) */
  int solver_exit;           /* worst imp_solver_exit over islands */
  double solver_residual;    /* largest relative common residual over islands (residual.c) */
  double solver_residual_abs;/* largest absolute common residual over islands */
  int nwarning_solver;       /* forwards where a solver did not converge */
  /* the step's work budget (imp_set_step_budget, contact.h): kept by
     imp_reset_data like the solver */
  double step_budget;        /* most work (multiply-adds, estimated) of a step's solves */
  double solver_work;        /* work of the last forward's solves, all islands */
  int solver_over_budget;    /* islands stopped unconverged by the budget, last forward */
  int nstep_over_budget;     /* forwards with such an island since the reset */
  /* called with every island's problem before it is solved (NULL: none;
     imp_set_problem_hook, contact.h); kept by imp_reset_data */
  void (*problem_hook)(void* ctx, const struct imp_cproblem* p, const double* warm);
  void* problem_hook_ctx;

  /* warm start: the last step's impulses by contact and block, to match the
     next step's contacts contact by contact */
  int warm_nblk;             /* blocks saved */
  int* warm_type;            /* njmax */
  int* warm_id;              /* njmax: joint or equality id; geom1 for contacts */
  int* warm_id2;             /* njmax: geom2 for contacts, side for limits */
  int* warm_order;           /* njmax: the saved blocks by (type, id, id2, index),
                                for match_warm's binary search */
  int* warm_retarget;        /* njmax: 1 when the block's island was
                                IMP_ISLAND_RETARGETED */
  double* warm_pos;          /* njmax x 3: contact position */
  double* warm_frame;        /* njmax x 9: contact frame, to carry friction across frames */
  double* warm_impulse;      /* njmax x 6 */

  void* buffer; /* the one allocation */
  size_t nbuffer;
} imp_data;

#endif
