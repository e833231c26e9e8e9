"""Reductions, argmax/argmin and cumulative scans, checked against TensorFlow 2.21 and NumPy."""
import numpy as np
import pytest

import engine as tf
from engine.framework.errors import InvalidArgumentError
from gradcheck import check_gradients, check_second_order

nan, inf = np.nan, np.inf
RNG = np.random.default_rng(1)
DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
          "uint64", "bool"]
SHORT = {"f16": "float16", "f32": "float32", "f64": "float64", "i8": "int8", "i16": "int16", "i32": "int32",
         "i64": "int64", "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64", "b": "bool"}

# Result dtype (or IA = InvalidArgumentError) for a [1, 2, 3] input of each dtype, recorded from TF 2.21.
DTYPE_TABLE = {
    "argmax": "i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64",
    "argmin": "i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64",
    "cumprod": "f16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 IA",
    "cumsum": "f16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 IA",
    "reduce_all": "IA IA IA IA IA IA IA IA IA IA IA b",
    "reduce_any": "IA IA IA IA IA IA IA IA IA IA IA b",
    "reduce_logsumexp": "f16 f32 f64 IA IA IA IA IA IA IA IA IA",
    "reduce_max": "f16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 IA",
    "reduce_mean": "f16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 IA",
    "reduce_min": "f16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 IA",
    "reduce_prod": "f16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 IA",
    "reduce_sum": "f16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 IA",
}
FUNCS = {
    "argmax": tf.math.argmax, "argmin": tf.math.argmin, "cumprod": tf.math.cumprod, "cumsum": tf.math.cumsum,
    "reduce_all": tf.reduce_all, "reduce_any": tf.reduce_any, "reduce_logsumexp": tf.reduce_logsumexp,
    "reduce_max": tf.reduce_max, "reduce_mean": tf.reduce_mean, "reduce_min": tf.reduce_min,
    "reduce_prod": tf.reduce_prod, "reduce_sum": tf.reduce_sum,
}


@pytest.mark.parametrize("name", sorted(DTYPE_TABLE))
def test_dtype_table_matches_tensorflow(name):
    for dtype, expected in zip(DTYPES, DTYPE_TABLE[name].split()):
        x = tf.constant([True, False, True]) if dtype == "bool" else tf.constant(np.array([1, 2, 3]).astype(dtype))
        if expected == "IA":
            with pytest.raises(InvalidArgumentError):
                FUNCS[name](x)
        else:
            assert FUNCS[name](x).dtype.name == SHORT[expected], (name, dtype)


