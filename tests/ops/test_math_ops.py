"""Elementwise math ops: values, dtypes, gradients and errors, checked against TensorFlow 2.21.

Golden literals (values, dtypes, shapes, error classes) were recorded from real TF
2.21 on CPU; NumPy is the reference for plain numerics.
"""
import numpy as np
import pytest

import engine as tf
from engine.framework.errors import InvalidArgumentError, NotFoundError
from engine.ops import math_ops
from gradcheck import check_gradients, check_second_order

nan, inf = np.nan, np.inf
DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
          "uint64", "bool"]
SHORT = {"f16": "float16", "f32": "float32", "f64": "float64", "i8": "int8", "i16": "int16", "i32": "int32",
         "i64": "int64", "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64", "b": "bool"}
ERRORS = {"IA": InvalidArgumentError, "TE": TypeError, "NF": NotFoundError}

# Result dtype (or error class) of each op for inputs of each dtype in DTYPES, recorded from TF 2.21.
DTYPE_TABLE = {
    "abs": "f16 f32 f64 i8 i16 i32 i64 IA IA IA IA IA",
    "add": "f16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 IA",
    "bitwise_and": "IA IA IA i8 i16 i32 i64 u8 u16 u32 u64 IA",
    "cast_f32": "f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32",
    "ceil": "f16 f32 f64 IA IA IA IA IA IA IA IA IA",
    "cos": "f16 f32 f64 IA IA IA IA IA IA IA IA IA",
    "divide": "f16 f32 f64 f32 f32 f64 f64 f32 f32 f64 f64 TE",
    "divide_no_nan": "f16 f32 f64 f32 f32 f64 f64 f32 f32 f64 f64 TE",
    "equal": "b b b b b b b b b b b b",
    "erf": "f16 f32 f64 IA IA IA IA IA IA IA IA IA",
    "erfc": "f16 f32 f64 IA IA IA IA IA IA IA IA IA",
    "exp": "f16 f32 f64 IA IA IA IA IA IA IA IA IA",
    "floor": "f16 f32 f64 IA IA IA IA IA IA IA IA IA",
    "floordiv": "f16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 IA",
    "floormod": "f16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 IA",
    "greater_equal": "b b b b b b b b b b b IA",
    "invert": "IA IA IA i8 i16 i32 i64 u8 u16 u32 u64 IA",
    "is_finite": "b b b IA IA IA IA IA IA IA IA IA",
    "is_inf": "b b b IA IA IA IA IA IA IA IA IA",
    "is_nan": "b b b IA IA IA IA IA IA IA IA IA",
    "less": "b b b b b b b b b b b IA",
    "log": "f16 f32 f64 IA IA IA IA IA IA IA IA IA",
    "log1p": "f16 f32 f64 IA IA IA IA IA IA IA IA IA",
    "logical_and": "IA IA IA IA IA IA IA IA IA IA IA b",
    "logical_not": "IA IA IA IA IA IA IA IA IA IA IA b",
    "logical_or": "IA IA IA IA IA IA IA IA IA IA IA b",
    "logical_xor": "IA IA IA IA IA IA IA IA IA IA IA b",
    "maximum": "f16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 IA",
    "minimum": "f16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 IA",
    "multiply": "f16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 IA",
    "negative": "f16 f32 f64 i8 i16 i32 i64 IA IA IA IA IA",
    "not_equal": "b b b b b b b b b b b b",
    "pow": "f16 f32 f64 i8 i16 i32 i64 IA IA IA IA IA",
    "realdiv": "f16 f32 f64 NF NF NF NF NF NF NF NF IA",
    "reciprocal": "f16 f32 f64 NF NF NF NF IA IA IA IA IA",
    "round": "f16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 IA",
    "rsqrt": "f16 f32 f64 IA IA IA IA IA IA IA IA IA",
    "sigmoid": "f16 f32 f64 IA IA IA IA IA IA IA IA IA",
    "sign": "f16 f32 f64 i8 i16 i32 i64 IA IA IA IA IA",
    "sin": "f16 f32 f64 IA IA IA IA IA IA IA IA IA",
    "sqrt": "f16 f32 f64 IA IA IA IA IA IA IA IA IA",
    "square": "f16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 IA",
    "squared_difference": "f16 f32 f64 IA IA i32 i64 IA IA IA IA IA",
    "subtract": "f16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 IA",
    "tanh": "f16 f32 f64 IA IA IA IA IA IA IA IA IA",
    "truediv": "f16 f32 f64 f32 f32 f64 f64 f32 f32 f64 f64 TE",
}

UNARY = {
    "abs": tf.math.abs, "ceil": tf.math.ceil, "cos": tf.math.cos, "erf": tf.math.erf, "erfc": tf.math.erfc,
    "exp": tf.math.exp, "floor": tf.math.floor,
    "invert": math_ops.invert, "is_finite": tf.math.is_finite, "is_inf": tf.math.is_inf, "is_nan": tf.math.is_nan,
    "log": tf.math.log, "log1p": tf.math.log1p, "logical_not": tf.math.logical_not, "negative": tf.math.negative,
    "reciprocal": tf.math.reciprocal, "round": tf.math.round, "rsqrt": tf.math.rsqrt, "sigmoid": tf.math.sigmoid,
    "sign": tf.math.sign, "sin": tf.math.sin, "sqrt": tf.math.sqrt, "square": tf.math.square, "tanh": tf.math.tanh,
    "cast_f32": lambda x: tf.cast(x, tf.float32),
}
BINARY = {
    "add": tf.math.add, "bitwise_and": math_ops.bitwise_and, "divide": tf.math.divide,
    "divide_no_nan": tf.math.divide_no_nan, "equal": tf.math.equal, "floordiv": tf.math.floordiv,
    "floormod": tf.math.floormod, "greater_equal": tf.math.greater_equal, "less": tf.math.less,
    "logical_and": tf.math.logical_and, "logical_or": tf.math.logical_or, "logical_xor": tf.math.logical_xor,
    "maximum": tf.math.maximum, "minimum": tf.math.minimum, "multiply": tf.math.multiply,
    "not_equal": tf.math.not_equal, "pow": tf.math.pow, "realdiv": tf.realdiv,
    "squared_difference": tf.math.squared_difference, "subtract": tf.math.subtract, "truediv": tf.math.truediv,
}


