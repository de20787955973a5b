"""Impetus, a MuJoCo-style rigid-body physics simulator, from Python.

    import impetus
    m = impetus.Model.from_xml("models/pendulum.xml")
    d = impetus.Data(m)
    d.reset(key="release")
    for _ in range(1000): d.step()
    print(d.time, d.qpos)

Data's arrays (qpos, qvel, ctrl, act, qacc, xpos, xquat, sensordata,
mocap_pos, mocap_quat ...) are numpy views on the simulation's own memory:
no copies, always current, writable where the field is state or input
(qpos, qvel, ctrl, act, qfrc_applied, xfrc_applied, mocap_pos/quat) and
read-only where the step computes it. A view keeps its Data alive; a Data
keeps its Model alive.
"""
import collections as _collections
import errno as _errno
import os as _os

import numpy as _np

from . import _impetus
from ._impetus import OBJECT_TYPES, LIBRARY_VERSION, solvers

__all__ = ["Error", "Model", "Data", "step", "forward", "rollout", "Rollouts", "solvers",
           "OBJECT_TYPES", "LIBRARY_VERSION"]
__version__ = "0.1.0"


class Error(ValueError):
    """A model that cannot be loaded ("file:line: message"), an unknown
    keyframe or solver, a Data used by two threads at once."""


def _contact_dtype():
    """imp_contact (engine/types.h) as a numpy structured dtype, with the
    C compiler's offsets"""
    L = _impetus._contact_layout
    fields = [("dist", "f8", ()), ("pos", "f8", (3,)), ("frame", "f8", (3, 3)),
              ("friction", "f8", (5,)), ("margin", "f8", ()), ("gap", "f8", ()),
              ("dim", "i4", ()), ("geom1", "i4", ()), ("geom2", "i4", ()),
              ("pair", "i4", ()), ("efc_adr", "i4", ())]
    return _np.dtype({"names": [f[0] for f in fields],
                      "formats": [(f[1], f[2]) if f[2] else f[1] for f in fields],
                      "offsets": [L[f[0]] for f in fields],
                      "itemsize": L["itemsize"]})


_impetus._setup(Error, _contact_dtype())


class Model(_impetus.Model):
    """An MJCF model, loaded once and never changed. Sizes (nq, nv, nu, na,
    nbody, ngeom, nsite, nkey, nmocap, nsensordata ...), timestep, solver
    (the model's option) and the loader's warnings are attributes."""
    __slots__ = ()

    @classmethod
    def from_xml(cls, path, allow_unsupported=False):
        """Load an MJCF file. Raises Error with the loader's "file:line:
        message", or FileNotFoundError. allow_unsupported: load a file that
        uses physics Impetus does not implement, dropping it with a warning
        (model.warnings) instead of refusing it."""
        path = _os.fspath(path)
        if not _os.path.exists(path):
            raise FileNotFoundError(_errno.ENOENT, "No such file", path)
        return cls._load(path, False, None, None, bool(allow_unsupported))

    @classmethod
    def from_xml_string(cls, xml, dir=None, name="<string>", allow_unsupported=False):
        """Load MJCF text; relative asset paths resolve against dir."""
        return cls._load(xml, True, None if dir is None else _os.fspath(dir), name,
                         bool(allow_unsupported))

    def name2id(self, objtype, name):
        """Id of the object of objtype ("body", "joint", "geom", "site",
        "actuator", "sensor", "key" ... see OBJECT_TYPES) named name, -1 if none."""
        return self._name2id(objtype, name)

    def id2name(self, objtype, id):
        """Name of object id of objtype ("" when unnamed); IndexError out of range."""
        return self._id2name(objtype, id)

    def names(self, objtype):
        """Names of all objects of objtype, in id order."""
        out = []
        while True:
            try:
                out.append(self._id2name(objtype, len(out)))
            except IndexError:
                return out

    def __repr__(self):
        return (f"<impetus.Model nq={self.nq} nv={self.nv} nu={self.nu} "
                f"nbody={self.nbody} ngeom={self.ngeom}>")


