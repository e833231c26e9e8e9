"""matmul, tensordot, einsum, trace and diag_part, checked against TensorFlow 2.21 and NumPy."""
import numpy as np
import pytest

import engine as tf
from engine.framework.errors import InvalidArgumentError, NotFoundError
from gradcheck import check_gradients, check_second_order

RNG = np.random.default_rng(2)
DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
          "uint64", "bool"]
SHORT = {"f16": "float16", "f32": "float32", "f64": "float64", "i16": "int16", "i32": "int32", "i64": "int64"}
ERRORS = {"IA": InvalidArgumentError, "NF": NotFoundError}
# Result dtype or error class, for rank-2 (MatMul) and rank-3 (BatchMatMulV2) inputs; recorded from TF 2.21.
DTYPE_TABLE = {
    "matmul": "f16 f32 f64 IA IA i32 i64 NF NF NF NF IA",
    "bmm": "f16 f32 f64 IA i16 i32 i64 NF NF NF NF IA",
}


@pytest.mark.parametrize("name", sorted(DTYPE_TABLE))
def test_dtype_table_matches_tensorflow(name):
    shape_a, shape_b = ([1, 3], [3, 1]) if name == "matmul" else ([1, 1, 3], [1, 3, 1])
    for dtype, expected in zip(DTYPES, DTYPE_TABLE[name].split()):
        x = np.array([1, 2, 3]).astype(dtype)
        a, b = tf.constant(x.reshape(shape_a)), tf.constant(x.reshape(shape_b))
        if expected in ERRORS:
            with pytest.raises(ERRORS[expected]):
                tf.matmul(a, b)
        else:
            assert tf.matmul(a, b).dtype.name == SHORT[expected], (name, dtype)


# Recorded from TF 2.21: (value, dtype, shape).
GOLDEN = {
    'tensordot_pair': ([[880.0, 946.0], [2464.0, 2674.0]], 'float32', [2, 2]),
    'tensordot_1': ([[5.0, 2.0], [11.0, 4.0]], 'float32', [2, 2]),
    'tensordot_0': ([[3.0, 4.0, 5.0], [6.0, 8.0, 10.0]], 'float32', [2, 3]),
    'tensordot_2': (11.0, 'float32', []),
    'tensordot_int': (11, 'int32', []),
    'einsum_trace': (12.0, 'float32', []),
    'einsum_diag': ([0.0, 4.0, 8.0], 'float32', [3]),
    'einsum_bilinear': ([17.0, 238.0], 'float32', [2]),
    'einsum_ellipsis': ([[[10.0, 13.0], [28.0, 40.0]], [[46.0, 67.0], [64.0, 94.0]]], 'float32', [2, 2, 2]),
    'einsum_implicit': ([[7.0]], 'float32', [1, 1]),
    'einsum_int': (11, 'int32', []),
    'trace_batch': ([12.0, 39.0], 'float32', [2]),
    'trace_nonsquare': (4.0, 'float32', []),
    'trace_int': (12, 'int32', []),
    'diag_part_wide': ([0.0, 4.0], 'float32', [2]),
    'diag_part_tall': ([0.0, 3.0], 'float32', [2]),
    'matmul_int_lists': ([[11]], 'int32', [1, 1]),
    'matmul_k0': ([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], 'float32', [2, 3]),
    'matmul_ta_tb': ([[11.0, 18.0], [14.0, 22.0]], 'float32', [2, 2]),
    'bmm_adj': ([[[10.0, 28.0], [13.0, 40.0]], [[172.0, 244.0], [193.0, 274.0]]], 'float32', [2, 2, 2]),
    'matmul_f16': ([[0.1099853515625]], 'float16', [1, 1]),
}
c = tf.constant
A = tf.reshape(tf.range(24.), [2, 3, 4])
B = tf.reshape(tf.range(24.), [4, 3, 2])
COMPUTE = {
    'tensordot_pair': lambda: tf.tensordot(A, B, [[1, 2], [1, 0]]),
    'tensordot_1': lambda: tf.tensordot(c([[1., 2.], [3., 4.]]), c([[1., 0.], [2., 1.]]), 1),
    'tensordot_0': lambda: tf.tensordot(c([1., 2.]), c([3., 4., 5.]), 0),
    'tensordot_2': lambda: tf.tensordot(c([[1., 2.], [3., 4.]]), c([[1., 0.], [2., 1.]]), 2),
    'tensordot_int': lambda: tf.tensordot(c([1, 2]), c([3, 4]), 1),
    'einsum_trace': lambda: tf.einsum('ii', tf.reshape(tf.range(9.), [3, 3])),
    'einsum_diag': lambda: tf.einsum('ii->i', tf.reshape(tf.range(9.), [3, 3])),
    'einsum_bilinear': lambda: tf.einsum('bi,ij,bj->b', tf.reshape(tf.range(4.), [2, 2]),
                                         c([[1., 2., 3.], [4., 5., 6.]]), tf.reshape(tf.range(6.), [2, 3])),
    'einsum_ellipsis': lambda: tf.einsum('...ij,...jk->...ik', tf.reshape(tf.range(12.), [2, 2, 3]),
                                         tf.reshape(tf.range(6.), [3, 2])),
    'einsum_implicit': lambda: tf.einsum('ba,ac', c([[1., 2.]]), c([[1.], [3.]])),
    'einsum_int': lambda: tf.einsum('i,i->', c([1, 2]), c([3, 4])),
    'trace_batch': lambda: tf.linalg.trace(tf.reshape(tf.range(18.), [2, 3, 3])),
    'trace_nonsquare': lambda: tf.linalg.trace(tf.reshape(tf.range(6.), [2, 3])),
    'trace_int': lambda: tf.linalg.trace(tf.reshape(tf.range(9), [3, 3])),
    'diag_part_wide': lambda: tf.linalg.diag_part(tf.reshape(tf.range(6.), [2, 3])),
    'diag_part_tall': lambda: tf.linalg.diag_part(tf.reshape(tf.range(6.), [3, 2])),
    'matmul_int_lists': lambda: tf.matmul([[1, 2]], [[3], [4]]),
    'matmul_k0': lambda: tf.matmul(tf.ones([2, 0]), tf.ones([0, 3])),
    'matmul_ta_tb': lambda: tf.matmul(c([[1., 2.], [3., 4.], [5., 6.]]), c([[1., 0., 2.], [0., 1., 3.]]),
                                      transpose_a=True, transpose_b=True),
    'bmm_adj': lambda: tf.matmul(tf.reshape(tf.range(12.), [2, 3, 2]), tf.reshape(tf.range(12.), [2, 2, 3]),
                                 adjoint_a=True, adjoint_b=True),
    'matmul_f16': lambda: tf.matmul(c([[0.1, 0.2]], tf.float16), c([[0.3], [0.4]], tf.float16)),
}


