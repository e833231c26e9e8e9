"""Graph export and import: ``GraphDef``, its file format, and ``import_graph_def``.

**What a GraphDef is.** A ``tf.Graph`` is a web of Python objects (Operations
pointing at SymbolicTensors pointing at Operations). A *GraphDef* is the same
graph written down as plain data: a flat list of *NodeDefs*, one per operation,
each holding

* ``name``: the node's unique name (``"dense/MatMul"``),
* ``op``: the op *type*, a key of the op registry (``"MatMul"``),
* ``input``: the edges, as names: ``"x"`` is output 0 of node ``x``,
  ``"split:1"`` is output 1 of node ``split``, and ``"^init"`` is a *control*
  edge (run ``init`` first, use no value),
* ``device``: where the node was placed (may be empty),
* ``attr``: the op's attributes (dtypes, shapes, flags, and for ``Const`` the
  constant's array itself: this is how weights travel with the graph).

Output dtypes and shapes are *not* stored: the loader recomputes them with the
registry's shape functions, exactly as when the graph was first built.

**Why serving needs it.** A model server, a phone or a C++ binary must run the
graph without the Python code that built it (and without Python at all in
real TensorFlow). A GraphDef makes that possible: the loader only needs an op
registry that knows the same op *types*. ``import_graph_def`` walks the nodes
in dependency order and, for each, looks its type up in the registry and adds
it to a graph, so the result is an ordinary ``Graph`` that a ``Session`` runs.
(TensorFlow's SavedModel is a GraphDef plus variable values plus signatures.)

**The file format** is one JSON document, described with an example in
``docs/graph_format.md``; :meth:`GraphDef.to_json` writes it and
:meth:`GraphDef.from_json` reads it. Real TensorFlow writes a protocol buffer
instead; the structure and the field names are the same.

**Functions.** Control flow carries *sub-graphs*: a ``StatelessIf`` has a
``then_branch`` and an ``else_branch``, a ``While`` a ``cond`` and a ``body``
(each a :class:`~engine.ops.control_flow_ops.GraphFunction`). A NodeDef cannot
hold a graph, so, as in TF, the GraphDef has a function *library*: one
:class:`FunctionDef` per sub-graph (its own nodes, which inputs are fed, which
tensors it returns, which stateful nodes it must run), and the attr names the
function (``{"func": {"name": "cond_true"}}``, TF's ``NameAttrList``). Nested
control flow (a cond inside a loop body) is a library function whose nodes
refer to other library functions. Import rebuilds each referenced function
once, as a ``ControlFlowGraph`` of the graph that uses it.

Two kinds of node cannot be written as data: a ``VarHandleOp`` that points at
an *eager* ``tf.Variable`` (a live Python object) is refused unless
``freeze_variables=True`` replaces each read of it by a ``Const`` holding the
variable's current value (TF's ``convert_variables_to_constants``). Variables
created *in* the graph export fine: their handle is named by ``shared_name``
and their initial value is an ordinary ``Const`` feeding the initializer.
"""
import base64
import contextlib
import dataclasses
import heapq
import json
import math
import re

import numpy as np

from . import dtypes as _dtypes
from .context import ctx
from .errors import NotFoundError
from .executor import prune
from .graph import Graph, get_default_graph
from .name_scope import name_scope
from .registry import get_op
from .sub_graphs import ControlFlowGraph, GraphFunction, resource_spec
from .tensor import Tensor
from .tensor_shape import TensorShape, as_shape

__all__ = ["GraphDef", "NodeDef", "VersionDef", "FunctionDef", "FunctionDefLibrary", "NameAttrList",
           "graph_to_graph_def", "import_graph_def", "GRAPH_DEF_VERSION", "FORMAT"]

FORMAT = "engine.GraphDef"           # the "format" field: tells a GraphDef file from any other JSON
GRAPH_DEF_VERSION = 2                # the newest format version this engine writes and reads
GRAPH_DEF_VERSION_MIN_CONSUMER = 1   # readers older than this cannot read a file without functions
GRAPH_DEF_VERSION_FUNCTIONS = 2      # the version that added the function library (and "func" attrs)
GRAPH_DEF_VERSION_MIN_PRODUCER = 1   # the oldest format version this engine still reads


# --- the data structure -----------------------------------------------------------------------
@dataclasses.dataclass
class VersionDef:
    """Which format version a GraphDef is written in (``producer``) and may read it (``min_consumer`` and up).

    A file is written in the *oldest* version that can hold it: version 1 without
    functions (so readers that predate the library still read it), version 2 with
    a function library (``min_consumer`` 2: an old reader refuses it cleanly
    instead of failing on an attr kind it does not know).
    """

    producer: int = GRAPH_DEF_VERSION_MIN_CONSUMER
    min_consumer: int = GRAPH_DEF_VERSION_MIN_CONSUMER


