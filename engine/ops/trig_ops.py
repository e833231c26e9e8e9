"""Trigonometric and hyperbolic functions: ``tf.math.tan``, ``asin``, ``acos``, ``atan``, ``atan2``,
``sinh``, ``cosh``, ``asinh``, ``acosh``, ``atanh``, and ``expm1``.

Each is one elementwise op (TF's op names: ``Tan``, ``Asin``, ..., ``Atan2``) registered with the
``math_ops`` helpers, so it goes through the same door, dtype checks (floats only) and tape recording as
``sin``/``cos``. The gradients are TF's formulas, written with engine ops:

* ``tan``: ``g / cos(x)**2``;  ``asin``: ``g / sqrt(1 - x**2)``;  ``acos``: ``-g / sqrt(1 - x**2)``;
* ``atan``: ``g / (1 + x**2)``;  ``atan2(y, x)``: ``(g * x, -g * y) / (x**2 + y**2)``;
* ``sinh``: ``g * cosh(x)``;  ``cosh``: ``g * sinh(x)``;
* ``asinh``: ``g / cosh(y)``;  ``acosh``: ``g / sinh(y)`` (``y`` the output);  ``atanh``: ``g / (1 - x**2)``;
* ``expm1``: ``g * exp(x)``.

Out-of-domain inputs give NaN (``asin(2.)``), as in TF; nothing raises.
"""
from ._dispatch import FLOAT, binary_op, unary_op
from .math_ops import (_binary, _unary, add, cos, exp, multiply, negative, realdiv, reciprocal, rsqrt, square,
                       subtract, unbroadcast)

__all__ = ["tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "asinh", "acosh", "atanh"]


def _one_minus_square(x):
    return subtract(1, square(x))


_TAN = _unary("Tan", lambda xp: xp.tan,
                   lambda op, g: multiply(g, square(reciprocal(cos(op.inputs[0])))), FLOAT)


def tan(x, name=None):
    """Tangent; gradient ``1 / cos(x)**2``."""
    return unary_op("Tan", x, name)


_ASIN = _unary("Asin", lambda xp: xp.arcsin,
                     lambda op, g: multiply(g, rsqrt(_one_minus_square(op.inputs[0]))), FLOAT)


def asin(x, name=None):
    """Inverse sine (NaN outside [-1, 1]); gradient ``1 / sqrt(1 - x**2)``."""
    return unary_op("Asin", x, name)


_ACOS = _unary("Acos", lambda xp: xp.arccos,
                     lambda op, g: negative(multiply(g, rsqrt(_one_minus_square(op.inputs[0])))), FLOAT)


def acos(x, name=None):
    """Inverse cosine (NaN outside [-1, 1]); gradient ``-1 / sqrt(1 - x**2)``."""
    return unary_op("Acos", x, name)


_ATAN = _unary("Atan", lambda xp: xp.arctan,
                     lambda op, g: realdiv(g, add(1, square(op.inputs[0]))), FLOAT)


def atan(x, name=None):
    """Inverse tangent; gradient ``1 / (1 + x**2)``."""
    return unary_op("Atan", x, name)


_SINH = _unary("Sinh", lambda xp: xp.sinh, lambda op, g: multiply(g, cosh(op.inputs[0])), FLOAT)


def sinh(x, name=None):
    """Hyperbolic sine; gradient ``cosh(x)``."""
    return unary_op("Sinh", x, name)


_COSH = _unary("Cosh", lambda xp: xp.cosh, lambda op, g: multiply(g, sinh(op.inputs[0])), FLOAT)


def cosh(x, name=None):
    """Hyperbolic cosine; gradient ``sinh(x)``."""
    return unary_op("Cosh", x, name)


_ASINH = _unary("Asinh", lambda xp: xp.arcsinh, lambda op, g: realdiv(g, cosh(op.outputs[0])), FLOAT,
                       saves_inputs=False, saves_outputs=True)


def asinh(x, name=None):
    """Inverse hyperbolic sine; gradient ``1 / cosh(y)``."""
    return unary_op("Asinh", x, name)


_ACOSH = _unary("Acosh", lambda xp: xp.arccosh, lambda op, g: realdiv(g, sinh(op.outputs[0])), FLOAT,
                       saves_inputs=False, saves_outputs=True)


def acosh(x, name=None):
    """Inverse hyperbolic cosine (NaN below 1); gradient ``1 / sinh(y)``."""
    return unary_op("Acosh", x, name)


_ATANH = _unary("Atanh", lambda xp: xp.arctanh,
                       lambda op, g: realdiv(g, _one_minus_square(op.inputs[0])), FLOAT)


def atanh(x, name=None):
    """Inverse hyperbolic tangent (NaN outside [-1, 1]); gradient ``1 / (1 - x**2)``."""
    return unary_op("Atanh", x, name)


_EXPM1 = _unary("Expm1", lambda xp: xp.expm1, lambda op, g: multiply(g, exp(op.inputs[0])), FLOAT)


def expm1(x, name=None):
    """``exp(x) - 1``, accurate for small ``x``; gradient ``exp(x)``."""
    return unary_op("Expm1", x, name)



def _atan2_grad(op, g):
    y, x = op.inputs
    scale = realdiv(g, add(square(x), square(y)))
    return unbroadcast(multiply(scale, x), y), unbroadcast(negative(multiply(scale, y)), x)


_ATAN2 = _binary("Atan2", lambda xp: xp.arctan2, _atan2_grad, FLOAT)


def atan2(x, y, name=None):
    """``atan2(y, x)``: the angle of the point ``(x, y)``, in ``(-pi, pi]``."""
    return binary_op("Atan2", x, y, name)