# Recorded from TF 2.21: (value, dtype, shape).
GOLDEN = {
    'sum_all': (27.0, 'float32', []),
    'sum_0': ([8.0, 7.0, 12.0], 'float32', [3]),
    'sum_neg_keep': ([[11.0], [16.0]], 'float32', [2, 1]),
    'sum_list': ([60, 92, 124], 'int32', [3]),
    'sum_empty_axes': ([[1.0, 5.0, 5.0], [7.0, 2.0, 7.0]], 'float32', [2, 3]),
    'sum_int8_wrap': (-56, 'int8', []),
    'sum_empty': ([0.0, 0.0, 0.0], 'float32', [3]),
    'mean_int': ([-3, 4], 'int32', [2]),
    'mean_int_all': (1, 'int32', []),
    'mean_u8': (170, 'uint8', []),
    'mean_i8': (64, 'int8', []),
    'mean_f': ([4.0, 3.5, 6.0], 'float32', [3]),
    'mean_empty': (nan, 'float32', []),
    'mean_empty_int': (0, 'int32', []),
    'mean_f16_overflow': (inf, 'float16', []),
    'max_nan': (nan, 'float32', []),
    'max_keep': ([[5.0], [7.0]], 'float32', [2, 1]),
    'min_empty_int': (2147483647, 'int32', []),
    'max_empty_int': (-2147483648, 'int32', []),
    'max_empty_u8': ([0, 0], 'uint8', [2]),
    'max_empty_f': ([-inf, -inf], 'float32', [2]),
    'min_empty_f': ([inf, inf], 'float32', [2]),
    'prod': ([3, 8], 'int32', [2]),
    'prod_empty': (1.0, 'float32', []),
    'any': ([True, False], 'bool', [2]),
    'all': ([False, True], 'bool', [2]),
    'all_empty': (True, 'bool', []),
    'any_empty': (False, 'bool', []),
    'lse': ([2.3132617473602295, 4.31326150894165], 'float32', [2]),
    'lse_big': (1000.6931762695312, 'float32', []),
    'lse_neginf': ([-inf, 0.0], 'float32', [2]),
    'lse_inf': (inf, 'float32', []),
    'lse_keep': ([[4.440189838409424]], 'float32', [1, 1]),
    'lse_empty': (-inf, 'float32', []),
    'variance': ([0.25, 1.0], 'float32', [2]),
    'std_keep': ([[1.0, 1.5]], 'float32', [1, 2]),
    'argmax0': ([1, 0, 1], 'int64', [3]),
    'argmax1_i32': ([1, 0], 'int32', [2]),
    'argmin_neg': ([1, 0], 'int64', [2]),
    'argmax_bool': ([0, 1], 'int64', [2]),
    'argmax_nan': ([1, 0, 1, 0], 'int64', [4]),
    'argmin_nan': ([1, 0, 0, 0], 'int64', [4]),
    'argmax_i16': (1, 'int16', []),
    'cumsum0': ([[1.0, 2.0, 3.0], [5.0, 7.0, 9.0]], 'float32', [2, 3]),
    'cumsum1_excl': ([[0.0, 1.0, 3.0], [0.0, 4.0, 9.0]], 'float32', [2, 3]),
    'cumsum1_rev': ([[6.0, 5.0, 3.0], [15.0, 11.0, 6.0]], 'float32', [2, 3]),
    'cumsum1_excl_rev': ([[5.0, 3.0, 0.0], [11.0, 6.0, 0.0]], 'float32', [2, 3]),
    'cumprod_excl_rev': ([[6.0, 3.0, 1.0], [30.0, 6.0, 1.0]], 'float32', [2, 3]),
    'cumprod_excl': ([[1.0, 1.0, 1.0], [1.0, 2.0, 3.0]], 'float32', [2, 3]),
    'cumprod_int': ([1, 2, 6, 24], 'int32', [4]),
    'cumsum_u8': ([100, 200, 44], 'uint8', [3]),
    'cumsum_3d': ([[[2, 3], [0, 0]], [[6, 7], [0, 0]]], 'int32', [2, 2, 2]),
    'cumsum_empty': ([], 'float32', [0, 3]),
}
c = tf.constant
M = [[1., 5., 5.], [7., 2., 7.]]
X = [[1., 2., 3.], [4., 5., 6.]]
COMPUTE = {
    'sum_all': lambda: tf.reduce_sum(c(M)),
    'sum_0': lambda: tf.reduce_sum(c(M), 0),
    'sum_neg_keep': lambda: tf.reduce_sum(c(M), -1, keepdims=True),
    'sum_list': lambda: tf.reduce_sum(tf.reshape(tf.range(24), [2, 3, 4]), [0, 2]),
    'sum_empty_axes': lambda: tf.reduce_sum(c(M), []),
    'sum_int8_wrap': lambda: tf.reduce_sum(c([100, 100], tf.int8)),
    'sum_empty': lambda: tf.reduce_sum(tf.zeros([0, 3]), 0),
    'mean_int': lambda: tf.reduce_mean(c([[-7, 0], [7, 2]]), 1),
    'mean_int_all': lambda: tf.reduce_mean(c([1, 2])),
    'mean_u8': lambda: tf.reduce_mean(c([255, 255, 1], tf.uint8)),
    'mean_i8': lambda: tf.reduce_mean(c([100, 100, -7], tf.int8)),
    'mean_f': lambda: tf.reduce_mean(c(M), 0),
    'mean_empty': lambda: tf.reduce_mean(tf.zeros([0])),
    'mean_empty_int': lambda: tf.reduce_mean(tf.zeros([0], tf.int32)),
    'mean_f16_overflow': lambda: tf.reduce_mean(c([60000., 60000.], tf.float16)),
    'max_nan': lambda: tf.reduce_max(c([1., nan, 2.])),
    'max_keep': lambda: tf.reduce_max(c(M), 1, keepdims=True),
    'min_empty_int': lambda: tf.reduce_min(tf.zeros([0], tf.int32)),
    'max_empty_int': lambda: tf.reduce_max(tf.zeros([0], tf.int32)),
    'max_empty_u8': lambda: tf.reduce_max(tf.zeros([2, 0], tf.uint8), 1),
    'max_empty_f': lambda: tf.reduce_max(tf.zeros([0, 2]), 0),
    'min_empty_f': lambda: tf.reduce_min(tf.zeros([0, 2]), 0),
    'prod': lambda: tf.reduce_prod(c([[1, 2], [3, 4]]), 0),
    'prod_empty': lambda: tf.reduce_prod(tf.zeros([0])),
    'any': lambda: tf.reduce_any(c([[True, False], [False, False]]), 1),
    'all': lambda: tf.reduce_all(c([[True, False], [True, True]]), 1),
    'all_empty': lambda: tf.reduce_all(tf.zeros([0], tf.bool)),
    'any_empty': lambda: tf.reduce_any(tf.zeros([0], tf.bool)),
    'lse': lambda: tf.reduce_logsumexp(c([[1., 2.], [3., 4.]]), axis=1),
    'lse_big': lambda: tf.reduce_logsumexp(c([1000., 1000.])),
    'lse_neginf': lambda: tf.reduce_logsumexp(c([[-inf, -inf], [0., -inf]]), axis=1),
    'lse_inf': lambda: tf.reduce_logsumexp(c([inf, 1.])),
    'lse_keep': lambda: tf.reduce_logsumexp(c([[1., 2.], [3., 4.]]), axis=[0, 1], keepdims=True),
    'lse_empty': lambda: tf.reduce_logsumexp(tf.zeros([0])),
    'variance': lambda: tf.math.reduce_variance(c([[1., 2.], [3., 5.]]), axis=1),
    'std_keep': lambda: tf.math.reduce_std(c([[1., 2.], [3., 5.]]), axis=0, keepdims=True),
    'argmax0': lambda: tf.math.argmax(c([[1, 5, 5], [7, 2, 7]])),
    'argmax1_i32': lambda: tf.math.argmax(c([[1, 5, 5], [7, 2, 7]]), axis=1, output_type=tf.int32),
    'argmin_neg': lambda: tf.math.argmin(c([[3., 1.], [0., 2.]]), axis=-1),
    'argmax_bool': lambda: tf.math.argmax(c([[True, False], [False, True]]), axis=1),
    'argmax_nan': lambda: tf.math.argmax(c([[nan, 1.], [2., nan], [0., 5.], [nan, nan]]), axis=1),
    'argmin_nan': lambda: tf.math.argmin(c([[nan, 1.], [2., nan], [0., 5.], [nan, nan]]), axis=1),
    'argmax_i16': lambda: tf.math.argmax(c([1., 3., 2.]), output_type=tf.int16),
    'cumsum0': lambda: tf.math.cumsum(c(X)),
    'cumsum1_excl': lambda: tf.math.cumsum(c(X), axis=1, exclusive=True),
    'cumsum1_rev': lambda: tf.math.cumsum(c(X), axis=1, reverse=True),
    'cumsum1_excl_rev': lambda: tf.math.cumsum(c(X), axis=-1, exclusive=True, reverse=True),
    'cumprod_excl_rev': lambda: tf.math.cumprod(c(X), axis=-1, exclusive=True, reverse=True),
    'cumprod_excl': lambda: tf.math.cumprod(c(X), axis=0, exclusive=True),
    'cumprod_int': lambda: tf.math.cumprod(c([1, 2, 3, 4])),
    'cumsum_u8': lambda: tf.math.cumsum(c([100, 100, 100], tf.uint8)),
    'cumsum_3d': lambda: tf.math.cumsum(tf.reshape(tf.range(8), [2, 2, 2]), axis=1, exclusive=True, reverse=True),
    'cumsum_empty': lambda: tf.math.cumsum(tf.zeros([0, 3]), axis=0),
}


