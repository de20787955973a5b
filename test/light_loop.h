/* The light linkage of Menagerie's toddlerbot head as MJCF, for the tests
   that need a mechanism closed twice over (test_joint_friction.c,
   test_contact_redundant.c): a head on a pitch hinge, a light plate on it,
   two rods hanging from the plate, each rod's tip held to the base by two
   connects 0.1 m apart along the hinge axis (y), so their rows in x and z
   are the same rows twice and the rows along y move nothing; every joint
   has damping and dry friction. */
#ifndef IMPETUS_TEST_LIGHT_LOOP_H
#define IMPETUS_TEST_LIGHT_LOOP_H

#include <stdio.h>

/* The MJCF into xml (size bytes): standing, the base is a free box on a
   floor, else fixed to the world; iterations, the solver's limit.
   snprintf's count. */
static inline int imp_test_light_loop_xml(char* xml, size_t size, int standing, int iterations) {
  return snprintf(
      xml, size,
      "<mujoco><option timestep='0.002' iterations='%d'><flag eulerdamp='disable'/></option>"
      "<default><joint axis='0 1 0' damping='0.01' frictionloss='0.01'/>"
      "<geom contype='0' conaffinity='0'/></default><worldbody>%s"
      "<body name='base' pos='0 0 0.1'>%s"
      "<site name='g_front' pos='0.00725 0 0.12193'/><site name='g_front_y' pos='0.00725 0.1 0.12193'/>"
      "<site name='g_back' pos='-0.00725 0 0.11804'/><site name='g_back_y' pos='-0.00725 0.1 0.11804'/>"
      "<body name='head' pos='0 0 0.12'><joint name='pitch'/>"
      "<inertial pos='-0.01 0 0.045' mass='0.15' diaginertia='1e-4 1.2e-4 1e-4'/>"
      "<body name='plate' pos='-0.027 0 0.0326'>"
      "<joint name='act' armature='0.005' frictionloss='0.006' damping='0.001'/>"
      "<inertial pos='0 0 0' mass='0.002' diaginertia='6e-8 6e-8 1e-7'/>"
      "<body name='rod_front' pos='0.00724 0 0.00197'><joint name='front'/>"
      "<inertial pos='0.0135 0 -0.0165' mass='0.003' diaginertia='1e-6 2e-8 1e-6'/>"
      "<site name='r_front' pos='0.02701 0 -0.03264'/><site name='r_front_y' pos='0.02701 0.1 -0.03264'/>"
      "</body><body name='rod_back' pos='-0.00724 0 -0.00197'><joint name='back'/>"
      "<inertial pos='0.0135 0 -0.0165' mass='0.003' diaginertia='1e-6 2e-8 1e-6'/>"
      "<site name='r_back' pos='0.02699 0 -0.03259'/><site name='r_back_y' pos='0.02699 0.1 -0.03259'/>"
      "</body></body></body></body></worldbody><equality>"
      "<connect site1='r_front' site2='g_front'/><connect site1='r_front_y' site2='g_front_y'/>"
      "<connect site1='r_back' site2='g_back'/><connect site1='r_back_y' site2='g_back_y'/>"
      "</equality></mujoco>",
      iterations, standing ? "<geom type='plane' size='0 0 1' contype='1' conaffinity='1'/>" : "",
      standing ? "<freejoint/><geom type='box' size='.05 .05 .1' mass='2' contype='1' "
                 "conaffinity='1'/>"
               : "");
}

#endif
