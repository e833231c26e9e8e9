"""Common-subexpression elimination: compute each distinct expression once.

Two nodes are the same expression when they have the same op type, the same
attributes, the same inputs (the very same values, in the same order), the
same control inputs and the same device. Then the second is redundant: its
readers can read the first one's outputs. Walking in execution order makes this
transitive: once ``a1`` and ``a2`` are merged, ``f(a1)`` and ``f(a2)`` have equal
inputs and merge too.

Each node gets a *signature*, a hashable summary of all of the above, and a
dictionary from signature to the first node that had it does the rest.

For commutative ops (``AddV2``, ``Mul``, ``Maximum``...: the rows with the
``commutative`` trait, as TF's ``OpDef.is_commutative``) the input order is
irrelevant: ``a + b`` and ``b + a`` share a signature. (``AddN`` is not
commutative in that sense: in floating point the order of a sum of three or
more terms changes the result.)

Never merged: stateful nodes (two ``tf.random.uniform`` nodes must give two
different samples; two reads of a variable may be separated by an assignment)
and feed points. Constants *are* merged when their dtype, shape and bytes match.
"""
import numpy as np

from .ir import Rewriter, is_stateful

__all__ = ["run"]

NAME = "common_subgraph_elimination"


def run(program, report):
    rw = Rewriter(program)
    first = {}
    for node in program.nodes:
        rw.visit(node)
        rw.emit(node)
        if is_stateful(node):
            continue
        key = signature(node)
        if key is None:
            continue
        kept = first.get(key)
        if kept is None:
            first[key] = node
            continue
        for old, new in zip(node.outputs, kept.outputs):
            rw.replace(old, new)
        rw.replace_node(node, kept)
        report.add(NAME, f"{node.name!r} ({node.type}) is the same expression as {kept.name!r}")
    rw.finish()


def signature(node):
    """A hashable summary of what ``node`` computes, or ``None`` if an attribute cannot be summarized."""
    inputs = [(id(v.node), v.index) for v in node.inputs]
    if node.op_def is not None and node.op_def.commutative:
        inputs.sort()
    try:
        attrs = tuple(sorted((k, _freeze(v)) for k, v in node.attrs.items()))
    except TypeError:
        return None
    controls = tuple(sorted(id(c) for c in node.control_inputs))
    return (node.type, tuple(inputs), attrs, controls, node.device)


def _freeze(value):
    """A hashable stand-in for an attribute value (arrays by dtype, shape and bytes)."""
    if isinstance(value, (np.ndarray, np.generic)):
        if value.dtype == object:
            return ("array", value.shape, tuple(value.ravel().tolist()))
        return ("array", value.dtype.str, value.shape, np.ascontiguousarray(value).tobytes())
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    hash(value)
    return (type(value).__name__, value)
