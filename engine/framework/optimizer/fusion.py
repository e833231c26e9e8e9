"""Op fusion (Grappler's *remapper*, plus XLA-style elementwise fusion).

Running ``MatMul``, then ``BiasAdd``, then ``Relu`` as three kernels writes the
matrix product to memory, reads it back to add the bias, writes that, reads it
back for the ReLU, and writes again. One *fused* kernel does all three while the
data is at hand, and skips two intermediate tensors. This pass finds such
patterns and replaces each by one node of a fused op (``engine/framework/optimizer/fused_ops.py``):

1. **MatMul + BiasAdd (+ activation)** -> ``_FusedMatMul``. The bias may also be
   added with ``AddV2`` when the static shapes show it is a bias (a vector as long
   as the product's last dimension): Grappler calls that a "bias-semantic add".
2. **Elementwise chains** -> ``_FusedElementwise``: a tree of elementwise ops
   (rows with the ``elementwise`` trait) in which every intermediate value has
   exactly one reader becomes one node whose kernel is generated Python code
   calling, in order, each op's ufunc (its row's ``ufunc``, reusing buffers) or
   its row's kernel.

What the pass knows about an op it reads from the op's registry row, so
``registry.override`` is honoured: an overridden op in an elementwise chain is
fused as a call of its (new) kernel; a MatMul pattern with an overridden op
is not fused at all, since ``_FusedMatMul`` computes in place what the
registered kernels compute.

A node can be absorbed into a fusion only if nobody else can observe its
output: exactly one reader (the next node of the pattern), not fetched, not
waited for through a control edge, and on the same device. So fetching an
intermediate simply keeps it out of the fusion. The fused node takes the name
of the *last* node of the pattern (as in Grappler), so its readers and error
messages keep that name; ``node.fused_from`` lists the originals. Control inputs
of the absorbed nodes move to the fused node.
"""
from ..registry import get_op
from . import fused_ops
from .ir import Node, Rewriter, is_stateful

__all__ = ["run"]

NAME = "remapping"
_FLOATS = frozenset(["float16", "float32", "float64"])


def run(program, report, elementwise=True, reuse_buffers=True):
    _fuse_matmul(program, report, fused_ops)
    if elementwise:
        _fuse_elementwise(program, report, fused_ops, reuse_buffers)


# --- what may be absorbed --------------------------------------------------------------------
class _Graph:
    """Use counts and control outputs, computed once per sub-pass."""

    def __init__(self, program):
        self.uses = program.uses()
        self.waited = program.control_outputs()
        self.readers = program.consumers()

    def private(self, value, reader):
        """``value`` is read by ``reader`` only, once, and its node is not waited for."""
        return self.uses.get(id(value)) == 1 and id(value.node) not in self.waited and \
            value.node.device == reader.device and len(value.node.outputs) == 1

    def only_reader(self, value):
        readers = self.readers.get(id(value), ())
        return readers[0] if len(readers) == 1 and self.uses.get(id(value)) == 1 else None


def _controls(*nodes):
    out = []
    for n in nodes:
        for c in n.control_inputs:
            if c not in out:
                out.append(c)
    return out


# --- MatMul + BiasAdd + activation ----------------------------------------------------------------
def _fuse_matmul(program, report, fused_ops):
    g = _Graph(program)
    patterns = {}                     # id(last node) -> (matmul, add, activation or None)
    absorbed = set()
    for node in program.nodes:
        if node.type != "MatMul" or node.outputs[0].dtype.name not in _FLOATS:
            continue
        product = node.outputs[0]
        add = g.only_reader(product)
        if add is None or not g.private(product, add) or _bias_of(add, product) is None or \
                _overridden(node, add):
            continue
        last, act = add, None
        reader = g.only_reader(add.outputs[0])
        if reader is not None and reader.type in fused_ops.ACTIVATIONS and g.private(add.outputs[0], reader) and \
                not _overridden(reader):
            last, act = reader, reader
        patterns[id(last)] = (node, add, act)
        absorbed.update({id(node), id(add)} - {id(last)})
    if not patterns:
        return
    op_def = get_op("_FusedMatMul")
    rw = Rewriter(program)
    for node in program.nodes:
        if id(node) in absorbed:
            continue
        rw.visit(node)
        found = patterns.get(id(node))
        if found is None:
            rw.emit(node)
            continue
        matmul, add, act = found
        fused_ops_attr = ("BiasAdd",) + ((act.type,) if act is not None else ())
        attrs = {"transpose_a": matmul.attrs.get("transpose_a", False),
                 "transpose_b": matmul.attrs.get("transpose_b", False),
                 "fused_ops": fused_ops_attr, "num_args": 1, "T": matmul.outputs[0].dtype,
                 "leakyrelu_alpha": act.attrs.get("alpha", 0.2) if act is not None else 0.2}
        out = node.outputs[0]
        fused = Node(node.name, "_FusedMatMul", op_def,
                     [matmul.inputs[0], matmul.inputs[1], _bias_of(add, matmul.outputs[0])], attrs,
                     [(out.dtype, out.shape)], _controls(matmul, add, *([act] if act else [])), node.device,
                     node.origin, [n.name for n in (matmul, add, act) if n is not None])
        rw.visit(fused)
        rw.emit(fused)
        rw.replace(out, fused.outputs[0])
        rw.replace_node(node, fused)
        report.add(NAME, f"fused {' + '.join(f'{n.type} {n.name!r}' for n in (matmul, add, act) if n)} "
                         f"into _FusedMatMul {fused.name!r} (fused_ops={list(fused_ops_attr)})")
    rw.finish()