def _versions_for(library):
    if library is not None and library.function:
        return VersionDef(GRAPH_DEF_VERSION_FUNCTIONS, GRAPH_DEF_VERSION_FUNCTIONS)
    return VersionDef()


@dataclasses.dataclass(eq=False)
class NodeDef:
    """One node: op type, input names (``"x"``, ``"x:1"``, ``"^x"``), device and attrs (Python values)."""

    name: str
    op: str
    input: list = dataclasses.field(default_factory=list)
    device: str = ""
    attr: dict = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class NameAttrList:
    """A ``func`` attr value: the name of a function in the GraphDef's library (TF's ``NameAttrList``)."""

    name: str
    attr: dict = dataclasses.field(default_factory=dict, hash=False, compare=False)


@dataclasses.dataclass(eq=False)
class FunctionDef:
    """One function of the library: a sub-graph with fed inputs and returned outputs (TF's ``FunctionDef``).

    * ``name``: unique in the library; attrs refer to the function by it.
    * ``node_def``: the function's nodes (names are local to the function).
    * ``input``: the fed tensors, in call order, as ``"node:index"`` (``None``: an argument
      the function ignores). Each names a ``Placeholder`` node of ``node_def``.
    * ``output``: the returned tensors, in order, as ``"node:index"``.
    * ``control_output``: nodes run for their side effects on every call (TF's ``control_ret``).
    * ``arg_attr``: input position -> attrs of that input; a resource input (a captured
      variable handle) has ``_handle_dtype`` and ``_handle_shape``: what the variable holds.
    """

    name: str
    node_def: list = dataclasses.field(default_factory=list)
    input: list = dataclasses.field(default_factory=list)
    output: list = dataclasses.field(default_factory=list)
    control_output: list = dataclasses.field(default_factory=list)
    arg_attr: dict = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(eq=False)
class FunctionDefLibrary:
    """The functions of a GraphDef (TF's ``FunctionDefLibrary``; the engine has no ``gradient`` table)."""

    function: list = dataclasses.field(default_factory=list)


class GraphDef:
    """A graph as data: ``node`` (a list of :class:`NodeDef`), ``versions`` and ``library``.

    In memory, attrs are the engine's Python values (DTypes, TensorShapes, NumPy
    arrays, :class:`NameAttrList` for functions...); they are encoded only when
    written. ``str(graph_def)`` is the pretty JSON text of the file;
    ``SerializeToString``/``ParseFromString`` are the compact form, with TF's
    method names.
    """

    def __init__(self, node=None, versions=None, library=None):
        self.node = list(node or [])
        self.library = library if library is not None else FunctionDefLibrary()
        self.versions = versions if versions is not None else _versions_for(self.library)

    # --- the JSON document ---
    def to_json(self, pretty=True):
        """The file text. ``pretty``: one node per line (readable, diff-able); else one compact line."""
        nodes = [_node_to_json(n) for n in self.node]
        versions = self.versions
        if self.library.function and versions.min_consumer < GRAPH_DEF_VERSION_FUNCTIONS:
            versions = VersionDef(max(versions.producer, GRAPH_DEF_VERSION_FUNCTIONS), GRAPH_DEF_VERSION_FUNCTIONS)
        header = {"format": FORMAT, "versions": dataclasses.asdict(versions)}
        functions = [_function_to_json(f) for f in self.library.function]
        if not pretty:
            doc = dict(header, node=nodes)
            if functions:
                doc["library"] = {"function": functions}
            return json.dumps(doc, separators=(",", ":"), allow_nan=False)
        lines = ["{"] + [f"  {json.dumps(k)}: {json.dumps(v)}," for k, v in header.items()] + ['  "node": [']
        lines += _node_lines(nodes, "    ")
        if not functions:
            return "\n".join(lines + ["  ]", "}"]) + "\n"
        lines += ["  ],", '  "library": {"function": [']
        for i, f in enumerate(functions):
            head = json.dumps({k: v for k, v in f.items() if k != "node_def"}, allow_nan=False)[:-1]
            lines.append(f"    {head}, \"node_def\": [")
            lines += _node_lines(f["node_def"], "      ")
            lines.append("    ]}" + ("," if i < len(functions) - 1 else ""))
        return "\n".join(lines + ["  ]}", "}"]) + "\n"

    @classmethod
    def from_json(cls, text):
        """Parse a GraphDef file (pretty or compact). Refuses other JSON and unsupported format versions."""
        try:
            doc = json.loads(text)
        except ValueError as error:
            raise ValueError(f"Not a GraphDef file: invalid JSON ({error}).") from None
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            found = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
            raise ValueError(f"Not a GraphDef file: expected \"format\": \"{FORMAT}\", found {found!r}. "
                             f"Write graphs with tf.io.write_graph or GraphDef.to_json.")
        v = doc.get("versions") or {}
        versions = VersionDef(int(v.get("producer", 0)), int(v.get("min_consumer", 0)))
        _check_versions(versions)
        library = doc.get("library") or {}
        functions = [_function_from_json(f) for f in library.get("function", [])]
        return cls([_node_from_json(n) for n in doc.get("node", [])], versions, FunctionDefLibrary(functions))

    # --- TensorFlow's protobuf method names ---
    def SerializeToString(self):  # noqa: N802
        return self.to_json(pretty=False).encode("utf-8")

    def ParseFromString(self, data):  # noqa: N802
        parsed = GraphDef.from_json(data.decode("utf-8") if isinstance(data, bytes) else data)
        self.node, self.versions, self.library = parsed.node, parsed.versions, parsed.library

    @classmethod
    def FromString(cls, data):  # noqa: N802
        graph_def = cls()
        graph_def.ParseFromString(data)
        return graph_def

    def __eq__(self, other):
        return isinstance(other, GraphDef) and self.SerializeToString() == other.SerializeToString()

    __hash__ = None

    def __str__(self):
        return self.to_json(pretty=True)

    def __repr__(self):
        functions = f", {len(self.library.function)} functions" if self.library.function else ""
        return f"<GraphDef: {len(self.node)} nodes{functions}, producer version {self.versions.producer}>"