class Data(_impetus.Data):
    """Data(model): one simulation of model, reset to its reference
    configuration. step(n=1), forward(), step1()/step2(), reset(key=None)."""
    __slots__ = ()

    def reset(self, key=None):
        """Back to the model's reference configuration (qpos0, zero velocity
        and control, time 0), then to keyframe key (its name or index) if given."""
        if key is None:
            return self._reset(-1)
        m = self.model
        if isinstance(key, str):
            k = m.name2id("key", key)
            if k < 0:
                raise Error(f"no keyframe '{key}'; the model's keyframes: "
                            + (", ".join(repr(n) for n in m.names("key")) or "none"))
            key = k
        if not (0 <= key < m.nkey):
            raise Error(f"keyframe {key} out of range: the model has {m.nkey}")
        return self._reset(key)

    def jac_body(self, body):
        """(jacp, jacr), each 3 x nv: the body origin's linear and the
        body's angular velocity from qvel, at the last forward."""
        return self._jac(0, self._id("body", body))

    def jac_body_com(self, body):
        return self._jac(1, self._id("body", body))

    def jac_geom(self, geom):
        return self._jac(2, self._id("geom", geom))

    def jac_site(self, site):
        return self._jac(3, self._id("site", site))

    def jac(self, point, body):
        """(jacp, jacr) of a world point attached to body."""
        p = tuple(float(x) for x in point)
        return self._jac(4, self._id("body", body), p)

    def _id(self, objtype, ref):
        if isinstance(ref, str):
            i = self.model.name2id(objtype, ref)
            if i < 0:
                raise Error(f"no {objtype} named '{ref}'")
            return i
        return int(ref)

    def __repr__(self):
        return f"<impetus.Data time={self.time} ncon={self.ncon}>"


def step(model, data, nstep=1):
    """Advance data by nstep time steps (MuJoCo's mj_step(m, d))."""
    _check_pair(model, data)
    data.step(nstep)


def forward(model, data):
    """Compute everything that depends on the state (MuJoCo's mj_forward)."""
    _check_pair(model, data)
    data.forward()


def rollout(model, data, ctrl_sequence=None, out=None, *, nroll=None, nstep=None, nthread=1,
            initial_qpos=None, initial_qvel=None, initial_act=None, key=None,
            perturb_qpos=0.0, perturb_qvel=0.0, seed=0):
    """One rollout: rollout(model, data, ctrl_sequence, out=None) steps data
    once per row of ctrl_sequence (nstep x nu), setting ctrl from the row
    first, in C with the GIL released. Returns the states after each step,
    nstep x (nq + nv + na): qpos, qvel, act (out may be given). data is left
    at the last state, as the same loop of step() leaves it.

    Many rollouts (imp_rollout, the C library's): when data is None or a
    list of Data, or ctrl_sequence is nroll x nstep x nu. nroll independent
    rollouts of nstep steps on nthread threads, the GIL released; each
    starts from the model's reference state (or keyframe key), then
    initial_qpos/qvel/act rows (nroll x nq ...) where given, else a
    perturbation (perturb_qpos, perturb_qvel: standard deviations) drawn
    from a generator seeded by (seed, rollout) alone. data: None (the
    library makes one Data per thread, with the model's solver) or a list
    of nthread Data of model (their solvers), each reset before every
    rollout it runs. Returns a Rollouts: qpos (nroll x nstep x nq), qvel,
    act, sensordata (the states after each step), exit (0 not run, 1 ok,
    2 nonfinite: the engine reset a non-finite state), nan_resets, steps,
    not_converged and wall_seconds per rollout. The arrays are the same
    bits whatever nthread."""
    many = data is None or isinstance(data, (list, tuple)) or (
        ctrl_sequence is not None and _np.ndim(ctrl_sequence) == 3)
    if many:
        return _rollouts(model, data, ctrl_sequence, nroll, nstep, nthread, initial_qpos,
                         initial_qvel, initial_act, key, perturb_qpos, perturb_qvel, seed)
    _check_pair(model, data)
    if ctrl_sequence is None:
        raise ValueError("rollout(model, data, ctrl_sequence): ctrl_sequence is required")
    u = _np.ascontiguousarray(ctrl_sequence, dtype=_np.float64)
    if u.ndim == 1 and model.nu <= 1:
        u = u.reshape(-1, model.nu)
    if u.ndim != 2 or u.shape[1] != model.nu:
        raise ValueError(f"ctrl_sequence must be nstep x nu = (n, {model.nu}), not {u.shape}")
    shape = (u.shape[0], model.nq + model.nv + model.na)
    if out is None:
        out = _np.empty(shape)
    elif (out.shape != shape or out.dtype != _np.float64
          or not out.flags.c_contiguous or not out.flags.writeable):
        raise ValueError(f"out must be a writable C-contiguous float64 array of shape {shape}")
    _impetus._rollout(data, u, out)
    return out