def _example(dtype):
    if dtype == "bool":
        return tf.constant([True, False, True])
    return tf.constant(np.array([1, 2, 3]).astype(dtype))


@pytest.mark.parametrize("name", sorted(DTYPE_TABLE))
def test_dtype_table_matches_tensorflow(name):
    fn = UNARY.get(name) or BINARY[name]
    for dtype, expected in zip(DTYPES, DTYPE_TABLE[name].split()):
        x = _example(dtype)
        args = (x,) if name in UNARY else (x, _example(dtype))
        if expected in ERRORS:
            with pytest.raises(ERRORS[expected]):
                fn(*args)
        else:
            assert fn(*args).dtype.name == SHORT[expected], (name, dtype)


# --------------------------------------------------------------------------------------
# Values recorded from TF 2.21: (value, dtype, shape)
# --------------------------------------------------------------------------------------
GOLDEN = {
    'round_f32': ([0.0, 2.0, 2.0, -0.0, -2.0, -2.0, 0.0, 3.0], 'float32', [8]),
    'round_f64': ([0.0, 2.0, 2.0, -2.0, 1000000000000000.0], 'float64', [5]),
    'round_i32': ([-3, 7], 'int32', [2]),
    'floor': ([-2.0, -0.0, 1.0, 2.0], 'float32', [4]),
    'ceil': ([-1.0, -0.0, 2.0, 2.0], 'float32', [4]),
    'cast_f_i32': ([1, -1, 0, 0, 2], 'int32', [5]),
    'cast_f_u8': ([255, 44, 255, 1], 'uint8', [4]),
    'cast_nan_i32': ([-2147483648, -2147483648, -2147483648, -2147483648], 'int32', [4]),
    'cast_i_bool': ([False, True, True], 'bool', [3]),
    'cast_f_bool': ([True, False, False, True], 'bool', [4]),
    'cast_bool_f': ([1.0, 0.0], 'float32', [2]),
    'cast_i32_i8': ([-56, 56, -128], 'int8', [3]),
    'cast_f64_f16': ([inf, 0.0, 0.0999755859375], 'float16', [3]),
    'floordiv_i': ([3, -4, -4, 3], 'int32', [4]),
    'floormod_i': ([1, 1, -1, -1], 'int32', [4]),
    'floordiv_f': ([3.0, -4.0, inf, -inf, nan], 'float32', [5]),
    'floormod_f': ([1.5, 0.5, -0.5, -1.5], 'float32', [4]),
    'floordiv_u8': ([3, 15], 'uint8', [2]),
    'truncatediv': ([3, -3, -3, 3], 'int32', [4]),
    'truncatemod': ([1, -1, 1, -1], 'int32', [4]),
    'truncatemod_f': ([1.5, -1.5], 'float32', [2]),
    'truediv_i32': ([0.5, -1.5, nan], 'float64', [3]),
    'truediv_i8': ([0.3333333432674408, -1.5], 'float32', [2]),
    'truediv_u16': ([0.3333333432674408, 1.5], 'float32', [2]),
    'truediv_i64': ([0.3333333333333333, 1.5], 'float64', [2]),
    'truediv_f16': ([0.333251953125, inf], 'float16', [2]),
    'div_py_ints': (0.6666666666666666, 'float64', []),
    'div_py_float': (0.6666666865348816, 'float32', []),
    'divide_no_nan': ([0.0, 0.0, 0.0, -0.5, 0.0], 'float32', [5]),
    'divide_no_nan_i32': ([0.0, 0.5, 0.0], 'float64', [3]),
    'divide_no_nan_y_nan': ([nan], 'float32', [1]),
    'realdiv': ([inf, -inf, nan], 'float32', [3]),
    'pow_f': ([1.4142135381698608, inf, nan, 1.0, 4.0], 'float32', [5]),
    'pow_i': ([8, -27, 1, 1, -2147483648], 'int32', [5]),
    'pow_i8_wrap': ([-128, -13], 'int8', [2]),
    'abs_i': ([-2147483648, 5, 0, 5], 'int32', [4]),
    'abs_f': ([1.5, 0.0, nan, inf], 'float32', [4]),
    'sign_f': ([-1.0, 0.0, 0.0, 1.0, nan, -1.0], 'float32', [6]),
    'sign_i': ([-1, 0, 1], 'int8', [3]),
    'neg_i': ([-2147483648, -1], 'int32', [2]),
    'exp': ([1.0, 2.7182817459106445, 0.3678794503211975, inf, 0.0, inf], 'float32', [6]),
    'exp_f16': ([1.0, 2.71875, inf], 'float16', [3]),
    'log': ([0.0, -inf, nan, inf, 0.9999999403953552], 'float32', [5]),
    'log1p': ([1.000000013351432e-10, 0.0, -inf, nan, 0.6931471824645996], 'float32', [5]),
    'sqrt': ([2.0, 0.0, nan, inf, 1.4142135381698608], 'float32', [5]),
    'rsqrt': ([0.5, inf, nan, 0.0], 'float32', [4]),
    'reciprocal': ([0.25, inf, -inf, 0.0], 'float32', [4]),
    'square_i': ([9, 0], 'int32', [2]),
    'square_u8': ([9, 0], 'uint8', [2]),
    'sin': ([0.0, 0.8414709568023682, -8.742277657347586e-08, -0.349993497133255], 'float32', [4]),
    'cos': ([1.0, 0.5403022766113281, -1.0, 0.9367521405220032], 'float32', [4]),
    'tanh': ([0.0, 0.46211713552474976, -1.0, 1.0, nan], 'float32', [5]),
    'sigmoid': ([0.5, 0.7310585975646973, 0.2689414322376251, 1.0, 0.0, 0.0], 'float32', [6]),
    'sigmoid_f16': ([0.5, 0.9931640625, 0.0], 'float16', [3]),
    'sigmoid_f64': ([0.5, 1.0, 0.0], 'float64', [3]),
    'maximum_nan': ([nan, nan, 2.0], 'float32', [3]),
    'minimum_nan': ([nan, nan, 1.0], 'float32', [3]),
    'maximum_u8': ([3, 250], 'uint8', [2]),
    'sqdiff_i': ([9, 25], 'int32', [2]),
    'sqdiff_f': ([[0.25, 4.0, 4.0], [2.25, 9.0, 1.0]], 'float32', [2, 3]),
    'clip_f': ([-1.0, 0.5, 1.0, nan], 'float32', [4]),
    'clip_i': ([2, 5, 8], 'int32', [3]),
    'clip_bcast': ([[1.0, 4.0], [0.0, 3.0]], 'float32', [2, 2]),
    'add_n': ([9, 12], 'int32', [2]),
    'add_n_ints': (6, 'int32', []),
    'is_nan': ([False, True, False], 'bool', [3]),
    'is_inf': ([False, False, True, True], 'bool', [4]),
    'is_finite': ([True, False, False, False], 'bool', [4]),
    'equal_str': ([True, False], 'bool', [2]),
    'not_equal_bool': ([False, True], 'bool', [2]),
    'equal_bcast': ([[True, False, False], [False, True, False]], 'bool', [2, 3]),
    'less_u8': ([True, False], 'bool', [2]),
    'logical_xor': ([False, True, True, False], 'bool', [4]),
    'bitwise_and': ([8, 7], 'int8', [2]),
    'bitwise_or': ([14, 3], 'uint8', [2]),
    'bitwise_xor': ([6, -8], 'int32', [2]),
    'invert_u8': ([249, 255, 0], 'uint8', [3]),
    'invert_i32': ([-7, -1, 0], 'int32', [3]),
    'int8_add_wrap': ([-56, 56], 'int8', [2]),
    'uint8_sub_wrap': ([255], 'uint8', [1]),
    'scalar_mul': ([2.0, 4.0], 'float32', [2]),
    'mul_op_bool': ([True, False, False], 'bool', [3]),
    'mul_op_bool_py': ([True, False], 'bool', [2]),
    'erf_f32': ([-0.9999780058860779, -0.8427008390426636, 0.0, 0.00011283790809102356, 0.5204998850822449,
                 0.8427008390426636, 0.9999780058860779, 1.0, 1.0], 'float32', [9]),
    'erf_f64': ([-0.9999779095030015, -0.8427007929497148, 0.0, 0.00011283791633342486, 0.5204998778130466,
                 0.8427007929497148, 0.9999779095030014, 1.0, 1.0], 'float64', [9]),
    'erfc_f16': ([2.0, 1.8427734375, 1.0, 1.0, 0.4794921875, 0.1573486328125, 2.2113323211669922e-05, 0.0, 0.0],
                 'float16', [9]),
    'erfc_f32': ([1.999977946281433, 1.842700719833374, 1.0, 0.9998871684074402, 0.4795001149177551,
                  0.1572992205619812, 2.2090496713644825e-05, 0.0, 0.0], 'float32', [9]),
    'erfc_f64': ([1.9999779095030015, 1.8427007929497148, 1.0, 0.9998871620836666, 0.47950012218695337,
                  0.15729920705028522, 2.209049699858544e-05, 2.0884875837625443e-45, 0.0], 'float64', [9]),
}