@pytest.mark.parametrize("label", sorted(GOLDEN))
def test_values_match_tensorflow(label):
    value, dtype, shape = GOLDEN[label]
    out = COMPUTE[label]()
    assert out.dtype.name == dtype and out.shape.as_list() == shape
    np.testing.assert_allclose(np.asarray(out.numpy(), np.float64), np.reshape(value, shape), rtol=1e-6)


def test_golden_and_compute_tables_agree():
    assert set(GOLDEN) == set(COMPUTE)


# --------------------------------------------------------------------------------------
# matmul
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_matmul_rank2_transposes_against_numpy(ta, tb):
    a, b = RNG.normal(size=(3, 4)), RNG.normal(size=(4, 5))
    a_in, b_in = (a.T if ta else a), (b.T if tb else b)
    out = tf.matmul(a_in, b_in, transpose_a=ta, transpose_b=tb)
    np.testing.assert_allclose(out.numpy(), a @ b, rtol=1e-12)
    out = tf.matmul(a_in, b_in, adjoint_a=ta, adjoint_b=tb)
    np.testing.assert_allclose(out.numpy(), a @ b, rtol=1e-12)


@pytest.mark.parametrize("shapes", [((2, 3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((3, 4), (6, 4, 2)),
                                    ((7, 3, 4), (4, 2)), ((1, 3, 4), (6, 4, 2))])
def test_batch_matmul_broadcasting_against_numpy(shapes):
    a, b = RNG.normal(size=shapes[0]), RNG.normal(size=shapes[1])
    out = tf.matmul(a, b)
    assert out.shape.as_list() == list(np.matmul(a, b).shape)
    np.testing.assert_allclose(out.numpy(), np.matmul(a, b), rtol=1e-12)


def test_matmul_operator_and_linalg_alias():
    a, b = tf.constant([[1., 2.]]), tf.constant([[3.], [4.]])
    assert (a @ b).numpy().tolist() == [[11.]]
    assert tf.linalg.matmul is tf.matmul


@pytest.mark.parametrize("call,error,fragment", [
    (lambda: tf.matmul(tf.ones([2, 3]), tf.ones([4, 5])), InvalidArgumentError,
     r"Matrix size-incompatible: In\[0\]: \[2,3\], In\[1\]: \[4,5\]"),
    (lambda: tf.matmul(tf.ones([2, 2, 3]), tf.ones([2, 4, 5])), InvalidArgumentError,
     r"Matrix size-incompatible: In\[0\]: \[2,2,3\], In\[1\]: \[2,4,5\].*BatchMatMulV2"),
    (lambda: tf.matmul(tf.ones([2, 2, 3]), tf.ones([3, 3, 4])), InvalidArgumentError,
     r"must have compatible batch dimensions: \[2,2,3\] vs. \[3,3,4\]"),
    (lambda: tf.matmul(tf.ones([3]), tf.ones([3, 2])), InvalidArgumentError,
     r"In\[0\] and In\[1\] has different ndims: \[3\] vs. \[3,2\]"),
    (lambda: tf.matmul(tf.ones([2]), tf.ones([2])), InvalidArgumentError, r"ndims must be == 2: 1"),
    (lambda: tf.matmul(tf.ones([2, 2, 3]), tf.ones([3])), InvalidArgumentError, r"In\[1\] ndims must be >= 2: 1"),
    (lambda: tf.matmul(tf.ones([2, 2]), tf.ones([2, 2], tf.float64)), InvalidArgumentError,
     r"cannot compute MatMul as input #1"),
    (lambda: tf.matmul(tf.ones([2, 2]), tf.ones([2, 2]), transpose_a=True, adjoint_a=True), ValueError,
     "Only one of `transpose_a` and `adjoint_a`"),
    (lambda: tf.matmul(tf.ones([2, 2], tf.uint8), tf.ones([2, 2], tf.uint8)), NotFoundError, "MatMul"),
    (lambda: tf.matmul(tf.ones([2, 2], tf.int8), tf.ones([2, 2], tf.int8)), InvalidArgumentError, "int8"),
    (lambda: tf.linalg.matrix_transpose(tf.ones([3])), ValueError, "rank >= 2"),
    (lambda: tf.linalg.diag_part(tf.ones([3])), InvalidArgumentError, r"at least 2-dim, received shape: \[3\]"),
])
def test_matmul_errors(call, error, fragment):
    with pytest.raises(error, match=fragment):
        call()


MATMUL_GRADS = [
    ("plain", lambda a, b: tf.matmul(a, b), (3, 4), (4, 2)),
    ("ta", lambda a, b: tf.matmul(a, b, transpose_a=True), (4, 3), (4, 2)),
    ("tb", lambda a, b: tf.matmul(a, b, transpose_b=True), (3, 4), (2, 4)),
    ("ta_tb", lambda a, b: tf.matmul(a, b, transpose_a=True, transpose_b=True), (4, 3), (2, 4)),
    ("batch", lambda a, b: tf.matmul(a, b), (2, 3, 4), (2, 4, 2)),
    ("batch_bcast", lambda a, b: tf.matmul(a, b), (2, 1, 3, 2), (3, 2, 2)),
    ("batch_rank2_left", lambda a, b: tf.matmul(a, b), (3, 4), (2, 4, 2)),
    ("batch_adj", lambda a, b: tf.matmul(a, b, adjoint_a=True, adjoint_b=True), (2, 4, 3), (1, 2, 4)),
    ("batch_adj_a", lambda a, b: tf.matmul(a, b, adjoint_a=True), (2, 4, 3), (4, 2)),
    ("batch_adj_b", lambda a, b: tf.matmul(a, b, adjoint_b=True), (2, 3, 4), (2, 2, 4)),
]


@pytest.mark.parametrize("name,fn,sa,sb", MATMUL_GRADS, ids=[m[0] for m in MATMUL_GRADS])
def test_matmul_gradients(name, fn, sa, sb):
    check_gradients(fn, RNG.normal(size=sa), RNG.normal(size=sb))


def test_matmul_second_order():
    w = tf.constant(RNG.normal(size=(3, 3)))
    check_second_order(lambda x: tf.matmul(tf.reshape(x, [1, 3]), tf.matmul(w, tf.reshape(x * x, [3, 1]))),
                       RNG.normal(size=3))
    check_second_order(lambda x: tf.matmul(tf.reshape(x, [2, 1, 2]), tf.reshape(x, [2, 2, 1])) ** 2,
                       RNG.normal(size=4))


# --------------------------------------------------------------------------------------
# tensordot
# --------------------------------------------------------------------------------------
TENSORDOT_CASES = [("0", 0, (4, 3, 2)), ("1", 1, (4, 3, 2)), ("2", 2, (3, 4, 2)), ("pair", [[1], [0]], (3, 2)),
                   ("two_pairs", [[0, 2], [2, 0]], (4, 3, 2)), ("ints", [2, 1], (3, 4, 2)),
                   ("negative", [[-1], [-3]], (4, 3, 2))]


@pytest.mark.parametrize("name,axes,shape_b", TENSORDOT_CASES, ids=[t[0] for t in TENSORDOT_CASES])
def test_tensordot_against_numpy(name, axes, shape_b):
    a, b = RNG.normal(size=(2, 3, 4)), RNG.normal(size=shape_b)
    np_axes = axes if isinstance(axes, int) else [np.atleast_1d(axes[0]).tolist(), np.atleast_1d(axes[1]).tolist()]
    out = tf.tensordot(a, b, axes)
    expected = np.tensordot(a, b, np_axes)
    assert out.shape.as_list() == list(expected.shape)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)


@pytest.mark.parametrize("call,error,fragment", [
    (lambda: tf.tensordot(A, B, -1), ValueError, "`axes` must be at least 0"),
    (lambda: tf.tensordot(A, B, 4), ValueError, "must not be larger than the number of dimensions"),
    (lambda: tf.tensordot(A, B, [[1, 2], [1]]), ValueError, "Different number of contraction axes `a` and `b`, 2 != 1"),
    (lambda: tf.tensordot(A, B, [[1], [1], [1]]), ValueError, "must be an integer or have length 2"),
    (lambda: tf.tensordot(A, B, [[0], [0]]), InvalidArgumentError,
     r"Matrix size-incompatible: In\[0\]: \[12,2\], In\[1\]: \[4,6\]"),
    (lambda: tf.tensordot(c([1., 2.]), c([3, 4]), 1), InvalidArgumentError, "cannot compute MatMul"),
])
def test_tensordot_errors(call, error, fragment):
    with pytest.raises(error, match=fragment):
        call()


@pytest.mark.parametrize("axes,sa,sb", [(1, (2, 3), (3, 4)), ([[0, 2], [1, 0]], (2, 3, 4), (4, 2, 2)),
                                        (0, (2,), (3,)), (2, (2, 3), (2, 3))])
def test_tensordot_gradients(axes, sa, sb):
    check_gradients(lambda a, b: tf.tensordot(a, b, axes), RNG.normal(size=sa), RNG.normal(size=sb))


def test_tensordot_with_unknown_batch_dimension_in_a_graph():
    v1 = tf.compat.v1
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 3, 4])
        y = tf.tensordot(x, tf.ones([4, 5]), 1)
        (dx,) = v1.gradients(y, [x])
    data = np.arange(24., dtype=np.float32).reshape(2, 3, 4)
    with v1.Session(graph=g) as sess:
        out, grad = sess.run([y, dx], feed_dict={x: data})
    np.testing.assert_allclose(out, np.tensordot(data, np.ones((4, 5)), 1), rtol=1e-6)
    np.testing.assert_allclose(grad, np.full((2, 3, 4), 5.), rtol=1e-6)


