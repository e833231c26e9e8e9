"""Pictures of dataflow graphs: a ``tf.Graph``, a function's graph, a compiled plan.

What the picture shows, and where it comes from:

* one node per **operation**, its look chosen by :func:`op_kind` (placeholders,
  constants, variables, ``NoOp`` groups, gradient ops, fused ops, ordinary ops),
  or its fill chosen by **device** (``color_by="device"``);
* one arrow per **data edge** (an input tensor), labelled ``float32 (?, 3)``,
  and a **dashed** arrow per **control edge** (``tf.control_dependencies``);
* **name scopes** as boxes (Graphviz *clusters*). A big graph keeps some scopes
  **collapsed** into one folder node ("``gradients/`` 48 ops") so the picture
  stays under ``max_nodes`` nodes;
* optionally the **subgraph one ``Session.run`` executes**: the same
  :func:`~engine.framework.executor.prune` the executor uses picks the ops, so
  the picture shows exactly what runs (red outlines), what is fed (green) and
  what is pruned away (faded);
* optionally **two graphs side by side**, e.g. a request before and after the
  graph optimizer (``engine/framework/optimizer/``): ops only on the left are
  faded, ops only on the right are outlined in purple (matched by name and
  type; a fused node says which ops it absorbed).

Everything here reads only the public face of an operation: ``name``, ``type``,
``inputs`` (tensors with ``op``, ``dtype``, ``shape``), ``outputs``,
``control_inputs``, ``device``, ``attrs``. So it draws ``Operation`` objects,
and anything else shaped like them (a plan's rewritten nodes).
"""
import heapq
import re

from ..framework.executor import prune
from ..framework.graph import Graph, Operation, SymbolicTensor
from ..util import nest
from .diagram import STYLES, digraph, legend, value_text

__all__ = ["draw_dataflow", "op_kind", "graph_like", "KINDS"]

KINDS = {
    "placeholder": "placeholder",
    "constant": "constant",
    "var_handle": "variable",
    "var_op": "variable read / assign",
    "group": "NoOp (group)",
    "gradient": "gradient op",
    "fused": "fused op",
    "op": "op",
}
"""Node kinds, in legend order, with their legend text. Their looks are ``STYLES[kind]``."""

_VARIABLE_HANDLES = {"VarHandleOp", "VariableV2", "Variable"}
_VARIABLE_OPS = {"ReadVariableOp", "AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp",
                 "VarIsInitializedOp", "Assign", "AssignAdd", "AssignSub", "DestroyResourceOp"}
_GRADIENT_SCOPE = re.compile(r"(^|/)gradients(_\d+)?/")
DEVICE_COLOURS = ("#cfe2f3", "#d9ead3", "#fce5cd", "#ead1dc", "#d0e0e3", "#fff2cc", "#e6d3f0", "#f4cccc")


def op_kind(op):
    """What kind of node ``op`` is (a key of :data:`KINDS`), from its ``type`` and ``name``."""
    op_type, name = op.type, op.name
    if op_type.startswith("_Fused") or name.rsplit("/", 1)[-1].startswith("_Fused"):
        return "fused"
    if op_type in ("Placeholder", "PlaceholderWithDefault", "_Arg"):
        return "placeholder"
    if op_type in _VARIABLE_HANDLES:
        return "var_handle"
    if op_type in _VARIABLE_OPS or op_type.startswith("ResourceApply"):
        return "var_op"
    if op_type == "Const":
        return "constant"
    if op_type == "NoOp":
        return "group"
    if _GRADIENT_SCOPE.search(name):
        return "gradient"
    return "op"


def _tkey(tensor):
    """A dictionary key for a tensor: graph tensors have an ``_id``; other values (optimizer IR) by identity."""
    return getattr(tensor, "_id", None) or id(tensor)


def _producer(tensor):
    """The node that computes ``tensor``: ``tensor.op`` in a graph, ``tensor.node`` in the optimizer's IR."""
    return getattr(tensor, "op", None) or getattr(tensor, "node", None)