c = tf.constant
ERF_X = [-3., -1., 0., 1e-4, 0.5, 1., 3., 10., 30.]
COMPUTE = {
    'round_f32': lambda: tf.round(c([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 2.5000002])),
    'round_f64': lambda: tf.round(c([0.5, 1.5, 2.5, -2.5, 1e15 + 0.5], tf.float64)),
    'round_i32': lambda: tf.round(c([-3, 7])),
    'floor': lambda: tf.floor(c([-1.5, -0.0, 1.5, 2.0])),
    'ceil': lambda: tf.math.ceil(c([-1.5, -0.0, 1.5, 2.0])),
    'cast_f_i32': lambda: tf.cast(c([1.7, -1.7, 0.5, -0.5, 2.9999]), tf.int32),
    'cast_f_u8': lambda: tf.cast(c([-1.5, 300.7, 255.9, 1.2]), tf.uint8),
    'cast_nan_i32': lambda: tf.cast(c([nan, inf, -inf, 3e9]), tf.int32),
    'cast_i_bool': lambda: tf.cast(c([0, 2, -1]), tf.bool),
    'cast_f_bool': lambda: tf.cast(c([nan, 0., -0., 0.1]), tf.bool),
    'cast_bool_f': lambda: tf.cast(c([True, False]), tf.float32),
    'cast_i32_i8': lambda: tf.cast(c([200, -200, 128]), tf.int8),
    'cast_f64_f16': lambda: tf.cast(c([70000., 1e-8, 0.1], tf.float64), tf.float16),
    'floordiv_i': lambda: tf.math.floordiv(c([7, -7, 7, -7]), c([2, 2, -2, -2])),
    'floormod_i': lambda: tf.math.floormod(c([7, -7, 7, -7]), c([2, 2, -2, -2])),
    'floordiv_f': lambda: tf.math.floordiv(c([7.5, -7.5, 1., -1., 0.]), c([2., 2., 0., 0., 0.])),
    'floormod_f': lambda: tf.math.floormod(c([7.5, -7.5, 7.5, -7.5]), c([2., 2., -2., -2.])),
    'floordiv_u8': lambda: tf.math.floordiv(c([7, 255], tf.uint8), c([2, 16], tf.uint8)),
    'truncatediv': lambda: tf.truncatediv(c([7, -7, 7, -7]), c([2, 2, -2, -2])),
    'truncatemod': lambda: tf.truncatemod(c([7, -7, 7, -7]), c([2, 2, -2, -2])),
    'truncatemod_f': lambda: tf.truncatemod(c([7.5, -7.5]), c([2., 2.])),
    'truediv_i32': lambda: tf.math.truediv(c([1, -3, 0]), c([2, 2, 0])),
    'truediv_i8': lambda: tf.math.truediv(c([1, -3], tf.int8), c([3, 2], tf.int8)),
    'truediv_u16': lambda: tf.math.truediv(c([1, 3], tf.uint16), c([3, 2], tf.uint16)),
    'truediv_i64': lambda: tf.math.truediv(c([1, 3], tf.int64), c([3, 2], tf.int64)),
    'truediv_f16': lambda: tf.math.truediv(c([1., 3.], tf.float16), c([3., 0.], tf.float16)),
    'div_py_ints': lambda: tf.divide(2, 3),
    'div_py_float': lambda: tf.divide(2., 3),
    'divide_no_nan': lambda: tf.math.divide_no_nan(c([1., nan, inf, -2., 0.]), c([0., 0., 0., 4., 0.])),
    'divide_no_nan_i32': lambda: tf.math.divide_no_nan(c([1, 2, 0]), c([0, 4, 0])),
    'divide_no_nan_y_nan': lambda: tf.math.divide_no_nan(c([1.]), c([nan])),
    'realdiv': lambda: tf.realdiv(c([1., -1., 0.]), c([0., 0., 0.])),
    'pow_f': lambda: tf.pow(c([2., 0., -8., 4., -2.]), c([0.5, -1., 1. / 3, 0., 2.])),
    'pow_i': lambda: tf.pow(c([2, -3, 0, 5, 2]), c([3, 3, 0, 0, 31])),
    'pow_i8_wrap': lambda: tf.pow(c([2, 3], tf.int8), c([7, 5], tf.int8)),
    'abs_i': lambda: tf.abs(c([-2147483648, -5, 0, 5])),
    'abs_f': lambda: tf.abs(c([-1.5, -0.0, nan, -inf])),
    'sign_f': lambda: tf.sign(c([-2., -0.0, 0., 3., nan, -inf])),
    'sign_i': lambda: tf.sign(c([-5, 0, 5], tf.int8)),
    'neg_i': lambda: tf.negative(c([-2147483648, 1])),
    'exp': lambda: tf.exp(c([0., 1., -1., 100., -100., 89.])),
    'exp_f16': lambda: tf.exp(c([0., 1., 12.], tf.float16)),
    'log': lambda: tf.math.log(c([1., 0., -1., inf, 2.718281828])),
    'log1p': lambda: tf.math.log1p(c([1e-10, 0., -1., -2., 1.])),
    'sqrt': lambda: tf.sqrt(c([4., 0., -1., inf, 2.])),
    'rsqrt': lambda: tf.math.rsqrt(c([4., 0., -1., inf])),
    'reciprocal': lambda: tf.math.reciprocal(c([4., 0., -0., inf])),
    'square_i': lambda: tf.square(c([3, -65536])),
    'square_u8': lambda: tf.square(c([3, 16], tf.uint8)),
    'sin': lambda: tf.sin(c([0., 1., 3.14159265, 1e6])),
    'cos': lambda: tf.cos(c([0., 1., 3.14159265, 1e6])),
    'tanh': lambda: tf.tanh(c([0., 0.5, -20., 20., nan])),
    'sigmoid': lambda: tf.sigmoid(c([0., 1., -1., 100., -100., -1000.])),
    'sigmoid_f16': lambda: tf.sigmoid(c([0., 5., -20.], tf.float16)),
    'sigmoid_f64': lambda: tf.sigmoid(c([0., 40., -800.], tf.float64)),
    'maximum_nan': lambda: tf.maximum(c([nan, 1., 2.]), c([1., nan, 1.])),
    'minimum_nan': lambda: tf.minimum(c([nan, 1., 2.]), c([1., nan, 1.])),
    'maximum_u8': lambda: tf.maximum(c([1, 250], tf.uint8), c([3, 4], tf.uint8)),
    'sqdiff_i': lambda: tf.math.squared_difference(c([1, -2]), c([4, 3])),
    'sqdiff_f': lambda: tf.math.squared_difference(c([[1.], [2.]]), c([0.5, -1., 3.])),
    'clip_f': lambda: tf.clip_by_value(c([-2., 0.5, 3., nan]), -1., 1.),
    'clip_i': lambda: tf.clip_by_value(c([1, 5, 10]), 2, 8),
    'clip_bcast': lambda: tf.clip_by_value(c([[1., 5.], [-3., 2.]]), c([0., 3.]), 4.),
    'add_n': lambda: tf.add_n([c([1, 2]), c([3, 4]), c([5, 6])]),
    'add_n_ints': lambda: tf.add_n([1, 2, 3]),
    'is_nan': lambda: tf.math.is_nan(c([1., nan, inf])),
    'is_inf': lambda: tf.math.is_inf(c([1., nan, inf, -inf])),
    'is_finite': lambda: tf.math.is_finite(c([1., nan, inf, -inf])),
    'equal_str': lambda: tf.equal(c(["a", "b"]), c(["a", "c"])),
    'not_equal_bool': lambda: tf.not_equal(c([True, False]), c([True, True])),
    'equal_bcast': lambda: tf.equal(c([[1], [2]]), c([1, 2, 3])),
    'less_u8': lambda: tf.less(c([1, 255], tf.uint8), c([2, 0], tf.uint8)),
    'logical_xor': lambda: tf.math.logical_xor(c([True, True, False, False]), c([True, False, True, False])),
    'bitwise_and': lambda: math_ops.bitwise_and(c([12, -1], tf.int8), c([10, 7], tf.int8)),
    'bitwise_or': lambda: math_ops.bitwise_or(c([12, 1], tf.uint8), c([10, 2], tf.uint8)),
    'bitwise_xor': lambda: math_ops.bitwise_xor(c([12, -1]), c([10, 7])),
    'invert_u8': lambda: math_ops.invert(c([6, 0, 255], tf.uint8)),
    'invert_i32': lambda: math_ops.invert(c([6, 0, -1])),
    'int8_add_wrap': lambda: tf.add(c([100, -100], tf.int8), c([100, -100], tf.int8)),
    'uint8_sub_wrap': lambda: tf.subtract(c([1], tf.uint8), c([2], tf.uint8)),
    'scalar_mul': lambda: tf.math.scalar_mul(2, c([1., 2.])),
    'mul_op_bool': lambda: math_ops._mul_operator(c([True, True, False]), c([True, False, False])),
    'mul_op_bool_py': lambda: math_ops._mul_operator(c([True, False]), True),
    'erf_f32': lambda: tf.math.erf(c(ERF_X)),
    'erf_f64': lambda: tf.math.erf(c(ERF_X, tf.float64)),
    'erfc_f16': lambda: tf.math.erfc(c(ERF_X, tf.float16)),
    'erfc_f32': lambda: tf.math.erfc(c(ERF_X)),
    'erfc_f64': lambda: tf.math.erfc(c(ERF_X, tf.float64)),
}


