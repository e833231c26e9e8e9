"""Random ops (``tf.random``) with TensorFlow's global/op seed rules.

**Seeds.** Every random op has two integer attrs, ``seed`` and ``seed2``, chosen
by :func:`get_seed` from the global seed (``tf.random.set_seed``) and the op's
own ``seed=`` argument, following TF's rules exactly:

* neither set: ``(0, 0)``, meaning "nondeterministic": fresh OS entropy;
* global seed only: the op seed comes from a counter, ``random.Random(global_seed)``
  (the same Python generator TF uses, so even the op seeds match TF's), so the
  sequence of results after ``set_seed`` is reproducible;
* op seed only: a default global seed (87654321) is used with it;
* both: both determine the sequence.

**Streams.** An op with a given ``(seed, seed2)`` does not return the same value
every call: as in TF's eager runtime, where a cached kernel keeps its Philox
counter, each seed pair owns a *stream* that advances with every call. The
streams live in one place, :data:`STATE` (``STATE.streams``), keyed by
``(owner, op type, dtype, seed, seed2)``; ``set_seed`` clears them, so
``set_seed(1); a = uniform([2]); set_seed(1); b = uniform([2])`` gives ``a == b``.
``owner`` is ``None`` for eager execution. A graph runtime (``tf.function``) that
wants TF's graph semantics, where every random *node* owns its stream, runs each
node's kernel inside ``with stream_owner(node):``. A ``Session`` passes its
runtime (the random ops are ``needs_runtime`` kernels): its streams then live in
``STATE.session_streams[runtime]``, so every Session of a graph starts each
node's sequence afresh, as TF's per-session kernels do. Streams are kept in
least-recently-used order and the oldest are forgotten beyond
``MAX_STREAMS`` (a long loop of counter-seeded ops would otherwise keep one
stream per call forever).

**Generators.** A stream is a NumPy ``Generator(Philox(key=[seed, seed2]))``:
TF also uses Philox keyed by the two seeds, but its bit layout differs, so the
*values* differ from TF's while the *seed semantics* match. On a GPU device the
numbers are generated on the host with NumPy and copied to the device, so CPU
and GPU give identical values for identical seeds.
"""
import collections
import random as _pyrandom

import numpy as np

from ..framework import dtypes
from ..framework.context import ctx
from ..framework.errors import InvalidArgumentError
from ..framework.random_state import STATE, stream_owner  # noqa: F401  (stream_owner: part of this API)
from ..framework.registry import register_op
from ..framework.tensor import Tensor, convert_to_tensor, converted_by_wrapper
from ..framework.tensor_shape import TensorShape
from . import _shapes, array_ops, math_ops
from ._dispatch import check_dtype, execute, int_tensor, to_tensor

__all__ = ["set_seed", "uniform", "normal", "truncated_normal", "shuffle"]

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2 ** 31 - 1
MAX_STREAMS = 16384

_UNIFORM_DTYPES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)
_FLOAT_DTYPES = frozenset([dtypes.float16, dtypes.float32, dtypes.float64])
_SHAPE_DTYPES = frozenset([dtypes.int32, dtypes.int64])


def _truncate_seed(seed):
    return int(seed) % _MAXINT32


def set_seed(seed):
    """``tf.random.set_seed``: set the global seed and restart every random sequence.

    Resets the op-seed counter (so the ops that follow get the same op seeds as
    after the previous ``set_seed`` with this value) and forgets every stream (so
    explicitly seeded ops start their sequences again). ``None`` clears the seed.
    While a graph is being built, it sets that graph's ``seed`` instead, as TF does.
    """
    graph = ctx.graph
    if graph is not None:
        graph.seed = seed
        return
    with STATE.lock:
        if seed is not None:
            seed = int(np.asarray(seed)) if not isinstance(seed, int) else seed
        STATE.global_seed = seed
        STATE.op_seeds = None if seed is None else _pyrandom.Random(seed)
        STATE.reset_streams()