# --------------------------------------------------------------------------------------
# einsum
# --------------------------------------------------------------------------------------
EINSUM_CASES = [
    ("matmul", "ij,jk->ik", [(2, 3), (3, 4)]), ("batch", "bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
    ("transpose", "ij->ji", [(2, 3)]), ("row_sum", "ij->i", [(2, 3)]), ("total", "ij->", [(2, 3)]),
    ("outer", "i,j->ij", [(2,), (3,)]), ("dot", "i,i->", [(4,)] * 2), ("bilinear", "bi,ij,bj->b", [(2, 3), (3, 4),
                                                                                                 (2, 4)]),
    ("trace", "ii->", [(3, 3)]), ("diag", "ii->i", [(3, 3)]), ("implicit", "ij,jk", [(2, 3), (3, 4)]),
    ("implicit_sum", "ij,ij", [(2, 3)] * 2), ("ellipsis", "...ij,...jk->...ik", [(2, 2, 3), (3, 4)]),
    ("ellipsis_bcast", "...ij,...jk->...ik", [(1, 2, 3), (5, 3, 4)]), ("spaces", "i j , j k -> i k", [(2, 3), (3, 4)]),
    ("hadamard_sum", "ij,ij->j", [(2, 3)] * 2), ("three_way", "abc,cd,bd->ad", [(2, 3, 4), (4, 2), (3, 2)]),
    ("diag_mul", "ii,i->i", [(3, 3), (3,)]), ("repeat_keep", "iij->ij", [(2, 2, 3)]),
]


@pytest.mark.parametrize("name,eq,shapes", EINSUM_CASES, ids=[e[0] for e in EINSUM_CASES])
def test_einsum_against_numpy(name, eq, shapes):
    arrays = [RNG.normal(size=s) for s in shapes]
    out = tf.einsum(eq, *arrays)
    expected = np.einsum(eq.replace(" ", ""), *arrays)
    assert out.shape.as_list() == list(np.shape(expected)) and out.dtype == tf.float64
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-10)