def _node_lines(nodes, pad):
    return [f"{pad}{json.dumps(n, allow_nan=False)}{',' if i < len(nodes) - 1 else ''}" for i, n in enumerate(nodes)]


def _check_versions(versions):
    """TF's VersionDef rule: refuse files that need a newer reader, or that are too old to read."""
    if versions.min_consumer > GRAPH_DEF_VERSION:
        raise ValueError(f"GraphDef min consumer version {versions.min_consumer} above current version "
                         f"{GRAPH_DEF_VERSION} for this engine. Please upgrade the engine.")
    if versions.producer < GRAPH_DEF_VERSION_MIN_PRODUCER:
        raise ValueError(f"GraphDef producer version {versions.producer} below min producer "
                         f"{GRAPH_DEF_VERSION_MIN_PRODUCER} supported by this engine. Please regenerate your graph.")


# --- attr values <-> tagged JSON -----------------------------------------------------------------
# Each attr value becomes a one-key object whose key names its kind, as in TF's AttrValue:
# {"s": str}, {"i": int}, {"f": float}, {"b": bool}, {"type": dtype name}, {"shape": dims or null},
# {"tensor": {...}}, {"list": [tagged values]}; JSON null is Python None.
def _encode_attr(value, where):
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)):
        return {"b": bool(value)}
    if isinstance(value, (int, np.integer)):
        return {"i": int(value)}
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return {"f": value if math.isfinite(value) else repr(value)}  # "nan", "inf", "-inf"
    if isinstance(value, str):
        return {"s": value}
    if isinstance(value, _dtypes.DType):
        return {"type": value.name}
    if isinstance(value, TensorShape):
        return {"shape": None if value.rank is None else list(value)}
    if isinstance(value, (np.ndarray, np.generic)):
        return {"tensor": _encode_tensor(np.asarray(value))}
    if isinstance(value, (list, tuple)):
        return {"list": [_encode_attr(v, where) for v in value]}
    if isinstance(value, NameAttrList):
        return {"func": {"name": value.name}}
    hint = ""
    if _is_graph_function(value):
        hint = (" A control-flow sub-graph is written to the GraphDef's function library: build the GraphDef "
                "with graph.as_graph_def() (graph_to_graph_def), which converts it to a NameAttrList.")
    raise TypeError(f"Cannot export {where}: a {type(value).__name__} ({str(value)[:60]}) has no GraphDef "
                    f"encoding (attrs may be None, bool, int, float, str, DType, TensorShape, NumPy arrays, "
                    f"functions of the library and lists of these).{hint}")


def _decode_attr(tagged, where):
    if tagged is None:
        return None
    if not isinstance(tagged, dict) or len(tagged) != 1:
        raise ValueError(f"Bad attr value for {where}: expected an object with one kind key "
                         f"(s, i, f, b, type, shape, tensor, list, func), got {tagged!r}.")
    (kind, v), = tagged.items()
    if kind == "s":
        return str(v)
    if kind == "i":
        return int(v)
    if kind == "f":
        return float(v)
    if kind == "b":
        return bool(v)
    if kind == "type":
        return _dtypes.as_dtype(v)
    if kind == "shape":
        return as_shape(v)
    if kind == "tensor":
        return _decode_tensor(v, where)
    if kind == "list":
        return tuple(_decode_attr(x, where) for x in v)
    if kind == "func":
        if not isinstance(v, dict) or not isinstance(v.get("name"), str):
            raise ValueError(f"Bad attr value for {where}: a func attr is {{\"name\": function name}}, got {v!r}.")
        return NameAttrList(v["name"])
    raise ValueError(f"Bad attr value for {where}: unknown kind {kind!r}.")


