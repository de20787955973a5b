/* The viewer's input logic without a window: every key does what the help
   panel says, slow motion never exceeds real time, cameras cycle through
   the model's and back to the free one, groups and overlays toggle, mouse
   buttons and modifiers pick the right drag, double clicks are recognised,
   and actuator control stays within the actuator's range. */
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "input.h"
#include "scene.h"
#include "test_util.h"

static imp_viewer_cmd key(int k, int mods) {
  return imp_viewer_key_action(k, mods, 0);
}

START_TEST(keys_map_to_the_documented_actions) {
  struct { int key, mods, action, arg; } table[] = {
      {GLFW_KEY_SPACE, 0, IMP_ACT_RUN_TOGGLE, 0},
      {GLFW_KEY_RIGHT, 0, IMP_ACT_STEP, 0},
      {GLFW_KEY_BACKSPACE, 0, IMP_ACT_RESET, 0},
      {GLFW_KEY_L, GLFW_MOD_CONTROL, IMP_ACT_RELOAD, 0},
      {GLFW_KEY_EQUAL, GLFW_MOD_SHIFT, IMP_ACT_FASTER, 0},
      {GLFW_KEY_KP_ADD, 0, IMP_ACT_FASTER, 0},
      {GLFW_KEY_MINUS, 0, IMP_ACT_SLOWER, 0},
      {GLFW_KEY_RIGHT_BRACKET, 0, IMP_ACT_CAMERA_NEXT, 0},
      {GLFW_KEY_LEFT_BRACKET, 0, IMP_ACT_CAMERA_PREV, 0},
      {GLFW_KEY_ESCAPE, 0, IMP_ACT_CAMERA_FREE, 0},
      {GLFW_KEY_TAB, 0, IMP_ACT_PANELS, 0},
      {GLFW_KEY_F1, 0, IMP_ACT_HELP, 0},
      {GLFW_KEY_F2, 0, IMP_ACT_INFO, 0},
      {GLFW_KEY_0, 0, IMP_ACT_GROUP, 0},
      {GLFW_KEY_5, 0, IMP_ACT_GROUP, 5},
      {GLFW_KEY_C, 0, IMP_ACT_VIS, IMP_VIS_CONTACT_POINT},
      {GLFW_KEY_F, 0, IMP_ACT_VIS, IMP_VIS_CONTACT_FORCE},
      {GLFW_KEY_W, 0, IMP_ACT_VIS, IMP_VIS_WIREFRAME},
      {GLFW_KEY_T, 0, IMP_ACT_VIS, IMP_VIS_TRANSPARENT},
      {GLFW_KEY_J, 0, IMP_ACT_VIS, IMP_VIS_JOINT},
      {GLFW_KEY_M, 0, IMP_ACT_VIS, IMP_VIS_COM},
      {GLFW_KEY_H, 0, IMP_ACT_VIS, IMP_VIS_SHADOW},
      {GLFW_KEY_A, 0, IMP_ACT_MULTISAMPLE, 0},
      {GLFW_KEY_Z, 0, IMP_ACT_CTRL_ZERO_ALL, 0},
      {GLFW_KEY_P, GLFW_MOD_CONTROL, IMP_ACT_SCREENSHOT, 0},
      {GLFW_KEY_PAGE_DOWN, 0, IMP_ACT_KEY_NEXT, 0},
      {GLFW_KEY_PAGE_UP, 0, IMP_ACT_KEY_PREV, 0},
      {GLFW_KEY_S, 0, IMP_ACT_SOLVER_NEXT, 0},
      {GLFW_KEY_R, 0, IMP_ACT_RECORD, 0},
      {GLFW_KEY_DOWN, 0, IMP_ACT_ACTUATOR, 1},
      {GLFW_KEY_PERIOD, 0, IMP_ACT_CTRL, 1},
      {GLFW_KEY_COMMA, 0, IMP_ACT_CTRL, -1},
      {GLFW_KEY_SLASH, 0, IMP_ACT_CTRL_ZERO, 0},
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    imp_viewer_cmd c = key(table[i].key, table[i].mods);
    ck_assert_msg(c.action == table[i].action && c.arg == table[i].arg,
                  "key %d mods %d: action %d arg %d, expected %d %d", table[i].key,
                  table[i].mods, c.action, c.arg, table[i].action, table[i].arg);
  }
  /* L and P without ctrl do nothing: a stray key must not reload or write files */
  ck_assert_int_eq(key(GLFW_KEY_L, 0).action, IMP_ACT_NONE);
  ck_assert_int_eq(key(GLFW_KEY_P, 0).action, IMP_ACT_NONE);
  /* ctrl + a letter is not its overlay toggle */
  ck_assert_int_eq(key(GLFW_KEY_C, GLFW_MOD_CONTROL).action, IMP_ACT_NONE);
}
END_TEST