def _shape_text(shape):
    """``(?, 3)`` for a partially known shape, ``<unknown>`` for an unknown rank."""
    dims = None if shape is None or getattr(shape, "rank", 0) is None else list(shape)
    if dims is None:
        return "<unknown>"
    dims = ["?" if d is None or getattr(d, "value", d) is None else str(getattr(d, "value", d)) for d in dims]
    return f"({dims[0]},)" if len(dims) == 1 else f"({', '.join(dims)})"


def tensor_text(tensor):
    """The label of a data edge: ``float32 (?, 3)``, ``:1 int32 (2,)`` for a second output, ``resource``."""
    dtype = getattr(getattr(tensor, "dtype", None), "name", "?")
    text = "resource" if dtype == "resource" else f"{dtype} {_shape_text(getattr(tensor, 'shape', None))}"
    index = getattr(tensor, "value_index", None)
    index = getattr(tensor, "index", 0) if index is None else index
    return f":{index} {text}" if index else text


# --------------------------------------------------------------------------------------
# What to draw: a "side" is a list of ops plus what we know about how they are run
# --------------------------------------------------------------------------------------
def _is_op_list(obj):
    return isinstance(obj, (list, tuple)) and len(obj) > 0 and all(
        hasattr(o, "type") and hasattr(o, "inputs") and hasattr(o, "name") for o in obj)


def _is_plan(obj):
    return _is_op_list(getattr(obj, "ops", None)) or _is_op_list(getattr(obj, "nodes", None))


def graph_like(obj):
    """True for what :func:`draw_dataflow` draws: a Graph, an object with a ``.graph`` Graph
    (a ConcreteFunction, a Session), a plan with ``.ops``/``.nodes``, or a list of operations."""
    return isinstance(obj, Graph) or isinstance(getattr(obj, "graph", None), Graph) or _is_op_list(obj) \
        or _is_plan(obj)


class _Side:
    """The ops of one picture (or one half of a side-by-side), and what is known about how they run.

    ``fetches``/``feeds`` are graph tensors of the request (a plan's, a FuncGraph's outputs, or
    ``highlight=``); ``fetch_ops`` the nodes to mark as fetched; ``before_ops`` a plan's graph
    operations before optimization; ``run`` the ids of ops one ``Session.run`` executes.
    """

    def __init__(self, obj):
        self.graph, self.fetches, self.feeds, self.fetch_ops = None, [], [], []
        self.whole_graph, self.before_ops, self.run, self.marks = False, None, None, {}
        if isinstance(obj, Graph):
            self.graph, self.ops, self.whole_graph = obj, obj.get_operations(), True
            self.fetches = list(getattr(obj, "outputs", None) or [])   # a FuncGraph's outputs
        elif isinstance(getattr(obj, "graph", None), Graph):
            self.__init__(obj.graph)
        elif _is_op_list(obj):
            self.ops = list(obj)
        elif _is_plan(obj):
            self.ops = list(obj.ops if _is_op_list(getattr(obj, "ops", None)) else obj.nodes)
            self.fetches = list(getattr(obj, "fetch_tensors", None) or [])
            self.feeds = list(getattr(obj, "feed_tensors", None) or [])
            self.before_ops = getattr(obj, "graph_ops", None)
            program = getattr(obj, "program", None)
            if program is not None:     # the optimizer's IR: fetched values and target nodes
                self.fetch_ops = [v.node for v in program.fetches] + list(program.targets)
        else:
            raise TypeError(f"Cannot draw {type(obj).__name__} as a dataflow graph: pass a tf.Graph, a "
                            f"function with a .graph, a plan with .ops, or a list of operations.")
        if not self.fetch_ops:
            self.fetch_ops = [_producer(t) for t in self.fetches]
        if self.graph is None and self.ops:
            self.graph = getattr(self.ops[0], "graph", None)

    def restrict_to(self, plan_side):
        """Keep only the graph ops the request of ``plan_side`` needs, before optimization."""
        fed = {_tkey(t) for t in plan_side.feeds}
        if plan_side.before_ops is not None:
            self.ops = list(plan_side.before_ops)
        else:
            mine = {id(op) for op in self.ops}
            roots = [t.op for t in plan_side.fetches if _tkey(t) not in fed]
            self.ops = prune(roots + [op for op in plan_side.ops if id(op) in mine], fed)
        self.feeds, self.fetches = plan_side.feeds, plan_side.fetches
        self.fetch_ops = [_producer(t) for t in self.fetches]