def assert_golden(result, expected, rtol=1e-6):
    """Compare with a TF golden value. TF's CPU kernels flush subnormal floats to zero
    (``exp(-100.)`` is 0 in float32); NumPy keeps them, so absolute differences below the
    smallest normal number are accepted (a documented engine difference)."""
    value, dtype, shape = expected
    assert result.dtype.name == dtype
    assert result.shape.as_list() == shape
    got = result.numpy()
    if dtype == "bool" or dtype.startswith(("int", "uint")):
        np.testing.assert_array_equal(got, np.array(value, dtype=dtype))
    else:
        np.testing.assert_allclose(np.asarray(got, np.float64), np.array(value, np.float64), rtol=rtol,
                                   atol=float(np.finfo(dtype).tiny))


@pytest.mark.parametrize("label", sorted(GOLDEN))
def test_values_match_tensorflow(label):
    # float32 sin(1e6), erf: TF uses float32 approximations; the engine rounds the exact value (1-2 ulp apart)
    rtol = 1e-5 if label in ("sin", "cos") else 3e-7 if label == "erf_f32" else 1e-6
    assert_golden(COMPUTE[label](), GOLDEN[label], rtol)


def test_golden_and_compute_tables_agree():
    assert set(GOLDEN) == set(COMPUTE)


