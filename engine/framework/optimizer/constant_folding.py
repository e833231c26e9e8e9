"""Constant folding: compute, once, what does not depend on any input.

If every input of a node is a constant, its output is a constant too: compute it
now, with the op's own registered kernel, and replace the node by a ``Const``
holding the result. Walking the nodes in execution order folds whole
subtrees in one pass (``(2 * 3) + 1`` becomes ``7``), because a folded node's
readers see a ``Const`` when their turn comes.

Also folded ("shape materialization" in Grappler): ops whose registry row has
the ``shape_only`` trait (``Shape``, ``Size``: ``"shape"``; ``Rank``:
``"rank"``) on a tensor whose static shape (or rank) is known, even when its
*value* is not. Gradient graphs are full of these. The op's own kernel computes
the value, run on a stand-in array of that shape which holds no data (a
broadcast view of one zero).

Every value is computed by the op's registry row (``node.op_def.kernel``), so a
kernel swapped by ``registry.override`` is the one that folds.

What is never folded:

* stateful nodes (random numbers, variable reads, assignments): their value
  may change from run to run; and feed points (placeholders, ``_Arg`` s), so a
  fed tensor is never treated as a constant, even when the graph built it with
  ``tf.constant``;
* results larger than :data:`MAX_CONSTANT_BYTES` (10 MiB, TF's
  ``kMaxConstantSize``): a ``tf.zeros([10000, 10000])`` is cheaper to compute
  than to keep;
* string tensors, and any node whose kernel fails (``1 // 0`` on integers): the
  node stays, so the error is raised at run time, naming the node, as without
  optimization.

A folded node keeps its control inputs: the ``Const`` that replaces it waits for
them, so ordering guarantees survive.
"""
import numpy as np

from ..backend import NUMPY
from ..registry import get_op
from ..tensor_shape import TensorShape
from .ir import Node, Rewriter, const_value, is_stateful, static_nbytes

__all__ = ["MAX_CONSTANT_BYTES", "run"]

NAME = "constant_folding"
MAX_CONSTANT_BYTES = 10 * 1024 * 1024


def run(program, report):
    const_def = get_op("Const")
    rw = Rewriter(program)
    for node in program.nodes:
        rw.visit(node)
        values = _fold(node)
        if values is None:
            rw.emit(node)
            continue
        consts = []
        for i, (out, value) in enumerate(zip(node.outputs, values)):
            name = f"ConstantFolding/{node.name}" + (f"-{i}" if len(values) > 1 else "")
            const = Node(name, "Const", const_def, [], {"value": value, "dtype": out.dtype},
                         [(out.dtype, _shape_of(value))], _inherited_controls(node), node.device)
            rw.emit(const)
            rw.replace(out, const.outputs[0])
            consts.append(const)
        rw.replace_node(node, consts[0])
        what = "shape of a known shape" if _materializes(node) else "constant inputs"
        report.add(NAME, f"folded {node.name!r} ({node.type}, {what}) into a Const "
                         f"of shape {list(np.shape(values[0]))}")
    rw.finish()


def _inherited_controls(node):
    """The folded node's control inputs, and those of the constants it read (TF carries both over)."""
    controls = list(node.control_inputs)
    for v in node.inputs:
        for c in v.node.control_inputs:
            if c not in controls:
                controls.append(c)
    return controls


def _shape_of(value):
    return TensorShape(tuple(int(d) for d in np.shape(value)))


def _fold(node):
    """The output values of ``node`` if it can be folded, else ``None``."""
    if node.type == "Const" or is_stateful(node):
        return None
    if any(v.dtype._np is None for v in node.outputs) or any(v.dtype._np is None for v in node.inputs):
        return None  # strings and resources
    for out in node.outputs:
        n = static_nbytes(out)
        if n is not None and n > MAX_CONSTANT_BYTES:
            return None
    inputs = [const_value(v) for v in node.inputs]
    if _materializes(node):
        inputs[0] = _stand_in(node.inputs[0], node.op_def.shape_only)
    if any(v is None for v in inputs):
        return None
    try:
        with np.errstate(all="ignore"):
            result = node.op_def.kernel(NUMPY)(*inputs, **node.attrs)
    except Exception:  # noqa: BLE001  (the node stays; running it raises the error with its name)
        return None
    results = list(result) if len(node.outputs) != 1 else [result]
    if len(results) != len(node.outputs):
        return None
    frozen = []
    for out, value in zip(node.outputs, results):
        if not isinstance(value, (np.ndarray, np.generic)) or value.dtype != out.dtype._np:
            return None  # not a NumPy result of the declared dtype: leave it to run time
        if value.nbytes > MAX_CONSTANT_BYTES or not out.shape.is_compatible_with(np.shape(value)):
            return None
        frozen.append(_freeze(value))
    return frozen


def _materializes(node):
    """A ``shape_only`` op whose input is not a constant: folded from the input's static shape, if known."""
    return bool(node.op_def.shape_only and node.inputs and const_value(node.inputs[0]) is None)


def _stand_in(value, needs):
    """An array with ``value``'s static shape and dtype and no data, or ``None`` if that shape is not known.

    ``needs="rank"``: only the rank must be known (the dimensions of the stand-in are then 1).
    """
    shape = value.shape
    if shape.rank is None or (needs != "rank" and not shape.is_fully_defined()):
        return None
    dims = [1] * shape.rank if needs == "rank" else shape.as_list()
    return np.broadcast_to(np.zeros((), dtype=value.dtype._np), dims)


def _freeze(value):
    """A read-only view: a constant's buffer is shared by every run and must never be written."""
    if isinstance(value, np.ndarray):
        value = value.view()
        value.flags.writeable = False
    return value