def _element(graph, obj):
    if isinstance(obj, (Operation, SymbolicTensor)) or graph is None:
        return obj
    return graph.as_graph_element(obj.deref() if hasattr(obj, "deref") else obj)


def _highlight(side, highlight, feed_dict):
    """Mark what ``Session.run(highlight, feed_dict)`` executes: the executor's own ``prune``."""
    if _is_plan(highlight):    # a compiled plan: its graph ops (and its optimized nodes) are what runs
        plan = _Side(highlight)
        side.run = {id(op) for op in plan.ops} | {id(op) for op in plan.before_ops or ()}
        side.feeds = plan.feeds or side.feeds
        side.fetch_ops = [_producer(t) for t in plan.fetches] + plan.fetch_ops
        return
    feeds = [_element(side.graph, k) for k in (feed_dict or {})]
    fed = {_tkey(t) for t in feeds}
    fetches = [_element(side.graph, f) for f in nest.flatten(highlight)]
    targets = [f for f in fetches if not isinstance(f, SymbolicTensor)]          # ops run for their effect
    roots = targets + [f.op for f in fetches if isinstance(f, SymbolicTensor) and _tkey(f) not in fed]
    side.run = {id(op) for op in prune(roots, fed)}
    side.feeds = feeds
    side.fetch_ops = targets + [f.op for f in fetches if isinstance(f, SymbolicTensor)]


# --------------------------------------------------------------------------------------
# Name scopes: a tree, and which scopes to collapse
# --------------------------------------------------------------------------------------
class _Scope:
    def __init__(self, path):
        self.path = path                       # "layer1/dense" ("" for the top)
        self.name = path.rsplit("/", 1)[-1]
        self.depth = path.count("/")
        self.ops, self.children, self.size = [], {}, 0

    def walk(self):
        yield self
        for child in self.children.values():
            yield from child.walk()

    def all_ops(self):
        for scope in self.walk():
            yield from scope.ops


def _scope_tree(ops):
    root = _Scope("")
    for op in ops:
        scope, parts = root, op.name.split("/")[:-1]
        scope.size += 1
        for i in range(len(parts)):
            path = "/".join(parts[:i + 1])
            scope = scope.children.setdefault(parts[i], _Scope(path))
            scope.size += 1
        scope.ops.append(op)
    return root


def _collapsed(root, collapse, max_nodes, run):
    """The scopes drawn as one node each. See ``collapse_scopes`` in :func:`draw_dataflow`."""
    scopes = {s.path: s for s in root.walk() if s.path}
    if collapse is False or (collapse is None and root.size <= max_nodes):
        return set()
    if collapse is True:
        collapse = 0
    if isinstance(collapse, int):
        return {p for p, s in scopes.items() if s.depth == collapse}
    if collapse is not None:
        wanted = {collapse.rstrip("/")} if isinstance(collapse, str) else {c.rstrip("/") for c in collapse}
        unknown = wanted - set(scopes)
        if unknown:
            raise ValueError(f"No name scope {sorted(unknown)} in this graph; its scopes are "
                             f"{sorted(p for p in scopes if '/' not in p)} (and their sub-scopes).")
        return wanted
    # Automatic: start with every top-level scope folded, then open scopes one at a time, best first,
    # while the picture stays within max_nodes. "Best": scopes holding ops of this Session.run first, then
    # the most computation (ops that are not constants, variables or groups) per node the opening adds.
    collapsed = {c.path for c in root.children.values()}
    count = len(root.ops) + len(root.children)

    def priority(s):
        cost = len(s.ops) + len(s.children) - 1
        compute = sum(op_kind(op) in ("op", "fused", "gradient") for op in s.all_ops())
        runs = bool(run) and any(id(op) in run for op in s.all_ops())
        return (not runs, -compute / max(cost, 0.5), s.depth, s.path)

    queue = [priority(s) for s in root.children.values()]
    heapq.heapify(queue)
    while queue:
        scope = scopes[heapq.heappop(queue)[-1]]
        cost = len(scope.ops) + len(scope.children) - 1
        if count + cost <= max_nodes:
            count += cost
            collapsed.discard(scope.path)
            for child in scope.children.values():
                collapsed.add(child.path)
                heapq.heappush(queue, priority(child))
    return collapsed


