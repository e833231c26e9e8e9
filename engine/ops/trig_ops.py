"""Trigonometric and hyperbolic functions: ``tf.math.tan``, ``asin``, ``acos``, ``atan``, ``atan2``,
``sinh``, ``cosh``, ``asinh``, ``acosh``, ``atanh``, and ``expm1``.

Each is one elementwise op (TF's op names: ``Tan``, ``Asin``, ..., ``Atan2``) registered with the
``math_ops`` helpers, so it gets the same fast path, dtype checks (floats only) and tape recording as
``sin``/``cos``. The gradients are TF's formulas, written with engine ops:

* ``tan``: ``g / cos(x)**2``;  ``asin``: ``g / sqrt(1 - x**2)``;  ``acos``: ``-g / sqrt(1 - x**2)``;
* ``atan``: ``g / (1 + x**2)``;  ``atan2(y, x)``: ``(g * x, -g * y) / (x**2 + y**2)``;
* ``sinh``: ``g * cosh(x)``;  ``cosh``: ``g * sinh(x)``;
* ``asinh``: ``g / cosh(y)``;  ``acosh``: ``g / sinh(y)`` (``y`` the output);  ``atanh``: ``g / (1 - x**2)``;
* ``expm1``: ``g * exp(x)``.

Out-of-domain inputs give NaN (``asin(2.)``), as in TF; nothing raises.
"""
from ._dispatch import FLOAT
from .math_ops import (_binary, _unary, add, cos, exp, multiply, negative, realdiv, reciprocal, rsqrt, square,
                       subtract, unbroadcast)

__all__ = ["tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "asinh", "acosh", "atanh"]


def _one_minus_square(x):
    return subtract(1, square(x))


_TAN, tan = _unary("Tan", lambda xp: xp.tan,
                   lambda op, g: multiply(g, square(reciprocal(cos(op.inputs[0])))), FLOAT,
                   doc="Tangent; gradient ``1 / cos(x)**2``.")
_ASIN, asin = _unary("Asin", lambda xp: xp.arcsin,
                     lambda op, g: multiply(g, rsqrt(_one_minus_square(op.inputs[0]))), FLOAT,
                     doc="Inverse sine (NaN outside [-1, 1]); gradient ``1 / sqrt(1 - x**2)``.")
_ACOS, acos = _unary("Acos", lambda xp: xp.arccos,
                     lambda op, g: negative(multiply(g, rsqrt(_one_minus_square(op.inputs[0])))), FLOAT,
                     doc="Inverse cosine (NaN outside [-1, 1]); gradient ``-1 / sqrt(1 - x**2)``.")
_ATAN, atan = _unary("Atan", lambda xp: xp.arctan,
                     lambda op, g: realdiv(g, add(1, square(op.inputs[0]))), FLOAT,
                     doc="Inverse tangent; gradient ``1 / (1 + x**2)``.")
_SINH, sinh = _unary("Sinh", lambda xp: xp.sinh, lambda op, g: multiply(g, cosh(op.inputs[0])), FLOAT,
                     doc="Hyperbolic sine; gradient ``cosh(x)``.")
_COSH, cosh = _unary("Cosh", lambda xp: xp.cosh, lambda op, g: multiply(g, sinh(op.inputs[0])), FLOAT,
                     doc="Hyperbolic cosine; gradient ``sinh(x)``.")
_ASINH, asinh = _unary("Asinh", lambda xp: xp.arcsinh, lambda op, g: realdiv(g, cosh(op.outputs[0])), FLOAT,
                       saves_inputs=False, saves_outputs=True,
                       doc="Inverse hyperbolic sine; gradient ``1 / cosh(y)``.")
_ACOSH, acosh = _unary("Acosh", lambda xp: xp.arccosh, lambda op, g: realdiv(g, sinh(op.outputs[0])), FLOAT,
                       saves_inputs=False, saves_outputs=True,
                       doc="Inverse hyperbolic cosine (NaN below 1); gradient ``1 / sinh(y)``.")
_ATANH, atanh = _unary("Atanh", lambda xp: xp.arctanh,
                       lambda op, g: realdiv(g, _one_minus_square(op.inputs[0])), FLOAT,
                       doc="Inverse hyperbolic tangent (NaN outside [-1, 1]); gradient ``1 / (1 - x**2)``.")
_EXPM1, expm1 = _unary("Expm1", lambda xp: xp.expm1, lambda op, g: multiply(g, exp(op.inputs[0])), FLOAT,
                       doc="``exp(x) - 1``, accurate for small ``x``; gradient ``exp(x)``.")


def _atan2_grad(op, g):
    y, x = op.inputs
    scale = realdiv(g, add(square(x), square(y)))
    return unbroadcast(multiply(scale, x), y), unbroadcast(negative(multiply(scale, y)), x)


_ATAN2, atan2 = _binary("Atan2", lambda xp: xp.arctan2, _atan2_grad, FLOAT,
                        doc="``atan2(y, x)``: the angle of the point ``(x, y)``, in ``(-pi, pi]``.")