START_TEST(replay_arrows_scrub) {
  ck_assert_int_eq(imp_viewer_key_action(GLFW_KEY_RIGHT, 0, 1).action, IMP_ACT_STEP);
  ck_assert_int_eq(imp_viewer_key_action(GLFW_KEY_LEFT, 0, 1).action, IMP_ACT_STEP_BACK);
  imp_viewer_cmd up = imp_viewer_key_action(GLFW_KEY_UP, 0, 1);
  imp_viewer_cmd down = imp_viewer_key_action(GLFW_KEY_DOWN, 0, 1);
  ck_assert(up.action == IMP_ACT_JUMP && up.arg == 1);
  ck_assert(down.action == IMP_ACT_JUMP && down.arg == -1);
  /* while simulating there is no step back */
  ck_assert_int_eq(imp_viewer_key_action(GLFW_KEY_LEFT, 0, 0).action, IMP_ACT_NONE);
}
END_TEST

static imp_viewer_ui fresh_ui(void) {
  imp_viewer_ui ui;
  imp_viewer_ui_default(&ui, 0x7, 0, 2);
  return ui;
}

START_TEST(slow_motion_never_above_real_time) {
  imp_viewer_ui ui = fresh_ui();
  imp_camera cam = {0};
  ck_assert(imp_viewer_speed(ui.speed) == 1.0);
  /* faster at real time stays at real time */
  imp_viewer_apply(&ui, &cam, 0, key(GLFW_KEY_EQUAL, 0));
  ck_assert(imp_viewer_speed(ui.speed) == 1.0);
  double prev = 1.0;
  for (int i = 0; i < 20; i++) { /* slower and slower, then it stops at the slowest */
    imp_viewer_apply(&ui, &cam, 0, key(GLFW_KEY_MINUS, 0));
    double s = imp_viewer_speed(ui.speed);
    ck_assert(s <= prev && s > 0);
    prev = s;
  }
  imp_assert_near(prev, 0.01, 1e-15);
  for (int i = 0; i < 20; i++) {
    imp_viewer_apply(&ui, &cam, 0, key(GLFW_KEY_KP_ADD, 0));
    ck_assert(imp_viewer_speed(ui.speed) <= 1.0);
  }
  ck_assert(imp_viewer_speed(ui.speed) == 1.0);
  ck_assert(imp_viewer_speed(-3) == 1.0 && imp_viewer_speed(99) == 0.01);
}
END_TEST

START_TEST(cameras_cycle_through_the_model_and_back_to_free) {
  imp_viewer_ui ui = fresh_ui();
  imp_camera cam = {.type = IMP_CAMERA_FREE};
  imp_viewer_cmd next = key(GLFW_KEY_RIGHT_BRACKET, 0), prev = key(GLFW_KEY_LEFT_BRACKET, 0);
  int seen[4];
  for (int i = 0; i < 4; i++) {
    imp_viewer_apply(&ui, &cam, 3, next);
    seen[i] = cam.type == IMP_CAMERA_FIXED ? cam.fixedcamid : -1;
  }
  ck_assert(seen[0] == 0 && seen[1] == 1 && seen[2] == 2 && seen[3] == -1);
  imp_viewer_apply(&ui, &cam, 3, prev); /* from free backwards: the last camera */
  ck_assert(cam.type == IMP_CAMERA_FIXED && cam.fixedcamid == 2);
  imp_viewer_apply(&ui, &cam, 3, key(GLFW_KEY_ESCAPE, 0));
  ck_assert_int_eq(cam.type, IMP_CAMERA_FREE);
  /* a tracking camera goes to the model's first camera */
  cam.type = IMP_CAMERA_TRACKING;
  imp_viewer_apply(&ui, &cam, 3, next);
  ck_assert(cam.type == IMP_CAMERA_FIXED && cam.fixedcamid == 0);
  /* no model cameras: brackets leave the free camera alone */
  cam.type = IMP_CAMERA_FREE;
  imp_viewer_apply(&ui, &cam, 0, next);
  ck_assert_int_eq(cam.type, IMP_CAMERA_FREE);
}
END_TEST

