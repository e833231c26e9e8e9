"""Assignment A5 (all-reduce and data parallelism): hidden tests, expected values, comparison.

Runs in the *grader* process with the pristine engine. Expected all-reduces come from the
engine's own ``RingAllReduce`` and ``HierarchicalCopyAllReduce`` on stand-in CPU devices (an
algorithm's sums and record do not depend on where the devices came from); expected training
is the same model trained on one device, no strategy (``harness/a5.py:one_device``).

A case of an all-reduce task gives half its credit for the sums (every replica, every tensor,
the dtype) and half for the record (the steps and their sends, so the bytes per device) with the
replicas' buffers left untouched; a training case is right or wrong as a whole.
"""
import numpy as np

from ..harness import a5 as worker
from ..harness.common import decode as _decode
from . import Task

NAME = "A5"
TITLE = "All-reduce and data parallelism: the ring (reduce-scatter, all-gather), TF's hierarchical all-reduce, " \
        "a data-parallel training loop"
HOURS = "4-6 h"
SEAM = "all_reduce"
HARNESS = "a5"
# The engine's summing algorithms are cut out; the classes stay (MirroredStrategy builds its default
# ReductionToOneDevice), so every all-reduce in the sandbox must go through the seam. _simulate_ring
# (NCCL's recorded schedule) would write a ring's record without sending anything.
ABSENT = {"engine/distribute/cross_device_ops.py": ["RingAllReduce.all_reduce_sum",
                                                     "HierarchicalCopyAllReduce.all_reduce_sum",
                                                     "ReductionToOneDevice.all_reduce_sum", "_simulate_ring"]}
LIMITS = {"processes": 64}   # replica threads count as processes (RLIMIT_NPROC): up to 8 at a time
TASKS = [
    Task("reduce_scatter", "reduce_scatter", "test_reduce_scatter", 6, ("4.1",)),
    Task("all_gather", "all_gather", "test_all_gather", 4, ("4.1",)),
    Task("hierarchical", "hierarchical", "test_hierarchical", 5, ("4.1",)),
    Task("train", "train", "test_train", 5, ("4.1", "4.5")),
]
# Tasks 1-3 need nothing of the others (the harness completes or prepares the ring itself);
# the training loop all-reduces with the ring, the reference one while it is graded.
INJECT = {"train": ["reduce_scatter", "all_gather"]}
DTYPES = ("float32", "float64", "int32", "int64")


# --- plans ----------------------------------------------------------------------------------------
def _values(rng, dtype, size):
    if dtype.startswith("int"):
        return [int(v) for v in rng.integers(-50, 50, size=size)]
    return [float(v) for v in np.round(rng.uniform(-2, 2, size=size), 3)]


def _ar_case(rng, n, tensors):
    """``tensors``: [(dtype, shape), ...]; random values per replica."""
    specs = [{"dtype": d, "shape": [int(s) for s in shape]} for d, shape in tensors]
    values = [[_values(rng, t["dtype"], int(np.prod(t["shape"], dtype=np.int64))) for t in specs] for _ in range(n)]
    return {"n": int(n), "tensors": specs, "values": values}


# Every mistake the fixed core must catch for any seed: N = 2; N not dividing the length; a length
# shorter than N, 1 and 0; integer dtypes; several tensors packed, two dtypes (two all-reduces); odd N
# (the hierarchical groups); N = 8.
AR_CORE = [
    (2, [("float32", (6,))]),
    (3, [("float32", (10,))]),
    (5, [("int32", (3,))]),
    (4, [("int64", (1,))]),
    (3, [("float64", (0,))]),
    (4, [("float32", (2, 3)), ("float32", ()), ("int32", (5,))]),
    (8, [("float64", (20,))]),
]