def test_signed_zero_results():
    assert np.signbit(tf.round(c([-0.4])).numpy()[0])       # TF: -0.0
    assert not np.signbit(tf.sign(c([-0.0])).numpy()[0])     # TF: 0.0


# --------------------------------------------------------------------------------------
# Values against NumPy on random data
# --------------------------------------------------------------------------------------
RNG = np.random.default_rng(0)
UNARY_NUMPY = [
    ("negative", tf.math.negative, np.negative, (-3, 3)), ("abs", tf.abs, np.abs, (-3, 3)),
    ("exp", tf.exp, np.exp, (-3, 3)), ("log", tf.math.log, np.log, (0.1, 3)),
    ("log1p", tf.math.log1p, np.log1p, (-0.5, 3)), ("sqrt", tf.sqrt, np.sqrt, (0.1, 3)),
    ("rsqrt", tf.math.rsqrt, lambda v: 1 / np.sqrt(v), (0.1, 3)), ("square", tf.square, np.square, (-3, 3)),
    ("sin", tf.sin, np.sin, (-3, 3)), ("cos", tf.cos, np.cos, (-3, 3)), ("tanh", tf.tanh, np.tanh, (-3, 3)),
    ("sigmoid", tf.sigmoid, lambda v: 1 / (1 + np.exp(-v)), (-8, 8)),
    ("reciprocal", tf.math.reciprocal, np.reciprocal, (0.5, 3)), ("floor", tf.floor, np.floor, (-3, 3)),
    ("ceil", tf.math.ceil, np.ceil, (-3, 3)), ("round", tf.round, np.round, (-3, 3)),
    ("sign", tf.sign, np.sign, (-3, 3)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,fn,ref,domain", UNARY_NUMPY, ids=[u[0] for u in UNARY_NUMPY])
def test_unary_values_against_numpy(name, fn, ref, domain, dtype):
    x = RNG.uniform(*domain, size=(3, 4)).astype(dtype)
    out = fn(tf.constant(x))
    assert out.dtype.as_numpy_dtype == dtype and out.shape == (3, 4)
    np.testing.assert_allclose(out.numpy(), ref(x).astype(dtype), rtol=1e-6 if dtype == np.float32 else 1e-12)


BINARY_NUMPY = [
    ("add", tf.add, np.add), ("subtract", tf.subtract, np.subtract), ("multiply", tf.multiply, np.multiply),
    ("divide", tf.divide, np.divide), ("maximum", tf.maximum, np.maximum), ("minimum", tf.minimum, np.minimum),
    ("pow", tf.pow, np.power), ("floordiv", tf.math.floordiv, np.floor_divide),
    ("floormod", tf.math.floormod, np.remainder),
    ("squared_difference", tf.math.squared_difference, lambda a, b: (a - b) ** 2),
    ("less", tf.less, np.less), ("greater", tf.greater, np.greater), ("equal", tf.equal, np.equal),
]


@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 1), (1, 4)), ((4,), (2, 3, 4)), ((), (2, 3))])
@pytest.mark.parametrize("name,fn,ref", BINARY_NUMPY, ids=[b[0] for b in BINARY_NUMPY])
def test_binary_values_and_broadcast_shapes_against_numpy(name, fn, ref, shapes):
    a = RNG.uniform(0.5, 3, size=shapes[0])
    b = RNG.uniform(0.5, 3, size=shapes[1])
    out = fn(tf.constant(a), tf.constant(b))
    expected = ref(a, b)
    assert out.shape.as_list() == list(np.broadcast_shapes(shapes[0], shapes[1]))
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)


def test_python_values_adopt_the_tensor_dtype():
    x = tf.constant([1., 2.])
    assert tf.add(x, 1).dtype == tf.float32
    assert tf.subtract(2, x).dtype == tf.float32
    assert tf.multiply(x, np.array([1., 2.])).dtype == tf.float32   # NumPy float64 adopts float32, as in TF
    assert tf.maximum(1, x).dtype == tf.float32
    assert tf.add(tf.constant([1], tf.int8), 3).dtype == tf.int8
    assert tf.pow(2, x).numpy().tolist() == [2.0, 4.0]
    with pytest.raises(TypeError):
        tf.multiply(tf.constant([1]), 2.5)         # 2.5 cannot become int32
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.add(tf.constant([1]), 2.5)              # TF 2.21: for AddV2, the op itself refuses the mix


def test_add_on_scalars_and_variables():
    v = tf.Variable([1., 2.])
    assert tf.add(v, v).numpy().tolist() == [2., 4.]
    assert tf.add(1, 2).dtype == tf.int32 and int(tf.add(1, 2)) == 3
    assert tf.add(tf.constant(1.5), tf.constant(2.0)).shape == ()


def test_cast_returns_input_when_dtype_matches_and_accepts_python_values():
    x = tf.constant([1., 2.])
    assert tf.cast(x, tf.float32) is x
    assert tf.cast(1.7, tf.int32).numpy() == 1
    assert tf.cast([1, 2], "float64").dtype == tf.float64


def test_add_n_single_and_many():
    x = tf.constant([1., 2.])
    assert tf.add_n([x]) is x
    np.testing.assert_array_equal(tf.add_n([x, x, x]).numpy(), [3., 6.])


