/* The state panel's mouse without a window: a model with more actuators
   than the panel has lines (21, as MuJoCo's humanoid) can show every one
   of them by scrolling, the wheel moves only the list under it, the
   selected actuator scrolls into view, a press finds the slider under the
   mouse, and a slider maps its track onto the ctrlrange and never leaves
   it. */
#include <stdio.h>

#include "panels.h"
#include "state_panel.h"
#include "test_util.h"

/* n hinges in a chain, a motor on each; the first limited to [-2, 0.5],
   the second unlimited, the others limited to [-1, 1]. */
static imp_model* chain(int n) {
  static char xml[16384];
  int k = snprintf(xml, sizeof xml, "<mujoco><worldbody>");
  for (int i = 0; i < n; i++)
    k += snprintf(xml + k, sizeof xml - k,
                  "<body pos='0 0 .1'><joint name='j%d' axis='0 1 0'/>"
                  "<geom type='capsule' size='.02' fromto='0 0 0 0 0 .1'/>",
                  i);
  for (int i = 0; i < n; i++) k += snprintf(xml + k, sizeof xml - k, "</body>");
  k += snprintf(xml + k, sizeof xml - k, "</worldbody><actuator>");
  for (int i = 0; i < n; i++)
    k += snprintf(xml + k, sizeof xml - k, "<motor name='a%d' joint='j%d' %s/>", i, i,
                  i == 0   ? "ctrllimited='true' ctrlrange='-2 .5'"
                  : i == 1 ? "ctrllimited='false'"
                           : "ctrllimited='true' ctrlrange='-1 1'");
  snprintf(xml + k, sizeof xml - k, "</actuator></mujoco>");
  return imp_test_load_string(xml);
}

static imp_viewer_ui fresh(int nu) {
  imp_viewer_ui ui;
  imp_viewer_ui_default(&ui, 7, 0, nu);
  return ui;
}