def _random_ar(rng):
    n = int(rng.integers(2, 9))
    k = 1 if rng.random() < 0.6 else 2
    out = []
    for j in range(k):
        dtype = str(rng.choice(DTYPES)) if j == 0 or rng.random() < 0.4 else out[0][0]
        size = int(rng.integers(0, 3 * n + 3))
        shape = (size,) if size < 4 or rng.random() < 0.6 else (2, size // 2)
        out.append((dtype, shape))
    return _ar_case(rng, n, out)


# Training: N divides the global batch (N=2), does not (N=3: 3+3+2; N=4: 2+2+1+1), N=8 with 8 examples.
TRAIN_CORE = [(2, 4, 2, 1), (3, 8, 2, 2), (4, 6, 2, 1), (8, 8, 2, 1)]   # (n, batch, steps per epoch, epochs)


def _train_case(rng, n, batch, steps, epochs):
    d_in, hidden, d_out = int(rng.integers(2, 5)), int(rng.integers(2, 6)), int(rng.integers(1, 3))
    weights = [rng.normal(size=(d_in, hidden)) * 0.5, rng.normal(size=hidden) * 0.1,
               rng.normal(size=(hidden, d_out)) * 0.5, rng.normal(size=d_out) * 0.1]
    m = batch * steps
    return {"n": int(n), "batch": int(batch), "epochs": int(epochs), "lr": float(np.round(rng.uniform(0.05, 0.2), 3)),
            "x_shape": [m, d_in], "x": [float(v) for v in np.round(rng.normal(size=m * d_in), 3)],
            "y": [float(v) for v in np.round(rng.normal(size=m * d_out), 3)],
            "weights": [{"shape": list(w.shape), "data": [float(v) for v in np.round(w, 3).ravel()]} for w in weights]}


def make_plan(seed, n=4):
    rng = np.random.default_rng(seed)
    tasks = []
    for name in ("reduce_scatter", "all_gather", "hierarchical"):
        cases = [_ar_case(rng, k, tensors) for k, tensors in AR_CORE] + [_random_ar(rng) for _ in range(n)]
        tasks.append({"name": name, "cases": cases})
    train = [_train_case(rng, *core) for core in TRAIN_CORE]
    for _ in range(max(1, n // 2)):      # a training case costs ten all-reduce cases: half as many random ones
        k = int(rng.integers(2, 9))
        train.append(_train_case(rng, k, int(rng.integers(k, 2 * k + 3)), int(rng.integers(1, 3)),
                                 int(rng.integers(1, 3))))
    tasks.append({"name": "train", "cases": train})
    return {"tasks": tasks}


# --- expected values (pristine engine) ----------------------------------------------------------
def _reference_all_reduce(case, algorithm):
    from engine.distribute.all_reduce_log import record_all_reduce
    from engine.framework.device import Device
    devices = [Device("CPU", i) for i in range(case["n"])]
    with record_all_reduce() as log:
        out = algorithm.all_reduce_arrays("SUM", devices, worker.case_arrays(case))
    return {"values": [[worker.encode(np.asarray(a)) for a in replica] for replica in out],
            "dtypes": [[np.asarray(a).dtype.name for a in replica] for replica in out],
            "records": [worker._record(r) for r in log]}


def expected(task):
    import engine as tf
    name, out = task["name"], []
    for case in task["cases"]:
        if name == "train":
            out.append(worker.one_device(tf, case))
            continue
        algorithm = tf.distribute.HierarchicalCopyAllReduce() if name == "hierarchical" else \
            tf.distribute.RingAllReduce()
        exp = _reference_all_reduce(case, algorithm)
        n = case["n"]
        for r in exp["records"]:     # tasks 1 and 2 are graded on their half of the ring
            if name == "reduce_scatter":
                r["steps"] = r["steps"][:n - 1]
            elif name == "all_gather":
                r["steps"] = r["steps"][n - 1:]
        out.append(exp)
    return out


# --- comparison ---------------------------------------------------------------------------------------
def _describe(case):
    groups = {}
    for t in case["tensors"]:
        groups.setdefault(t["dtype"], []).append(tuple(t["shape"]))
    what = "; ".join(f"{len(s)} {d} tensor{'s' if len(s) > 1 else ''} of shape{'s' if len(s) > 1 else ''} "
                     f"{', '.join(str(x) for x in s)}" for d, s in groups.items())
    return f"SUM over N={case['n']} replicas of {what}"


def _short(a):
    a = np.asarray(a).ravel()
    return np.array2string(a[:5], precision=4, separator=", ") + ("..." if a.size > 5 else "")


def _close(exp, got, dtype):
    if not isinstance(got, np.ndarray) or got.shape != exp.shape:
        return False
    if dtype.startswith("int"):
        return bool(np.array_equal(exp, got))
    tol = 1e-5 if dtype == "float32" else 1e-10
    return bool(np.all(np.isfinite(got)) and np.all(np.abs(exp - got) <= tol * (1 + np.abs(exp))))


def _packed_chunks(case, n):
    """Per dtype, in packing order: the offsets/sizes of its tensors and of the ring's chunks of the buffer."""
    from engine.distribute.cross_device_ops import chunk_bounds
    groups = {}
    for k, t in enumerate(case["tensors"]):
        groups.setdefault(t["dtype"], []).append(k)
    out = {}
    for dtype, ks in groups.items():
        total = sum(int(np.prod(case["tensors"][k]["shape"], dtype=np.int64)) for k in ks)
        out[dtype] = (ks, chunk_bounds(total, n))
    return out


def _check_values(name, case, exp, got):
    """None if every replica's tensors are the sums, else a message (for the ring: which chunk)."""
    n = case["n"]
    vals, dtypes = got.get("values"), got.get("dtypes")
    if not isinstance(vals, list) or len(vals) != n or not all(isinstance(v, list) and len(v) == len(case["tensors"])
                                                              for v in vals):
        return f"{_describe(case)}: expected {len(case['tensors'])} result tensor(s) on each of the {n} replicas"
    for r in range(n):
        for k, t in enumerate(case["tensors"]):
            if dtypes[r][k] != exp["dtypes"][r][k]:
                return (f"{_describe(case)}: replica {r}'s result {k} has dtype {dtypes[r][k]}, expected "
                        f"{exp['dtypes'][r][k]}")
    for r in range(n):
        for dtype, (ks, (offsets, sizes)) in _packed_chunks(case, n).items():
            e = np.concatenate([np.ravel(_decode(exp["values"][r][k])) for k in ks])
            g_parts = [_decode(vals[r][k]) for k in ks]
            if any(not isinstance(p, np.ndarray) for p in g_parts):
                return f"{_describe(case)}: replica {r}'s result is malformed"
            if any(p.shape != _decode(exp["values"][r][k]).shape for p, k in zip(g_parts, ks)):
                return f"{_describe(case)}: replica {r}'s results have the wrong shapes"
            g = np.concatenate([np.ravel(p) for p in g_parts])
            if _close(e, g, dtype):
                continue
            if name == "hierarchical":
                for k in ks:
                    e_k, g_k = _decode(exp["values"][r][k]), _decode(vals[r][k])
                    if not _close(e_k, g_k, dtype):
                        t = case["tensors"][k]
                        return (f"{_describe(case)}: replica {r}'s result for tensor {k} ({t['dtype']}, shape "
                                f"{tuple(t['shape'])}) is not the sum: expected {_short(e_k)}, got {_short(g_k)}")
            for c, (o, s) in enumerate(zip(offsets, sizes)):
                if not _close(e[o:o + s], g[o:o + s], dtype):
                    where = f"elements {o}..{o + s - 1} of the packed {dtype} buffer"
                    if name == "reduce_scatter":
                        return (f"{_describe(case)}: chunk {c} ({where}), which device {(c - 1) % n} must hold "
                                f"complete after the reduce-scatter, is not the sum: expected {_short(e[o:o + s])}, "
                                f"got {_short(g[o:o + s])}")
                    if name == "all_gather":
                        return (f"{_describe(case)}: after your all-gather, replica {r}'s chunk {c} ({where}) is not "
                                f"the sum: expected {_short(e[o:o + s])}, got {_short(g[o:o + s])}")
                    return (f"{_describe(case)}: replica {r}'s {where} is not the sum: expected "
                            f"{_short(e[o:o + s])}, got {_short(g[o:o + s])}")
    return None


def _sends(step):
    return sorted((s, d, -1 if c is None else c, e) for s, d, c, e in step[1])


def _fmt(sends, limit=4):
    text = ", ".join(f"CPU:{s}->CPU:{d}" + (f" chunk {c}" if c >= 0 else "") + f" ({e} element{'' if e == 1 else 's'})"
                     for s, d, c, e in sends[:limit])
    return text + (", ..." if len(sends) > limit else "") if sends else "nothing"


def _bytes(record, n, itemsize):
    out = [0] * n
    for step in record["steps"]:
        for s, _, _, e in step[1]:
            if 0 <= s < n:
                out[s] += e * itemsize
    return out


def _check_record(name, case, exp, got):
    n = case["n"]
    erecs, grecs = exp["records"], got.get("records")
    part = {"reduce_scatter": "the reduce-scatter", "all_gather": "the all-gather"}.get(name, "the all-reduce")
    if not isinstance(grecs, list) or len(grecs) != len(erecs):
        return f"{_describe(case)}: expected {len(erecs)} all-reduce(s) (one per dtype), the record shows {len(grecs)}"
    for e, g in zip(erecs, grecs):
        what = f"{_describe(case)}: the record of {part} of the {e['dtype']} buffer ({e['elements']} element" \
               f"{'' if e['elements'] == 1 else 's'})"
        if len(g["steps"]) != len(e["steps"]):
            return (f"{what} has {len(g['steps'])} step(s), expected {len(e['steps'])} (begin_step before each "
                    f"step's sends; every send of a step between two begin_step calls)")
        for k, (es, gs) in enumerate(zip(e["steps"], g["steps"])):
            if _sends(es) != _sends(gs):
                itemsize = np.dtype(e["dtype"]).itemsize
                eb, gb = _bytes(e, n, itemsize), _bytes(g, n, itemsize)
                extra = f"; bytes sent per device: expected {eb}, got {gb}" if eb != gb else ""
                return (f"{what}: step {k + 1} sends {_fmt(_sends(gs))}; expected {_fmt(_sends(es))}{extra}")
    return None


def _check_training(case, exp, got):
    n, b = case["n"], case["batch"]
    base, extra = divmod(b, n)
    split = ", ".join(str(base + 1 if r < extra else base) for r in range(n))
    what = (f"training on N={n} replicas, global batch {b} (per replica {split}), "
            f"{case['epochs']} epoch(s) of {case['x_shape'][0] // b} step(s)")
    losses, weights = got.get("losses"), got.get("weights")
    if not isinstance(losses, list) or len(losses) != len(exp["losses"]):
        return f"{what}: train must return one loss per step ({len(exp['losses'])}), got {str(losses)[:60]}"
    if not isinstance(weights, list) or len(weights) != len(exp["weights"]):
        return f"{what}: the model lost weights"
    e0, g0 = exp["losses"][0], losses[0]
    hint = ""
    if abs(e0) > 1e-6 and np.isfinite(g0) and abs(g0 / e0 - n) < 0.05 * n:
        hint = (" (the first loss is N times one device's: a per-replica mean instead of a division by the global "
                "batch size, or every replica computing on the whole global batch?)")
    elif abs(e0) > 1e-6 and np.isfinite(g0) and abs(g0 / e0 - 1 / n) < 0.05 / n:
        hint = " (1/N of one device's: each replica's loss is its share of the global mean: reduce them with SUM)"
    losses_right = bool(np.allclose(losses, exp["losses"], rtol=1e-4, atol=1e-5))
    for k, (e, g) in enumerate(zip(exp["weights"], weights)):
        e, g = _decode(e), _decode(g)
        if not isinstance(g, np.ndarray) or g.shape != e.shape or not np.allclose(g, e, rtol=1e-4, atol=1e-5):
            diff = float(np.max(np.abs(g - e))) if isinstance(g, np.ndarray) and g.shape == e.shape else float("nan")
            seen = "" if losses_right else f"; the losses are {_short(losses)}, expected {_short(exp['losses'])}"
            return (f"{what}: final weight {k} differs from one-device training (max |diff| = {diff:.3g}): each "
                    f"step's update must be the gradient of the mean loss over the global batch{seen}{hint}")
    if not losses_right:
        return f"{what}: the losses are {_short(losses)}, expected (one device) {_short(exp['losses'])}{hint}"
    if not got.get("spread", 1.0) <= 1e-6:
        return f"{what}: the replicas' copies of the weights differ (by {got.get('spread')})"
    return None


def case_credit(name, case, exp, got):
    """(credit in [0, 1], message or None) for one case."""
    if isinstance(got, str):
        what = _describe(case) if name != "train" else f"training on N={case['n']} replicas"
        return 0.0, f"{what}: your code raised {got[6:]}" if got.startswith("error:") else f"{what}: {got}"
    if not isinstance(got, dict):
        return 0.0, "malformed output"
    if name == "train":
        m = _check_training(case, exp, got)
        return (0.0, m) if m else (1.0, None)
    m = _check_values(name, case, exp, got)
    if m:
        return 0.0, m
    m = _check_record(name, case, exp, got)
    if m:
        return 0.5, m
    if not got.get("intact", False):
        return 0.5, (f"{_describe(case)}: the sums are right, but your code wrote into a replica's buffer (a "
                     f"replica's own tensor changed): build new arrays instead of writing in place")
    return 1.0, None


def check_case(name, case, exp, got):
    """None if right, else a message naming the all-reduce (N, dtypes, shapes) or the training, and what differed."""
    return case_credit(name, case, exp, got)[1]


def score(name, cases, exp, outputs, points):
    credits, msgs = [], []
    for k, (case, e, g) in enumerate(zip(cases, exp, outputs)):
        c, m = case_credit(name, case, e, g)
        credits.append(c)
        if m:
            msgs.append(f"case {k + 1}: {m}")
    return points * sum(credits) / max(len(credits), 1), msgs[:3]