def test_logical_and_bitwise_values():
    a, b = c([True, True, False, False]), c([True, False, True, False])
    assert tf.logical_and(a, b).numpy().tolist() == [True, False, False, False]
    assert tf.logical_or(a, b).numpy().tolist() == [True, True, True, False]
    assert tf.logical_not(a).numpy().tolist() == [False, False, True, True]
    assert tf.logical_and(a, True).numpy().tolist() == [True, True, False, False]


# --------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------
def test_int32_plus_float32_is_invalid_argument_naming_addv2():
    with pytest.raises(InvalidArgumentError, match="AddV2") as info:
        tf.add(tf.constant(1), tf.constant(1.0))
    # TF 2.21's runtime names: "expected to be a int32 tensor but is a float tensor"
    assert "expected to be a int32 tensor but is a float tensor" in str(info.value)
    with pytest.raises(InvalidArgumentError, match="AddV2"):
        tf.constant([1]) + tf.constant([1.0])


def test_incompatible_shapes_names_op_and_shapes():
    with pytest.raises(InvalidArgumentError, match="Incompatible shapes") as info:
        tf.add(tf.ones([2, 3]), tf.ones([4]))
    message = str(info.value)
    assert "[2,3]" in message and "[4]" in message and "AddV2" in message
    with pytest.raises(InvalidArgumentError, match=r"\[Op:Mul\]"):
        tf.multiply(tf.ones([2]), [1., 2., 3.])


def test_exp_of_int32_is_refused():
    with pytest.raises(InvalidArgumentError, match="Exp") as info:
        tf.exp(tf.constant(1))
    assert "int32" in str(info.value)


@pytest.mark.parametrize("call,error,fragment", [
    (lambda: tf.divide(tf.constant([1]), tf.constant([1.])), TypeError, "must have the same dtype"),
    (lambda: tf.math.truediv(c([True]), c([True])), TypeError, "Invalid dtype tf.bool in __truediv__"),
    (lambda: tf.math.divide_no_nan(c([True]), c([True])), TypeError, "tf.math.divide_no_nan"),
    (lambda: tf.math.divide_no_nan(c([1]), c([0.])), TypeError, "must have the same dtype"),
    (lambda: tf.realdiv(c([1]), c([2])), NotFoundError, "RealDiv"),
    (lambda: tf.math.reciprocal(c([2])), NotFoundError, "Reciprocal"),
    (lambda: tf.math.floordiv(c([7]), c([0])), InvalidArgumentError, "Integer division by zero"),
    (lambda: tf.math.floormod(c([7]), c([0])), InvalidArgumentError, "Integer division by zero"),
    (lambda: tf.pow(c([2]), c([-1])), InvalidArgumentError, "negative integer powers"),
    (lambda: tf.multiply(c([True]), c([True])), InvalidArgumentError, "Mul"),
    (lambda: tf.less(c([True]), c([False])), InvalidArgumentError, "Less"),
    (lambda: tf.math.squared_difference(c([1], tf.int8), c([1], tf.int8)), InvalidArgumentError,
     "SquaredDifference"),
    (lambda: tf.logical_and(c([1]), c([1])), InvalidArgumentError, "LogicalAnd as input #0"),
    (lambda: math_ops.bitwise_and(c([1.]), c([1.])), InvalidArgumentError, "BitwiseAnd"),
    (lambda: tf.add_n([]), ValueError, "at least one"),
    (lambda: tf.add_n([tf.ones([2]), tf.ones([3])]), InvalidArgumentError, r"Input 0: \[2\] != input 1: \[3\]"),
    (lambda: tf.add_n([tf.ones([2]), tf.ones([2], tf.float64)]), InvalidArgumentError, "AddN"),
    (lambda: tf.add_n([c([True]), c([True])]), InvalidArgumentError, "AddN"),
    (lambda: tf.clip_by_value(tf.ones([2]), tf.zeros([3, 2]), 1.), ValueError, "incompatible"),
    (lambda: tf.clip_by_value(c([1, 5]), 0.5, 3), TypeError, "0.5"),
    (lambda: tf.math.scalar_mul(c([1., 2.]), c([1., 2.])), ValueError, "0-D"),
    (lambda: tf.math.is_nan(c([1])), InvalidArgumentError, "IsNan"),
])
def test_error_cases(call, error, fragment):
    with pytest.raises(error, match=fragment):
        call()


# --------------------------------------------------------------------------------------
# The fast path behaves exactly like the general path
# --------------------------------------------------------------------------------------
def test_fast_path_matches_general_path_and_records_on_tape():
    a, b = tf.constant([[1., 2.]]), tf.constant([[3.], [4.]])
    fast = tf.multiply(a, b)
    general = tf.multiply(tf.Variable([[1., 2.]]), np.array([[3.], [4.]], np.float32))
    np.testing.assert_array_equal(fast.numpy(), general.numpy())
    with tf.GradientTape() as tape:
        tape.watch([a, b])
        y = tf.multiply(a, b)
    ga, gb = tape.gradient(y, [a, b])
    assert ga.numpy().tolist() == [[7., 7.]] and gb.numpy().tolist() == [[3.], [3.]]