@pytest.mark.parametrize("label", sorted(GOLDEN))
def test_values_match_tensorflow(label):
    value, dtype, shape = GOLDEN[label]
    out = COMPUTE[label]()
    assert out.dtype.name == dtype and out.shape.as_list() == shape
    if dtype == "bool" or dtype.startswith(("int", "uint")):
        np.testing.assert_array_equal(out.numpy(), np.array(value, dtype=dtype))
    else:
        np.testing.assert_allclose(np.asarray(out.numpy(), np.float64), np.reshape(value, shape), rtol=1e-6)


def test_golden_and_compute_tables_agree():
    assert set(GOLDEN) == set(COMPUTE)


# --------------------------------------------------------------------------------------
# Against NumPy: every axis form
# --------------------------------------------------------------------------------------
AXES = [None, 0, 1, -1, [0, 2], [-1, 0], (1,), [], np.int64(2)]
REDUCTIONS = [("reduce_sum", tf.reduce_sum, np.sum), ("reduce_mean", tf.reduce_mean, np.mean),
              ("reduce_max", tf.reduce_max, np.max), ("reduce_min", tf.reduce_min, np.min),
              ("reduce_prod", tf.reduce_prod, np.prod)]


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", AXES, ids=[repr(a) for a in AXES])
@pytest.mark.parametrize("name,fn,ref", REDUCTIONS, ids=[r[0] for r in REDUCTIONS])
def test_float_reductions_against_numpy(name, fn, ref, axis, keepdims):
    x = RNG.uniform(-2, 2, size=(2, 3, 4))
    out = fn(tf.constant(x), axis=axis, keepdims=keepdims)
    np_axis = None if axis is None else tuple(np.atleast_1d(axis).tolist())
    expected = ref(x, axis=np_axis, keepdims=keepdims)
    assert out.dtype == tf.float64
    assert out.shape.as_list() == list(np.shape(expected))
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)


