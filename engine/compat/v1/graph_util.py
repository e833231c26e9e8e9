"""``tf.compat.v1.graph_util``: cut a GraphDef down to what some outputs need, and freeze it.

*Freezing* is the last step before serving a TF1 model: the variables' current values,
read from a Session, become ``Const`` nodes, so the GraphDef runs without a checkpoint and
without the initializers. ``convert_variables_to_constants`` does it on the GraphDef (data),
never on the live graph:

1. ``extract_sub_graph`` keeps only the nodes the named outputs depend on (through data and
   control inputs), as ``Session.run`` pruning would;
2. every variable (``VarHandleOp``) read in that sub-graph becomes a ``Const`` of the same
   name holding the value the Session has now, and each of its ``ReadVariableOp`` s an
   ``Identity`` of that constant (TF's layout, names included).
"""
import numpy as np

from ...framework.graph_io import GraphDef, NodeDef

__all__ = ["extract_sub_graph", "convert_variables_to_constants", "must_run_on_cpu", "remove_training_nodes"]


def _node_name(text):
    """``"^x"``, ``"x:1"``, ``"x"`` -> ``"x"``."""
    return text.lstrip("^").split(":")[0]


def extract_sub_graph(graph_def, dest_nodes):
    """The nodes of ``graph_def`` that ``dest_nodes`` (names) need, in their original order."""
    if isinstance(dest_nodes, str):
        raise TypeError("dest_nodes must be an iterable of strings.")
    by_name = {n.name: n for n in graph_def.node}
    missing = [d for d in dest_nodes if d not in by_name]
    if missing:
        raise AssertionError(f"{missing[0]} is not in graph")
    keep, todo = set(), list(dest_nodes)
    while todo:
        name = todo.pop()
        if name in keep:
            continue
        keep.add(name)
        todo.extend(_node_name(i) for i in by_name[name].input)
    return GraphDef([n for n in graph_def.node if n.name in keep], versions=graph_def.versions,
                    library=graph_def.library)


def convert_variables_to_constants(sess, input_graph_def, output_node_names, variable_names_whitelist=None,
                                   variable_names_blacklist=None):
    """A frozen copy of ``input_graph_def``: variables read by ``output_node_names`` become constants."""
    sub = extract_sub_graph(input_graph_def, output_node_names)
    by_name = {n.name: n for n in sub.node}

    def wanted(handle_name):
        if variable_names_whitelist is not None and handle_name not in variable_names_whitelist:
            return False
        return not (variable_names_blacklist and handle_name in variable_names_blacklist)

    reads = [n for n in sub.node if n.op == "ReadVariableOp" and by_name.get(_node_name(n.input[0]), None) is not None
             and by_name[_node_name(n.input[0])].op == "VarHandleOp" and wanted(_node_name(n.input[0]))]
    # One value per variable, fetched through one of its reads (the Session holds the values).
    first_read = {}
    for n in reads:
        first_read.setdefault(_node_name(n.input[0]), n)
    handles = list(first_read)
    values = sess.run([sess.graph.get_tensor_by_name(first_read[h].name + ":0") for h in handles]) if handles else []
    replaced = {}
    for handle, value in zip(handles, values):  # the variable itself becomes the constant (TF's names)
        old = by_name[handle]
        replaced[handle] = NodeDef(handle, "Const", [], old.device,
                                   {"value": np.asarray(value), "dtype": old.attr["dtype"]})
    for n in reads:  # and each read of it an Identity of that constant
        replaced[n.name] = NodeDef(n.name, "Identity", list(n.input), n.device, {})
    return GraphDef([replaced.get(n.name, n) for n in sub.node], versions=sub.versions, library=sub.library)


def must_run_on_cpu(node, pin_variables_on_cpu=False):
    """Whether ``node`` must run on a CPU: everything does in this engine's CPU build."""
    return True


def remove_training_nodes(input_graph, protected_nodes=None):
    """Drop ``Identity`` nodes (training-only plumbing), rewiring their readers to their inputs."""
    protected = set(protected_nodes or [])
    forward = {}
    for n in input_graph.node:
        if n.op == "Identity" and n.name not in protected and not any(i.startswith("^") for i in n.input):
            forward[n.name] = n.input[0]

    def resolve(text):
        control = text.startswith("^")
        name = _node_name(text)
        port = text.split(":")[1] if ":" in text else None
        seen = set()
        while name in forward and name not in seen:
            seen.add(name)
            target = forward[name]
            name, port = _node_name(target), (target.split(":")[1] if ":" in target else None)
        return ("^" if control else "") + name + (f":{port}" if port and not control else "")
    nodes = [NodeDef(n.name, n.op, [resolve(i) for i in n.input], n.device, n.attr)
             for n in input_graph.node if n.name not in forward]
    return GraphDef(nodes, versions=input_graph.versions, library=input_graph.library)