def get_seed(op_seed):
    """TF's ``random_seed.get_seed``: the ``(seed, seed2)`` pair for one random op.

    Returns ``(None, None)`` when neither seed is set. In graph mode the global seed
    is the graph's ``seed`` attribute when it has one, and op seeds count 0, 1, 2 ...
    per graph.
    """
    graph = ctx.graph
    global_seed = STATE.global_seed if graph is None else getattr(graph, "seed", STATE.global_seed)
    if global_seed is not None:
        if op_seed is None:
            with STATE.lock:
                if graph is None:
                    if STATE.op_seeds is None:
                        STATE.op_seeds = _pyrandom.Random(global_seed)
                    op_seed = STATE.op_seeds.randint(0, _MAXINT32)
                else:
                    op_seed = STATE.graph_counters.get(graph, 0)
                    STATE.graph_counters[graph] = op_seed + 1
        seeds = _truncate_seed(global_seed), _truncate_seed(op_seed)
    elif op_seed is not None:
        seeds = DEFAULT_GRAPH_SEED, _truncate_seed(op_seed)
    else:
        seeds = None, None
    if seeds == (0, 0):   # (0, 0) means "nondeterministic" to the kernels
        return 0, _MAXINT32
    return seeds


def _seed_attrs(seed):
    s1, s2 = get_seed(seed)
    return {"seed": s1 or 0, "seed2": s2 or 0}


def _generator(op_name, dtype, seed, seed2, runtime=None):
    """The stream for one op type and seed pair (a fresh OS-seeded draw for ``(0, 0)``).

    ``runtime``: the Session running the op (None eagerly), which owns its own streams.
    Call with ``STATE.lock`` held.
    """
    if seed == 0 and seed2 == 0:
        return STATE.unseeded
    key = (getattr(STATE.local, "owner", None), op_name, dtype.name, int(seed), int(seed2))
    if runtime is None:
        streams = STATE.streams
    else:
        streams = STATE.session_streams.get(runtime)
        if streams is None:
            streams = STATE.session_streams[runtime] = collections.OrderedDict()
    gen = streams.get(key)
    if gen is None:
        gen = np.random.Generator(np.random.Philox(key=np.array([seed, seed2], dtype=np.uint64)))
        streams[key] = gen
        if len(streams) > MAX_STREAMS:
            streams.popitem(last=False)
    else:
        streams.move_to_end(key)
    return gen


def _to_device(xp, host):
    """Random numbers are made on the host; a GPU kernel copies them over."""
    return host[()] if xp is np else xp.asarray(host)


def _shape_from(shape_array, op_name):
    if getattr(shape_array, "ndim", 0) != 1:
        raise InvalidArgumentError(None, None, f"shape must be a vector of {{int32,int64}}, got shape "
                                               f"{_shapes.fmt(TensorShape(list(np.shape(shape_array))))}")
    dims = tuple(int(d) for d in np.ravel(shape_array.tolist()))
    for d in dims:
        if d < 0:
            raise InvalidArgumentError(None, None, f"Dimension {d} must be >= 0")
    return dims


# --------------------------------------------------------------------------------------
# Kernels
# --------------------------------------------------------------------------------------
def _uniform_host(gen, dims, dtype):
    if dtype == np.float16:
        # 10 random mantissa bits, k / 1024 in [0, 1): exact in float16, never rounds up to 1.
        return (gen.integers(0, 1024, dims).astype(np.float16) / np.float16(1024)).astype(np.float16)
    return gen.random(dims, dtype=np.float32 if dtype == np.float32 else np.float64)


def _normal_host(gen, dims, dtype):
    out = gen.standard_normal(dims, dtype=np.float64 if dtype == np.float64 else np.float32)
    return out.astype(dtype, copy=False)