# --------------------------------------------------------------------------------------
# Drawing one side
# --------------------------------------------------------------------------------------
class _Drawer:
    """Draws one side: op nodes in scope clusters (or folded scopes), outside producers, arrows.

    DOT node ids are the op names (``prefix`` + name, so two sides can share a picture); a folded
    scope's id is its path with a trailing ``/``, which no op name has.
    """

    def __init__(self, side, prefix, options):
        self.side, self.prefix, self.opt = side, prefix, options
        self.ids = {}                                # id(op) -> DOT node id
        taken = set()
        for op in side.ops:
            node, n = prefix + op.name.replace(":", "_"), 1   # ':' would read as a DOT port
            while node in taken:
                node, n = f"{prefix}{op.name.replace(':', '_')}_{n}", n + 1
            taken.add(node)
            self.ids[id(op)] = node
        self.producer = {_tkey(t): op for op in side.ops for t in getattr(op, "outputs", ())}
        self.fed = {_tkey(t) for t in side.feeds}
        self.fetch_ops = {id(op) for op in side.fetch_ops}
        self.tree = _scope_tree(side.ops)
        self.collapsed = _collapsed(self.tree, options["collapse"], options["max_nodes"], side.run)
        self.outside = {}                            # DOT id -> op, for producers not drawn
        self.kinds, self.devices, self.has_control = set(), {}, False

    def visible(self, op):
        """The DOT node standing for ``op``: its own, or its outermost collapsed scope's."""
        parts = op.name.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            path = "/".join(parts[:i])
            if path in self.collapsed:
                return f"{self.prefix}{path}/"
        return self.ids[id(op)]

    def is_fed(self, op):
        return op.type == "_Arg" or any(_tkey(t) in self.fed for t in getattr(op, "outputs", ()))

    # --- nodes -----------------------------------------------------------------------------
    def fill(self, op, kind):
        style = dict(STYLES[kind])
        if self.opt["color_by"] == "device":
            device = getattr(op, "device", "") or ""
            if device not in self.devices:
                self.devices[device] = "white" if not device else \
                    DEVICE_COLOURS[len([d for d in self.devices if d]) % len(DEVICE_COLOURS)]
            style["fillcolor"] = self.devices[device]
            style["style"] = style["style"] if "filled" in style.get("style", "") else \
                ",".join(filter(None, [style.get("style"), "filled"]))
        return style

    def op_node(self, container, op):
        kind = op_kind(op)
        self.kinds.add(kind)
        short = op.name.rsplit("/", 1)[-1]
        label = short if re.sub(r"_\d+$", "", short).lower() == op.type.lower() else f"{short}\\n{op.type}"
        value = getattr(op, "attrs", {}).get("value") if op.type == "Const" else None
        if value is not None and value_text(value) is not None:
            label += f"\\n= {value_text(value)}"
        if getattr(op, "fused_from", ()):
            label += "\\nfused: " + " + ".join(name.rsplit("/", 1)[-1] for name in op.fused_from)
        style, classes = self.fill(op, kind), [kind]
        if self.is_fed(op):
            label += "\\n(fed)"
        if self.side.run is not None:
            state = "fed" if self.is_fed(op) else "run" if id(op) in self.side.run else "pruned"
            style.update(STYLES[state])
            classes.append(state)
        if id(op) in self.side.marks:
            style.update(STYLES[self.side.marks[id(op)]])
            classes.append(self.side.marks[id(op)])
        if id(op) in self.fetch_ops:
            style["peripheries"] = "2"
            classes.append("fetch")
        outs = ", ".join(tensor_text(t) for t in getattr(op, "outputs", ())) or "no outputs"
        device = getattr(op, "device", "") or "none"
        container.node(self.ids[id(op)], label=label, tooltip=f"{op.name} ({op.type})\\ndevice: {device}\\n{outs}",
                       **{"class": " ".join(classes)}, **style)

    def scope_node(self, container, scope):
        ops = list(scope.all_ops())
        label = f"{scope.name}/\\n{len(ops)} ops"
        style = dict(STYLES["scope"])
        if _GRADIENT_SCOPE.search(scope.path + "/"):
            style["fillcolor"] = STYLES["gradient"]["fillcolor"]
        classes = ["scope"]
        if self.side.run is not None:
            n_run = sum(id(op) in self.side.run for op in ops)
            label += f"\\n{n_run} run"
            state = "run" if n_run else "pruned"
            style.update(STYLES[state])
            classes.append(state)
        types = {}
        for op in ops:
            types[op.type] = types.get(op.type, 0) + 1
        summary = ", ".join(f"{n} {t}" for t, n in sorted(types.items(), key=lambda kv: -kv[1])[:6])
        container.node(f"{self.prefix}{scope.path}/", label=label, tooltip=f"{scope.path}/: {summary}",
                       **{"class": " ".join(classes)}, **style)

    def scope(self, container, scope):
        for op in scope.ops:
            self.op_node(container, op)
        for child in scope.children.values():
            if child.path in self.collapsed:
                self.scope_node(container, child)
                continue
            gradient = bool(_GRADIENT_SCOPE.search(child.path + "/"))
            with container.subgraph(name=f"cluster_{self.prefix}{child.path}") as sub:
                sub.attr(label=child.name, tooltip=child.path, style="rounded,filled", color="#bbbbbb",
                         fillcolor="#fff8f2" if gradient else "#f6f8fa", fontcolor="#555555", labeljust="l")
                self.scope(sub, child)

    def outside_node(self, op):
        """A producer that is not drawn (fed, or pruned away by a plan): a dashed box."""
        node = self.prefix + op.name.replace(":", "_")
        if node in self.ids.values():
            node += "_outside"
        if node not in self.outside:
            self.outside[node] = op
        return node

    # --- edges ------------------------------------------------------------------------------
    def edges(self):
        """``(tail, head, attrs)`` for every arrow; parallel edges between two drawn nodes become one."""
        groups = {}                                  # (tail, head, control) -> [tensor or None]
        run_edges = set()
        for op in self.side.ops:
            head = self.visible(op)
            sources = [(self.producer.get(_tkey(t)), t) for t in op.inputs]
            sources += [(c, None) for c in getattr(op, "control_inputs", ())]
            for src, tensor in sources:
                if src is None:
                    src = _producer(tensor)
                tail = self.visible(src) if id(src) in self.ids else self.outside_node(src)
                if tail == head:
                    continue                         # inside one collapsed scope
                key = (tail, head, tensor is None)
                groups.setdefault(key, []).append(tensor)
                fed_tensor = tensor is not None and _tkey(tensor) in self.fed
                if self.side.run is not None and id(op) in self.side.run and \
                        (fed_tensor or id(src) in self.side.run):
                    run_edges.add(key)
        edges = []
        for (tail, head, control), tensors in groups.items():
            attrs = {}
            if control:
                self.has_control = True
                attrs.update(style="dashed", color="#888888", **{"class": "control"})
            elif self.opt["show_shapes"]:
                texts = list(dict.fromkeys(tensor_text(t) for t in tensors))
                attrs["label"] = texts[0] if len(tensors) == 1 else \
                    f"{len(tensors)} x {texts[0]}" if len(texts) == 1 else f"{len(tensors)} tensors"
            if not control and all(tensor_text(t) == "resource" for t in tensors):
                attrs["color"] = STYLES["var_handle"]["color"]
            if self.side.run is not None:
                attrs.update(dict(color=STYLES["run"]["color"], penwidth="1.8") if (tail, head, control) in run_edges
                             else dict(color="#dddddd", fontcolor="#bbbbbb"))
            edges.append((tail, head, attrs))
        return edges

    def draw(self, container):
        """Nodes (in their scope clusters), then the producers drawn from outside, then the arrows."""
        self.scope(container, self.tree)
        edges = self.edges()
        for node, op in self.outside.items():
            fed = self.is_fed(op)
            if fed:
                self.kinds.add(op_kind(op))
            style = dict(self.fill(op, op_kind(op)), **STYLES["fed"]) if fed else dict(STYLES["outside"])
            label = f"{op.name}\\n{op.type}" + ("\\n(fed)" if fed else "\\n(not drawn here)")
            container.node(node, label=label, **{"class": "fed outside" if fed else "outside"}, **style)
        for tail, head, attrs in edges:
            container.edge(tail, head, **attrs)