def test_fast_path_unary_records_and_errors():
    x = tf.constant([0.5, 1.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.exp(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), np.exp([0.5, 1.0]).astype(np.float32))
    with pytest.raises(InvalidArgumentError, match="Exp"):
        tf.exp(tf.constant([1, 2]))


def test_fast_path_under_device_scope_gives_same_result():
    a, b = tf.constant([1., 2.]), tf.constant([3., 4.])
    with tf.device("CPU:0"):
        inside = tf.add(a, b)
    assert inside.numpy().tolist() == tf.add(a, b).numpy().tolist() == [4., 6.]


def test_numpy_floating_point_warnings_are_silenced(recwarn):
    tf.exp(tf.constant([1000.]))
    tf.math.log(tf.constant([0., -1.]))
    tf.divide(tf.constant([1.]), tf.constant([0.]))
    tf.cast(tf.constant([np.nan]), tf.int32)
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
    with pytest.warns(RuntimeWarning):   # and NumPy's own state is left alone
        np.exp(np.float32(1000.))


# --------------------------------------------------------------------------------------
# Gradients: finite differences (float64)
# --------------------------------------------------------------------------------------
def _pos(*shape):
    return RNG.uniform(0.5, 2.0, size=shape)


def _any(*shape):
    return RNG.uniform(-2.0, 2.0, size=shape)


def _distinct(*shape):
    n = int(np.prod(shape))
    return (RNG.permutation(n) * 0.37 - n * 0.15).reshape(shape)


UNARY_GRADS = [
    ("negative", tf.negative, _any), ("abs", tf.abs, _distinct), ("exp", tf.exp, _any),
    ("log", tf.math.log, _pos), ("log1p", tf.math.log1p, _pos), ("sqrt", tf.sqrt, _pos),
    ("rsqrt", tf.math.rsqrt, _pos), ("square", tf.square, _any), ("sin", tf.sin, _any), ("cos", tf.cos, _any),
    ("tanh", tf.tanh, _any), ("sigmoid", tf.sigmoid, _any), ("reciprocal", tf.math.reciprocal, _pos),
    ("cast_f32_round_trip", lambda x: tf.cast(tf.cast(x, tf.float32), tf.float64), _any),
    ("clip_by_value", lambda x: tf.clip_by_value(x, -0.95, 0.85), _distinct),
    ("scalar_mul", lambda x: tf.math.scalar_mul(3.0, x), _any), ("erf", tf.math.erf, _any),
    ("sign_times_x", lambda x: tf.sign(x) * x, _distinct),
    ("erfc", tf.math.erfc, _any),
]


@pytest.mark.parametrize("name,fn,make", UNARY_GRADS, ids=[u[0] for u in UNARY_GRADS])
def test_unary_gradients(name, fn, make):
    if name == "cast_f32_round_trip":   # float32 rounding needs a coarser finite-difference step
        check_gradients(fn, make(2, 3), atol=1e-4, rtol=1e-4, delta=1e-2)
    else:
        check_gradients(fn, make(2, 3))


BINARY_GRADS = [
    ("add", tf.add, _any, _any), ("subtract", tf.subtract, _any, _any), ("multiply", tf.multiply, _any, _any),
    ("divide", tf.divide, _any, _pos), ("realdiv", tf.realdiv, _any, _pos), ("pow", tf.pow, _pos, _any),
    ("maximum", tf.maximum, _distinct, _distinct), ("minimum", tf.minimum, _distinct, _distinct),
    ("squared_difference", tf.math.squared_difference, _any, _any),
    ("divide_no_nan", tf.math.divide_no_nan, _any, _pos),
    ("floormod", tf.math.floormod, lambda *s: _pos(*s) + 3.1, lambda *s: np.full(s, 1.7)),
]
BROADCAST = [((2, 3), (2, 3)), ((3, 1), (1, 4)), ((4,), (2, 3, 4)), ((), (2, 3)), ((2, 1, 3), (2, 1))]


@pytest.mark.parametrize("shapes", BROADCAST, ids=[f"{a}x{b}" for a, b in BROADCAST])
@pytest.mark.parametrize("name,fn,make_x,make_y", BINARY_GRADS, ids=[b[0] for b in BINARY_GRADS])
def test_binary_gradients_with_broadcasting(name, fn, make_x, make_y, shapes):
    x, y = make_x(*shapes[0]), make_y(*shapes[1])
    if name in ("maximum", "minimum"):
        y = y + 0.123   # keep x and y apart: no ties
    check_gradients(fn, x, y)


def test_add_n_gradient():
    check_gradients(lambda a, b, d: tf.add_n([a, b, d, a]), _any(2, 2), _any(2, 2), _any(2, 2))


# Gradients at the awkward points, recorded from TF 2.21 (float32).
GRADS = {
    'g_maximum_tie': [[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
    'g_minimum_tie': [[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]],
    'g_abs_zero': [[-1.0, 0.0, 1.0]],
    'g_sqrt_zero': [[inf, 0.25]],
    'g_pow_x0': [[0.0, nan, -4.0, 12.0], [0.0, 0.0, 0.0, 5.545177459716797]],
    'g_clip_bounds': [[0.0, 1.0, 1.0, 1.0, 0.0]],
    'g_dnn': [[0.0, 0.25], [0.0, -0.125]],
    'g_floormod': [[1.0, 1.0], [-3.0, 4.0]],
    'g_floordiv': [None, None],
    'g_round': [None],
    'g_sign': [[0.0, 0.0]],
    'g_cast_f_i': [None],
    'g_cast_f64': [[3.0]],
    'g_log_zero': [[inf, 1.0]],
    'g_rsqrt': [[-0.0625]],
    'g_erf_erfc': [[1.0312609672546387, 0.2673443555831909]],
}
GRAD_CASES = {
    'g_maximum_tie': (lambda a, b: tf.maximum(a, b), [1., 2., 3.], [1., 1., 4.]),
    'g_minimum_tie': (lambda a, b: tf.minimum(a, b), [1., 2., 3.], [1., 1., 4.]),
    'g_abs_zero': (lambda v: tf.abs(v), [-2., 0., 3.]),
    'g_sqrt_zero': (lambda v: tf.sqrt(v), [0., 4.]),
    'g_pow_x0': (lambda a, b: tf.pow(a, b), [0., 0., -2., 2.], [2., 0., 2., 3.]),
    'g_clip_bounds': (lambda v: tf.clip_by_value(v, -1., 1.), [-2., -1., 0., 1., 2.]),
    'g_dnn': (lambda a, b: tf.math.divide_no_nan(a, b), [1., 2.], [0., 4.]),
    'g_floormod': (lambda a, b: tf.math.floormod(a, b), [7.5, -7.5], [2., 2.]),
    'g_floordiv': (lambda a, b: tf.math.floordiv(a, b), [7.5, -7.5], [2., 2.]),
    'g_round': (lambda a: tf.round(a), [1.4]),
    'g_sign': (lambda a: tf.sign(a), [1.4, 0.]),
    'g_cast_f_i': (lambda v: tf.cast(tf.cast(v, tf.int32), tf.float32), [1.5]),
    'g_cast_f64': (lambda v: tf.cast(v, tf.float64) * 3, [1.5]),
    'g_log_zero': (lambda v: tf.math.log(v), [0., 1.]),
    'g_rsqrt': (lambda v: tf.math.rsqrt(v), [4.]),
    'g_erf_erfc': (lambda v: tf.math.erfc(v) + tf.math.erf(v) * 2, [0.3, -1.2]),
}


def tape_grads(f, *values):
    xs = [tf.constant(np.asarray(v, np.float32)) for v in values]
    with tf.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = f(*xs)
    return tape.gradient(y, xs)


def assert_grads(got, expected):
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        if e is None:
            assert g is None
        else:
            np.testing.assert_allclose(g.numpy(), np.array(e, np.float32), rtol=1e-6)


@pytest.mark.parametrize("label", sorted(GRADS))
def test_gradients_at_special_points_match_tensorflow(label):
    f, *values = GRAD_CASES[label]
    assert_grads(tape_grads(f, *values), GRADS[label])


SECOND_ORDER = [
    ("multiply", lambda x: x * tf.multiply(x, x)), ("exp", tf.exp), ("tanh", tf.tanh), ("sigmoid", tf.sigmoid),
    ("pow", lambda x: tf.pow(x, 3.0)), ("pow_exponent", lambda x: tf.pow(2.0, x)), ("log", tf.math.log),
    ("sqrt", tf.sqrt), ("rsqrt", tf.math.rsqrt), ("sin", tf.sin), ("cos", tf.cos),
    ("reciprocal", tf.math.reciprocal), ("divide", lambda x: tf.divide(1.0, x + 3.0)),
    ("squared_difference", lambda x: tf.math.squared_difference(x, 0.3) * x),
    ("divide_no_nan", lambda x: tf.math.divide_no_nan(x, x + 3.0)), ("log1p", tf.math.log1p),
    ("maximum", lambda x: tf.maximum(x, 0.7) * x), ("erf", tf.math.erf), ("erfc", tf.math.erfc),
]


@pytest.mark.parametrize("name,fn", SECOND_ORDER, ids=[s[0] for s in SECOND_ORDER])
def test_second_order(name, fn):
    check_second_order(fn, _pos(3))


# --------------------------------------------------------------------------------------
# Namespaces: tf.math has these; the top level has only what TF exports there
# --------------------------------------------------------------------------------------
MATH_NAMES = ["abs", "add", "add_n", "ceil", "cos", "divide", "divide_no_nan", "equal", "erf", "erfc", "exp", "floor",
              "floordiv", "floormod", "greater", "greater_equal", "is_finite", "is_inf", "is_nan", "less", "less_equal",
              "log", "log1p", "logical_and", "logical_not", "logical_or", "logical_xor", "maximum", "minimum", "mod",
              "multiply", "negative", "not_equal", "pow", "reciprocal", "round", "rsqrt", "scalar_mul", "sigmoid",
              "sign", "sin", "sqrt", "square", "squared_difference", "subtract", "tanh", "truediv"]
NOT_TOP_LEVEL = ["log", "floordiv", "floormod", "mod", "log1p", "rsqrt", "reciprocal", "squared_difference",
                 "logical_xor", "ceil", "divide_no_nan", "is_nan", "is_inf", "is_finite", "bitwise_and", "invert"]
TOP_LEVEL = ["add", "subtract", "multiply", "divide", "truediv", "realdiv", "pow", "negative", "abs", "sign", "exp",
             "sqrt", "square", "sin", "cos", "tanh", "sigmoid", "maximum", "minimum", "equal", "not_equal", "less",
             "less_equal", "greater", "greater_equal", "logical_and", "logical_or", "logical_not", "cast",
             "clip_by_value", "round", "floor", "add_n", "scalar_mul", "truncatediv", "truncatemod"]


def test_tf_math_namespace():
    for name in MATH_NAMES:
        assert callable(getattr(tf.math, name)), name
    assert tf.math.mod is tf.math.floormod
    assert tf.math.log is math_ops.log


def test_top_level_names_follow_tensorflow():
    for name in TOP_LEVEL:
        assert callable(getattr(tf, name)), name
    for name in NOT_TOP_LEVEL:
        assert not hasattr(tf, name), name


# --------------------------------------------------------------------------------------
# GPU (CuPy) kernels agree with the NumPy ones
# --------------------------------------------------------------------------------------
@pytest.mark.gpu
def test_gpu_matches_cpu_for_math_reduction_and_linalg_ops():
    a_np, b_np = _any(3, 4), _pos(1, 4)

    def run():
        a, b = tf.constant(a_np), tf.constant(b_np)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([a, b])
            outs = [tf.add(a, b), a * b, tf.divide(a, b), tf.pow(b, a), tf.maximum(a, b), tf.math.floormod(a, b),
                    tf.math.squared_difference(a, b), tf.math.divide_no_nan(a, b), tf.exp(a), tf.math.log(b),
                    tf.sqrt(b), tf.math.rsqrt(b), tf.tanh(a), tf.sigmoid(a), tf.abs(a), tf.sign(a), tf.round(a),
                    tf.truncatediv(a, b), tf.cast(a, tf.float32), tf.clip_by_value(a, -0.5, 0.5),
                    tf.reduce_sum(a, 1), tf.reduce_mean(a, [0, 1]), tf.reduce_max(a, 0, keepdims=True),
                    tf.reduce_min(a), tf.reduce_prod(b, 1), tf.reduce_logsumexp(a, 1),
                    tf.math.reduce_variance(a, 0), tf.math.cumsum(a, 1, exclusive=True),
                    tf.math.cumprod(b, 1, reverse=True), tf.matmul(a, b, transpose_b=True),
                    tf.matmul(tf.reshape(a, [3, 2, 2]), tf.reshape(a, [3, 2, 2])),
                    tf.tensordot(a, b, [[1], [1]]), tf.einsum("ij,kj->ik", a, b), tf.einsum("ii->", a[:, :3]),
                    tf.linalg.trace(a), tf.linalg.diag_part(a)]
            loss = tf.add_n([tf.reduce_sum(o) for o in outs if o.dtype == tf.float64])
        grads = tape.gradient(loss, [a, b])
        ints = [tf.math.argmax(a, 1), tf.math.argmin(a), tf.reduce_mean(tf.constant([[-7, 0], [7, 2]]), 1),
                tf.math.floordiv(tf.constant([7, -7]), tf.constant([2, 2])), tf.reduce_any(a > 0, 1),
                tf.equal(a, a), tf.math.is_nan(a)]
        return [v.numpy() for v in outs + grads + ints]

    cpu = run()
    with tf.device("/GPU:0"):
        gpu = run()
    for i, (x, y) in enumerate(zip(cpu, gpu)):
        np.testing.assert_allclose(np.asarray(y, np.float64), np.asarray(x, np.float64), rtol=1e-9, atol=1e-12,
                                   err_msg=f"output {i}")