def _truncated_host(gen, dims, dtype):
    """Standard normal, redrawing every value more than 2 standard deviations out."""
    out = gen.standard_normal(dims, dtype=np.float64 if dtype == np.float64 else np.float32)
    bad = np.abs(out) > 2
    while bad.any():
        out[bad] = gen.standard_normal(int(bad.sum()), dtype=out.dtype)
        bad = np.abs(out) > 2
    return out.astype(dtype, copy=False)


def _float_kernel(op_name, sample):
    def make(xp):
        def k(shape, dtype=dtypes.float32, seed=0, seed2=0, T=None, _runtime=None):  # noqa: N803 (TF attr name)
            dims = _shape_from(shape, op_name)
            with STATE.lock:
                host = sample(_generator(op_name, dtype, seed, seed2, _runtime), dims, dtype._np)
            return _to_device(xp, np.asarray(host))
        return k
    return make


def _uniform_int_kernel(xp):
    def k(shape, minval, maxval, seed=0, seed2=0, _runtime=None):
        dims = _shape_from(shape, "RandomUniformInt")
        for label, bound in (("minval", minval), ("maxval", maxval)):
            if np.ndim(bound) != 0:
                raise InvalidArgumentError(None, None, f"{label} must be 0-D, got shape "
                                                       f"{_shapes.fmt(TensorShape(list(np.shape(bound))))}; integer "
                                                       f"bounds do not broadcast")
        lo, hi = int(minval), int(maxval)
        if lo >= hi:
            raise InvalidArgumentError(None, None, f"Need minval < maxval, got {lo} >= {hi}")
        dtype = np.dtype(minval.dtype)
        with STATE.lock:
            host = _generator("RandomUniformInt", dtypes.from_numpy(dtype), seed, seed2, _runtime).integers(
                lo, hi, dims, dtype=dtype)
        return _to_device(xp, np.asarray(host))
    return k


def _shuffle_kernel(xp):
    def k(value, seed=0, seed2=0, _runtime=None):
        if getattr(value, "ndim", 0) == 0 or value.shape[0] <= 1:
            return value
        with STATE.lock:
            perm = _generator("RandomShuffle", dtypes.from_numpy(value.dtype), seed, seed2, _runtime).permutation(
                value.shape[0])
        return value[perm if xp is np else xp.asarray(perm)]
    return k


def _shape_infer(dtype_of):
    def infer(ic):
        value = ic.constant_value(0)
        if value is not None and np.ndim(value) != 1:
            shape = TensorShape(None)
        else:   # known values, or what is known of e.g. ``tf.shape(x)`` (TF's constant_value_as_shape)
            shape = array_ops._shape_from_input(ic, 0)
        return [(dtype_of(ic), shape)]
    return infer


_RANDOM_UNIFORM = register_op("RandomUniform", kernel=_float_kernel("RandomUniform", _uniform_host),
                              infer=_shape_infer(lambda ic: ic.attrs["dtype"]), random=True, needs_runtime=True,
                              doc="Uniform floats in [0, 1).")
_RANDOM_STANDARD_NORMAL = register_op("RandomStandardNormal",
                                      kernel=_float_kernel("RandomStandardNormal", _normal_host),
                                      infer=_shape_infer(lambda ic: ic.attrs["dtype"]), random=True,
                                      needs_runtime=True, doc="Standard normal floats.")
_TRUNCATED_NORMAL = register_op("TruncatedNormal", kernel=_float_kernel("TruncatedNormal", _truncated_host),
                                infer=_shape_infer(lambda ic: ic.attrs["dtype"]), random=True, needs_runtime=True,
                                doc="Standard normal floats redrawn until within 2 standard deviations.")
_RANDOM_UNIFORM_INT = register_op("RandomUniformInt", kernel=_uniform_int_kernel,
                                  infer=_shape_infer(lambda ic: ic.dtype(1)), random=True, needs_runtime=True,
                                  doc="Uniform integers in [minval, maxval).")