START_TEST(groups_and_overlays_toggle) {
  imp_viewer_ui ui = fresh_ui();
  imp_camera cam = {0};
  ck_assert_int_eq(ui.geomgroup, 0x7);
  imp_viewer_apply(&ui, &cam, 0, key(GLFW_KEY_1, 0));
  ck_assert_int_eq(ui.geomgroup, 0x5); /* group 1 hidden, 0 and 2 still shown */
  imp_viewer_apply(&ui, &cam, 0, key(GLFW_KEY_5, 0));
  ck_assert_int_eq(ui.geomgroup, 0x25);
  imp_viewer_apply(&ui, &cam, 0, key(GLFW_KEY_1, 0));
  imp_viewer_apply(&ui, &cam, 0, key(GLFW_KEY_5, 0));
  ck_assert_int_eq(ui.geomgroup, 0x7);
  imp_viewer_apply(&ui, &cam, 0, key(GLFW_KEY_C, 0));
  imp_viewer_apply(&ui, &cam, 0, key(GLFW_KEY_F, 0));
  ck_assert_uint_eq(ui.flags, IMP_VIS_CONTACT_POINT | IMP_VIS_CONTACT_FORCE);
  imp_viewer_apply(&ui, &cam, 0, key(GLFW_KEY_C, 0));
  ck_assert_uint_eq(ui.flags, IMP_VIS_CONTACT_FORCE);
  /* H: shadows, A: multisampling, each back on at the second press */
  imp_viewer_apply(&ui, &cam, 0, key(GLFW_KEY_H, 0));
  ck_assert_uint_eq(ui.flags, IMP_VIS_CONTACT_FORCE | IMP_VIS_SHADOW);
  ck_assert_int_eq(ui.multisample, 1);
  imp_viewer_apply(&ui, &cam, 0, key(GLFW_KEY_A, 0));
  ck_assert_int_eq(ui.multisample, 0);
  imp_viewer_apply(&ui, &cam, 0, key(GLFW_KEY_A, 0));
  imp_viewer_apply(&ui, &cam, 0, key(GLFW_KEY_H, 0));
  ck_assert(ui.multisample == 1 && ui.flags == IMP_VIS_CONTACT_FORCE);
  /* panels: tab hides all, F1 / F2 their own */
  ck_assert(ui.panels && ui.info && !ui.help && ui.running);
  imp_viewer_apply(&ui, &cam, 0, key(GLFW_KEY_TAB, 0));
  imp_viewer_apply(&ui, &cam, 0, key(GLFW_KEY_F1, 0));
  imp_viewer_apply(&ui, &cam, 0, key(GLFW_KEY_F2, 0));
  imp_viewer_apply(&ui, &cam, 0, key(GLFW_KEY_SPACE, 0));
  ck_assert(!ui.panels && !ui.info && ui.help && !ui.running);
}
END_TEST

START_TEST(engine_actions_are_left_to_the_window) {
  imp_viewer_ui ui = fresh_ui(), before = ui;
  imp_camera cam = {0};
  int keys[] = {GLFW_KEY_RIGHT, GLFW_KEY_BACKSPACE, GLFW_KEY_S, GLFW_KEY_R, GLFW_KEY_PAGE_DOWN,
                GLFW_KEY_Z};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    ck_assert_int_eq(imp_viewer_apply(&ui, &cam, 0, key(keys[i], 0)), 0);
  ck_assert(memcmp(&ui, &before, sizeof ui) == 0);
}
END_TEST