def _encode_tensor(array):
    """Numbers: raw little-endian bytes in base64 (TF's ``tensor_content``). Strings: one base64 per element."""
    if array.dtype.kind in "SUO":
        flat = [x if isinstance(x, bytes) else str(x).encode("utf-8") for x in array.reshape(-1).tolist()]
        return {"dtype": "string", "shape": list(array.shape),
                "string_val": [base64.b64encode(x).decode("ascii") for x in flat]}
    dtype = _dtypes.as_dtype(array.dtype.newbyteorder("="))
    raw = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tobytes()
    return {"dtype": dtype.name, "shape": list(array.shape), "tensor_content": base64.b64encode(raw).decode("ascii")}


def _decode_tensor(t, where):
    shape = tuple(int(d) for d in t["shape"])
    if t["dtype"] == "string":
        values = [base64.b64decode(s) for s in t["string_val"]]
        return np.array(values, dtype=bytes).reshape(shape) if values else np.empty(shape, dtype="S1")
    np_dtype = np.dtype(_dtypes.as_dtype(t["dtype"]).as_numpy_dtype)
    raw = base64.b64decode(t["tensor_content"])
    expected = int(np.prod(shape, dtype=np.int64)) * np_dtype.itemsize
    if len(raw) != expected:
        raise ValueError(f"Bad tensor for {where}: tensor_content has {len(raw)} bytes, but a {t['dtype']} tensor "
                         f"of shape {list(shape)} needs {expected}.")
    return np.frombuffer(raw, dtype=np_dtype.newbyteorder("<")).astype(np_dtype).reshape(shape)


def _node_to_json(node):
    where = f"node '{node.name}' ({node.op})"
    out = {"name": node.name, "op": node.op, "input": list(node.input)}
    if node.device:
        out["device"] = node.device
    out["attr"] = {k: _encode_attr(v, f"{where}, attr '{k}'") for k, v in node.attr.items()}
    return out


def _node_from_json(n, function=None):
    if not isinstance(n, dict) or "name" not in n or "op" not in n:
        raise ValueError(f"Bad node in GraphDef file: every node needs \"name\" and \"op\", got {str(n)[:80]}.")
    where = f"node '{n['name']}' ({n['op']})" + (f" of function '{function}'" if function else "")
    attrs = {k: _decode_attr(v, f"{where}, attr '{k}'") for k, v in (n.get("attr") or {}).items()}
    return NodeDef(n["name"], n["op"], list(n.get("input", [])), n.get("device", ""), attrs)


def _function_to_json(f):
    where = f"function '{f.name}'"
    out = {"name": f.name, "input": list(f.input), "output": list(f.output)}
    if f.control_output:
        out["control_output"] = list(f.control_output)
    if f.arg_attr:
        out["arg_attr"] = {str(i): {k: _encode_attr(v, f"{where}, input {i}, attr '{k}'") for k, v in attrs.items()}
                           for i, attrs in sorted(f.arg_attr.items())}
    out["node_def"] = [_node_to_json(n) for n in f.node_def]
    return out


def _function_from_json(f):
    if not isinstance(f, dict) or not isinstance(f.get("name"), str):
        raise ValueError(f"Bad function in GraphDef library: every function needs a \"name\", got {str(f)[:80]}.")
    where = f"function '{f['name']}'"
    arg_attr = {}
    for i, attrs in (f.get("arg_attr") or {}).items():
        arg_attr[int(i)] = {k: _decode_attr(v, f"{where}, input {i}, attr '{k}'") for k, v in attrs.items()}
    return FunctionDef(f["name"], [_node_from_json(n, f["name"]) for n in f.get("node_def", [])],
                       list(f.get("input", [])), list(f.get("output", [])), list(f.get("control_output", [])),
                       arg_attr)


# --- export -------------------------------------------------------------------------------------------
def node_def_of(op, library=None):
    """The NodeDef of one Operation (attrs are shared, not copied).

    ``library`` (a :class:`FunctionLibraryBuilder`) receives the op's sub-graphs (a cond's branches,
    a loop's body): each attr holding one becomes a :class:`NameAttrList` naming its library entry.
    """
    inputs = [t.op.name if t.value_index == 0 else t.name for t in op.inputs]
    attrs = dict(op.attrs)
    if library is not None:
        attrs = {k: library.reference(v, f"node '{op.name}' ({op.type}), attr '{k}'") for k, v in attrs.items()}
    return NodeDef(op.name, op.type, inputs + ["^" + c.name for c in op.control_inputs], op.device, attrs)


def _is_graph_function(value):
    return hasattr(value, "graph") and hasattr(value, "plan") and hasattr(value, "outputs") and \
        hasattr(value, "inputs") and not isinstance(value, type)