_RANDOM_SHUFFLE = register_op("RandomShuffle", kernel=_shuffle_kernel, infer=_shapes.same_as_input,
                              random=True, needs_runtime=True, doc="Permute along the first dimension.")


# --------------------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------------------
def _shape_tensor(shape, op_name):
    """A shape argument as an int32/int64 tensor input (TF's ``shape_util.shape_tensor``)."""
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    if isinstance(shape, Tensor) or hasattr(shape, "__tf_tensor__"):
        t = to_tensor(shape)
        check_dtype(op_name, t, _SHAPE_DTYPES, "shape")
        return t
    if isinstance(shape, (list, tuple)) and any(isinstance(d, Tensor) for d in shape):
        return int_tensor(shape)
    arr = np.asarray(shape)
    if arr.size and arr.dtype.kind not in "iu":
        check_dtype(op_name, convert_to_tensor(shape), _SHAPE_DTYPES, "shape")
    big = arr.size and arr.dtype.kind in "iu" and int(arr.max()) > _MAXINT32
    # (a tensor made here, as TF's shape_tensor makes one: the op's errors end as a tensor's)
    return converted_by_wrapper(int_tensor(arr.astype(np.int64).tolist(), dtype=dtypes.int64 if big else dtypes.int32))


def _check_dtype_arg(dtype, accepted):
    dtype = dtypes.as_dtype(dtype)
    if dtype not in accepted:
        names = ", ".join(f"tf.{d.name}" for d in accepted)
        raise ValueError(f"Argument `dtype` got invalid value <dtype: '{dtype.name}'>. Accepted dtypes are "
                         f"({names}).")
    return dtype


def uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    """Uniform values in ``[minval, maxval)``; ``maxval`` defaults to 1 for floats and is required for ints.

    Floats: ``RandomUniform`` in [0, 1) scaled as ``u * (maxval - minval) + minval``
    (so tensor bounds broadcast, and gradients flow to them). Ints: ``RandomUniformInt``
    with scalar bounds. Seeds follow :func:`get_seed`.
    """
    dtype = _check_dtype_arg(dtype, _UNIFORM_DTYPES)
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype tf.{dtype.name}")
        maxval = 1
    shape_t = _shape_tensor(shape, "RandomUniformInt" if dtype.is_integer else "RandomUniform")
    minval_is_zero = type(minval) is int and minval == 0
    maxval_is_one = type(maxval) is int and maxval == 1
    if not minval_is_zero or not maxval_is_one or dtype.is_integer:
        minval = convert_to_tensor(minval, dtype=dtype)
        maxval = convert_to_tensor(maxval, dtype=dtype)
    attrs = _seed_attrs(seed)
    if dtype.is_integer:
        return execute(_RANDOM_UNIFORM_INT, (shape_t, minval, maxval), attrs, name=name)
    result = execute(_RANDOM_UNIFORM, (shape_t,), dict(attrs, dtype=dtype), name=name)
    if minval_is_zero:
        return result if maxval_is_one else math_ops.multiply(result, maxval)
    return math_ops.add(math_ops.multiply(result, math_ops.subtract(maxval, minval)), minval)


def _float_dtype(dtype):
    dtype = dtypes.as_dtype(dtype)
    if dtype not in _FLOAT_DTYPES:
        raise TypeError(f"Cannot convert 0.0 to EagerTensor of dtype {dtype.name}: random normal values need a "
                        f"floating-point dtype (float16, float32 or float64)")
    return dtype


def normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Normal values: ``RandomStandardNormal * stddev + mean`` (``mean``/``stddev`` may be tensors)."""
    dtype = _float_dtype(dtype)
    shape_t = _shape_tensor(shape, "RandomStandardNormal")
    mean_t = convert_to_tensor(mean, dtype=dtype)
    stddev_t = convert_to_tensor(stddev, dtype=dtype)
    rnd = execute(_RANDOM_STANDARD_NORMAL, (shape_t,), dict(_seed_attrs(seed), dtype=dtype), name=name)
    return math_ops.add(math_ops.multiply(rnd, stddev_t), mean_t)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Normal values redrawn until within 2 standard deviations of ``mean``."""
    dtype = _float_dtype(dtype)
    shape_t = _shape_tensor(shape, "TruncatedNormal")
    mean_t = convert_to_tensor(mean, dtype=dtype)
    stddev_t = convert_to_tensor(stddev, dtype=dtype)
    rnd = execute(_TRUNCATED_NORMAL, (shape_t,), dict(_seed_attrs(seed), dtype=dtype), name=name)
    return math_ops.add(math_ops.multiply(rnd, stddev_t), mean_t)


def shuffle(value, seed=None, name=None):
    """Randomly permute ``value`` along its first dimension (scalars are returned unchanged)."""
    return execute(_RANDOM_SHUFFLE, (to_tensor(value),), _seed_attrs(seed), name=name)


# ======================================================================================
# Categorical sampling (Multinomial) and stateless random numbers
# ======================================================================================
__all__ += ["categorical", "stateless_normal", "stateless_uniform"]

_INDEX_OUT = frozenset([dtypes.int32, dtypes.int64])


def _multinomial_kernel(xp):
    def k(logits, num_samples, seed=0, seed2=0, output_dtype=dtypes.int64, T=None, _runtime=None):  # noqa: N803
        host = np.asarray(logits if xp is np else logits.get(), dtype=np.float64)
        if host.ndim != 2:
            raise InvalidArgumentError(None, None, f"logits should be a matrix, got shape "
                                                   f"{_shapes.fmt(TensorShape(list(host.shape)))}")
        n = int(num_samples)
        if n < 0:
            raise InvalidArgumentError(None, None, f"num_samples should be nonnegative, got {n}")
        batch, classes = host.shape
        if classes <= 0:
            raise InvalidArgumentError(None, None, f"num_classes should be positive, got {classes}")
        with STATE.lock:
            u = _generator("Multinomial", dtypes.from_numpy(np.dtype(logits.dtype)), seed, seed2, _runtime).random(
                (batch, n))
        with np.errstate(all="ignore"):
            shifted = np.exp(host - host.max(axis=1, keepdims=True))     # softmax, stable for large logits
            cdf = np.cumsum(shifted, axis=1)
            cdf /= cdf[:, -1:]
        out = np.empty((batch, n), dtype=output_dtype._np)
        for row in range(batch):                                         # inverse-CDF sampling
            out[row] = np.minimum(np.searchsorted(cdf[row], u[row], side="right"), classes - 1)
        return _to_device(xp, out)
    return k


def _multinomial_infer(ic):
    x = ic.shape(0)
    if x.rank is not None and x.rank != 2:
        ic.error(f"Shape must be rank 2 but is rank {x.rank}")
    n = ic.constant_value(1)
    batch = x[0] if x.rank == 2 else None
    return [(ic.attrs.get("output_dtype", dtypes.int64), TensorShape([batch, None if n is None else int(n)]))]


_MULTINOMIAL = register_op("Multinomial", kernel=_multinomial_kernel, infer=_multinomial_infer, random=True,
                           needs_runtime=True, doc="num_samples class indices per row of logits (categorical).")


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """Draw ``num_samples`` class indices for each row of the ``[batch, num_classes]`` ``logits``.

    Class ``j`` of row ``i`` is drawn with probability ``softmax(logits[i])[j]``;
    the result is ``[batch, num_samples]`` of ``dtype`` (int64 by default, or int32).
    Seeds follow :func:`get_seed` and each seed pair is a stream, as for the other
    random ops; the values differ from TF's (inverse-CDF sampling of a NumPy Philox
    stream, where TF uses its own Philox layout). Not differentiable.
    """
    x = to_tensor(logits)
    check_dtype("Multinomial", x, _FLOAT_DTYPES | frozenset([dtypes.int32, dtypes.int64]), "logits")
    dtype = dtypes.int64 if dtype is None else dtypes.as_dtype(dtype)
    if dtype not in _INDEX_OUT:
        message = f"Value for attr 'output_dtype' of {dtype.name} is not in the list of allowed values: int32, int64"
        if ctx.graph is not None:
            raise TypeError(message)
        raise InvalidArgumentError(None, None, message + " [Op:Multinomial]")
    return execute(_MULTINOMIAL, (x, int_tensor(num_samples)), dict(_seed_attrs(seed), output_dtype=dtype),
                   name=name)