# --------------------------------------------------------------------------------------
# The public entry point
# --------------------------------------------------------------------------------------
def draw_dataflow(obj, *, highlight=None, feed_dict=None, collapse_scopes=None, show_shapes=True,
                  color_by="kind", before_after=None, max_nodes=60, legend_box=True, title=None, rankdir="TB"):
    """Draw a dataflow graph; ``engine.viz.draw_graph(graph, ...)`` comes here. See :func:`engine.viz.draw_graph`."""
    if color_by not in ("kind", "device"):
        raise ValueError(f"color_by must be 'kind' or 'device', not {color_by!r}")
    if before_after is not None and highlight is not None:
        raise ValueError("Pass either highlight= or before_after=, not both: to compare what one Session.run "
                         "executes before and after optimization, pass its plan as before_after.")
    options = dict(collapse=collapse_scopes, max_nodes=max_nodes, show_shapes=show_shapes, color_by=color_by)
    sides = [_Side(obj)]
    if before_after is not None:
        after = _Side(before_after)
        if sides[0].whole_graph and (after.before_ops is not None or after.fetches):
            # a graph vs. a plan: compare the same request, before and after optimization
            sides[0].restrict_to(after)
        sides.append(after)
        _mark_differences(sides[0], after)
    if highlight is not None:
        _highlight(sides[0], highlight, feed_dict)
        if title is None:
            n_run = sum(id(op) in sides[0].run for op in sides[0].ops)
            title = f"Session.run executes {n_run} of {len(sides[0].ops)} ops"

    g = digraph(title, rankdir)
    drawers = []
    for index, side in enumerate(sides):
        if len(sides) == 1:
            drawer = _Drawer(side, "", options)
            drawer.draw(g)
        else:
            name = ("before", "after")[index]
            drawer = _Drawer(side, f"{name}/", options)
            with g.subgraph(name=f"cluster_{name}") as box:
                box.attr(label=f"{name} ({len(side.ops)} ops)", style="rounded", color="#999999",
                         fontsize="14", labeljust="c")
                drawer.draw(box)
        drawers.append(drawer)
    if legend_box:
        _legend(g, drawers, color_by, sides)
    return g