START_TEST(actuator_selection_and_ctrl_nudges) {
  ck_assert_int_eq(imp_viewer_next_actuator(0, 3, 1), 1);
  ck_assert_int_eq(imp_viewer_next_actuator(2, 3, 1), 0);
  ck_assert_int_eq(imp_viewer_next_actuator(0, 3, -1), 2);
  ck_assert_int_eq(imp_viewer_next_actuator(0, 0, 1), -1);
  double range[2] = {-3, 3}, c = 0;
  c = imp_viewer_nudge_ctrl(c, 1, range, 1);
  imp_assert_near(c, 0.3, 1e-12); /* a twentieth of the range */
  for (int i = 0; i < 100; i++) c = imp_viewer_nudge_ctrl(c, 1, range, 1);
  imp_assert_near(c, 3.0, 0); /* clamped to the range */
  for (int i = 0; i < 100; i++) c = imp_viewer_nudge_ctrl(c, 1, range, -1);
  imp_assert_near(c, -3.0, 0);
  imp_assert_near(imp_viewer_nudge_ctrl(5, 0, range, -1), 4.9, 1e-12); /* unlimited: 0.1 */
}
END_TEST

START_TEST(mouse_buttons_choose_the_drag) {
  ck_assert_int_eq(imp_viewer_drag_mode(GLFW_MOUSE_BUTTON_LEFT, 0, -1), IMP_DRAG_ORBIT);
  ck_assert_int_eq(imp_viewer_drag_mode(GLFW_MOUSE_BUTTON_RIGHT, 0, -1), IMP_DRAG_PAN);
  ck_assert_int_eq(imp_viewer_drag_mode(GLFW_MOUSE_BUTTON_RIGHT, GLFW_MOD_SHIFT, -1), IMP_DRAG_PAN_H);
  ck_assert_int_eq(imp_viewer_drag_mode(GLFW_MOUSE_BUTTON_MIDDLE, 0, -1), IMP_DRAG_ZOOM);
  /* ctrl perturbs only a selected body; without one it moves the camera */
  ck_assert_int_eq(imp_viewer_drag_mode(GLFW_MOUSE_BUTTON_LEFT, GLFW_MOD_CONTROL, 2), IMP_DRAG_PERTURB_ROTATE);
  ck_assert_int_eq(imp_viewer_drag_mode(GLFW_MOUSE_BUTTON_RIGHT, GLFW_MOD_CONTROL, 2), IMP_DRAG_PERTURB_MOVE);
  ck_assert_int_eq(imp_viewer_drag_mode(GLFW_MOUSE_BUTTON_RIGHT, GLFW_MOD_CONTROL, -1), IMP_DRAG_PAN);
  ck_assert_int_eq(imp_viewer_camera_action(IMP_DRAG_ORBIT), IMP_CAMERA_ORBIT);
  ck_assert_int_eq(imp_viewer_camera_action(IMP_DRAG_PAN), IMP_CAMERA_PAN_V);
  ck_assert_int_eq(imp_viewer_camera_action(IMP_DRAG_ZOOM), IMP_CAMERA_ZOOM);
  ck_assert_int_eq(imp_viewer_camera_action(IMP_DRAG_PERTURB_MOVE), -1);
  ck_assert_int_eq(imp_viewer_click_action(GLFW_MOUSE_BUTTON_LEFT, 0), IMP_CLICK_SELECT);
  ck_assert_int_eq(imp_viewer_click_action(GLFW_MOUSE_BUTTON_RIGHT, 0), IMP_CLICK_CENTER);
  ck_assert_int_eq(imp_viewer_click_action(GLFW_MOUSE_BUTTON_RIGHT, GLFW_MOD_CONTROL), IMP_CLICK_TRACK);
}
END_TEST

START_TEST(double_clicks_are_close_in_time_and_space) {
  imp_viewer_press p = {-1, 0, 0, 0};
  ck_assert(!imp_viewer_is_double_click(&p, 0, 1.0, 100, 100, 0));
  ck_assert(imp_viewer_is_double_click(&p, 0, 1.2, 102, 99, 0));
  /* a third quick press starts a new pair */
  ck_assert(!imp_viewer_is_double_click(&p, 0, 1.3, 102, 99, 0));
  /* too slow, too far, another button */
  ck_assert(!imp_viewer_is_double_click(&p, 0, 2.0, 102, 99, 0));
  ck_assert(!imp_viewer_is_double_click(&p, 0, 2.1, 150, 99, 0));
  ck_assert(!imp_viewer_is_double_click(&p, 1, 2.2, 150, 99, 0));
  ck_assert(imp_viewer_is_double_click(&p, 1, 2.3, 150, 99, 0));
  /* a slow frame (0.5 s) between the two presses still makes a pair */
  ck_assert(!imp_viewer_is_double_click(&p, 0, 5.0, 10, 10, 0.5));
  ck_assert(imp_viewer_is_double_click(&p, 0, 5.6, 10, 10, 0.5));
}
END_TEST

