"""Random straight-line programs of public TF ops, and the four ways of running one.

Shared by the recorder (``record_random_programs.py``, run under TensorFlow 2.21 in a scratch venv) and
the test (``test_random_programs.py``, run on the engine). Nothing here imports TensorFlow or the
engine: every function takes the module to use as ``tf``.

A program is made from a seed by :func:`generate`, with Python's ``random.Random`` (whose stream does
not change between Python or NumPy versions), and is plain JSON-able data::

    {"inputs": [["float32", [2, 3], [flat values]], ...],     # the program's arguments
     "placeholders": [[2, None], ...],                         # their shapes in the tf.Graph variant
     "steps": [{"op": "add", "in": [0, 1], "kw": {}}, ...],     # step k's value is env[len(inputs) + k]
     "outputs": [5, 3]}                                        # the env entries the program returns

Each step calls one entry of :data:`OPS` (``OPS["add"](tf, x, y)`` is ``tf.add(x, y)``). The generator
tracks every value's dtype and static shape to make mostly valid programs, and, at a small rate, makes a
call TF refuses (mismatched dtypes, an axis out of range, float indices, ...) so that error classes, and
*when* an error is raised (building a graph or running it), are compared too.

The four variants (:func:`run_variant`), each giving a JSON-able record:

* ``eager``: the program on eager tensors;
* ``function``: ``tf.function(program)`` called twice; the static shapes its (first) trace saw, the
  values or the error and its stage (``trace`` or ``run``), and the second call's if they differ;
* ``tape``: eagerly under a ``GradientTape`` watching the float inputs; the values and the gradients of
  ``sum(reduce_sum(output))`` over the float outputs with respect to each float input;
* ``graph``: built in a ``tf.Graph`` from placeholders (some dimensions unknown), run by a ``Session``;
  the outputs' static shapes, the values, or the error and the stage (``build`` or ``run``) it came at.
"""
import hashlib
import json
import math
import random

FLOATS = ("float32", "float64")
INTS = ("int32", "int64")
MAX_ELEMENTS = 24


# ======================================================================================
# The ops a program can call: OPS[name](tf, *tensors, **kw)
# ======================================================================================
def _key(spec):
    """A ``__getitem__`` key from its JSON form: ints, ``[start, stop, step]`` slices, "..." and "new"."""
    parts = []
    for s in spec:
        if s == "...":
            parts.append(Ellipsis)
        elif s == "new":
            parts.append(None)
        elif isinstance(s, list):
            parts.append(slice(*s))
        else:
            parts.append(s)
    return tuple(parts)