def _overridden(*nodes):
    """Some node's kernel is swapped by ``registry.override``: ``_FusedMatMul`` would not compute what it does."""
    return any(n.op_def is not None and n.op_def.overridden for n in nodes)


def _bias_of(add, product):
    """The bias value if ``add`` adds a bias vector to ``product``, else ``None``."""
    if add.type == "BiasAdd" and add.inputs[0] is product:
        return add.inputs[1]
    if add.type == "AddV2":
        other = add.inputs[1] if add.inputs[0] is product else add.inputs[0]
        if other is product:
            return None
        n, cols = other.shape, product.shape
        if n.rank == 1 and cols.rank == 2 and n[0] is not None and n[0] == cols[1] and other.dtype == product.dtype:
            return other
    return None


# --- elementwise chains -----------------------------------------------------------------------------
def _fusible(node):
    """An elementwise op (its row says so) with one output, stateless, on NumPy-typed values."""
    if node.op_def is None or not node.op_def.elementwise or is_stateful(node) or len(node.outputs) != 1:
        return False
    return node.outputs[0].dtype._np is not None and all(v.dtype._np is not None for v in node.inputs)


def _fuse_elementwise(program, report, fused_ops, reuse_buffers):
    g = _Graph(program)
    position = {id(n): i for i, n in enumerate(program.nodes)}
    groups = {}                # id(root) -> members in execution order
    grouped = set()
    for root in reversed(program.nodes):
        if id(root) in grouped or not _fusible(root):
            continue
        members, stack = [root], [root]
        grouped.add(id(root))
        while stack:
            member = stack.pop()
            for v in member.inputs:
                p = v.node
                if id(p) not in grouped and _fusible(p) and g.private(v, member):
                    grouped.add(id(p))
                    members.append(p)
                    stack.append(p)
        if len(members) > 1:
            groups[id(root)] = sorted(members, key=lambda n: position[id(n)])
    if not groups:
        return
    absorbed = {id(m) for members in groups.values() for m in members[:-1]}
    op_def = get_op("_FusedElementwise")
    rw = Rewriter(program)
    for node in program.nodes:
        if id(node) in absorbed:
            continue
        rw.visit(node)
        members = groups.get(id(node))
        if members is None:
            rw.emit(node)
            continue
        fused = _elementwise_node(node, members, op_def, fused_ops, reuse_buffers)
        rw.visit(fused)
        rw.emit(fused)
        rw.replace(node.outputs[0], fused.outputs[0])
        rw.replace_node(node, fused)
        program_ = fused.attrs["program"]
        report.add(NAME, f"fused {len(members)} elementwise ops ({_list_types(members)}) into _FusedElementwise "
                         f"{fused.name!r}: {len(fused.inputs)} inputs, {program_.buffers} buffer(s) allocated "
                         f"per run instead of {len(members)}")
    rw.finish()


def _elementwise_node(root, members, op_def, fused_ops, reuse_buffers):
    index = {}
    inputs, input_index = [], {}
    steps = []
    for m in members:
        args = []
        for v in m.inputs:
            if id(v.node) in index:
                args.append(("t", index[id(v.node)]))
                continue
            if id(v) not in input_index:
                input_index[id(v)] = len(inputs)
                inputs.append(v)
            args.append(("in", input_index[id(v)]))
        out = m.outputs[0]
        steps.append(fused_ops.Step(m.type, m.name, args, m.attrs, out.dtype, out.shape))
        index[id(m)] = len(steps) - 1
    program = fused_ops.ElementwiseProgram([v.shape for v in inputs], steps, reuse=reuse_buffers)
    out = root.outputs[0]
    return Node(root.name, "_FusedElementwise", op_def, inputs, {"program": program}, [(out.dtype, out.shape)],
                _controls(*members), root.device, root.origin, [m.name for m in members])


def _list_types(members):
    counts = {}
    for m in members:
        counts[m.type] = counts.get(m.type, 0) + 1
    return ", ".join(f"{n} {t}" if n > 1 else t for t, n in counts.items())