def _mark_differences(before, after):
    """Ops only on the left are "removed", only on the right "added", matched by name and type.

    An optimizer keeps names where it can (a fusion takes the name of the last node it absorbs and lists
    the originals in ``fused_from``), so a node with the same name but another type was rewritten.
    """
    absorbed = {name for op in after.ops for name in getattr(op, "fused_from", ())}
    before_types = {op.name: op.type for op in before.ops}
    after_types = {op.name: op.type for op in after.ops}
    before.marks = {id(op): "removed" for op in before.ops
                    if after_types.get(op.name) != op.type or op.name in absorbed}
    after.marks = {id(op): "added" for op in after.ops
                   if before_types.get(op.name) != op.type or getattr(op, "fused_from", ())}


def _legend(g, drawers, color_by, sides):
    entries = []
    if color_by == "device":
        devices = {}
        for d in drawers:
            devices.update(d.devices)
        for device, colour in sorted(devices.items()):
            short = device.split("device:")[-1] if device else "no device"
            entries.append((short, {"fillcolor": colour}))
    else:
        kinds = set().union(*(d.kinds for d in drawers))
        entries += [(text, STYLES[k]) for k, text in KINDS.items() if k in kinds]
    if any(not d.is_fed(op) for d in drawers for op in d.outside.values()):
        entries.append(("not drawn here (pruned, or fed)", STYLES["outside"]))
    if any(d.collapsed for d in drawers):
        entries.append(("collapsed name scope", STYLES["scope"]))
    if sides[0].run is not None:
        entries += [("runs", {"color": STYLES["run"]["color"]}), ("fed", {"color": STYLES["fed"]["color"]}),
                    ("pruned away", STYLES["pruned"])]
    if len(sides) == 2:
        entries += [("only before", STYLES["removed"]), ("only after", {"color": STYLES["added"]["color"]})]
    if any(d.has_control for d in drawers):
        entries.append(("- - ->  control dependency", {}))
    if entries:
        legend(g, entries)
