"""A traced function's graph as data: what ``tf.saved_model`` writes and what a parameter-server
coordinator sends to its workers.

A ``ConcreteFunction`` is a ``FuncGraph`` plus Python structure around it. To run
it somewhere else (another process, a server, a later program) only the graph
travels, as a GraphDef (``docs/graph_format.md``):

* it is **pruned** to what one call runs: the outputs, the stateful ops (an
  assignment must still happen) and the inputs; a gradient graph built into the
  same FuncGraph by a tape stays behind;
* each **variable** the graph captured is a ``VarHandleOp`` whose attribute
  points at a live ``tf.Variable`` object, which cannot travel. So the node is
  rewritten to name the variable by a *key* (``shared_name``): a checkpoint key
  in a SavedModel, the variable's id on its parameter server for a coordinator.
  The importer links each key to whatever object holds that variable on its
  side: a restored ``tf.Variable``, or a handle that reads and writes it over
  gRPC (``distribute/ps_values.py``). ``ReadVariableOp`` and the assign kernels
  only ask the handle for ``_value`` (``ops/resource_ops.py``), so the same
  graph runs against either.

TF does the same with ``FunctionDef`` s: ``SavedModel`` stores them in its
function library, and ``ClusterCoordinator`` registers each function on every
worker before it runs closures of it there.
"""
from ..framework.executor import prune
from ..framework.func_graph import FuncGraph
from ..framework.graph_io import FunctionLibraryBuilder, GraphDef, import_graph_def, node_def_of

__all__ = ["export_function_graph", "import_function_graph", "captured_variable_keys"]


def export_function_graph(graph, variable_key, extra_roots=()):
    """The GraphDef of ``graph`` (a ``FuncGraph``), pruned to one call, variables named by ``variable_key(v)``.

    ``extra_roots``: more ops to keep (a SavedModel keeps a custom gradient's ops). The sub-graphs of its
    control flow (cond branches, loop bodies) go to the GraphDef's function library; their captured
    variables are renamed the same way.
    """
    def name_variable(op, node):
        variable = op.attrs.get("eager_variable") if op.type == "VarHandleOp" else None
        if variable is not None:
            node.attr = {k: v for k, v in node.attr.items() if k != "eager_variable"}
            node.attr["shared_name"] = variable_key(variable)
    library = FunctionLibraryBuilder(node_hook=name_variable)
    roots = [t.op for t in graph.outputs] + list(graph.stateful_ops) + [t.op for t in graph.inputs] + \
        list(extra_roots)
    needed = {id(op) for op in prune(roots, set())}
    nodes = []
    for op in graph.get_operations():   # creation order: already a valid execution order
        if id(op) not in needed:
            continue                     # e.g. a gradient graph a tape built into the same FuncGraph
        node = node_def_of(op, library)
        name_variable(op, node)
        nodes.append(node)
    return GraphDef(nodes, library=library.library())


def captured_variable_keys(graph_def):
    """The keys (``shared_name`` s) of the variables the exported graph reads or writes, in node order."""
    keys = []
    library_nodes = [node for f in graph_def.library.function for node in f.node_def]
    for node in graph_def.node + library_nodes:
        if node.op == "VarHandleOp" and node.attr.get("shared_name") not in keys:
            keys.append(node.attr.get("shared_name"))
    return keys


def import_function_graph(graph_def, variables, input_names, output_names, name="imported", missing=None,
                          extra_names=None):
    """A ``FuncGraph`` rebuilt from ``graph_def``, each variable key linked to ``variables[key]``.

    ``input_names``/``output_names``: the tensor names of the graph's inputs and outputs (in order).
    ``missing(node, key)``: the error to raise for a key ``variables`` lacks. ``extra_names``: more tensors
    to find in the imported graph (a list, maybe empty); then the result is ``(graph, [those tensors])``.
    """
    library_nodes = [node for f in graph_def.library.function for node in f.node_def]
    for node in graph_def.node + library_nodes:   # (control-flow sub-graphs capture handles; rarely hold one)
        if node.op == "VarHandleOp":
            key = node.attr.get("shared_name")
            if key not in variables:
                if missing is not None:
                    raise missing(node, key)
                raise ValueError(f"node '{node.name}' of function {name} reads the variable '{key}', which "
                                 f"this side does not have.")
            node.attr["eager_variable"] = variables[key]   # the graph captures that object
    graph = FuncGraph(name)
    with graph.as_default():
        elements = import_graph_def(graph_def, return_elements=list(input_names) + list(output_names) +
                                    list(extra_names or ()), name="")
    n, m = len(input_names), len(input_names) + len(output_names)
    graph.inputs, graph.outputs = elements[:n], elements[n:m]
    handles = graph.__dict__.setdefault("_eager_variable_handles", {})   # what tf.function's tracing records
    captured = graph.__dict__.setdefault("captured_variables", [])
    for op in graph.get_operations():
        variable = op.attrs.get("eager_variable") if op.type == "VarHandleOp" else None
        if variable is not None:
            handles[variable._id] = op.outputs[0]
            captured.append(variable)
    return graph if extra_names is None else (graph, elements[m:])
