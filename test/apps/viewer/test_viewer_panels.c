/* The panels' text: the info panel shows the contact solver, its
   iterations and residual, contacts, time and speed as the data has them;
   the state panel lists joint values and actuator controls with the
   selected one marked; the help panel names every binding; long messages
   wrap. */
#include "panels.h"
#include "scene.h"
#include "test_util.h"

/* 1 when the panel has a row whose label is label and whose value contains value. */
static int has_row(const imp_viewer_panel* p, const char* label, const char* value) {
  const char *l = p->left, *r = p->right;
  while (l && r) {
    size_t ln = strcspn(l, "\n"), rn = strcspn(r, "\n");
    char lv[256], rv[512];
    snprintf(lv, sizeof lv, "%.*s", (int)ln, l);
    snprintf(rv, sizeof rv, "%.*s", (int)rn, r);
    if (strcmp(lv, label) == 0 && strstr(rv, value)) return 1;
    l = l[ln] ? l + ln + 1 : NULL;
    r = r[rn] ? r + rn + 1 : NULL;
  }
  return 0;
}

static int lines(const char* s) {
  int n = 1;
  for (; *s; s++) n += *s == '\n';
  return n;
}

START_TEST(info_shows_the_contact_stage_of_the_last_step) {
  imp_model* m = imp_test_load_model("box_rest.xml");
  imp_data* d = imp_make_data(m);
  imp_set_solver(m, d, imp_solver_name(1));
  for (int i = 0; i < 20; i++) imp_step(m, d);
  ck_assert_int_gt(d->ncon, 0);
  imp_viewer_ui ui;
  imp_viewer_ui_default(&ui, 7, 0, m->nu);
  ui.speed = 2;
  imp_camera cam = {.type = IMP_CAMERA_FREE};
  imp_viewer_status st = {.fps = 59.6, .rtf = 0.198};
  imp_viewer_panel p;
  imp_viewer_info_panel(&p, m, d, &ui, &cam, &st);
  char want[64];
  snprintf(want, sizeof want, "%d", d->ncon);
  ck_assert_msg(has_row(&p, "Contacts", want), "%s", p.right);
  ck_assert(has_row(&p, "Solver", imp_solver_name(1)));
  snprintf(want, sizeof want, "%d", d->solver_iter);
  ck_assert(has_row(&p, "Iterations", want));
  snprintf(want, sizeof want, "%.2e", d->solver_residual);
  ck_assert(has_row(&p, "Residual", want));
  ck_assert(has_row(&p, "Speed", "20% (achieved 19.8%)"));
  ck_assert(has_row(&p, "FPS", "60"));
  ck_assert(has_row(&p, "Camera", "free"));
  /* a replay with recorded solver columns shows those, not d's re-solve */
  const double recorded[4] = {d->ncon + 7, 99, d->solver_iter + 123, 4.5e-3};
  st.recorded_solver = recorded;
  imp_viewer_info_panel(&p, m, d, &ui, &cam, &st);
  snprintf(want, sizeof want, "%d (recorded)", d->ncon + 7);
  ck_assert_msg(has_row(&p, "Contacts", want), "%s", p.right);
  snprintf(want, sizeof want, "%d (recorded)", d->solver_iter + 123);
  ck_assert_msg(has_row(&p, "Iterations", want), "%s", p.right);
  ck_assert_msg(has_row(&p, "Residual", "4.50e-03 (recorded)"), "%s", p.right);
  ck_assert_int_eq(lines(p.left), lines(p.right));
  st.recorded_solver = NULL;
  /* what the frame rate pays for: the window's samples and the shadows */
  ck_assert(has_row(&p, "Render", "shadows off, one sample"));
  st.msaa = 4;
  ui.flags = IMP_VIS_SHADOW;
  imp_viewer_info_panel(&p, m, d, &ui, &cam, &st);
  ck_assert_msg(has_row(&p, "Render", "shadows on, 4x multisampled"), "%s", p.right);
  ui.multisample = 0; /* A pressed */
  imp_viewer_info_panel(&p, m, d, &ui, &cam, &st);
  ck_assert(has_row(&p, "Render", "shadows on, one sample"));
  ui.running = 0; /* paused: no achieved speed to speak of */
  imp_viewer_info_panel(&p, m, d, &ui, &cam, &st);
  ck_assert(has_row(&p, "Time", "(paused)") && !strstr(p.right, "achieved"));
  ck_assert_int_eq(lines(p.left), lines(p.right)); /* the columns stay aligned */
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(state_lists_joints_and_marks_the_selected_actuator) {
  imp_model* m = imp_test_load_model("arm_servo.xml");
  imp_data* d = imp_make_data(m);
  ck_assert_int_gt(m->nu, 1);
  d->qpos[0] = 0.125;
  d->ctrl[1] = -1.5;
  imp_viewer_ui ui;
  imp_viewer_ui_default(&ui, 7, 0, m->nu);
  ui.actuator = 1;
  imp_viewer_panel p;
  imp_viewer_state_panel(&p, m, d, &ui, 100);
  ck_assert(has_row(&p, imp_id2name(m, IMP_OBJ_JOINT, 0), "0.1250"));
  char label[128];
  snprintf(label, sizeof label, "> %s", imp_id2name(m, IMP_OBJ_ACTUATOR, 1));
  ck_assert_msg(has_row(&p, label, "-1.500"), "%s", p.left);
  ck_assert_int_eq(lines(p.left), lines(p.right));
  ck_assert_int_eq(lines(p.left), 1 + m->njnt + 1 + m->nu);
  imp_viewer_state_panel(&p, m, d, &ui, 3); /* cut to the window's height */
  ck_assert_int_eq(lines(p.left), 3);
  /* too short for all: actuators keep half, and the selected one stays in view */
  ui.actuator = m->nu - 1;
  ui.follow_actuator = 1; /* chosen with the keys: scrolled into view */
  imp_viewer_state_panel(&p, m, d, &ui, 6);
  ck_assert_int_eq(lines(p.left), 6);
  snprintf(label, sizeof label, "> %s", imp_id2name(m, IMP_OBJ_ACTUATOR, m->nu - 1));
  ck_assert_msg(has_row(&p, label, "0.000"), "%s", p.left);
  ck_assert(has_row(&p, "Joints", ""));
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(help_names_the_bindings) {
  imp_viewer_panel p;
  imp_viewer_help_panel(&p, 0);
  const char* keys[] = {"Space", "Right", "Backspace", "+ / -", "Ctrl+L | Ctrl+P", "0 - 5", "S", "R",
                        "H A"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    ck_assert_msg(strstr(p.left, keys[i]), "help lacks %s", keys[i]);
  imp_viewer_help_panel(&p, 1);
  ck_assert(strstr(p.right, "one row forward / back"));
}
END_TEST

START_TEST(long_messages_wrap_at_spaces) {
  char out[256];
  imp_viewer_wrap("models/a.xml:12: unknown attribute 'sise' in geom", 20, out, sizeof out);
  ck_assert_str_eq(out, "models/a.xml:12:\nunknown attribute\n'sise' in geom");
  imp_viewer_wrap("abcdefghijklmnopqrstuvwxyz", 10, out, sizeof out);
  ck_assert_str_eq(out, "abcdefghij\nklmnopqrst\nuvwxyz");
  imp_viewer_wrap("a long message", 5, out, 6); /* never past the buffer */
  ck_assert_int_le(strlen(out), 5);
}
END_TEST

int main(void) {
  Suite* s = suite_create("viewer_panels");
  TCase* tc = tcase_create("viewer_panels");
  tcase_add_test(tc, info_shows_the_contact_stage_of_the_last_step);
  tcase_add_test(tc, state_lists_joints_and_marks_the_selected_actuator);
  tcase_add_test(tc, help_names_the_bindings);
  tcase_add_test(tc, long_messages_wrap_at_spaces);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
