"""The optimizer's intermediate representation: a small, private copy of the graph.

Grappler never edits the graph the user built. It receives a *copy* (a
``GraphDef`` plus the names of the fetched and fed tensors: a "grappler item"),
rewrites the copy, and hands the result to the executor. The engine does the
same with a tiny IR:

* a :class:`Node` is one operation: ``type`` (the registry name), ``inputs``
  (:class:`Value` s), ``control_inputs`` (nodes that must run first), ``attrs``,
  ``outputs``. ``origin`` remembers the graph ``Operation`` it was copied from
  (random ops need it: their random stream belongs to the graph node);
  ``fused_from`` lists the original names of the nodes a fusion absorbed.
* a :class:`Value` is one output of a node: its dtype and static shape.
* a :class:`Program` is what one request needs: ``args`` (one ``_Arg`` node per
  fed tensor, as TensorFlow functions have ``_Arg`` nodes for their inputs),
  ``nodes`` in a valid execution order, ``fetches`` (values to return) and
  ``targets`` (nodes to run for their effects).

A fed tensor is an ``_Arg``: its producer is not evaluated for that edge, and
no pass can see through it (a fed constant is not a constant any more).

The IR is independent of ``Session``: ``tf.function`` compiles a ``FuncGraph``
through the same ``from_operations -> optimize -> codegen`` path.
"""
import numpy as np

__all__ = ["Value", "Node", "Program", "from_operations", "is_stateful", "static_nbytes"]

# Where a request's values come from outside: a pass may never fold, merge or remove them, whatever the
# registry says (a feed point is not a constant). This is about the program, not about what the ops compute,
# so it is the IR's list (as Grappler's ``IsPlaceholder``), not a row trait; ``_Arg`` is the IR's own node.
_FEED_POINTS = frozenset(["Placeholder", "PlaceholderWithDefault", "_Arg"])


class Value:
    """One output of a node (an edge's source): ``node``, ``index``, ``dtype``, static ``shape``."""

    __slots__ = ("node", "index", "dtype", "shape")

    def __init__(self, node, index, dtype, shape):
        self.node = node
        self.index = index
        self.dtype = dtype
        self.shape = shape

    @property
    def name(self):
        return f"{self.node.name}:{self.index}"

    def __repr__(self):
        return f"<Value {self.name} {self.shape} {self.dtype.name}>"


class Node:
    """One operation of a :class:`Program`."""

    __slots__ = ("name", "type", "op_def", "inputs", "control_inputs", "attrs", "outputs", "device", "origin",
                 "fused_from")

    def __init__(self, name, op_type, op_def, inputs, attrs, output_specs, control_inputs=(), device="",
                 origin=None, fused_from=()):
        self.name = name
        self.type = op_type
        self.op_def = op_def
        self.inputs = list(inputs)
        self.control_inputs = list(control_inputs)
        self.attrs = dict(attrs)
        self.outputs = [Value(self, i, dtype, shape) for i, (dtype, shape) in enumerate(output_specs)]
        self.device = device
        self.origin = origin
        self.fused_from = tuple(fused_from)

    @property
    def stateful(self):
        return is_stateful(self)

    def __repr__(self):
        return f"<Node {self.name!r} type={self.type}>"


def is_stateful(node):
    """True for nodes no pass may fold, deduplicate or delete.

    That is: ops the registry marks ``stateful`` (variables, assignments, random
    numbers, printing), ops that touch session state (``needs_runtime``), ops
    with no outputs (they exist for their effect), and feed points
    (placeholders and ``_Arg`` s: their value comes from outside).
    """
    if node.type in _FEED_POINTS:
        return True
    op_def = node.op_def
    if op_def is None:
        return True
    return op_def.stateful or op_def.needs_runtime or not node.outputs


class Program:
    """``args`` (fed values), ``nodes`` (execution order), ``fetches`` (values), ``targets`` (nodes)."""

    def __init__(self, args, nodes, fetches, targets):
        self.args = list(args)
        self.nodes = list(nodes)
        self.fetches = list(fetches)
        self.targets = list(targets)

    # --- queries ------------------------------------------------------------------------
    def uses(self):
        """``{id(value): count}``: how many input slots and fetches read each value."""
        counts = {}
        for node in self.nodes:
            for v in node.inputs:
                counts[id(v)] = counts.get(id(v), 0) + 1
        for v in self.fetches:
            counts[id(v)] = counts.get(id(v), 0) + 1
        return counts

    def consumers(self):
        """``{id(value): [node, ...]}`` (one entry per input slot)."""
        out = {}
        for node in self.nodes:
            for v in node.inputs:
                out.setdefault(id(v), []).append(node)
        return out

    def control_outputs(self):
        """``{id(node)}`` of nodes that some other node (or the request) waits for without reading a value."""
        out = {id(n) for n in self.targets}
        for node in self.nodes:
            for c in node.control_inputs:
                out.add(id(c))
        return out

    def fetched(self):
        return {id(v) for v in self.fetches}

    def check(self):
        """Assert the program is well formed: every input and control input is produced earlier."""
        seen = {id(a) for a in self.args}
        for node in self.nodes:
            for v in node.inputs:
                assert id(v.node) in seen, f"{node.name} reads {v.name}, which is not computed before it"
            for c in node.control_inputs:
                assert id(c) in seen, f"{node.name} waits for {c.name}, which is not before it"
            seen.add(id(node))
        for v in self.fetches:
            assert id(v.node) in seen, f"fetch {v.name} is not computed"
        for t in self.targets:
            assert id(t) in seen, f"target {t.name} is not in the program"
        return True

    def copy(self):
        """A deep copy of the nodes (values re-created), so a pass can be tried without touching the original."""
        mapping = {}
        args = []
        for a in self.args:
            args.append(_clone(a, [], [], mapping))
        nodes = []
        for n in self.nodes:
            nodes.append(_clone(n, [mapping[id(v)] for v in n.inputs],
                                [mapping[id(c)] for c in n.control_inputs], mapping))
        return Program(args, nodes, [mapping[id(v)] for v in self.fetches], [mapping[id(t)] for t in self.targets])

    def __len__(self):
        return len(self.nodes)

    def __repr__(self):
        return f"<Program: {len(self.args)} args, {len(self.nodes)} nodes, {len(self.fetches)} fetches>"