class FunctionLibraryBuilder:
    """Collects the sub-graphs (GraphFunctions) a graph's ops refer to, as :class:`FunctionDef` s.

    Each GraphFunction is written once (however many ops refer to it), under a name unique in the
    library, derived from its graph's name (``cond_true``, ``while_body_1``...). ``node_hook(op, node)``,
    if given, may edit every NodeDef written into a function (the SavedModel writer uses it to name
    variables by checkpoint key).
    """

    def __init__(self, node_hook=None):
        self.function = []
        self._names = {}      # id(GraphFunction) -> (name, the GraphFunction: kept alive so ids stay unique)
        self._taken = set()
        self._node_hook = node_hook

    def library(self):
        return FunctionDefLibrary(list(self.function))

    def reference(self, value, where):
        """An attr value with every GraphFunction in it replaced by a NameAttrList (added to the library)."""
        if _is_graph_function(value):
            return NameAttrList(self.add(value, where))
        if isinstance(value, (list, tuple)) and any(_is_graph_function(v) for v in value):
            return type(value)(self.reference(v, where) for v in value)
        return value

    def add(self, fn, where="a node"):
        """Write ``fn`` (once) and return its library name."""
        known = self._names.get(id(fn))
        if known is not None:
            return known[0]
        base = re.sub(r"[^A-Za-z0-9_.\-/>]", "_", getattr(fn.graph, "name", "") or "function") or "function"
        name, k = base, 0
        while name.lower() in self._taken:
            k += 1
            name = f"{base}_{k}"
        self._taken.add(name.lower())
        self._names[id(fn)] = (name, fn)
        self.function.append(self._function_def(fn, name, where))
        return name

    def _function_def(self, fn, name, where):
        """``fn`` pruned to one call: its outputs and side effects, computed from its fed inputs."""
        graph = fn.graph
        inputs = list(fn.inputs)
        fed = {t._id for t in inputs if t is not None}
        targets = list(getattr(fn, "targets", None) or ())
        roots = [t.op for t in fn.outputs] + targets + \
            [t.op for t in inputs if t is not None and t.op.type == "Placeholder" and len(t.op.outputs) == 1]
        needed = {id(op) for op in prune(roots, fed)}
        ops = [op for op in graph.get_operations() if id(op) in needed]
        names = {op.name.lower() for op in ops}
        renamed = {}                 # tensor id -> name of the Placeholder node that feeds it
        extra = []                   # Placeholders standing for fed tensors that are not Placeholders
        for t in inputs:
            if t is None or t._id in renamed:
                continue
            if t.op.type == "Placeholder" and id(t.op) in needed:
                renamed[t._id] = t.op.name
                continue
            base = f"{t.op.name}/_arg{t.value_index}"
            arg, k = base, 0
            while arg.lower() in names:
                k += 1
                arg = f"{base}_{k}"
            names.add(arg.lower())
            renamed[t._id] = arg
            extra.append(NodeDef(arg, "Placeholder", [], "", {"dtype": t.dtype, "shape": t.shape}))
        kept = {op.name for op in ops}
        nodes = list(extra)
        for op in ops:
            if op.type == "Placeholder" and op.outputs[0]._id in renamed and renamed[op.outputs[0]._id] != op.name:
                continue
            node = node_def_of(op, self)
            data = [renamed[t._id] if t._id in renamed else node.input[i] for i, t in enumerate(op.inputs)]
            node.input = data + ["^" + c.name for c in op.control_inputs if c.name in kept]
            if self._node_hook is not None:
                self._node_hook(op, node)
            nodes.append(node)

        def tensor_name(t):
            return f"{renamed[t._id]}:0" if t._id in renamed else t.name
        arg_attr = {}
        for i, t in enumerate(inputs):
            spec = resource_spec(t) if t is not None else None
            if spec is not None:
                arg_attr[i] = {"_handle_dtype": spec[0], "_handle_shape": as_shape(spec[1])}
        return FunctionDef(name, nodes, [None if t is None else tensor_name(t) for t in inputs],
                           [tensor_name(t) for t in fn.outputs], [op.name for op in targets], arg_attr)