# What rollout() returns for many rollouts.
Rollouts = _collections.namedtuple("Rollouts", [
    "qpos", "qvel", "act", "sensordata", "exit", "nan_resets", "steps", "not_converged",
    "wall_seconds"])


def _rows(a, nroll, width, name):
    """a as a C-contiguous float64 nroll x width array, or None"""
    if a is None:
        return None
    a = _np.ascontiguousarray(a, dtype=_np.float64)
    if a.shape != (nroll, width):
        raise ValueError(f"{name} must be nroll x {width} = ({nroll}, {width}), not {a.shape}")
    return a


def _rollouts(model, datas, ctrl, nroll, nstep, nthread, iq, iv, ia, key, pq, pv, seed):
    if ctrl is not None:
        ctrl = _np.ascontiguousarray(ctrl, dtype=_np.float64)
        if ctrl.ndim == 2 and model.nu == 0:
            ctrl = ctrl.reshape(ctrl.shape + (0,))
        if ctrl.ndim != 3 or ctrl.shape[2] != model.nu:
            raise ValueError(f"ctrl must be nroll x nstep x nu (nu = {model.nu}), not {ctrl.shape}")
        nroll = ctrl.shape[0] if nroll is None else nroll
        nstep = ctrl.shape[1] if nstep is None else nstep
        if ctrl.shape[:2] != (nroll, nstep):
            raise ValueError(f"ctrl is {ctrl.shape[:2]} rollouts x steps, not ({nroll}, {nstep})")
    if nroll is None or nstep is None:
        raise ValueError("many rollouts need nroll and nstep (or a ctrl of nroll x nstep x nu)")
    nroll, nstep, nthread = int(nroll), int(nstep), int(nthread)
    if datas is not None:
        datas = list(datas)
        for d in datas:
            _check_pair(model, d)
    if key is None:
        k = -1
    elif isinstance(key, str):
        k = model.name2id("key", key)
        if k < 0:
            raise Error(f"no keyframe named {key!r}")
    else:
        k = int(key)
    iq = _rows(iq, nroll, model.nq, "initial_qpos")
    iv = _rows(iv, nroll, model.nv, "initial_qvel")
    ia = _rows(ia, nroll, model.na, "initial_act")
    qpos = _np.empty((nroll, nstep, model.nq))
    qvel = _np.empty((nroll, nstep, model.nv))
    act = _np.empty((nroll, nstep, model.na))
    sens = _np.empty((nroll, nstep, model.nsensordata))
    status = _np.zeros((nroll, 4), dtype=_np.int64)
    wall = _np.zeros(nroll)
    _impetus._rollouts(model, datas, nroll, nstep, nthread, ctrl, iq, iv, ia, k, float(pq),
                       float(pv), int(seed), qpos, qvel, act, sens, status, wall)
    return Rollouts(qpos, qvel, act, sens, status[:, 0].copy(), status[:, 1].copy(),
                    status[:, 2].copy(), status[:, 3].copy(), wall)


def _check_pair(model, data):
    if data.model is not model:
        raise ValueError("data was not made from this model")