OPS = {
    # --- broadcasting binary ops (functions and operators) ---
    "add": lambda tf, x, y: tf.add(x, y),
    "subtract": lambda tf, x, y: tf.subtract(x, y),
    "multiply": lambda tf, x, y: tf.multiply(x, y),
    "divide": lambda tf, x, y: tf.math.divide(x, y),
    "truediv": lambda tf, x, y: tf.truediv(x, y),
    "floordiv": lambda tf, x, y: tf.math.floordiv(x, y),
    "floormod": lambda tf, x, y: tf.math.floormod(x, y),
    "pow": lambda tf, x, y: tf.pow(x, y),
    "maximum": lambda tf, x, y: tf.maximum(x, y),
    "minimum": lambda tf, x, y: tf.minimum(x, y),
    "squared_difference": lambda tf, x, y: tf.math.squared_difference(x, y),
    "divide_no_nan": lambda tf, x, y: tf.math.divide_no_nan(x, y),
    "atan2": lambda tf, x, y: tf.math.atan2(x, y),
    "xdivy": lambda tf, x, y: tf.math.xdivy(x, y),
    "less": lambda tf, x, y: tf.less(x, y),
    "greater_equal": lambda tf, x, y: tf.greater_equal(x, y),
    "equal": lambda tf, x, y: tf.equal(x, y),
    "not_equal": lambda tf, x, y: tf.not_equal(x, y),
    "logical_and": lambda tf, x, y: tf.logical_and(x, y),
    "logical_or": lambda tf, x, y: tf.logical_or(x, y),
    "logical_xor": lambda tf, x, y: tf.math.logical_xor(x, y),
    "op+": lambda tf, x, y: x + y,
    "op-": lambda tf, x, y: x - y,
    "op*": lambda tf, x, y: x * y,
    "op/": lambda tf, x, y: x / y,
    "op//": lambda tf, x, y: x // y,
    "op%": lambda tf, x, y: x % y,
    "op**": lambda tf, x, y: x ** y,
    "op<": lambda tf, x, y: x < y,
    "op>=": lambda tf, x, y: x >= y,
    "op&": lambda tf, x, y: x & y,
    "op|": lambda tf, x, y: x | y,
    # --- a tensor and a Python number ---
    "scalar+": lambda tf, x, c: x + c,
    "scalar*": lambda tf, x, c: x * c,
    "rscalar-": lambda tf, x, c: c - x,
    "scalar**": lambda tf, x, c: x ** c,
    "scalar>": lambda tf, x, c: x > c,
    "scalar&": lambda tf, x, c: x & c,
    "pow_scalar": lambda tf, x, c: tf.pow(x, c),
    # --- unary ops ---
    **{name: (lambda n: lambda tf, x: getattr(tf.math, n)(x))(name) for name in (
        "abs", "negative", "sign", "square", "sqrt", "rsqrt", "exp", "expm1", "log", "log1p", "sin", "cos",
        "tanh", "sigmoid", "softplus", "erf", "floor", "ceil", "round", "rint", "reciprocal",
        "reciprocal_no_nan", "log_sigmoid", "asinh", "atan", "is_nan", "is_finite", "logical_not")},
    "op-neg": lambda tf, x: -x,
    "op~": lambda tf, x: ~x,
    "op_abs": lambda tf, x: abs(x),
    **{name: (lambda n: lambda tf, x: getattr(tf.nn, n)(x))(name) for name in (
        "relu", "relu6", "elu", "selu", "softsign", "silu", "gelu", "leaky_relu")},
    "softmax": lambda tf, x, axis=-1: tf.nn.softmax(x, axis=axis),
    "log_softmax": lambda tf, x, axis=-1: tf.nn.log_softmax(x, axis=axis),
    "l2_normalize": lambda tf, x, axis=-1: tf.math.l2_normalize(x, axis=axis),
    "moments_mean": lambda tf, x, axes: tf.nn.moments(x, axes)[0],
    "moments_var": lambda tf, x, axes: tf.nn.moments(x, axes)[1],
    "bias_add": lambda tf, x, b: tf.nn.bias_add(x, b),
    "cast": lambda tf, x, dtype: tf.cast(x, dtype),
    "dtypes.cast": lambda tf, x, dtype: tf.dtypes.cast(x, dtype),
    "clip_by_value": lambda tf, x, lo, hi: tf.clip_by_value(x, lo, hi),
    "add_n": lambda tf, x, y: tf.math.add_n([x, y]),
    # --- reductions, scans, arg-reductions ---
    **{name: (lambda n: lambda tf, x, axis=None, keepdims=False: getattr(tf.math, n)(x, axis=axis,
                                                                                     keepdims=keepdims))(name)
       for name in ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_logsumexp",
                    "reduce_euclidean_norm", "reduce_any", "reduce_all", "reduce_std", "reduce_variance")},
    "argmax": lambda tf, x, axis=0: tf.math.argmax(x, axis=axis),
    "argmin": lambda tf, x, axis=0: tf.math.argmin(x, axis=axis),
    "cumsum": lambda tf, x, axis=0, exclusive=False, reverse=False: tf.math.cumsum(
        x, axis=axis, exclusive=exclusive, reverse=reverse),
    "cumprod": lambda tf, x, axis=0, exclusive=False, reverse=False: tf.math.cumprod(
        x, axis=axis, exclusive=exclusive, reverse=reverse),
    # --- shape ops ---
    "reshape": lambda tf, x, shape: tf.reshape(x, shape),
    "transpose": lambda tf, x, perm=None: tf.transpose(x, perm),
    "expand_dims": lambda tf, x, axis: tf.expand_dims(x, axis),
    "squeeze": lambda tf, x, axis=None: tf.squeeze(x, axis),
    "tile": lambda tf, x, multiples: tf.tile(x, multiples),
    "concat": lambda tf, x, y, axis: tf.concat([x, y], axis),
    "stack": lambda tf, x, y, axis: tf.stack([x, y], axis),
    "unstack": lambda tf, x, axis, i: tf.unstack(x, axis=axis)[i],
    "split": lambda tf, x, n, axis, i: tf.split(x, n, axis=axis)[i],
    "broadcast_to": lambda tf, x, shape: tf.broadcast_to(x, shape),
    "pad": lambda tf, x, paddings, mode="CONSTANT": tf.pad(x, paddings, mode=mode),
    "reverse": lambda tf, x, axis: tf.reverse(x, axis),
    "shape": lambda tf, x: tf.shape(x),
    "size": lambda tf, x: tf.size(x),
    "rank": lambda tf, x: tf.rank(x),
    "zeros_like": lambda tf, x: tf.zeros_like(x),
    "ones_like": lambda tf, x: tf.ones_like(x),
    "identity": lambda tf, x: tf.identity(x),
    "where": lambda tf, c, x, y: tf.where(c, x, y),
    "where_pos": lambda tf, x, y: tf.where(x > 0, x, y),
    "one_hot": lambda tf, x, depth, axis=-1: tf.one_hot(x, depth, axis=axis),
    "slice": lambda tf, x, spec: x[_key(spec)],
    "gather": lambda tf, x, indices, axis=0: tf.gather(x, indices, axis=axis),
    "gather_t": lambda tf, x, i: tf.gather(x, i),
    "gather_nd": lambda tf, x, indices: tf.gather_nd(x, indices),
    "boolean_mask": lambda tf, x, mask: tf.boolean_mask(x, mask),
    "matmul": lambda tf, x, y: tf.matmul(x, y),
    "matmul_t": lambda tf, x: tf.matmul(x, x, transpose_b=True),
    # --- sorting ---
    "sort": lambda tf, x, axis=-1, direction="ASCENDING": tf.sort(x, axis=axis, direction=direction),
    "argsort": lambda tf, x, axis=-1, direction="ASCENDING": tf.argsort(x, axis=axis, direction=direction),
    "top_k_values": lambda tf, x, k: tf.math.top_k(x, k).values,
    "top_k_indices": lambda tf, x, k: tf.math.top_k(x, k).indices,
    "unique": lambda tf, x: tf.unique(x).y,
    # --- segment ops ---
    **{name: (lambda n: lambda tf, x, ids: getattr(tf.math, n)(x, ids))(name) for name in (
        "segment_sum", "segment_mean", "segment_max", "segment_min", "segment_prod")},
    **{name: (lambda n: lambda tf, x, ids, num: getattr(tf.math, n)(x, ids, num))(name) for name in (
        "unsorted_segment_sum", "unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_prod",
        "unsorted_segment_mean")},
}