def test_axis_given_as_tensor_of_int32_or_int64():
    x = tf.constant(np.arange(6.).reshape(2, 3))
    assert tf.reduce_sum(x, tf.constant(1)).numpy().tolist() == [3., 12.]
    assert tf.reduce_sum(x, tf.constant([0], tf.int64)).numpy().tolist() == [3., 5., 7.]
    assert tf.reduce_sum(x, [[0], [1]]).numpy() == 15.0   # nested axes are flattened, as in TF


def test_bool_reductions_against_numpy():
    x = RNG.uniform(size=(3, 4)) > 0.5
    for axis in (None, 0, 1, [0, 1]):
        np_axis = None if axis is None else tuple(np.atleast_1d(axis))
        assert np.array_equal(tf.reduce_any(tf.constant(x), axis).numpy(), np.any(x, axis=np_axis))
        assert np.array_equal(tf.reduce_all(tf.constant(x), axis).numpy(), np.all(x, axis=np_axis))


def test_integer_mean_truncates_toward_zero():
    x = np.array([[-7, 0, 0], [-8, 1, 0], [5, 1, 1], [-1, -1, 0]], np.int32)
    expected = np.trunc(x.sum(axis=1) / 3).astype(np.int32)
    np.testing.assert_array_equal(tf.reduce_mean(tf.constant(x), 1).numpy(), expected)
    assert tf.reduce_mean(tf.constant(x), 1).dtype == tf.int32


def test_scalar_input_reductions():
    s = tf.constant(3.0)
    assert float(tf.reduce_sum(s)) == 3.0 and tf.reduce_sum(s).shape == ()
    assert float(tf.reduce_max(s, [])) == 3.0
    with pytest.raises(InvalidArgumentError, match=r"Invalid reduction dimension \(0 for input with 0"):
        tf.reduce_sum(s, 0)


def test_reduction_results_are_numpy_scalars_for_rank_0():
    assert isinstance(tf.reduce_sum(tf.ones([2, 2])).numpy(), np.generic)
    assert isinstance(tf.reduce_logsumexp(tf.ones([2])).numpy(), np.generic)
    assert isinstance(tf.reduce_max(tf.zeros([0])).numpy(), np.generic)