def graph_to_graph_def(graph, freeze_variables=False):
    """``graph.as_graph_def()``: every Operation of ``graph`` as a :class:`GraphDef`, in creation order.

    ``freeze_variables=True`` stores eager ``tf.Variable`` s used by the graph as constants (their
    current values): each ``ReadVariableOp`` of one becomes a ``Const`` of the same name and the handle
    node disappears. Without it, in a ``tf.function``'s graph, such a variable's handle is written
    as TF writes a function's captured variable: a ``resource`` ``Placeholder``, which a call feeds
    (the engine's graph refers to the variable itself: a live Python object cannot be written to a
    file); in a ``tf.Graph`` it is a ``ValueError``. Graph-mode variables need neither: they are
    stored as ops.

    The sub-graphs of control-flow ops (``tf.cond``, ``tf.while_loop``) go to the ``library``.
    """
    nodes = []
    library = FunctionLibraryBuilder()
    for op in graph.get_operations():
        variable = _eager_variable(op)
        if variable is not None:
            if not freeze_variables and getattr(graph, "building_function", False):
                nodes.append(NodeDef(op.name, "Placeholder", [], op.device,
                                     {"dtype": _dtypes.resource, "shape": TensorShape([])}))
                continue
            if not freeze_variables:
                raise ValueError(
                    f"Cannot export node '{op.name}' (VarHandleOp): it refers to the eager tf.Variable "
                    f"'{variable.name}', a Python object that cannot be written to a file. Pass "
                    f"freeze_variables=True to store its current value as a Const (like TF's "
                    f"convert_variables_to_constants), or create the variable inside the graph.")
            for consumer in op.outputs[0].consumers():
                if consumer.type != "ReadVariableOp":
                    raise ValueError(f"Cannot freeze the eager tf.Variable '{variable.name}': node "
                                     f"'{consumer.name}' ({consumer.type}) uses its handle, and only reads "
                                     f"can become constants.")
            continue  # the handle disappears; its reads become constants below
        if freeze_variables and op.type == "ReadVariableOp" and _eager_variable(op.inputs[0].op) is not None:
            variable = _eager_variable(op.inputs[0].op)
            value = np.array(variable.numpy())
            nodes.append(NodeDef(op.name, "Const", ["^" + c.name for c in op.control_inputs], op.device,
                                 {"value": value, "dtype": variable.dtype}))
            continue
        nodes.append(node_def_of(op, library))
    return GraphDef(nodes, library=library.library())


def _as_graph_def(self, from_version=None, add_shapes=False, freeze_variables=False):
    """This graph as a ``GraphDef``: plain data that ``import_graph_def`` rebuilds.

    ``freeze_variables=True`` (an engine extension) stores eager variables as constants.
    """
    return graph_to_graph_def(self, freeze_variables=freeze_variables)


Graph.as_graph_def = _as_graph_def   # TF's ``Graph.as_graph_def``: serialization lives in this module


def _eager_variable(op):
    return op.attrs.get("eager_variable") if op.type == "VarHandleOp" else None


# --- import -------------------------------------------------------------------------------------------
_VALID_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\-/>]*$")


def _parse_input(text):
    """``"x"`` -> ``("x", 0, False)``, ``"x:1"`` -> ``("x", 1, False)``, ``"^x"`` -> ``("x", 0, True)``."""
    if text.startswith("^"):
        return text[1:], 0, True
    name, sep, index = text.rpartition(":")
    if sep and index.isdigit():
        return name, int(index), False
    return text, 0, False


def _tensor_key(name):
    node, index, _ = _parse_input(name)
    return node, index


def import_graph_def(graph_def, input_map=None, return_elements=None, name=None):
    """Add the nodes of ``graph_def`` to the default graph, under the name scope ``name`` (``"import"``).

    * ``input_map``: ``{"x:0": tensor}`` (``"x"`` means ``"x:0"``): consumers of that output of the
      GraphDef read ``tensor`` (a tensor of the default graph) instead. The mapped node is still imported.
    * ``return_elements``: names in the GraphDef to return, in order: ``"y:0"`` gives the imported tensor,
      ``"y"`` the imported Operation. Without it the function returns ``None``, as TF does.
    * ``name``: the prefix scope (made unique: ``import``, ``import_1``...); ``""`` imports at top level,
      renaming nodes whose names are taken (``x`` -> ``x_1``).

    Nodes may come in any order: they are created in dependency order (data and control edges). Each is
    built through the op registry, so output dtypes and shapes are re-inferred. Everything that can be
    checked without building (op types, edges, names, cycles) is checked first, so a bad GraphDef
    leaves the graph unchanged; only a shape function's error (say, an ``input_map`` tensor of the
    wrong shape) stops the import midway, with TF's ``ValueError``.
    """
    if not isinstance(graph_def, GraphDef):
        raise TypeError(f"graph_def must be a GraphDef, not {type(graph_def).__name__}. Read a file with "
                        f"tf.io.read_graph(path) or GraphDef.FromString(data).")
    _check_versions(graph_def.versions)
    functions = _FunctionImporter(graph_def.library)
    inputs, num_outputs = _check_nodes(graph_def.node, functions)
    mapping = _check_input_map(input_map, num_outputs)
    returns = _check_return_elements(return_elements, num_outputs)
    order = _topological_order(graph_def.node, inputs)

    graph = ctx.graph if isinstance(ctx.graph, Graph) else get_default_graph()
    with _default(graph), name_scope("import" if name is None else name) as scope:
        created = _create_nodes(graph, order, inputs, mapping, scope, functions)
    if returns is None:
        return None
    return [_return_element(created, r) for r in returns]