# --- stateless ---------------------------------------------------------------------
_SEED_DTYPES = frozenset([dtypes.int32, dtypes.int64])
_FULL_INT_DTYPES = frozenset([dtypes.int32, dtypes.int64, dtypes.uint32, dtypes.uint64])


def _stateless_generator(seed):
    """A fresh generator keyed by the two seed values: the same seed always gives the same numbers."""
    s = np.asarray(seed if isinstance(seed, (np.ndarray, np.generic)) else seed.get())
    if s.shape != (2,):
        raise InvalidArgumentError(None, None, f"seed must have shape [2], not "
                                               f"{_shapes.fmt(TensorShape(list(s.shape)))}")
    key = np.array([int(v) % 2 ** 64 for v in s.tolist()], dtype=np.uint64)
    return np.random.Generator(np.random.Philox(key=key))


def _stateless_kernel(sample):
    def make(xp):
        def k(shape, seed, dtype=dtypes.float32, T=None, Tseed=None):  # noqa: N803
            dims = _shape_from(shape, "Stateless")
            return _to_device(xp, np.asarray(sample(_stateless_generator(seed), dims, dtype._np)))
        return k
    return make


def _stateless_int_kernel(xp):
    def k(shape, seed, minval, maxval, dtype=None, T=None, Tseed=None):  # noqa: N803
        dims = _shape_from(shape, "StatelessRandomUniformInt")
        for label, bound in (("minval", minval), ("maxval", maxval)):
            if np.ndim(bound) != 0:
                raise InvalidArgumentError(None, None, f"{label} must be 0-D, got shape "
                                                       f"{_shapes.fmt(TensorShape(list(np.shape(bound))))}")
        lo, hi = int(minval), int(maxval)
        if lo >= hi:
            raise InvalidArgumentError(None, None, f"Need minval < maxval: {lo} >= {hi}")
        out = _stateless_generator(seed).integers(lo, hi, dims, dtype=np.dtype(minval.dtype))
        return _to_device(xp, np.asarray(out))
    return k


def _stateless_full_int_kernel(xp):
    def k(shape, seed, dtype=dtypes.int64, T=None, Tseed=None):  # noqa: N803
        dims = _shape_from(shape, "StatelessRandomUniformFullInt")
        info = np.iinfo(dtype._np)
        out = _stateless_generator(seed).integers(info.min, info.max, dims, dtype=dtype._np, endpoint=True)
        return _to_device(xp, np.asarray(out))
    return k


def _stateless_infer(dtype_of):
    base = _shape_infer(dtype_of)

    def infer(ic):
        s = ic.shape(1)
        if s.rank is not None and (s.rank != 1 or s[0] not in (None, 2)):
            ic.error(f"seed must have shape [2], not {_shapes.fmt(s)}")
        return base(ic)
    return infer


_STATELESS_NORMAL = register_op("StatelessRandomNormal", kernel=_stateless_kernel(_normal_host),
                                infer=_stateless_infer(lambda ic: ic.attrs["dtype"]),
                                doc="Standard normal floats, a pure function of (shape, seed).")
_STATELESS_UNIFORM = register_op("StatelessRandomUniform", kernel=_stateless_kernel(_uniform_host),
                                 infer=_stateless_infer(lambda ic: ic.attrs["dtype"]),
                                 doc="Uniform floats in [0, 1), a pure function of (shape, seed).")
