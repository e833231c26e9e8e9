"""Dead-node pruning (Grappler's *model pruner*).

Two clean-ups:

1. **Trivial forwarding ops.** ``Identity`` and ``StopGradient`` (the rows with
   the ``forwarding`` trait) return their input unchanged (``StopGradient``
   matters only while gradients are built, which happens before optimization).
   Their readers can read the input directly. A forwarding node with control
   inputs is kept: it is how the graph says "this value, but only after those
   ops". So is one whose kernel ``registry.override`` swapped: the new kernel runs.
2. **Dead nodes.** After the other passes, some nodes are read by nobody: the
   inputs of a folded constant, the loser of a merge. A node is *live* if a
   fetched value, a target, or a live node (through a data or control edge)
   needs it; everything else is removed.

Stateful nodes are never removed, even when dead: ``tf.shape(v.read_value())``
folds to a constant, but the read still runs (it fails if the variable is
uninitialized, as it would without optimization).
"""
from .ir import Rewriter, is_stateful

__all__ = ["run"]

NAME = "model_pruning"


def run(program, report):
    _bypass_forwarding(program, report)
    _remove_dead(program, report)


def _bypass_forwarding(program, report):
    rw = Rewriter(program)
    for node in program.nodes:
        rw.visit(node)
        rw.emit(node)
        if _forwards(node) and not node.control_inputs and len(node.inputs) == 1:
            rw.replace(node.outputs[0], node.inputs[0])
            rw.replace_node(node)
    for node in rw.finish():
        report.add(NAME, f"removed {node.type} {node.name!r}: its readers read {node.inputs[0].name}")


def _forwards(node):
    """The row says the op returns its input (and no ``registry.override`` gave it another kernel)."""
    op = node.op_def
    return op is not None and op.forwarding and not op.overridden


def _remove_dead(program, report):
    live = set()
    stack = [v.node for v in program.fetches] + list(program.targets) + \
        [n for n in program.nodes if is_stateful(n)]
    while stack:
        node = stack.pop()
        if id(node) in live:
            continue
        live.add(id(node))
        stack.extend(v.node for v in node.inputs)
        stack.extend(node.control_inputs)
    dead = [n for n in program.nodes if id(n) not in live]
    if dead:
        program.nodes = [n for n in program.nodes if id(n) in live]
        for node in dead:
            report.add(NAME, f"removed dead node {node.name!r} ({node.type})")