def _create_nodes(graph, order, inputs, mapping, scope, functions):
    """Build ``order`` (checked NodeDefs, inputs first) into ``graph``; returns node name -> Operation."""
    created = {}
    for node in order:
        full_name = graph.unique_name(scope + node.name)
        data, controls = [], []
        for position, (source, index, is_control) in enumerate(inputs[node.name]):
            if is_control:
                controls.append(created[source])
            else:
                data.append(_input_tensor(created[source].outputs[index], mapping.get((source, index)),
                                          position, full_name))
        attrs = functions.resolve(node.attr, graph)
        graph.create_op_from_def(get_op(node.op), data, attrs, name=full_name + "/")
        op = created[node.name] = graph.get_operation_by_name(full_name)
        for c in controls:
            op._add_control_input(c)
        if node.device:
            op.device = node.device
    return created


def _check_nodes(nodes, functions, where=""):
    """Validate NodeDefs before building anything; returns each node's parsed inputs and output count."""
    num_outputs = {}
    for node in nodes:
        if node.name in num_outputs:
            raise ValueError(f"{where}Node '{node.name}' is not unique")
        if not _VALID_NAME.match(node.name):
            raise ValueError(f"{where}Node '{node.name}': Node name contains invalid characters")
        try:
            op_def = get_op(node.op)
        except KeyError:
            raise NotFoundError(None, None, f"Op type not registered '{node.op}' in binary running on this engine "
                                            f"(needed by {where.lower()}node '{node.name}'). The GraphDef was "
                                            f"written by a process that registered more ops: register "
                                            f"'{node.op}' (register_op) before importing.") from None
        attrs = functions.signatures(node.attr, f"{where}Node '{node.name}'")
        try:
            num_outputs[node.name] = op_def.output_count(attrs)
        except (KeyError, TypeError, AttributeError) as error:
            raise ValueError(f"{where}Node '{node.name}' ({node.op}): bad or missing attrs ({error!r}).") from None
    inputs = {n.name: [_parse_input(i) for i in n.input] for n in nodes}
    for node in nodes:
        for source, index, is_control in inputs[node.name]:
            if source not in num_outputs:
                raise ValueError(f"{where}Node '{node.name}': Unknown input node '{source}'")
            if not is_control and index >= num_outputs[source]:
                raise ValueError(f"{where}Node '{node.name}': Connecting to invalid output {index} of source node "
                                 f"{source} which has {num_outputs[source]} outputs.")
    return inputs, num_outputs


class _Signature:
    """What validation needs of a library function before it is built: its input and output names."""

    def __init__(self, fdef):
        self.inputs = list(fdef.input)
        self.outputs = list(fdef.output)


class _FunctionImporter:
    """The library of one GraphDef being imported: validated up front, each function built once, on demand.

    A function is built as a ``ControlFlowGraph`` of the graph whose node first refers to it, wrapped
    in a ``GraphFunction`` (the value the control-flow kernels call). Its stateful nodes are not
    re-chained: the control edges in the file already order them, and ``control_output`` says which
    run on every call.
    """

    def __init__(self, library):
        self.defs = {}
        for f in library.function:
            if f.name in self.defs:
                raise ValueError(f"Function '{f.name}' is defined twice in the GraphDef's library")
            self.defs[f.name] = f
        self.checked = {f.name: self._check(f) for f in library.function}
        self.built = {}
        self._building = set()

    def _check(self, f):
        where = f"Function '{f.name}': "
        inputs, num_outputs = _check_nodes(f.node_def, self, where)
        order = _topological_order(f.node_def, inputs)
        op_types = {n.name: n.op for n in f.node_def}
        for i, t in enumerate(f.input):
            if t is None:
                continue
            node, index = _tensor_key(t)
            if op_types.get(node) != "Placeholder" or index != 0:
                raise ValueError(f"{where}input {i} ('{t}') must name the output of a Placeholder node.")
        for t in f.output:
            node, index = _tensor_key(t)
            if node not in num_outputs or index >= num_outputs[node]:
                raise ValueError(f"{where}output '{t}' not found in the function's nodes")
        for n in f.control_output:
            if n not in num_outputs:
                raise ValueError(f"{where}control output '{n}' not found in the function's nodes")
        return inputs, order

    def _replace(self, value, where, convert):
        if isinstance(value, NameAttrList):
            if value.name not in self.defs:
                raise ValueError(f"{where}: function '{value.name}' is not in the GraphDef's library")
            return convert(value.name)
        if isinstance(value, (list, tuple)) and any(isinstance(v, NameAttrList) for v in value):
            return type(value)(self._replace(v, where, convert) for v in value)
        return value

    def signatures(self, attrs, where):
        """``attrs`` with each function reference replaced by the function's signature (for validation)."""
        return {k: self._replace(v, where, lambda name: _Signature(self.defs[name])) for k, v in attrs.items()}

    def resolve(self, attrs, graph):
        """``attrs`` with each function reference replaced by the built ``GraphFunction``."""
        return {k: self._replace(v, "", lambda name: self.build(name, graph)) for k, v in attrs.items()}

    def build(self, name, outer_graph):
        fn = self.built.get(name)
        if fn is not None:
            return fn
        if name in self._building:
            raise ValueError(f"Function '{name}' of the GraphDef's library calls itself: recursion is not "
                             f"supported (loops are While ops).")
        fdef = self.defs[name]
        inputs, order = self.checked[name]
        self._building.add(name)
        graph = ControlFlowGraph(name, outer_graph)
        graph._chaining_disabled = True     # the file's control edges already order the stateful nodes
        try:
            with graph.as_default():
                created = _create_nodes(graph, order, inputs, {}, "", self)
        finally:
            graph._chaining_disabled = False
            self._building.discard(name)
        graph.stateful_ops = [created[n] for n in fdef.control_output]
        ins = [None if t is None else _return_element(created, t if ":" in t else t + ":0") for t in fdef.input]
        outs = [_return_element(created, t if ":" in t else t + ":0") for t in fdef.output]
        for i, attrs in fdef.arg_attr.items():
            if "_handle_dtype" in attrs and ins[i] is not None:
                graph.resource_specs[ins[i]._id] = (attrs["_handle_dtype"], as_shape(attrs.get("_handle_shape")),
                                                    None)
        fn = self.built[name] = GraphFunction(graph, ins, outs, side_effects=True)
        return fn