@pytest.mark.parametrize("name,eq,shapes", EINSUM_CASES, ids=[e[0] for e in EINSUM_CASES])
def test_einsum_gradients(name, eq, shapes):
    check_gradients(lambda *xs: tf.einsum(eq, *xs), *[RNG.normal(size=s) for s in shapes])


@pytest.mark.parametrize("eq,shapes", [("ij,jk->ik", [(2, 2), (2, 2)]), ("ii->", [(3, 3)]), ("ij->i", [(2, 3)]),
                                       ("bi,ij,bj->b", [(2, 2), (2, 2), (2, 2)])])
def test_einsum_second_order(eq, shapes):
    sizes = [int(np.prod(s)) for s in shapes]

    def f(x):   # every operand is a slice of x, squared so the second derivative is not trivially 0
        parts, start = [], 0
        for s, n in zip(shapes, sizes):
            parts.append(tf.reshape(x[start:start + n], s))
            start += n
        return tf.einsum(eq, *[p * p for p in parts])
    check_second_order(f, RNG.normal(size=sum(sizes)))


@pytest.mark.parametrize("call,error,fragment", [
    (lambda: tf.einsum('ij,jk->ik', tf.ones([2, 3]), tf.ones([4, 4])), InvalidArgumentError,
     r"Expected dimension 3 at axis 0 of the input shaped \[4,4\] but got dimension 4"),
    (lambda: tf.einsum('ij,jk->ik', tf.ones([2, 3])), ValueError, 'Got 1 inputs for equation "ij,jk->ik", expecting 2'),
    (lambda: tf.einsum('ijk->i', tf.ones([2, 3])), InvalidArgumentError, "Expected input 0 to have rank 3 but got: 2"),
    (lambda: tf.einsum('ij->k', tf.ones([2, 3])), ValueError, "label k not present in the input subscripts"),
    (lambda: tf.einsum('ij->ii', tf.ones([2, 2])), ValueError, "a label appearing more than once"),
    (lambda: tf.einsum('bij,bjk->bik', tf.ones([1, 2, 3]), tf.ones([5, 3, 4])), InvalidArgumentError,
     r"Expected dimension 1 at axis 0 of the input shaped \[5,3,4\] but got dimension 5"),
    (lambda: tf.einsum('i,i->', c([1., 2.]), c([3, 4])), InvalidArgumentError, "cannot compute Einsum as input #1"),
    (lambda: tf.einsum('i,i->', c([True]), c([True])), InvalidArgumentError, "Einsum"),
    (lambda: tf.einsum('i1->i', tf.ones([2, 2])), ValueError, "Subscripts must be letters"),
])
def test_einsum_errors(call, error, fragment):
    with pytest.raises(error, match=fragment):
        call()


