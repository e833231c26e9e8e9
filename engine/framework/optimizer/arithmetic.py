"""Arithmetic simplification: rewrite ``x * 1`` as ``x``, and other identities.

Each rule replaces a node by one of its inputs when algebra *and the static
shapes and dtypes* guarantee that the result is that input, element for element:

==============================================  =============================
pattern                                         becomes
==============================================  =============================
``x * 1``, ``1 * x``, ``x / 1``                 ``x``
``x + 0``, ``0 + x``, ``x - 0``                 ``x``
``Neg(Neg(x))``, ``LogicalNot(LogicalNot(x))``  ``x``
``Transpose(Transpose(x, p), q)``               ``x`` when ``q`` undoes ``p``
``Transpose(x, identity perm)``                 ``x``
``Reshape(x, s)`` with ``s`` = shape of x       ``x``
``Cast(x, dtype of x)``                         ``x``
==============================================  =============================

The shape condition matters because of broadcasting: ``x + tf.zeros([2, 3])``
with ``x`` of shape ``[3]`` has shape ``[2, 3]``: it is *not* ``x``. So the
constant must be *broadcast-neutral*: a scalar, or all its dimensions 1 and its
rank no larger than ``x`` 's (then the result has exactly ``x`` 's shape, even
when some dimensions of ``x`` are unknown).

What is deliberately *not* done: ``x * 0 -> 0`` (wrong for ``inf`` and ``NaN``),
``x - x -> 0`` (same), ``1 / (1 / x) -> x`` (not exact in floating point).
``x + 0 -> x`` differs only in the sign of a zero: ``-0.0 + 0.0`` is ``+0.0``.
TensorFlow's optimizer makes the same trade: in TF 2.21,
``tf.function(lambda x: x + tf.zeros([3]))`` returns ``-0.0`` for ``-0.0``.

A node with control inputs is left alone: forwarding its readers to ``x``
would let them run before the node's control inputs. So is a node whose kernel
``registry.override`` swapped: the algebra holds for the registered kernel, and
the new kernel must run.

The rules themselves are this pass's knowledge (as Grappler's arithmetic
stages are code, not op attributes); what they need to know about an op beyond
that comes from its registry row: a neutral element works on both sides of a
``commutative`` op (``1 * x``), on the right only otherwise (``x - 0``).
"""
import numpy as np

from .ir import Rewriter, const_value, is_all

__all__ = ["run"]

NAME = "arithmetic_optimization"


def run(program, report):
    rw = Rewriter(program)
    for node in program.nodes:
        rw.visit(node)
        rw.emit(node)
        if node.control_inputs or len(node.outputs) != 1 or node.op_def is None or node.op_def.overridden:
            continue
        rule = _RULES.get(node.type)
        found = rule(node) if rule is not None else None
        if found is None:
            continue
        replacement, why = found
        out = node.outputs[0]
        if replacement.dtype != out.dtype or not _same_static_shape(replacement.shape, out.shape):
            continue
        rw.replace(out, replacement)
        rw.replace_node(node)
        report.add(NAME, f"{node.name!r} ({node.type}): {why} -> {replacement.name}")
    rw.finish()


def _same_static_shape(a, b):
    """``a`` can stand for ``b``: equal ranks and no dimension where both are known and differ."""
    if b.rank is None:
        return True
    return a.rank == b.rank and all(x is None or y is None or x == y for x, y in zip(a, b))


def _neutral(const, x):
    """True if broadcasting ``x`` with the constant ``const`` gives ``x`` 's shape (see module doc)."""
    rank = np.ndim(const_value(const))
    if rank == 0:
        return True
    if x.shape.rank is None or rank > x.shape.rank:
        return False
    return all(d == 1 for d in np.shape(const_value(const)))


def _identity_operand(neutral_element, symbol):
    """The rule ``x op neutral_element -> x`` (and ``neutral_element op x -> x`` if op is commutative).

    It finds ``x`` when the other operand is all ``neutral_element`` and broadcast-neutral.
    """
    def rule(node):
        a, b = node.inputs
        if is_all(b, neutral_element) and _neutral(b, a):
            return a, f"x {symbol} {neutral_element}"
        if node.op_def.commutative and is_all(a, neutral_element) and _neutral(a, b):
            return b, f"{neutral_element} {symbol} x"
        return None
    return rule


def _involution(node):
    """``f(f(x)) == x`` for ``Neg`` and ``LogicalNot``."""
    inner = node.inputs[0].node
    if inner.type == node.type and not inner.control_inputs:
        return inner.inputs[0], f"{node.type}({inner.type}(x))"
    return None


def _perm(value):
    p = const_value(value)
    if p is None:
        return None
    p = [int(i) for i in np.ravel(p)]
    n = len(p)
    p = [i % n if n else i for i in p]
    return p if sorted(p) == list(range(n)) else None


def _transpose(node):
    x, perm = node.inputs
    q = _perm(perm)
    if q is None:
        return None
    if q == list(range(len(q))):
        return x, "Transpose(x, identity permutation)"
    inner = x.node
    if inner.type == "Transpose" and not inner.control_inputs:
        p = _perm(inner.inputs[1])
        if p is not None and len(p) == len(q) and all(p[q[i]] == i for i in range(len(q))):
            return inner.inputs[0], "Transpose(Transpose(x, p), inverse of p)"
    return None


def _reshape(node):
    x = node.inputs[0]
    out = node.outputs[0]
    if x.shape.is_fully_defined() and out.shape.is_fully_defined() and x.shape == out.shape:
        return x, "Reshape(x) to the shape x already has"
    return None


def _cast(node):
    x = node.inputs[0]
    if node.attrs.get("DstT") == x.dtype:
        return x, "Cast(x) to its own dtype"
    return None


_RULES = {
    "Mul": _identity_operand(1, "*"),
    "AddV2": _identity_operand(0, "+"),
    "Sub": _identity_operand(0, "-"),
    "RealDiv": _identity_operand(1, "/"),
    "Neg": _involution,
    "LogicalNot": _involution,
    "Transpose": _transpose,
    "Reshape": _reshape,
    "Cast": _cast,
}