START_TEST(scripts_parse_keys_mouse_and_drops) {
  imp_viewer_event ev[8];
  char err[256];
  int n = imp_viewer_parse_script("0:key ctrl+l;2:key space;3:drop /m/a b.xml;4:dclick ctrl+right 10 20;"
                                  "5:move 1.5 2;6:release right;7:scroll 600 230 -3", ev, 8, err,
                                  sizeof err);
  ck_assert_msg(n == 7, "%d: %s", n, err);
  ck_assert(ev[6].kind == IMP_EVENT_SCROLL && ev[6].x == 600 && ev[6].y == 230 && ev[6].key == -3);
  ck_assert(ev[0].kind == IMP_EVENT_KEY && ev[0].key == GLFW_KEY_L && ev[0].mods == GLFW_MOD_CONTROL);
  ck_assert(ev[1].frame == 2 && ev[1].key == GLFW_KEY_SPACE && ev[1].mods == 0);
  ck_assert(ev[2].kind == IMP_EVENT_DROP);
  ck_assert_str_eq(ev[2].path, "/m/a b.xml");
  ck_assert(ev[3].kind == IMP_EVENT_DCLICK && ev[3].key == GLFW_MOUSE_BUTTON_RIGHT &&
            ev[3].mods == GLFW_MOD_CONTROL && ev[3].x == 10 && ev[3].y == 20);
  ck_assert(ev[4].kind == IMP_EVENT_MOVE && ev[4].x == 1.5 && ev[4].y == 2);
  ck_assert(ev[5].kind == IMP_EVENT_RELEASE && ev[5].key == GLFW_MOUSE_BUTTON_RIGHT);
  /* every key of the key map has a name */
  int key, mods;
  const char* names[] = {"a", "Z", "0", "f1", "f2", "pageup", "pagedown", "plus", "minus", "[",
                         "]", "comma", "period", "slash", "backspace", "tab", "escape", "left"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    ck_assert_msg(imp_viewer_parse_key(names[i], &key, &mods) == 0, "%s", names[i]);
  ck_assert_int_eq(imp_viewer_parse_key("shift+ctrl+p", &key, &mods), 0);
  ck_assert(key == GLFW_KEY_P && mods == (GLFW_MOD_SHIFT | GLFW_MOD_CONTROL));
  /* refused: unknown names, no frame, decreasing frames, too many */
  ck_assert_int_eq(imp_viewer_parse_script("1:key hyper", ev, 8, err, sizeof err), -1);
  ck_assert(strstr(err, "1:key hyper") != NULL);
  ck_assert_int_eq(imp_viewer_parse_script("key a", ev, 8, err, sizeof err), -1);
  ck_assert_int_eq(imp_viewer_parse_script("3:key a;1:key b", ev, 8, err, sizeof err), -1);
  ck_assert_int_eq(imp_viewer_parse_script("1:key a;1:key b", ev, 1, err, sizeof err), -1);
  ck_assert_int_eq(imp_viewer_parse_script("1:press left 3", ev, 8, err, sizeof err), -1);
  ck_assert_int_eq(imp_viewer_parse_script("1:scroll 3 4", ev, 8, err, sizeof err), -1);
}
END_TEST

int main(void) {
  Suite* s = suite_create("viewer_input");
  TCase* tc = tcase_create("viewer_input");
  tcase_add_test(tc, keys_map_to_the_documented_actions);
  tcase_add_test(tc, replay_arrows_scrub);
  tcase_add_test(tc, slow_motion_never_above_real_time);
  tcase_add_test(tc, cameras_cycle_through_the_model_and_back_to_free);
  tcase_add_test(tc, groups_and_overlays_toggle);
  tcase_add_test(tc, engine_actions_are_left_to_the_window);
  tcase_add_test(tc, actuator_selection_and_ctrl_nudges);
  tcase_add_test(tc, mouse_buttons_choose_the_drag);
  tcase_add_test(tc, double_clicks_are_close_in_time_and_space);
  tcase_add_test(tc, scripts_parse_keys_mouse_and_drops);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