def _clone(node, inputs, control_inputs, mapping):
    new = Node(node.name, node.type, node.op_def, inputs, node.attrs, [(v.dtype, v.shape) for v in node.outputs],
               control_inputs, node.device, node.origin, node.fused_from)
    mapping[id(node)] = new
    for old, v in zip(node.outputs, new.outputs):
        mapping[id(old)] = v
    return new


class Rewriter:
    """Bookkeeping shared by the passes that walk a program forward and replace values.

    A pass visits nodes in execution order. Before looking at a node it calls
    :meth:`visit`, which rewrites the node's inputs through the replacements
    made so far (so a chain of replacements costs one walk, not one walk per
    replacement). :meth:`replace` records "every reader of ``old`` now reads
    ``new``"; :meth:`finish` rewrites the fetches and drops every replaced node
    that nothing references any more (a replaced node stays if another node
    waits for it through a control edge, or the request runs it as a target).
    """

    def __init__(self, program):
        self.program = program
        self.values = {}      # id(old value) -> new value
        self.controls = {}    # id(old node) -> new node (for control edges)
        self.replaced = []    # nodes whose outputs were all forwarded
        self.order = []       # the new execution order, built by the pass

    def resolve(self, value):
        seen = value
        while id(seen) in self.values:
            seen = self.values[id(seen)]
        return seen

    def resolve_node(self, node):
        while id(node) in self.controls:
            node = self.controls[id(node)]
        return node

    def visit(self, node):
        node.inputs = [self.resolve(v) for v in node.inputs]
        controls = []
        for c in node.control_inputs:
            c = self.resolve_node(c)
            if c is not node and c not in controls:
                controls.append(c)
        node.control_inputs = controls

    def replace(self, old, new):
        self.values[id(old)] = new

    def replace_node(self, node, new_node=None):
        """All of ``node``'s outputs have been forwarded; control edges go to ``new_node`` if given."""
        self.replaced.append(node)
        if new_node is not None:
            self.controls[id(node)] = new_node

    def emit(self, node):
        self.order.append(node)

    def finish(self):
        """Install the new order and fetches; delete replaced nodes nobody references. Returns the deleted."""
        program = self.program
        for node in self.order:          # controls of nodes emitted before a later replacement
            self.visit(node)
        program.nodes = self.order
        program.fetches = [self.resolve(v) for v in program.fetches]
        program.targets = [self.resolve_node(t) for t in program.targets]
        if not self.replaced:
            return []
        uses = program.uses()
        waited_for = program.control_outputs()
        gone = set()
        for node in self.replaced:
            if id(node) not in waited_for and not any(uses.get(id(v)) for v in node.outputs):
                gone.add(id(node))
        program.nodes = [n for n in program.nodes if id(n) not in gone]
        return [n for n in self.replaced if id(n) in gone]


def from_operations(ops, feed_tensors, fetch_tensors, target_ops):
    """Build a :class:`Program` from pruned graph ``Operation`` s (in execution order).

    ``feed_tensors`` become ``_Arg`` nodes; every reader of a fed tensor reads the
    ``_Arg`` instead of the tensor's producer. The graph is only read.
    """
    value_of = {}
    args = []
    for i, t in enumerate(feed_tensors):
        arg = Node(f"_arg_{t.name}", "_Arg", None, [], {"index": i}, [(t.dtype, t.shape)])
        args.append(arg)
        value_of[t._id] = arg.outputs[0]
    node_of = {}
    nodes = []
    for op in ops:
        attrs = dict(op.attrs)
        node = Node(op.name, op.type, op.op_def, [value_of[t._id] for t in op.inputs], attrs,
                    [(t.dtype, t.shape) for t in op.outputs],
                    [node_of[id(c)] for c in op.control_inputs if id(c) in node_of],  # not: fully fed ops
                    op.device, op)
        node_of[id(op)] = node
        for t, v in zip(op.outputs, node.outputs):
            if t._id not in value_of:
                value_of[t._id] = v
        nodes.append(node)
    fetches = [value_of[t._id] for t in fetch_tensors]
    targets = [node_of[id(op)] for op in target_ops if id(op) in node_of]
    return Program(args, nodes, fetches, targets)


def static_nbytes(value):
    """Bytes of ``value`` from its static shape and dtype, or ``None`` when the shape is not fully known."""
    np_dtype = value.dtype._np
    if np_dtype is None:
        return None
    n = value.shape.num_elements()
    return None if n is None else n * np_dtype.itemsize


def const_value(value):
    """The NumPy value if ``value`` is the output of a ``Const`` node, else ``None``."""
    node = value.node
    if node.type == "Const" and value.index == 0:
        return node.attrs["value"]
    return None


def is_all(value, scalar):
    """True if ``value`` is a constant whose every element equals ``scalar`` (and it has at least one element)."""
    c = const_value(value)
    if c is None or value.dtype._np is None or value.dtype.is_bool:
        return False
    c = np.asarray(c)
    return c.size > 0 and bool(np.all(c == scalar))