def test_variables_and_python_lists_are_accepted():
    v = tf.Variable([[1., 2.], [3., 4.]])
    assert tf.reduce_sum(v, 0).numpy().tolist() == [4., 6.]
    assert int(tf.reduce_sum([1, 2, 3])) == 6
    assert tf.math.argmax([3, 9, 1]).numpy() == 1


@pytest.mark.parametrize("call,error,fragment", [
    (lambda: tf.reduce_sum(tf.ones([2, 3]), 2), InvalidArgumentError, r"Invalid reduction dimension \(2 for input "
                                                                      r"with 2 dimension\(s\)"),
    (lambda: tf.reduce_mean(tf.ones([2, 3]), -3), InvalidArgumentError, "Mean"),
    (lambda: tf.reduce_sum(tf.ones([2, 3]), [0, 0]), InvalidArgumentError, "duplicate dimension: 0"),
    (lambda: tf.reduce_max(tf.ones([2, 3]), [1, -1]), InvalidArgumentError, "duplicate dimension: 1"),
    (lambda: tf.reduce_sum(tf.ones([2, 3]), 0.5), TypeError, "0.5"),
    (lambda: tf.reduce_sum(tf.constant([True])), InvalidArgumentError, "Sum"),
    (lambda: tf.reduce_any(tf.constant([1, 0])), InvalidArgumentError,
     r"cannot compute Any as input #0\(zero-based\) was expected to be a bool tensor but is a int32"),
    (lambda: tf.reduce_logsumexp(tf.constant([1, 2])), InvalidArgumentError, "int32"),
    (lambda: tf.math.reduce_variance(tf.constant([1, 2])), TypeError, "Input must be either real or complex"),
    (lambda: tf.math.argmax(tf.constant(3.)), InvalidArgumentError, r"Expected dimension in the range \[0, 0\)"),
    (lambda: tf.math.argmax(tf.zeros([0, 3])), InvalidArgumentError, r"Reduction axis 0 is empty in shape \[0,3\]"),
    (lambda: tf.math.argmax(tf.zeros([3, 2]), axis=2), InvalidArgumentError,
     r"Expected dimension in the range \[-2, 2\), but got 2"),
    (lambda: tf.math.argmax(tf.zeros([3, 2]), axis=[1]), TypeError, "axis must be int or Tensor"),
    (lambda: tf.math.argmax(tf.zeros([3, 2]), axis=tf.constant([1])), InvalidArgumentError, "dim must be a scalar"),
    (lambda: tf.math.argmax(tf.zeros([3, 2]), axis=tf.constant(1.)), TypeError, "float32 is not supported"),
    (lambda: tf.math.argmax(tf.zeros([3, 2]), output_type=tf.uint8), InvalidArgumentError,
     "Value for attr 'output_type' of uint8"),
    (lambda: tf.math.cumsum(tf.constant(3.)), InvalidArgumentError,
     r"ScanOp: Expected scan axis in the range \[0, 0\), but got 0"),
    (lambda: tf.math.cumsum(tf.ones([2, 3]), axis=2), InvalidArgumentError,
     r"Expected scan axis in the range \[-2, 2\), but got 2"),
    (lambda: tf.math.cumsum(tf.ones([2, 3]), axis=[1]), InvalidArgumentError, r"axis must be a scalar, not \[1\]"),
    (lambda: tf.math.cumsum(tf.ones([2, 3]), axis=tf.constant(1.)), InvalidArgumentError, "Tidx"),
    (lambda: tf.math.cumsum(tf.constant([True])), InvalidArgumentError, "Cumsum"),
    (lambda: tf.math.cumprod(tf.ones([2]), axis=1.0), TypeError, "1.0"),
])
def test_error_cases(call, error, fragment):
    with pytest.raises(error, match=fragment):
        call()


def test_argmax_argmin_against_numpy_and_ties():
    x = RNG.integers(0, 4, size=(5, 6)).astype(np.float32)   # many ties: the first index wins
    for axis in (0, 1, -1):
        np.testing.assert_array_equal(tf.math.argmax(x, axis).numpy(), np.argmax(x, axis))
        np.testing.assert_array_equal(tf.math.argmin(x, axis).numpy(), np.argmin(x, axis))
    assert tf.argmax(x).dtype == tf.int64 and tf.argmin(x, output_type=tf.int32).dtype == tf.int32