def call_step(tf, step, env):
    """Run one step: ``OPS[step["op"]](tf, *inputs, **kw)``."""
    kw = dict(step.get("kw", {}))
    if "dtype" in kw:   # dtypes are kept by name
        kw["dtype"] = getattr(tf, kw["dtype"])
    return OPS[step["op"]](tf, *[env[i] for i in step["in"]], **kw)


def program_function(tf, program):
    """The program as a Python function of its inputs, returning the list of its outputs."""
    def fn(*args):
        env = list(args)
        for step in program["steps"]:
            env.append(call_step(tf, step, env))
        return [env[i] for i in program["outputs"]]
    return fn


def program_hash(program):
    return hashlib.sha1(json.dumps(program, sort_keys=True).encode()).hexdigest()[:12]


# ======================================================================================
# The generator
# ======================================================================================
class _Rng:
    """The few draws the generator needs, from ``random.Random.random`` only (a stable stream)."""

    def __init__(self, seed):
        self._r = random.Random(seed)

    def random(self):
        return self._r.random()

    def below(self, n):
        return min(int(self._r.random() * n), n - 1)

    def choice(self, items):
        items = list(items)
        return items[self.below(len(items))]

    def chance(self, p):
        return self._r.random() < p

    def permutation(self, n):
        items = list(range(n))
        for i in range(n - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
        return items


def _numel(shape):
    n = 1
    for d in shape:
        if d is None:
            return None
        n *= d
    return n


def _random_shape(rng, max_rank=3):
    rank = rng.choice([0, 1, 1, 2, 2, 2, 3, 3][:{0: 1, 1: 3, 2: 6, 3: 8}[max_rank]])
    while True:
        shape = [rng.choice([1, 2, 2, 3, 3, 4]) for _ in range(rank)]
        if _numel(shape) <= MAX_ELEMENTS:
            return shape


def _broadcast_partner(rng, shape):
    """A shape that broadcasts with ``shape``: a suffix of it, with some dimensions set to 1."""
    keep = rng.below(len(shape) + 1)
    out = list(shape[len(shape) - keep:])
    return [1 if (d is not None and rng.chance(0.25)) else d for d in out]


def _values(rng, dtype, shape):
    n = _numel(shape)
    if dtype in FLOATS:
        vals = []
        for _ in range(n):
            v = round(rng.random() * 5 - 2.5, 3)
            if rng.chance(0.03):
                v = 0.0
            vals.append(v)
        return vals
    if dtype in INTS:   # zero rarely (integer division by zero is an error)
        return [rng.choice([-4, -3, -2, -1, 1, 2, 3, 4, 5]) if not rng.chance(0.02) else 0 for _ in range(n)]
    return [rng.chance(0.5) for _ in range(n)]


def _broadcast(a, b):
    """The broadcast of two static shapes (None: unknown), or raises ValueError."""
    out = []
    for i in range(max(len(a), len(b))):
        x = a[len(a) - 1 - i] if i < len(a) else 1
        y = b[len(b) - 1 - i] if i < len(b) else 1
        if x == 1:
            out.append(y)
        elif y == 1 or x == y:
            out.append(x)
        elif x is None or y is None:
            out.append(x if y is None else y)
        else:
            raise ValueError("incompatible")
    return out[::-1]


class _Gen:
    """Builds one program: ``env`` holds each value's (dtype, shape) as the program goes."""

    def __init__(self, seed):
        self.rng = _Rng(seed)
        self.env = []
        self.steps = []

    # --- picking operands ---
    def pick(self, pred=lambda m: True, recent=True):
        """An env index whose (dtype, shape) satisfies ``pred``; later values are likelier. None if none."""
        idx = [i for i, m in enumerate(self.env) if pred(m)]
        if not idx:
            return None
        if recent and self.rng.chance(0.6):
            return idx[-1]
        return self.rng.choice(idx)

    def add(self, op, inputs, meta, **kw):
        self.steps.append({"op": op, "in": list(inputs), "kw": kw})
        self.env.append(meta)
        return len(self.env) - 1

    def axis(self, rank, allow_none=False, bad=0.04):
        """An axis for a tensor of ``rank``: in range, negative at times, and out of range at rate ``bad``."""
        if self.rng.chance(bad) or rank == 0:
            return self.rng.choice([rank, -rank - 1, rank + 1])
        if allow_none and self.rng.chance(0.2):
            return None
        a = self.rng.below(rank)
        return a - rank if self.rng.chance(0.3) else a

    # --- the categories ---
    def binary(self):
        r = self.rng
        x = self.pick()
        dt, shape = self.env[x]
        if dt == "bool":
            op = r.choice(["logical_and", "logical_or", "logical_xor", "op&", "op|", "equal", "not_equal"])
        elif dt in INTS:
            op = r.choice(["add", "subtract", "multiply", "floordiv", "floormod", "maximum", "minimum", "pow",
                           "squared_difference", "less", "equal", "divide", "truediv", "op+", "op-", "op*",
                           "op//", "op%", "op<", "op>=", "op&", "op|"])
        else:
            op = r.choice(["add", "subtract", "multiply", "divide", "truediv", "floordiv", "floormod", "pow",
                           "maximum", "minimum", "squared_difference", "divide_no_nan", "atan2", "xdivy", "less",
                           "greater_equal", "equal", "not_equal", "op+", "op-", "op*", "op/", "op//", "op%",
                           "op**", "op<", "op>="])
        want_dt = dt
        if r.chance(0.05):   # a mismatch TF refuses
            want_dt = r.choice([d for d in ("float32", "float64", "int32", "bool") if d != dt])
        y = self.pick(lambda m: m[0] == want_dt and _compatible_bcast(m[1], shape), recent=False)
        if y is None or r.chance(0.15):
            y = self._new_input(want_dt, _broadcast_partner(r, shape) if not r.chance(0.04) else _random_shape(r))
            x = x + 1 if x >= y else x
        if r.chance(0.5):
            x, y = y, x
        try:
            out_shape = _broadcast(self.env[x][1], self.env[y][1])
        except ValueError:
            out_shape = shape
        if op in ("less", "greater_equal", "equal", "not_equal", "op<", "op>="):
            out_dt = "bool"
        elif op in ("divide", "truediv", "op/") and dt in INTS:
            out_dt = "float64"
        else:
            out_dt = dt
        return self.add(op, [x, y], (out_dt, out_shape))

    def _new_input(self, dt, shape):
        """One more program input, of ``dtype`` and ``shape`` (unknown dimensions become 1).

        It goes after the other inputs, so env indices from there on move up by one: the steps'
        references are renumbered here, and the caller renumbers the indices it holds.
        """
        shape = [1 if d is None else d for d in shape]
        self.extra.append((dt, shape))
        self.env.insert(len(self.extra) - 1, (dt, shape))
        self._shift_steps()
        return len(self.extra) - 1

    def _shift_steps(self):
        """An input was inserted at the end of the inputs: renumber the steps' references after it."""
        n = len(self.extra) - 1
        for s in self.steps:
            s["in"] = [i + 1 if i >= n else i for i in s["in"]]

    def scalar(self):
        r = self.rng
        x = self.pick()
        dt, shape = self.env[x]
        if dt == "bool":
            op, c = r.choice([("scalar&", True), ("scalar&", False), ("scalar&", -1), ("scalar&", 1)]), None
            op, c = op
            return self.add(op, [x], (dt, shape), c=c)
        op = r.choice(["scalar+", "scalar*", "rscalar-", "scalar**", "scalar>", "pow_scalar"])
        if dt in INTS:
            c = r.choice([2, 3, -1, 0, 1]) if op in ("scalar**", "pow_scalar") else r.choice([2, -3, 1])
            if r.chance(0.1):
                c = 0.5    # a float with an int tensor: TF refuses
        else:
            c = r.choice([2.0, 0.5, -1.5, 3, 2]) if op in ("scalar**", "pow_scalar") else r.choice([1.5, -2.0, 3])
        return self.add(op, [x], ("bool" if op == "scalar>" else dt, shape), c=c)

    def unary(self):
        r = self.rng
        x = self.pick()
        dt, shape = self.env[x]
        if dt == "bool":
            op = r.choice(["logical_not", "op~", "cast", "cast"])
            if op == "cast":
                to = r.choice(["float32", "int32"])
                return self.add("cast", [x], (to, shape), dtype=to)
            return self.add(op, [x], (dt, shape))
        if dt in INTS:
            op = r.choice(["abs", "negative", "sign", "square", "op-neg", "op_abs", "relu", "cast", "dtypes.cast",
                           "reciprocal", "sqrt", "op~"])
            if op in ("cast", "dtypes.cast"):
                to = r.choice(["float32", "float64", "bool", "int64"])
                return self.add(op, [x], (to, shape), dtype=to)
            return self.add(op, [x], (dt, shape))
        op = r.choice(["abs", "negative", "sign", "square", "sqrt", "rsqrt", "exp", "expm1", "log", "log1p", "sin",
                       "cos", "tanh", "sigmoid", "softplus", "erf", "floor", "ceil", "round", "rint", "reciprocal",
                       "reciprocal_no_nan", "log_sigmoid", "asinh", "atan", "is_nan", "is_finite", "op-neg",
                       "op_abs", "relu", "relu6", "elu", "selu", "softsign", "silu", "gelu", "leaky_relu", "cast",
                       "dtypes.cast", "logical_not"])
        if op in ("cast", "dtypes.cast"):
            to = r.choice(["int32", "float64", "float32", "bool"])
            return self.add(op, [x], (to, shape), dtype=to)
        out_dt = "bool" if op in ("is_nan", "is_finite", "logical_not") else dt
        return self.add(op, [x], (out_dt, shape))

    def nn(self):
        r = self.rng
        x = self.pick(lambda m: m[0] in FLOATS or r.chance(0.05))
        if x is None:
            return self.unary()
        dt, shape = self.env[x]
        rank = len(shape)
        op = r.choice(["softmax", "log_softmax", "l2_normalize", "moments_mean", "moments_var", "bias_add",
                       "clip_by_value", "add_n"])
        if rank == 0 and not r.chance(0.1):
            return self.unary()
        if op in ("softmax", "log_softmax", "l2_normalize"):
            a = self.axis(rank, bad=0.03) if rank else -1
            return self.add(op, [x], (dt, shape), axis=a)
        if op in ("moments_mean", "moments_var"):
            axes = sorted(set(self.axis(rank) % rank for _ in range(r.below(rank) + 1))) if rank else []
            out = [d for i, d in enumerate(shape) if i not in axes]
            return self.add(op, [x], (dt, out), axes=axes)
        if op == "bias_add":
            if rank < 2 or shape[-1] is None:
                return self.unary()
            b = self._new_input(dt, [shape[-1]])
            return self.add(op, [x + 1 if x >= b else x, b], (dt, shape))
        if op == "clip_by_value":
            lo = r.choice([-1.0, -0.5, 0.0])
            return self.add(op, [x], (dt, shape), lo=lo, hi=lo + r.choice([0.5, 1.0, 2.0]))
        y = self.pick(lambda m: m[0] == dt and m[1] == shape, recent=False)
        return self.add("add_n", [x, y], (dt, shape))

    def reduction(self):
        r = self.rng
        x = self.pick()
        dt, shape = self.env[x]
        rank = len(shape)
        if dt == "bool":
            op = r.choice(["reduce_any", "reduce_all", "argmax"])
        elif dt in INTS:
            op = r.choice(["reduce_sum", "reduce_max", "reduce_min", "reduce_prod", "reduce_mean", "argmax", "argmin",
                           "cumsum", "cumprod"])
        else:
            op = r.choice(["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
                           "reduce_logsumexp", "reduce_euclidean_norm", "reduce_std", "reduce_variance", "argmax",
                           "argmin", "cumsum", "cumprod", "reduce_sum", "reduce_mean"])
        if rank == 0 and not r.chance(0.15):
            op = "reduce_sum"
        if op in ("argmax", "argmin"):
            a = self.axis(rank, bad=0.05)
            out = [d for i, d in enumerate(shape) if not (-rank <= a < rank and i == a % rank)]
            return self.add(op, [x], ("int64", out), axis=a)
        if op in ("cumsum", "cumprod"):
            a = self.axis(rank, bad=0.05)
            return self.add(op, [x], (dt, shape), axis=a, exclusive=r.chance(0.3), reverse=r.chance(0.3))
        keepdims = r.chance(0.3)
        if r.chance(0.25) or rank == 0:
            axis = None
        elif r.chance(0.3) and rank >= 2:
            axis = sorted(set(self.axis(rank, bad=0.0) % rank for _ in range(2)))
        else:
            axis = self.axis(rank, bad=0.04)
        if axis is None:
            axes = list(range(rank))
        elif isinstance(axis, list):
            axes = axis
        else:
            axes = [axis % rank] if -rank <= axis < rank else []
        out = [1 if i in axes else d for i, d in enumerate(shape)] if keepdims else \
            [d for i, d in enumerate(shape) if i not in axes]
        return self.add(op, [x], (dt, out), axis=axis, keepdims=keepdims)

    def shape_op(self):
        r = self.rng
        x = self.pick()
        dt, shape = self.env[x]
        rank = len(shape)
        known = all(d is not None for d in shape)
        op = r.choice(["reshape", "transpose", "expand_dims", "squeeze", "tile", "concat", "stack", "unstack",
                       "split", "broadcast_to", "pad", "reverse", "shape", "size", "zeros_like", "ones_like",
                       "identity", "where", "where_pos", "one_hot", "rank"])
        if op == "reshape":
            n = _numel(shape)
            if n is None:
                return self.add(op, [x], (dt, [None]), shape=[-1])
            target = _factor_shape(r, n)
            if r.chance(0.3) and target:
                target = list(target)
                target[r.below(len(target))] = -1
            if r.chance(0.04):
                target = [n + 1]
            out = [None if d == -1 else d for d in target]
            if -1 in target:
                rest = _numel([d for d in target if d != -1]) or 1
                out = [n // rest if d == -1 else d for d in target]
            return self.add(op, [x], (dt, out), shape=target)
        if op == "transpose":
            perm = r.permutation(rank) if rank else []
            if r.chance(0.2):
                return self.add(op, [x], (dt, shape[::-1]))
            return self.add(op, [x], (dt, [shape[p] for p in perm]), perm=perm)
        if op == "expand_dims":
            a = self.axis(rank + 1, bad=0.04)
            out = list(shape)
            if -rank - 1 <= a <= rank:
                out.insert(a % (rank + 1), 1)
            return self.add(op, [x], (dt, out), axis=a)
        if op == "squeeze":
            ones = [i for i, d in enumerate(shape) if d == 1]
            if ones and r.chance(0.6):
                a = r.choice(ones)
                return self.add(op, [x], (dt, [d for i, d in enumerate(shape) if i != a]), axis=a)
            if rank and r.chance(0.1):   # squeezing a dimension that is not 1
                return self.add(op, [x], (dt, shape), axis=0)
            return self.add(op, [x], (dt, [d for d in shape if d != 1]))
        if op == "tile":
            mult = [r.choice([1, 1, 2]) for _ in range(rank)]
            out = [None if d is None else d * m for d, m in zip(shape, mult)]
            if _numel(out) is not None and _numel(out) > 2 * MAX_ELEMENTS:
                mult = [1] * rank
                out = shape
            return self.add(op, [x], (dt, out), multiples=mult)
        if op in ("concat", "stack"):
            y = self.pick(lambda m: m[0] == dt and len(m[1]) == rank and _compatible(m[1], shape), recent=False)
            if op == "stack":
                a = self.axis(rank + 1, bad=0.03)
                out = list(shape)
                out.insert(a % (rank + 1) if -rank - 1 <= a <= rank else 0, 2)
                return self.add(op, [x, y], (dt, out), axis=a)
            if rank == 0:
                return self.add(op, [x, y], (dt, shape), axis=0)   # concat of scalars: an error
            a = self.axis(rank, bad=0.03)
            b = a % rank if -rank <= a < rank else 0
            out = list(shape)
            other = self.env[y][1]
            out[b] = None if shape[b] is None or other[b] is None else shape[b] + other[b]
            return self.add(op, [x, y], (dt, out), axis=a)
        if op == "unstack":
            if rank == 0:
                return self.add(op, [x], (dt, shape), axis=0, i=0)
            a = self.axis(rank, bad=0.0)
            n = shape[a] or 1
            return self.add(op, [x], (dt, [d for i, d in enumerate(shape) if i != a % rank]), axis=a,
                            i=r.below(n) - (n if r.chance(0.3) else 0))
        if op == "split":
            cands = [i for i, d in enumerate(shape) if d is not None and d % 2 == 0]
            if not cands:
                return self.add("identity", [x], (dt, shape))
            a = r.choice(cands)
            out = list(shape)
            out[a] //= 2
            return self.add(op, [x], (dt, out), n=2, axis=a, i=r.below(2))
        if op == "broadcast_to":
            target = [r.choice([2, 3]) for _ in range(r.below(2))] + [d if d != 1 else r.choice([1, 2, 3])
                                                                      for d in shape]
            if not known or _numel(target) > 2 * MAX_ELEMENTS:
                return self.add("identity", [x], (dt, shape))
            return self.add(op, [x], (dt, target), shape=target)
        if op == "pad":
            if rank == 0:
                return self.add("identity", [x], (dt, shape))
            pads = [[r.below(2), r.below(2)] for _ in range(rank)]
            mode = r.choice(["CONSTANT", "CONSTANT", "REFLECT", "SYMMETRIC"])
            out = [None if d is None else d + p + q for d, (p, q) in zip(shape, pads)]
            return self.add(op, [x], (dt, out), paddings=pads, mode=mode)
        if op == "reverse":
            a = self.axis(rank, bad=0.03) if rank else 0
            return self.add(op, [x], (dt, shape), axis=[a])
        if op == "shape":
            return self.add(op, [x], ("int32", [rank]))
        if op in ("size", "rank"):
            return self.add(op, [x], ("int32", []))
        if op in ("zeros_like", "ones_like", "identity"):
            return self.add(op, [x], (dt, shape))
        if op == "where":
            c = self.pick(lambda m: m[0] == "bool" and _compatible_bcast(m[1], shape), recent=False)
            if c is None:
                c = self._new_input("bool", _broadcast_partner(r, shape))
                x = x + 1 if x >= c else x
            y = self.pick(lambda m: m[0] == dt and _compatible_bcast(m[1], shape), recent=False)
            try:
                out = _broadcast(_broadcast(self.env[c][1], shape), self.env[y][1])
            except ValueError:
                out = shape
            return self.add(op, [c, x, y], (dt, out))
        if op == "where_pos":
            y = self.pick(lambda m: m[0] == dt and _compatible_bcast(m[1], shape), recent=False)
            try:
                out = _broadcast(shape, self.env[y][1])
            except ValueError:
                out = shape
            return self.add(op, [x, y], (dt, out))
        if op == "one_hot":
            if dt not in INTS and not r.chance(0.15):
                x = self.pick(lambda m: m[0] in INTS)
                if x is None:
                    return self.unary()
                dt, shape = self.env[x]
            depth = r.choice([2, 3, 4])
            if _numel(shape) is not None and _numel(shape) * depth > 2 * MAX_ELEMENTS:
                depth = 2
            return self.add(op, [x], ("float32", list(shape) + [depth]), depth=depth)
        return self.add("rank", [x], ("int32", []))

    def indexing(self):
        r = self.rng
        x = self.pick(lambda m: len(m[1]) >= 1)
        if x is None:
            return self.shape_op()
        dt, shape = self.env[x]
        rank = len(shape)
        op = r.choice(["slice", "slice", "gather", "gather", "gather_nd", "boolean_mask", "gather_t"])
        d0 = shape[0]
        if op == "slice":
            return self._slice(x, dt, shape)
        if op in ("gather", "gather_t"):
            a = self.axis(rank, bad=0.03) if op == "gather" else 0
            ax = a % rank if -rank <= a < rank else 0
            n = shape[ax] or 2
            count = r.choice([1, 2, 3])
            idx = [r.below(n) for _ in range(count)]
            if r.chance(0.05):
                idx[0] = n + 1   # out of range: an error when run
            if op == "gather_t":
                i = self.pick(lambda m: m[0] in INTS and m[1] == [], recent=False)
                if i is None:
                    return self.add("gather", [x], (dt, [count] + shape[1:]), indices=idx, axis=0)
                return self.add(op, [x, i], (dt, shape[1:]))
            out = shape[:ax] + [count] + shape[ax + 1:]
            if r.chance(0.05):
                return self.add(op, [x], (dt, out), indices=[float(v) for v in idx], axis=a)
            return self.add(op, [x], (dt, out), indices=idx, axis=a)
        if op == "gather_nd":
            k = r.below(rank) + 1
            count = r.choice([1, 2])
            idx = [[r.below(shape[j] or 1) for j in range(k)] for _ in range(count)]
            return self.add(op, [x], (dt, [count] + shape[k:]), indices=idx)
        if d0 is None:
            return self._slice(x, dt, shape)
        mask = [r.chance(0.5) for _ in range(d0)]
        mask[r.below(d0)] = True
        return self.add(op, [x], (dt, [sum(mask)] + shape[1:]), mask=mask)

    def _slice(self, x, dt, shape):
        r = self.rng
        rank = len(shape)
        kind = r.choice(["int", "range", "range2", "ellipsis", "new", "reverse", "bad"])
        d0 = shape[0]
        if kind == "int":
            i = r.below(d0 or 1) - (d0 or 1) * (r.chance(0.3))
            return self.add("slice", [x], (dt, shape[1:]), spec=[i])
        if kind == "range":
            a = r.below(d0 or 2)
            out0 = None if d0 is None else max(0, d0 - a)
            return self.add("slice", [x], (dt, [out0] + shape[1:]), spec=[[a, None, None]])
        if kind == "range2" and rank >= 2:
            i = r.below(shape[1] or 1)
            return self.add("slice", [x], (dt, [shape[0]] + shape[2:]), spec=[[None, None, None], i])
        if kind == "ellipsis":
            return self.add("slice", [x], (dt, shape), spec=["...", [None, None, -1]])
        if kind == "new":
            return self.add("slice", [x], (dt, [1] + shape), spec=["new"])
        if kind == "reverse":
            out0 = None if d0 is None else (d0 + 1) // 2
            return self.add("slice", [x], (dt, [out0] + shape[1:]), spec=[[None, None, -2]])
        return self.add("slice", [x], (dt, shape[1:]), spec=[(d0 or 3) + 2])   # out of bounds

    def sorting(self):
        r = self.rng
        x = self.pick(lambda m: len(m[1]) >= 1 and m[0] != "bool")
        if x is None:
            return self.reduction()
        dt, shape = self.env[x]
        rank = len(shape)
        op = r.choice(["sort", "argsort", "top_k_values", "top_k_indices", "unique"])
        if op in ("sort", "argsort"):
            a = self.axis(rank, bad=0.08)
            direction = r.choice(["ASCENDING", "DESCENDING"])
            return self.add(op, [x], ("int32" if op == "argsort" else dt, shape), axis=a, direction=direction)
        if op == "unique":
            if rank != 1:
                x = self.add("reshape", [x], (dt, [_numel(shape)]), shape=[-1])
            return self.add(op, [x], (dt, [None]))
        n = shape[-1] or 1
        k = r.below(n) + 1 if not r.chance(0.06) else n + 1
        return self.add(op, [x], (dt if op == "top_k_values" else "int32", shape[:-1] + [k]), k=k)

    def segment(self):
        r = self.rng
        x = self.pick(lambda m: len(m[1]) >= 1 and m[1][0] is not None and m[0] != "bool")
        if x is None:
            return self.reduction()
        dt, shape = self.env[x]
        n = shape[0]
        if r.chance(0.5):
            op = r.choice(["segment_sum", "segment_mean", "segment_max", "segment_min", "segment_prod"])
            ids = sorted(r.below(3) for _ in range(n))
            if r.chance(0.05) and n > 1:
                ids = ids[::-1]   # unsorted ids: an error
            return self.add(op, [x], (dt, [None] + shape[1:]), ids=ids)
        op = r.choice(["unsorted_segment_sum", "unsorted_segment_max", "unsorted_segment_min",
                       "unsorted_segment_prod", "unsorted_segment_mean"])
        num = r.choice([2, 3])
        ids = [r.below(num) for _ in range(n)]
        return self.add(op, [x], (dt, [num] + shape[1:]), ids=ids, num=num)

    def matmul(self):
        r = self.rng
        x = self.pick(lambda m: len(m[1]) == 2 and m[0] in FLOATS)
        if x is None:
            return self.binary()
        dt, shape = self.env[x]
        if r.chance(0.5):
            return self.add("matmul_t", [x], (dt, [shape[0], shape[0]]))
        y = self.pick(lambda m: len(m[1]) == 2 and m[0] == dt and m[1][0] == shape[1], recent=False)
        if y is None:
            y = self._new_input(dt, [shape[1], r.choice([1, 2, 3])])
            x = x + 1 if x >= y else x
        return self.add("matmul", [x, y], (dt, [shape[0], self.env[y][1][1]]))


def _compatible(a, b):
    """Same rank and equal known dimensions (the other operand of a concat, stack or add_n)."""
    return len(a) == len(b) and all(x is None or y is None or x == y for x, y in zip(a, b))


def _compatible_bcast(a, b):
    try:
        _broadcast(a, b)
        return True
    except ValueError:
        return False


def _factor_shape(rng, n):
    """A random shape with ``n`` elements (rank 0 to 3)."""
    if n == 1 and rng.chance(0.3):
        return []
    dims = []
    rest = n
    while rest > 1 and len(dims) < 2:
        divs = [d for d in range(2, rest + 1) if rest % d == 0]
        d = rng.choice(divs)
        dims.append(d)
        rest //= d
    if rest > 1:
        dims.append(rest)
    if not dims:
        dims = [1]
    if rng.chance(0.2):
        dims.insert(rng.below(len(dims) + 1), 1)
    return dims


_CATEGORIES = [("binary", 5), ("scalar", 2), ("unary", 4), ("nn", 2), ("reduction", 3), ("shape_op", 4),
               ("indexing", 3), ("sorting", 1.5), ("segment", 1.5), ("matmul", 1)]


def generate(seed):
    """The program of ``seed`` (see the module docstring for its form)."""
    g = _Gen(seed)
    r = g.rng
    g.extra = []
    for _ in range(r.choice([1, 1, 2, 2, 3])):
        if not g.env:
            dt = r.choice(["float32"] * 7 + ["float64", "int32", "int32", "bool"])
            shape = _random_shape(r)
        else:
            dt = r.choice(["float32"] * 5 + ["int32", "float64"])
            shape = _broadcast_partner(r, g.env[0][1]) if r.chance(0.7) else _random_shape(r)
        g.extra.append((dt, shape))
        g.env.append((dt, shape))
    total = sum(w for _, w in _CATEGORIES)
    for _ in range(r.choice([2, 3, 3, 4, 4, 5, 6])):
        u = r.random() * total
        for name, w in _CATEGORIES:
            u -= w
            if u <= 0:
                break
        getattr(g, name)()
    n_in = len(g.extra)
    outputs = [len(g.env) - 1]
    if len(g.env) - 1 > n_in and r.chance(0.5):
        other = r.below(len(g.env) - 1)
        if other != outputs[0]:
            outputs.append(other)
    inputs = [[dt, list(shape), _values(r, dt, shape)] for dt, shape in g.extra]
    placeholders = []
    partial = r.chance(0.35)
    for dt, shape in g.extra:
        placeholders.append([None if (partial and r.chance(0.5)) else d for d in shape])
    return {"inputs": inputs, "placeholders": placeholders, "steps": g.steps, "outputs": outputs}


# ======================================================================================
# Running a program, four ways, into JSON-able records
# ======================================================================================
def error_class(exc):
    return type(exc).__name__


def _flat(values):
    out = []
    for v in values:
        if isinstance(v, float):
            if math.isnan(v):
                out.append("nan")
            elif math.isinf(v):
                out.append("inf" if v > 0 else "-inf")
            else:
                out.append(float(f"{v:.8g}"))
        elif isinstance(v, bool):
            out.append(int(v))
        else:
            out.append(v)
    return out


def tensor_record(np, t):
    """``[dtype, shape, flat values]`` of a tensor with a value (eager, or fetched by a Session)."""
    if hasattr(t, "indices") and hasattr(t, "dense_shape"):   # IndexedSlices: compare them dense
        raise TypeError("convert IndexedSlices first")
    a = np.asarray(t)
    dtype = a.dtype.name if a.dtype.name != "bool_" else "bool"
    return [dtype, list(a.shape), _flat(a.ravel().tolist())]


def static_record(t):
    shape = t.shape
    return [t.dtype.name, None if shape.rank is None else list(shape.as_list())]


def _inputs(tf, np, program):
    return [tf.constant(np.array(vals, dtype=dt).reshape(shape)) for dt, shape, vals in program["inputs"]]


def variant_eager(tf, np, program):
    fn = program_function(tf, program)
    try:
        outs = fn(*_inputs(tf, np, program))
        return {"out": [tensor_record(np, o) for o in outs]}
    except Exception as e:  # noqa: BLE001
        return {"error": error_class(e)}


def variant_function(tf, np, program):
    """``tf.function`` of the program, called twice on the same eager inputs."""
    body = program_function(tf, program)
    seen = {}

    def traced(*args):
        seen.pop("static", None)
        outs = body(*args)
        seen["static"] = [static_record(o) for o in outs]
        return outs
    f = tf.function(traced)
    args = _inputs(tf, np, program)
    calls = []
    for _ in range(2):
        seen.clear()
        try:
            outs = f(*args)
            calls.append({"out": [tensor_record(np, o) for o in outs]})
        except Exception as e:  # noqa: BLE001
            calls.append({"error": error_class(e), "stage": "run" if "static" in seen else "trace"})
        if not calls[1:]:
            static = seen.get("static")
    first = dict(calls[0], static=static) if static is not None else calls[0]
    if calls[1] != calls[0]:   # the second call (the traced graph reused, or traced again) differs
        first["second"] = calls[1]
    return first


def variant_tape(tf, np, program):
    fn = program_function(tf, program)
    args = _inputs(tf, np, program)
    watched = [a for a in args if a.dtype.is_floating]
    try:
        with tf.GradientTape() as tape:
            for a in watched:
                tape.watch(a)
            outs = fn(*args)
            targets = [tf.reduce_sum(o) for o in outs if o.dtype.is_floating]
        record = {"out": [tensor_record(np, o) for o in outs]}
        if watched and targets:
            grads = tape.gradient(targets, watched)
            record["grads"] = [None if g is None else tensor_record(np, tf.convert_to_tensor(g)) for g in grads]
        return record
    except Exception as e:  # noqa: BLE001
        return {"error": error_class(e)}


def variant_graph(tf, np, program):
    """Built in a ``tf.Graph`` from placeholders (``program["placeholders"]`` shapes), run by a Session."""
    v1 = tf.compat.v1
    fn = program_function(tf, program)
    g = tf.Graph()
    with g.as_default():
        try:
            phs = [v1.placeholder(getattr(tf, dt), shape) for (dt, _, _), shape in
                   zip(program["inputs"], program["placeholders"])]
            outs = fn(*phs)
            static = [static_record(o) for o in outs]
        except Exception as e:  # noqa: BLE001
            return {"error": error_class(e), "stage": "build"}
        feeds = {p: np.array(vals, dtype=dt).reshape(shape)
                 for p, (dt, shape, vals) in zip(phs, program["inputs"])}
        try:
            with v1.Session(graph=g) as sess:
                values = sess.run(outs, feed_dict=feeds)
        except Exception as e:  # noqa: BLE001
            return {"error": error_class(e), "stage": "run", "static": static}
        return {"static": static, "out": [tensor_record(np, v) for v in values]}


VARIANTS = {"eager": variant_eager, "function": variant_function, "tape": variant_tape, "graph": variant_graph}


def run_variant(tf, np, program, variant):
    return VARIANTS[variant](tf, np, program)


def compress(records):
    """Replace each variant's ``out`` equal to the eager one by ``"="`` (the golden file stays small)."""
    eager_out = records["eager"].get("out")
    out = {}
    for name, rec in records.items():
        if name != "eager" and eager_out is not None and rec.get("out") == eager_out:
            rec = dict(rec, out="=")
        out[name] = rec
    return out


def expand(records):
    eager_out = records["eager"].get("out")
    return {name: (dict(rec, out=eager_out) if rec.get("out") == "=" else rec) for name, rec in records.items()}