def test_einsum_is_one_op_and_int_dtypes_work():
    x = tf.constant([[1, 2], [3, 4]])
    assert tf.einsum('ij,jk->ik', x, x).numpy().tolist() == [[7, 10], [15, 22]]
    assert tf.linalg.einsum is tf.einsum and tf.linalg.tensordot is tf.tensordot


def test_einsum_with_unknown_batch_dimension_in_a_graph():
    v1 = tf.compat.v1
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 3, 4])
        y = tf.einsum("bij,jk->bik", x, tf.ones([4, 2]))
        (dx,) = v1.gradients(tf.einsum("bij->bi", x), [x])
    data = np.arange(24., dtype=np.float32).reshape(2, 3, 4)
    with v1.Session(graph=g) as sess:
        out, grad = sess.run([y, dx], feed_dict={x: data})
    np.testing.assert_allclose(out, np.einsum("bij,jk->bik", data, np.ones((4, 2))), rtol=1e-6)
    np.testing.assert_array_equal(grad, np.ones((2, 3, 4)))


# --------------------------------------------------------------------------------------
# trace, diag_part, matrix_transpose
# --------------------------------------------------------------------------------------
GRADS = {
    'g_tensordot': [[[18.0, 27.0], [18.0, 27.0]], [[4.0, 4.0, 4.0], [6.0, 6.0, 6.0]]],
    'g_einsum_trace': [[[1.0, 0.0], [0.0, 1.0]]],
    'g_einsum_rowsum': [[[1.0, 1.0], [2.0, 2.0]]],
    'g_diag_part': [[[1.0, 0.0, 0.0], [0.0, 2.0, 0.0]]],
    'g_trace': [[[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]],
    'g_bmm_bcast': [[[[76.0, 92.0, 108.0], [76.0, 92.0, 108.0]]],
                    [[[2.0, 2.0], [2.0, 2.0], [2.0, 2.0]]] * 4],
}
GRAD_FUNCS = {
    'g_tensordot': (lambda a, b: tf.tensordot(a, b, [[1], [0]]), [[1., 2.], [3., 4.]], [[5., 6., 7.], [8., 9., 10.]]),
    'g_einsum_trace': (lambda a: tf.einsum('ii', a), [[1., 2.], [3., 4.]]),
    'g_einsum_rowsum': (lambda a: tf.einsum('ij->i', a) * c([1., 2.]), [[1., 2.], [3., 4.]]),
    'g_diag_part': (lambda a: tf.linalg.diag_part(a) * c([1., 2.]), np.ones([2, 3])),
    'g_trace': (lambda a: tf.linalg.trace(a), np.ones([3, 2])),
    'g_bmm_bcast': (lambda a, b: tf.matmul(a, b), np.ones([1, 2, 3]), np.arange(24.).reshape([4, 3, 2])),
}


@pytest.mark.parametrize("label", sorted(GRADS))
def test_gradients_match_tensorflow(label):
    f, *values = GRAD_FUNCS[label]
    xs = [tf.constant(np.asarray(v, np.float32)) for v in values]
    with tf.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = f(*xs)
    for g, e in zip(tape.gradient(y, xs), GRADS[label]):
        np.testing.assert_allclose(g.numpy(), np.array(e, np.float32), rtol=1e-6)


@pytest.mark.parametrize("shape", [(3, 3), (2, 3), (4, 2), (2, 3, 3), (2, 2, 4)])
def test_trace_and_diag_part_against_numpy(shape):
    x = RNG.normal(size=shape)
    np.testing.assert_allclose(tf.linalg.diag_part(x).numpy(), np.diagonal(x, axis1=-2, axis2=-1), rtol=1e-12)
    np.testing.assert_allclose(tf.linalg.trace(x).numpy(), np.trace(x, axis1=-2, axis2=-1), rtol=1e-12)
    check_gradients(lambda v: tf.linalg.diag_part(v), x)
    check_gradients(lambda v: tf.linalg.trace(v), x)


def test_matrix_transpose_and_adjoint():
    x = RNG.normal(size=(2, 3, 4))
    np.testing.assert_array_equal(tf.linalg.matrix_transpose(x).numpy(), np.swapaxes(x, -1, -2))
    np.testing.assert_array_equal(tf.linalg.adjoint(x).numpy(), np.swapaxes(x, -1, -2))
    check_gradients(lambda v: tf.linalg.matrix_transpose(v) * 2.0, x)


def test_linalg_namespace():
    for name in ["matmul", "matrix_transpose", "trace", "diag_part", "einsum", "tensordot", "adjoint"]:
        assert callable(getattr(tf.linalg, name))
    for name in ["matrix_transpose", "trace", "diag_part"]:
        assert not hasattr(tf, name)   # TF has these only in tf.linalg


def test_tensordot_static_shape_keeps_known_free_dims_with_an_unknown_batch():
    """TF 2.21: tensordot of a [None, 2, 4] placeholder with a [4, 3] matrix has static shape (None, 2, 3)."""
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 2, 4])
        y = tf.tensordot(x, tf.ones([4, 3]), [[2], [0]])
        assert y.shape.as_list() == [None, 2, 3]
    with tf.compat.v1.Session(graph=g) as sess:
        assert sess.run(y, {x: np.ones((5, 2, 4), np.float32)}).shape == (5, 2, 3)