_STATELESS_UNIFORM_INT = register_op("StatelessRandomUniformInt", kernel=_stateless_int_kernel,
                                     infer=_stateless_infer(lambda ic: ic.dtype(2)),
                                     doc="Uniform integers in [minval, maxval), a pure function of (shape, seed).")
_STATELESS_UNIFORM_FULL_INT = register_op("StatelessRandomUniformFullInt", kernel=_stateless_full_int_kernel,
                                          infer=_stateless_infer(lambda ic: ic.attrs["dtype"]),
                                          doc="Integers over the dtype's whole range, a pure function of "
                                              "(shape, seed).")


def _seed_tensor(seed, op_name):
    s = to_tensor(seed) if isinstance(seed, Tensor) else convert_to_tensor(seed)
    if s.dtype not in _SEED_DTYPES:
        check_dtype(op_name, s, _SEED_DTYPES, "seed")
    if s.shape.rank is not None and s.shape.as_list() not in ([2], [None]):
        raise ValueError(f"seed must have shape [2], not {_shapes.fmt(s.shape)}")
    return s


def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None, alg="auto_select"):
    """Normal values that depend only on ``shape``, ``dtype`` and ``seed`` (a shape-[2] int tensor).

    Calling it twice with the same arguments gives the same values: there is no
    hidden state and the global seed plays no part. The values come from NumPy's
    Philox keyed by the two seed integers, so they differ from TF's Philox stream
    (TF's counter layout is not reproduced). ``alg`` is accepted and ignored.
    """
    dtype = _float_dtype(dtype)
    s = _seed_tensor(seed, "StatelessRandomNormal")
    rnd = execute(_STATELESS_NORMAL, (_shape_tensor(shape, "StatelessRandomNormal"), s), {"dtype": dtype},
                  name=name)
    return math_ops.add(math_ops.multiply(rnd, convert_to_tensor(stddev, dtype=dtype)),
                        convert_to_tensor(mean, dtype=dtype))


def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=dtypes.float32, name=None, alg="auto_select"):
    """Uniform values in ``[minval, maxval)`` that depend only on the arguments (``seed``: a shape-[2] int tensor).

    Floats: ``maxval`` defaults to 1. Integers need both bounds, or both ``None``
    for the dtype's whole range (TF's rule). Deterministic per seed, but the values
    differ from TF's Philox stream (see :func:`stateless_normal`).
    """
    dtype = dtypes.as_dtype(dtype)
    accepted = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.uint32,
                dtypes.uint64)
    dtype = _check_dtype_arg(dtype, accepted)
    s = _seed_tensor(seed, "StatelessRandomUniform")
    if dtype.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError(f"For integer `dtype` argument {dtype}, argument `minval` and `maxval` must be both "
                             f"None or not None. Got `minval`={minval} and `maxval`={maxval}.")
        shape_t = _shape_tensor(shape, "StatelessRandomUniformInt")
        if minval is None:
            return execute(_STATELESS_UNIFORM_FULL_INT, (shape_t, s), {"dtype": dtype}, name=name)
        if dtype in (dtypes.uint32, dtypes.uint64):
            raise ValueError(f"Argument `dtype` got invalid value {dtype} when argument `minval` is not None. "
                             f"Please don't use unsigned integers in this case.")
        return execute(_STATELESS_UNIFORM_INT, (shape_t, s, convert_to_tensor(minval, dtype=dtype),
                                                convert_to_tensor(maxval, dtype=dtype)), name=name)
    if maxval is None:
        maxval = 1
    rnd = execute(_STATELESS_UNIFORM, (_shape_tensor(shape, "StatelessRandomUniform"), s), {"dtype": dtype},
                  name=name)
    lo, hi = convert_to_tensor(minval, dtype=dtype), convert_to_tensor(maxval, dtype=dtype)
    return math_ops.add(math_ops.multiply(rnd, math_ops.subtract(hi, lo)), lo)
