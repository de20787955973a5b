"""Tests of the impetus Python package (apps/python), run by ctest through
run_pytest.py, which builds the extension against the build tree's
libimpetus.so and sets IMPETUS_BIN (the build's impetus program) and
IMP_MODELS_DIR. The C side of each comparison is the impetus program's NPY
recording of the same model, keyframe, solver and controls: bitwise."""
import gc
import json
import os
import subprocess

import numpy as np
import pytest

import impetus

MODELS = os.environ.get("IMP_MODELS_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "models"))
IMPETUS_BIN = os.environ.get("IMPETUS_BIN")
HUMANOID = "/usr/share/mujoco/model/humanoid/humanoid.xml"

# an actuator with activation dynamics (na = 1) beside a motor, so that
# act is part of the state compared
FILTER_XML = """
<mujoco model="filter_arm">
  <option timestep="0.002"/>
  <worldbody>
    <body name="link">
      <joint name="hinge" type="hinge" axis="0 1 0" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="0.5"/>
    </body>
  </worldbody>
  <actuator>
    <general name="slow" joint="hinge" dyntype="filter" dynprm="0.05" gainprm="2"/>
    <motor name="direct" joint="hinge" gear="0.5"/>
  </actuator>
  <keyframe><key name="up" qpos="0.3" act="0.2"/></keyframe>
</mujoco>
"""


def model_path(name):
    return os.path.join(MODELS, name)


def cli_record(tmp_path, model, steps, key=None, solver=None, ctrl=None):
    """The impetus program's recording of a run: (rows, sidecar)"""
    if not IMPETUS_BIN:
        pytest.skip("IMPETUS_BIN not set (run through ctest)")
    out = tmp_path / "rec.npy"
    cmd = [IMPETUS_BIN, "run", model, "--steps", str(steps), "--record", str(out), "--quiet"]
    if key is not None:
        cmd += ["--key", key]
    if solver is not None:
        cmd += ["--solver", solver]
    if ctrl is not None:
        np.save(tmp_path / "ctrl.npy", ctrl)
        cmd += ["--ctrl", str(tmp_path / "ctrl.npy")]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with open(str(out) + ".json") as f:
        side = json.load(f)
    return np.load(out), side


def columns(rows, side, prefix, n):
    """The n columns prefix_0 .. prefix_{n-1} of a recording, by the
    sidecar's names; activations are named after their actuators (act_NAME)"""
    names = side["columns"]
    if prefix == "act":
        idx = [i for i, c in enumerate(names) if c.startswith("act_")]
        assert len(idx) == n
        return rows[:, idx]
    return rows[:, [names.index(f"{prefix}_{i}") for i in range(n)]]


def assert_bitwise(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    assert a.shape == b.shape
    diff = np.flatnonzero(a.view(np.uint64) != b.view(np.uint64))
    assert diff.size == 0, f"{diff.size} values differ, first at {np.unravel_index(diff[0], a.shape)}: " \
                           f"{a.flat[diff[0]]!r} vs {b.flat[diff[0]]!r}"


def python_states(m, d, steps, ctrl=None):
    """time, qpos, qvel, act after each of steps Python step() calls"""
    t, q, v, a = [], [], [], []
    for i in range(steps):
        if ctrl is not None:
            d.ctrl[:] = ctrl[i]  # through the view
        d.step()
        t.append(d.time)
        q.append(d.qpos.copy())
        v.append(d.qvel.copy())
        a.append(d.act.copy())
    return np.array(t), np.array(q), np.array(v), np.array(a).reshape(steps, m.na)


# ---- state after N steps equals the C API's, bitwise ----

@pytest.mark.parametrize("name,key,solver,steps", [
    ("pendulum.xml", "release", None, 1000),
    ("double_pendulum.xml", "swing", None, 1500),
    ("box_pile.xml", None, None, 600),        # contacts, the model's solver
    ("box_pile.xml", None, "pgs", 300),       # another solver, chosen by name
])
def test_state_equals_c_bitwise(tmp_path, name, key, solver, steps):
    path = model_path(name)
    m = impetus.Model.from_xml(path)
    d = impetus.Data(m)
    if key is not None:
        d.reset(key=key)
    if solver is not None:
        d.solver = solver
        assert d.solver == solver
    t, q, v, _ = python_states(m, d, steps)
    rows, side = cli_record(tmp_path, path, steps, key=key, solver=solver)
    assert rows.shape[0] == steps + 1  # the initial state, then one row a step
    assert side["nq"] == m.nq and side["nv"] == m.nv
    assert_bitwise(t, rows[1:, side["columns"].index("time")])
    assert_bitwise(q, columns(rows, side, "qpos", m.nq)[1:])
    assert_bitwise(v, columns(rows, side, "qvel", m.nv)[1:])


def test_controls_and_activations_equal_c_bitwise(tmp_path):
    """ctrl written through the view each step, as --ctrl sets it in C"""
    path = tmp_path / "filter.xml"
    path.write_text(FILTER_XML)
    m = impetus.Model.from_xml(path)
    assert (m.nu, m.na) == (2, 1)
    steps = 400
    rng = np.random.default_rng(7)
    u = rng.uniform(-1, 1, size=(steps, m.nu))
    d = impetus.Data(m)
    d.reset(key="up")
    _, q, v, a = python_states(m, d, steps, ctrl=u)
    rows, side = cli_record(tmp_path, str(path), steps, key="up", ctrl=u)
    assert_bitwise(q, columns(rows, side, "qpos", m.nq)[1:])
    assert_bitwise(v, columns(rows, side, "qvel", m.nv)[1:])
    assert_bitwise(a, columns(rows, side, "act", m.na)[1:])
    assert_bitwise(u, columns(rows, side, "ctrl", m.nu)[1:])


@pytest.mark.skipif(not os.path.exists(HUMANOID), reason="MuJoCo's humanoid sample not installed")
def test_humanoid_with_controls_equals_c_bitwise(tmp_path):
    m = impetus.Model.from_xml(HUMANOID)
    steps = 200
    u = np.random.default_rng(3).uniform(-0.4, 0.4, size=(steps, m.nu))
    d = impetus.Data(m)
    _, q, v, _ = python_states(m, d, steps, ctrl=u)
    rows, side = cli_record(tmp_path, HUMANOID, steps, ctrl=u)
    assert_bitwise(q, columns(rows, side, "qpos", m.nq)[1:])
    assert_bitwise(v, columns(rows, side, "qvel", m.nv)[1:])


# ---- rollout ----

def test_rollout_equals_python_loop_bitwise(tmp_path):
    path = tmp_path / "filter.xml"
    path.write_text(FILTER_XML)
    m = impetus.Model.from_xml(path)
    steps = 300
    u = np.random.default_rng(11).uniform(-2, 2, size=(steps, m.nu))
    d1, d2 = impetus.Data(m), impetus.Data(m)
    d1.reset(key="up")
    d2.reset(key="up")
    states = impetus.rollout(m, d1, u)
    assert states.shape == (steps, m.nq + m.nv + m.na)
    _, q, v, a = python_states(m, d2, steps, ctrl=u)
    assert_bitwise(states, np.hstack([q, v, a]))
    # the data is left at the last state, as the loop leaves it
    assert_bitwise(d1.qpos, d2.qpos)
    assert d1.time == d2.time


def test_rollout_with_contacts_and_out():
    m = impetus.Model.from_xml(model_path("box_pile.xml"))
    d1, d2 = impetus.Data(m), impetus.Data(m)
    out = np.empty((200, m.nq + m.nv))
    r = impetus.rollout(m, d1, np.zeros((200, 0)), out=out)
    assert r is out
    _, q, v, _ = python_states(m, d2, 200)
    assert_bitwise(out, np.hstack([q, v]))
    assert d1.ncon > 0


def test_rollout_checks_shapes():
    m = impetus.Model.from_xml(model_path("arm_servo.xml"))
    d = impetus.Data(m)
    with pytest.raises(ValueError, match="nstep x nu"):
        impetus.rollout(m, d, np.zeros((10, m.nu + 1)))
    with pytest.raises(ValueError, match="not made from this model"):
        impetus.rollout(impetus.Model.from_xml(model_path("arm_servo.xml")), d, np.zeros((1, m.nu)))


# ---- many rollouts (imp_rollout) ----

def test_rollouts_same_bits_any_threads():
    m = impetus.Model.from_xml(model_path("box_pile.xml"))
    runs = [impetus.rollout(m, None, nroll=6, nstep=80, nthread=t, perturb_qpos=0.05,
                            perturb_qvel=0.5, seed=5) for t in (1, 2, 4)]
    for r in runs[1:]:
        for name in ("qpos", "qvel", "act", "sensordata"):
            assert_bitwise(getattr(r, name), getattr(runs[0], name))
        assert (r.not_converged == runs[0].not_converged).all()
    r = runs[0]
    assert r.qpos.shape == (6, 80, m.nq) and (r.exit == 1).all() and (r.steps == 80).all()
    assert (r.wall_seconds > 0).all()
    # each rollout its own perturbation
    assert not np.array_equal(r.qpos[0], r.qpos[1])


def test_rollouts_equal_single_rollouts(tmp_path):
    path = tmp_path / "filter.xml"
    path.write_text(FILTER_XML)
    m = impetus.Model.from_xml(path)
    nroll, steps = 4, 120
    rng = np.random.default_rng(3)
    u = rng.uniform(-2, 2, size=(nroll, steps, m.nu))
    q0 = np.tile(impetus.Data(m).qpos, (nroll, 1))  # the reference configuration
    q0 = q0 + rng.uniform(-0.5, 0.5, size=q0.shape)
    v0 = rng.uniform(-1, 1, size=(nroll, m.nv))
    many = impetus.rollout(m, None, u, nthread=2, initial_qpos=q0, initial_qvel=v0)
    d = impetus.Data(m)
    for i in range(nroll):
        d.reset()
        d.qpos[:] = q0[i]
        d.qvel[:] = v0[i]
        one = impetus.rollout(m, d, u[i])
        assert_bitwise(many.qpos[i], one[:, :m.nq])
        assert_bitwise(many.qvel[i], one[:, m.nq:m.nq + m.nv])
        assert_bitwise(many.act[i], one[:, m.nq + m.nv:])
    assert many.act.shape == (nroll, steps, m.na) and m.na > 0


def test_rollouts_with_datas_and_errors():
    m = impetus.Model.from_xml(model_path("box_pile.xml"))
    ds = [impetus.Data(m), impetus.Data(m)]
    for d in ds:
        d.solver = "pgs"
    a = impetus.rollout(m, ds, nroll=3, nstep=30, nthread=2, perturb_qvel=0.2, seed=1)
    b = impetus.rollout(m, ds[:1], nroll=3, nstep=30, nthread=1, perturb_qvel=0.2, seed=1)
    assert_bitwise(a.qpos, b.qpos)
    ds[0].step()  # not left busy
    c = impetus.rollout(m, None, nroll=3, nstep=30, perturb_qvel=0.2, seed=1)
    assert not np.array_equal(a.qpos, c.qpos)  # pgs, not the model's solver
    with pytest.raises(ValueError, match="not made from this model"):
        impetus.rollout(m, [impetus.Data(impetus.Model.from_xml(model_path("box_pile.xml")))],
                        nroll=1, nstep=1)
    with pytest.raises(ValueError, match="nroll x nstep x nu"):
        impetus.rollout(m, None, np.zeros((2, 3, 1)))
    with pytest.raises(impetus.Error, match="nthread"):
        impetus.rollout(m, None, nroll=1, nstep=1, nthread=0)
    with pytest.raises(ValueError, match="at least nthread"):
        impetus.rollout(m, ds, nroll=1, nstep=1, nthread=3)


# ---- views alias the C memory ----

def test_views_alias_c_memory():
    m = impetus.Model.from_xml(model_path("pendulum.xml"))
    d = impetus.Data(m)
    q = d.qpos
    assert np.shares_memory(q, d.qpos)  # two views, one C array
    bob = m.name2id("geom", "bob")
    for angle in (0.3, -1.1):
        q[0] = angle       # written through the view ...
        d.forward()        # ... the C forward sees it
        expected = [-0.8 * np.sin(angle), 0.0, 1.5 - 0.8 * np.cos(angle)]
        assert np.allclose(d.geom_xpos[bob], expected, rtol=0, atol=1e-12)
    d.step()
    assert q[0] != -1.1 and q[0] == d.qpos[0]  # the old view follows the step
    assert d.time == m.timestep


def test_ctrl_view_drives_the_actuator():
    m = impetus.Model.from_xml(model_path("arm_servo.xml"))
    d = impetus.Data(m)
    c = d.ctrl
    c[3] = 0.5  # the wrist motor, gear 2
    d.forward()
    assert d.actuator_force[3] == pytest.approx(0.5)
    wrist = m.name2id("joint", "wrist")
    assert d.qfrc_actuator[wrist] == pytest.approx(1.0)


def test_state_views_writable_computed_views_read_only():
    m = impetus.Model.from_xml(model_path("arm_servo.xml"))
    d = impetus.Data(m)
    for name in ("qpos", "qvel", "ctrl", "act", "qfrc_applied", "xfrc_applied", "mocap_pos", "mocap_quat"):
        assert getattr(d, name).flags.writeable, name
    for name in ("qacc", "xpos", "xquat", "sensordata", "qfrc_bias"):
        with pytest.raises(ValueError):
            getattr(d, name)[...] = 0
    assert d.xpos.shape == (m.nbody, 3) and d.xquat.shape == (m.nbody, 4)
    d.qpos = [0.1, 0.2, 0.3]  # assignment copies into the C array
    assert list(d.qpos) == [0.1, 0.2, 0.3]


def test_view_keeps_data_and_model_alive():
    m = impetus.Model.from_xml(model_path("pendulum.xml"))
    d = impetus.Data(m)
    d.reset(key=0)
    q = d.qpos
    del d, m
    gc.collect()
    assert q[0] == pytest.approx(0.785398163397448)
    d = q.base  # the Data behind the view, still usable, and its model
    d.step()
    assert d.model.nq == 1


def test_mocap_and_sensordata_views():
    xml = """<mujoco><worldbody>
      <body name="target" mocap="true" pos="0 0 1"><geom size="0.1" contype="0" conaffinity="0"/></body>
      <body name="ball" pos="0 0 2"><freejoint/><geom size="0.1"/><site name="s"/></body>
    </worldbody><sensor><framepos objtype="site" objname="s"/></sensor></mujoco>"""
    m = impetus.Model.from_xml_string(xml)
    d = impetus.Data(m)
    assert m.nmocap == 1 and m.nsensordata == 3
    d.mocap_pos[0] = [0.5, -0.25, 1.0]
    d.forward()
    target = m.name2id("body", "target")
    assert list(d.xpos[target]) == [0.5, -0.25, 1.0]
    assert np.allclose(d.sensordata, [0, 0, 2], atol=1e-12)


# ---- contacts ----

def test_contact_forces_hold_the_box():
    """a 1 kg box at rest on the floor: the floor's contact forces carry its weight"""
    m = impetus.Model.from_xml(model_path("box_rest.xml"))
    d = impetus.Data(m)
    d.step(500)
    assert d.ncon == 4
    c = d.contact
    assert c.shape == (4,) and set(c["dim"]) == {3}
    floor, box = m.name2id("geom", "floor"), m.name2id("geom", "box")
    assert set(zip(c["geom1"], c["geom2"])) == {(floor, box)}
    f = d.contact_force()
    assert f.shape == (4, 6)
    assert f[:, 2].sum() == pytest.approx(9.81, rel=1e-6)
    imp = d.contact_impulse()
    assert np.all(imp[:, 0] >= 0) and np.allclose(imp[:, 0] / m.timestep, f[:, 2])


# ---- errors, names, keyframes, solvers ----

def test_load_error_carries_file_and_line(tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text("<mujoco>\n  <worldbody>\n    <geom type=\"sphere\" size=\"oops\"/>\n  </worldbody>\n</mujoco>\n")
    with pytest.raises(impetus.Error) as e:
        impetus.Model.from_xml(bad)
    assert str(e.value).startswith(f"{bad}:3:")
    assert isinstance(e.value, ValueError)
    with pytest.raises(impetus.Error, match=r"^<string>:1:"):
        impetus.Model.from_xml_string("<mujoco><worldbody><geom type='box'/></worldbody></mujoco>")
    with pytest.raises(FileNotFoundError, match="No such file"):
        impetus.Model.from_xml(tmp_path / "missing.xml")


def test_reset_key_by_name_and_index():
    m = impetus.Model.from_xml(model_path("double_pendulum.xml"))
    d = impetus.Data(m)
    d.step(10)
    d.reset(key="swing")
    assert list(d.qpos) == [0.4, 1.2] and list(d.qvel) == [0, -0.5] and d.time == 0
    d.step(10)
    d.reset(key=0)
    assert list(d.qpos) == [0.4, 1.2]
    d.reset()
    assert list(d.qpos) == [0, 0] and d.nstep == 0
    with pytest.raises(impetus.Error, match="'swing'"):
        d.reset(key="nope")
    with pytest.raises(impetus.Error, match="out of range"):
        d.reset(key=1)


def test_names_both_ways():
    m = impetus.Model.from_xml(model_path("arm_servo.xml"))
    assert m.names("actuator") == ["shoulder_servo", "elbow_servo", "wrist_servo", "wrist_motor"]
    for t in ("body", "joint", "geom", "actuator", "key"):
        for i, n in enumerate(m.names(t)):
            if n:
                assert m.name2id(t, n) == i
    assert m.name2id("joint", "no such joint") == -1
    with pytest.raises(IndexError):
        m.id2name("body", m.nbody)
    with pytest.raises(ValueError, match="unknown object type"):
        m.name2id("bogus", "x")


def test_solver_choice():
    names = [s[0] for s in impetus.solvers()]
    assert names[0] == "todorov" and "pgs" in names
    m = impetus.Model.from_xml(model_path("box_pile.xml"))
    d = impetus.Data(m)
    with pytest.raises(impetus.Error, match="unknown contact solver 'nope'"):
        d.solver = "nope"
    assert d.solver == m.solver


def test_jacobian_maps_qvel_to_velocity():
    """jacp qvel is the point's velocity: against a finite difference of its position"""
    m = impetus.Model.from_xml(model_path("double_pendulum.xml"))
    d = impetus.Data(m)
    d.reset(key="swing")
    d.forward()
    body = m.nbody - 1
    jacp, jacr = d.jac_body_com(body)
    assert jacp.shape == (3, m.nv)
    h = 1e-7
    x0 = d.xipos[body].copy()
    d.qpos[:] += h * d.qvel
    d.forward()
    assert np.allclose(jacp @ d.qvel, (d.xipos[body] - x0) / h, atol=1e-5)