def test_argmax_is_not_differentiable():
    x = tf.constant([1., 3., 2.])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.cast(tf.math.argmax(x), tf.float32) * tf.reduce_sum(x)
    g = tape.gradient(y, x)
    np.testing.assert_array_equal(g.numpy(), [1., 1., 1.])   # only the reduce_sum path carries a gradient


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_cumsum_cumprod_against_numpy(axis, exclusive, reverse):
    x = RNG.uniform(0.5, 2, size=(3, 4))

    def ref(fn, identity):
        v = np.flip(x, axis) if reverse else x
        out = fn(v, axis=axis)
        if exclusive:
            out = np.concatenate([np.full_like(np.take(out, [0], axis=axis), identity),
                                  np.take(out, range(out.shape[axis] - 1), axis=axis)], axis=axis)
        return np.flip(out, axis) if reverse else out
    np.testing.assert_allclose(tf.math.cumsum(x, axis, exclusive, reverse).numpy(), ref(np.cumsum, 0), rtol=1e-12)
    np.testing.assert_allclose(tf.math.cumprod(x, axis, exclusive, reverse).numpy(), ref(np.cumprod, 1),
                               rtol=1e-12)


def test_cumsum_top_level_and_cumprod_only_in_math():
    assert tf.cumsum is tf.math.cumsum
    assert not hasattr(tf, "cumprod") and callable(tf.math.cumprod)
    assert not hasattr(tf, "reduce_variance") and callable(tf.math.reduce_std)


# --------------------------------------------------------------------------------------
# Gradients
# --------------------------------------------------------------------------------------
def _distinct(*shape):
    n = int(np.prod(shape))
    return (RNG.permutation(n) * 0.37 - n * 0.15).reshape(shape)


GRAD_CASES = [
    ("sum_all", lambda x: tf.reduce_sum(x)), ("sum_axis", lambda x: tf.reduce_sum(x, 1)),
    ("sum_keep", lambda x: tf.reduce_sum(x, [0, 2], keepdims=True)), ("sum_neg", lambda x: tf.reduce_sum(x, -1)),
    ("mean_all", lambda x: tf.reduce_mean(x)), ("mean_axes", lambda x: tf.reduce_mean(x, [0, 2])),
    ("mean_keep", lambda x: tf.reduce_mean(x, 1, keepdims=True)),
    ("max", lambda x: tf.reduce_max(x, 1)), ("max_keep", lambda x: tf.reduce_max(x, [0, 2], keepdims=True)),
    ("min", lambda x: tf.reduce_min(x)), ("min_axis", lambda x: tf.reduce_min(x, -1)),
    ("prod", lambda x: tf.reduce_prod(x, 1)), ("prod_all", lambda x: tf.reduce_prod(x)),
    ("prod_axes_keep", lambda x: tf.reduce_prod(x, [0, 2], keepdims=True)),
    ("logsumexp", lambda x: tf.reduce_logsumexp(x, 1)), ("logsumexp_all", lambda x: tf.reduce_logsumexp(x)),
    ("variance", lambda x: tf.math.reduce_variance(x, 1)), ("std", lambda x: tf.math.reduce_std(x, [0, 2])),
    ("cumsum", lambda x: tf.math.cumsum(x, 1)), ("cumsum_excl_rev", lambda x: tf.math.cumsum(x, 2, True, True)),
    ("cumprod", lambda x: tf.math.cumprod(x, 1)), ("cumprod_excl", lambda x: tf.math.cumprod(x, -1, True)),
    ("cumprod_rev", lambda x: tf.math.cumprod(x, 0, False, True)),
    ("cumprod_excl_rev", lambda x: tf.math.cumprod(x, 2, True, True)),
]


@pytest.mark.parametrize("name,fn", GRAD_CASES, ids=[g[0] for g in GRAD_CASES])
def test_gradients(name, fn):
    x = _distinct(2, 3, 2) if name.startswith(("max", "min")) else RNG.uniform(0.5, 1.5, size=(2, 3, 2))
    check_gradients(fn, x)