def _default(graph):
    """Enter ``graph.as_default()`` unless it already is the graph being built (keeping the name scope)."""
    return contextlib.nullcontext() if ctx.graph is graph else graph.as_default()


def _check_input_map(input_map, num_outputs):
    mapping = {}
    for key, tensor in (input_map or {}).items():
        if not isinstance(key, str):
            raise TypeError(f"input_map keys must be tensor names such as 'x:0', got {key!r}.")
        if not isinstance(tensor, Tensor):
            raise TypeError(f"input_map must map names to Tensors; the value for {key!r} is a "
                            f"{type(tensor).__name__}. Convert it with tf.constant first.")
        mapping[_tensor_key(key)] = tensor
    missing = [f"{n}:{i}" for n, i in mapping if n not in num_outputs or i >= num_outputs[n]]
    if missing:
        raise ValueError(f"Attempted to map inputs that were not found in graph_def: [{', '.join(missing)}]")
    return mapping


def _check_return_elements(return_elements, num_outputs):
    if return_elements is None:
        return None
    if isinstance(return_elements, str):
        raise TypeError("return_elements must be a list of names, not a single string.")
    for r in return_elements:
        node, index = _tensor_key(r)
        if node not in num_outputs:
            kind = "tensor" if ":" in r else "node"
            raise ValueError(f"Requested return {kind} '{r}' not found in graph def")
        if ":" in r and index >= num_outputs[node]:
            raise ValueError(f"Invalid return output {index} of node '{node}', which has {num_outputs[node]} "
                             f"output(s)")
    return list(return_elements)


def _topological_order(nodes, inputs):
    """Kahn's algorithm; among ready nodes, file order first (so sorted files keep their order)."""
    position = {n.name: i for i, n in enumerate(nodes)}
    waiting = {n.name: len({s for s, _, _ in inputs[n.name]}) for n in nodes}
    consumers = {n.name: set() for n in nodes}
    for n in nodes:
        for source, _, _ in inputs[n.name]:
            consumers[source].add(n.name)
    ready = [position[name] for name, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        node = nodes[heapq.heappop(ready)]
        order.append(node)
        for consumer in consumers[node.name]:
            waiting[consumer] -= 1
            if waiting[consumer] == 0:
                heapq.heappush(ready, position[consumer])
    if len(order) < len(nodes):
        stuck = [n.name for n in nodes if waiting[n.name] > 0]
        raise ValueError(f"{len(stuck)} nodes in a cycle or depending on one: {', '.join(stuck[:10])}. A graph "
                         f"must be acyclic (loops are built with control-flow ops, not back edges).")
    return order


def _input_tensor(tensor, mapped, position, full_name):
    """``tensor`` (an output of an imported node), or the ``input_map`` replacement after a dtype check."""
    if mapped is None:
        return tensor
    if mapped.dtype != tensor.dtype:
        raise ValueError(f"Input {position} of node {full_name} was passed {mapped.dtype.name} from "
                         f"{getattr(mapped, 'name', 'a tensor')} incompatible with expected {tensor.dtype.name}.")
    return mapped


def _return_element(created, name):
    node, index = _tensor_key(name)
    return created[node].outputs[index] if ":" in name else created[node]