START_TEST(every_actuator_can_be_scrolled_into_view) {
  imp_model* m = chain(21);
  imp_viewer_ui ui = fresh(m->nu);
  imp_viewer_state_layout L;
  imp_viewer_state_arrange(m, &ui, 12, &L);
  /* 12 lines for 22 joint lines and 22 actuator lines: half each */
  ck_assert_int_eq(L.nlines, 12);
  ck_assert(L.joint_header == 0 && L.joint_line == 1 && L.joint_rows == 5);
  ck_assert(L.act_header == 6 && L.act_line == 7 && L.act_rows == 5);
  int seen[21] = {0};
  for (int notch = 0; notch < 40; notch++) { /* the wheel down, a notch at a time */
    imp_viewer_state_arrange(m, &ui, 12, &L);
    imp_viewer_state_commit(&ui, &L);
    ck_assert(L.act_first >= 0 && L.act_first + L.act_rows <= m->nu);
    for (int a = L.act_first; a < L.act_first + L.act_rows; a++) seen[a] = 1;
    ck_assert(imp_viewer_state_scroll(&ui, m, &L, L.act_line + 2, -1));
  }
  for (int a = 0; a < 21; a++) ck_assert_msg(seen[a], "actuator %d never shown", a);
  /* at the end the last row is the last actuator; the joints did not move */
  ck_assert_int_eq(L.act_first, 21 - 5);
  ck_assert_int_eq(L.joint_first, 0);
  /* the panel's text shows the rows the layout says */
  imp_data* d = imp_make_data(m);
  imp_viewer_panel p;
  imp_viewer_state_panel(&p, m, d, &ui, 12);
  ck_assert(strstr(p.left, "a20") && strstr(p.left, "a16") && !strstr(p.left, "a15"));
  /* up again: back to the first */
  imp_viewer_state_scroll(&ui, m, &L, L.act_header, 100);
  imp_viewer_state_arrange(m, &ui, 12, &L);
  ck_assert_int_eq(L.act_first, 0);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(the_wheel_scrolls_the_list_under_it) {
  imp_model* m = chain(21);
  imp_viewer_ui ui = fresh(m->nu);
  imp_viewer_state_layout L;
  imp_viewer_state_arrange(m, &ui, 12, &L);
  ck_assert(imp_viewer_state_scroll(&ui, m, &L, L.joint_line + 1, -3)); /* over a joint row */
  ck_assert(ui.joint_first == 3 && ui.actuator_first == 0);
  ck_assert(imp_viewer_state_scroll(&ui, m, &L, L.joint_header, 1)); /* its header counts */
  ck_assert_int_eq(ui.joint_first, 2); /* notches add up between two frames */
  ck_assert(!imp_viewer_state_scroll(&ui, m, &L, 12, -1)); /* below the panel's lines */
  ck_assert(!imp_viewer_state_scroll(&ui, m, &L, -1, -1));
  /* never past the ends */
  imp_viewer_state_scroll(&ui, m, &L, L.joint_line, -1000);
  ck_assert_int_eq(ui.joint_first, 21 - 5);
  /* a model whose lists fit does not scroll at all */
  imp_model* small = chain(3);
  imp_viewer_ui us = fresh(small->nu);
  imp_viewer_state_arrange(small, &us, 12, &L);
  ck_assert(L.joint_rows == 3 && L.act_rows == 3 && L.nlines == 8);
  imp_viewer_state_scroll(&us, small, &L, L.act_line, -5);
  imp_viewer_state_arrange(small, &us, 12, &L);
  ck_assert_int_eq(L.act_first, 0);
  imp_free_model(small);
  imp_free_model(m);
}
END_TEST

START_TEST(the_selected_actuator_scrolls_into_view_once) {
  imp_model* m = chain(21);
  imp_viewer_ui ui = fresh(m->nu);
  imp_viewer_state_layout L;
  ui.actuator = 17, ui.follow_actuator = 1; /* Down pressed up to actuator 17 */
  imp_viewer_state_arrange(m, &ui, 12, &L);
  ck_assert_int_eq(L.act_first, 17 - 5 + 1); /* the least scroll: it is the last row */
  imp_viewer_state_commit(&ui, &L);
  ck_assert(!ui.follow_actuator && ui.actuator_first == 13);
  /* the wheel may then take it out of view, and it stays out */
  imp_viewer_state_scroll(&ui, m, &L, L.act_line, 5);
  imp_viewer_state_arrange(m, &ui, 12, &L);
  ck_assert_int_eq(L.act_first, 8);
  ui.actuator = 2, ui.follow_actuator = 1; /* Up to actuator 2: it is the first row */
  imp_viewer_state_arrange(m, &ui, 12, &L);
  ck_assert_int_eq(L.act_first, 2);
  imp_free_model(m);
}
END_TEST

/* The panel as the window measured it: 20-pixel lines from y = 8, the
   track from x = 700 to 900, the box 600..1000 x 0..(8 + 12 * 20 + 8). */
static const imp_viewer_panel_geom geom = {600, 0, 1000, 256, 8, 20, 700, 900};

START_TEST(a_press_finds_the_line_and_the_slider_under_it) {
  imp_model* m = chain(21);
  imp_viewer_ui ui = fresh(m->nu);
  imp_viewer_state_layout L;
  ui.actuator_first = 4;
  imp_viewer_state_arrange(m, &ui, 12, &L);
  ck_assert_int_eq(imp_viewer_panel_line(&geom, L.nlines, 650, 8), 0);
  ck_assert_int_eq(imp_viewer_panel_line(&geom, L.nlines, 650, 27.9), 0);
  ck_assert_int_eq(imp_viewer_panel_line(&geom, L.nlines, 650, 28), 1);
  ck_assert_int_eq(imp_viewer_panel_line(&geom, L.nlines, 650, 247), 11);
  ck_assert_int_eq(imp_viewer_panel_line(&geom, L.nlines, 650, 4), -1);   /* the top padding */
  ck_assert_int_eq(imp_viewer_panel_line(&geom, L.nlines, 599, 100), -1); /* left of the box */
  ck_assert_int_eq(imp_viewer_panel_line(&geom, L.nlines, 650, 300), -1); /* below it */
  /* the actuator rows are lines 7..11: actuators 4..8 */
  double y7 = 8 + 7 * 20 + 10, y11 = 8 + 11 * 20 + 10;
  ck_assert_int_eq(imp_viewer_slider_at(&L, &geom, 800, y7), 4);
  ck_assert_int_eq(imp_viewer_slider_at(&L, &geom, 700, y11), 8);
  ck_assert_int_eq(imp_viewer_slider_at(&L, &geom, 905, y7), 4);  /* just past the end */
  ck_assert_int_eq(imp_viewer_slider_at(&L, &geom, 650, y7), -1); /* on the name */
  ck_assert_int_eq(imp_viewer_slider_at(&L, &geom, 800, 8 + 6 * 20 + 10), -1); /* the header */
  ck_assert_int_eq(imp_viewer_slider_at(&L, &geom, 800, 8 + 2 * 20 + 10), -1); /* a joint */
  imp_free_model(m);
}
END_TEST

START_TEST(a_slider_maps_its_track_onto_the_ctrlrange) {
  imp_model* m = chain(3);
  double r[2];
  imp_viewer_slider_range(m, 0, r);
  ck_assert(r[0] == -2 && r[1] == 0.5);
  imp_assert_near(imp_viewer_slider_value(&geom, 700, r), -2, 1e-12);
  imp_assert_near(imp_viewer_slider_value(&geom, 900, r), 0.5, 1e-12);
  imp_assert_near(imp_viewer_slider_value(&geom, 780, r), -2 + 0.4 * 2.5, 1e-12);
  /* dragged beyond the track: the range's end, never beyond */
  ck_assert(imp_viewer_slider_value(&geom, 2000, r) == 0.5);
  ck_assert(imp_viewer_slider_value(&geom, -50, r) == -2);
  /* not control-limited: [-1, 1], as MuJoCo's simulate */
  imp_viewer_slider_range(m, 1, r);
  ck_assert(r[0] == -1 && r[1] == 1);
  imp_assert_near(imp_viewer_slider_value(&geom, 800, r), 0, 1e-12);
  imp_free_model(m);
}
END_TEST

START_TEST(the_track_text_marks_the_value) {
  double r[2] = {-2, 0.5};
  char t[64];
  imp_viewer_slider_text(-2, r, t, sizeof t);
  ck_assert_str_eq(t, "[|--------------------]");
  imp_viewer_slider_text(0.5, r, t, sizeof t);
  ck_assert_str_eq(t, "[--------------------|]");
  imp_viewer_slider_text(-0.75, r, t, sizeof t); /* the middle */
  ck_assert_str_eq(t, "[----------|----------]");
  imp_viewer_slider_text(7, r, t, sizeof t); /* beyond the range (ctrl set by keys): the end */
  ck_assert_str_eq(t, "[--------------------|]");
  imp_viewer_slider_text(0, r, t, 5); /* cut to the buffer */
  ck_assert_int_eq(strlen(t), 4);
}
END_TEST

int main(void) {
  Suite* s = suite_create("viewer_state_panel");
  TCase* tc = tcase_create("viewer_state_panel");
  tcase_add_test(tc, every_actuator_can_be_scrolled_into_view);
  tcase_add_test(tc, the_wheel_scrolls_the_list_under_it);
  tcase_add_test(tc, the_selected_actuator_scrolls_into_view_once);
  tcase_add_test(tc, a_press_finds_the_line_and_the_slider_under_it);
  tcase_add_test(tc, a_slider_maps_its_track_onto_the_ctrlrange);
  tcase_add_test(tc, the_track_text_marks_the_value);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