SECOND_ORDER = [
    ("reduce_max", lambda x: tf.reduce_max(x * x, 0)), ("reduce_sum", lambda x: tf.reduce_sum(x * x * x)),
    ("reduce_mean", lambda x: tf.reduce_mean(tf.exp(x))), ("reduce_prod", lambda x: tf.reduce_prod(x)),
    ("logsumexp", lambda x: tf.reduce_logsumexp(x)), ("cumsum", lambda x: tf.math.cumsum(x * x)),
    ("cumprod", lambda x: tf.math.cumprod(x)), ("variance", lambda x: tf.math.reduce_variance(x * x)),
]


@pytest.mark.parametrize("name,fn", SECOND_ORDER, ids=[s[0] for s in SECOND_ORDER])
def test_second_order(name, fn):
    check_second_order(fn, RNG.uniform(0.5, 1.5, size=4))


# Gradients at ties and zeros, recorded from TF 2.21 (float32).
GRADS = {
    'g_cumprod_zeros': [[1.0, 0.0, 0.0, 0.0, 0.0]],
    'g_cumprod_excl_rev_zero': [[0.0, 0.0, 1.0]],
    'g_prod_zero': [[0.0, 6.0, 0.0]],
    'g_prod_two_zeros': [[0.0, 0.0, 0.0]],
    'g_prod_axis': [[[0.0, 6.0, 0.0], [6.0, 3.0, 2.0]]],
    'g_max_ties': [[[0.0, 0.5, 0.5], [0.5, 0.0, 0.5]]],
    'g_min_ties_all': [[[0.3333333432674408, 0.0, 0.3333333432674408], [0.3333333432674408, 0.0, 0.0]]],
    'g_lse_neginf': [[[0.0, 1.0], [0.5, 0.5]]],
}
GRAD_FUNCS = {
    'g_cumprod_zeros': (lambda v: tf.math.cumprod(v), [2., 0., 3., 0., 5.]),
    'g_cumprod_excl_rev_zero': (lambda v: tf.math.cumprod(v, exclusive=True, reverse=True), [2., 0., 3.]),
    'g_prod_zero': (lambda v: tf.reduce_prod(v), [2., 0., 3.]),
    'g_prod_two_zeros': (lambda v: tf.reduce_prod(v), [2., 0., 0.]),
    'g_prod_axis': (lambda v: tf.reduce_prod(v, 1), [[2., 0., 3.], [1., 2., 3.]]),
    'g_max_ties': (lambda v: tf.reduce_max(v, 1), [[1., 5., 5.], [7., 2., 7.]]),
    'g_min_ties_all': (lambda v: tf.reduce_min(v), [[1., 5., 1.], [1., 2., 7.]]),
    'g_lse_neginf': (lambda v: tf.reduce_logsumexp(v, 1), [[-inf, 0.], [1., 1.]]),
}


@pytest.mark.parametrize("label", sorted(GRADS))
def test_gradients_at_ties_and_zeros_match_tensorflow(label):
    f, value = GRAD_FUNCS[label]
    x = tf.constant(np.asarray(value, np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), np.array(GRADS[label][0], np.float32), rtol=1e-6)


def test_cumprod_gradient_at_zero_matches_tf_not_the_true_derivative():
    """A documented difference from calculus (shared with TF): d cumprod / dx is 0 where x == 0."""
    x = tf.constant([2., 0., 3.])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.math.cumprod(x))
    assert tape.gradient(y, x).numpy().tolist() == [1., 0., 0.]   # true value of the middle entry is 8


def test_reduction_gradients_in_graph_mode():
    v1 = tf.compat.v1
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 3])
        grads = v1.gradients([tf.reduce_max(x, 1), tf.reduce_mean(x), tf.math.cumsum(x, 1)], [x])
    with v1.Session(graph=g) as sess:
        (got,) = sess.run(grads, feed_dict={x: [[1., 5., 5.], [7., 2., 3.]]})
    expected = np.array([[0., .5, .5], [1., 0., 0.]]) + 1 / 6 + np.array([[3., 2., 1.], [3., 2., 1.]])
    np.testing.assert_allclose(got, expected, rtol=1e-6)
