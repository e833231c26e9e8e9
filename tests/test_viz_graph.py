"""engine.viz.draw_graph on dataflow graphs: kinds, edges, scopes, collapsing, Session.run highlight,
before/after, devices, and rendering (with graphviz-pure, or the DOT-text fallback)."""
import re
import shutil
import types

import graphviz
import pytest

import engine as tf
from engine import viz
from engine.framework.executor import compile_plan, prune

# --- reading DOT back ----------------------------------------------------------------------
_ID = r'("(?:[^"\\]|\\.)*"|[\w.]+)'
_NODE = re.compile(rf"^\s*{_ID} \[(.*)\]$")
_EDGE = re.compile(rf"^\s*{_ID} -> {_ID}(?: \[(.*)\])?$")
_SUBGRAPH = re.compile(rf"^\s*subgraph {_ID} \{{$")
_ATTR = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|[^\s\]]+)')


def _unquote(text):
    return text[1:-1] if text.startswith('"') else text


def _attrs(text):
    text = re.sub(r"label=<<.*>>", "label=HTML", text or "")
    return {k: _unquote(v) for k, v in _ATTR.findall(text)}


def parse(source):
    """DOT from a Diagram -> (nodes {id: attrs}, edges [(tail, head, attrs)], cluster path of each node)."""
    nodes, edges, where, stack = {}, [], {}, []
    for line in source.splitlines()[1:]:
        if _SUBGRAPH.match(line):
            stack.append(_unquote(_SUBGRAPH.match(line).group(1)))
        elif line.strip() == "}":
            if stack:
                stack.pop()
        elif _EDGE.match(line):
            tail, head, attrs = _EDGE.match(line).groups()
            edges.append((_unquote(tail), _unquote(head), _attrs(attrs)))
        elif _NODE.match(line) and line.split()[0] not in ("graph", "node", "edge"):
            name, attrs = _NODE.match(line).groups()
            nodes[_unquote(name)] = _attrs(attrs)
            where[_unquote(name)] = list(stack)
    return nodes, edges, where


def classes(attrs):
    return set(attrs.get("class", "").split())


# --- graphs to draw --------------------------------------------------------------------------
def training_graph():
    """A one-layer model with its gradients and a training step: 80 ops in scopes layer1, loss, gradients."""
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 3], name="x")
        with tf.name_scope("layer1"):
            w = tf.Variable(tf.ones([3, 2]), name="w")
            b = tf.Variable(tf.zeros([2]), name="b")
            h = tf.nn.relu(tf.matmul(x, w) + b)
        with tf.name_scope("loss"):
            loss = tf.reduce_mean(h * h)
        train = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss)
        init = tf.compat.v1.global_variables_initializer()
        with tf.control_dependencies([train]):
            after = tf.identity(loss, name="after")
    return types.SimpleNamespace(g=g, x=x, w=w, h=h, loss=loss, train=train, init=init, after=after)


def small_graph():
    """No variables, no gradients: x -> layer1 (MatMul, AddV2, Relu) -> loss, 9 ops."""
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 3], name="x")
        with tf.name_scope("layer1"):
            h = tf.nn.relu(tf.matmul(x, tf.ones([3, 2])) + 1.0)
        with tf.name_scope("loss"):
            loss = tf.reduce_sum(h)
    return types.SimpleNamespace(g=g, x=x, h=h, loss=loss)


def deep_graph(blocks=6):
    """About 100 ops: `blocks` scopes, each with two variables and a nested `dense` scope."""
    g = tf.Graph()
    with g.as_default():
        h = tf.compat.v1.placeholder(tf.float32, [None, 4], name="x")
        for i in range(blocks):
            with tf.name_scope(f"block{i}"):
                w = tf.Variable(tf.ones([4, 4]), name="w")
                b = tf.Variable(tf.zeros([4]), name="b")
                with tf.name_scope("dense"):
                    h = tf.nn.relu(tf.matmul(h, w) + b)
        with tf.name_scope("loss"):
            tf.reduce_mean(h * h)
    return g


# --- the object returned -----------------------------------------------------------------------
def test_returns_a_graphviz_digraph_for_graphs_tapes_and_generic_pictures():
    t = small_graph()
    picture = viz.draw_graph(t.g)
    assert isinstance(picture, graphviz.Digraph) and isinstance(picture, viz.Diagram)
    x = tf.Variable(1.0)
    with tf.GradientTape(persistent=True) as tape:
        x * x
    assert isinstance(viz.draw_tape(tape), graphviz.Digraph)
    assert isinstance(viz.draw_graph(["a", "b"], [("a", "b")]), graphviz.Digraph)
    picture.node("extra", label="added later")          # it is a Digraph: build on it
    assert 'label="added later"' in picture.source and picture.graph is picture
    assert "extra" in picture.copy().source


def test_diagram_wraps_an_existing_digraph_sharing_its_contents():
    plain = graphviz.Digraph()
    plain.node("a")
    wrapped = viz.Diagram(plain)
    plain.edge("a", "b")
    assert "a -> b" in wrapped.source
    with pytest.raises(TypeError):
        viz.Diagram(graphviz.Graph())


def test_function_like_objects_and_op_lists_are_drawn_as_graphs():
    t = small_graph()
    whole = parse(viz.draw_graph(t.g).source)[0]
    function_like = types.SimpleNamespace(graph=t.g)     # a ConcreteFunction has .graph
    assert parse(viz.draw_graph(function_like).source)[0].keys() == whole.keys()
    some = t.g.get_operations()[:3]
    assert set(parse(viz.draw_graph(some).source)[0]) - {"legend"} == {op.name for op in some}
    with pytest.raises(TypeError, match="by keyword"):
        viz.draw_graph(t.g, [("a", "b")])


def test_concrete_function_draws_its_graph_with_outputs_marked():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="v")

    @tf.function
    def f(x):
        with tf.name_scope("dense"):
            y = tf.matmul(x, v)
        return tf.nn.relu(y) * 2.0

    concrete = f.get_concrete_function(tf.TensorSpec([None, 2], tf.float32))
    nodes, edges, where = parse(viz.draw_graph(concrete).source)
    assert set(nodes) - {"legend"} == {op.name for op in concrete.graph.get_operations()}
    (output,) = concrete.outputs
    assert "fetch" in classes(nodes[output.op.name]) and classes(nodes["x"]) == {"placeholder"}
    assert where["dense/MatMul"] == ["cluster_dense"]
    assert {(a, b) for a, b, _ in edges} >= {("x", "dense/MatMul")}


# --- nodes: kinds ---------------------------------------------------------------------------------
def test_op_kinds():
    t = training_graph()
    kinds = {op.name: viz.op_kind(op) for op in t.g.get_operations()}
    assert kinds["x"] == "placeholder"
    assert kinds["layer1/Const"] == "constant"
    assert kinds["layer1/w"] == "var_handle"
    assert kinds["layer1/ReadVariableOp"] == "var_op"
    assert kinds["AssignSub"] == "var_op"
    assert kinds["init"] == "group" and kinds["GradientDescent"] == "group"
    assert kinds["gradients/layer1/Relu_grad/ReluGrad"] == "gradient"
    assert kinds["gradients/loss/Mean_grad/Shape"] == "gradient"
    assert kinds["layer1/MatMul"] == "op" and kinds["after"] == "op"
    fused = types.SimpleNamespace(name="dense/_FusedMatMul", type="_FusedMatMul")
    assert viz.op_kind(fused) == "fused"
    assert set(kinds.values()) | {"fused"} == set(viz.KINDS)


def test_nodes_look_like_their_kind_and_show_small_constants():
    t = training_graph()
    nodes, _, _ = parse(viz.draw_graph(t.g, collapse_scopes=False).source)
    assert len(nodes) == len(t.g.get_operations()) + 1            # + the legend
    for name, kind in [("x", "placeholder"), ("layer1/w", "var_handle"), ("layer1/Const", "constant"),
                       ("init", "group"), ("gradients/AddN", "gradient"), ("layer1/MatMul", "op")]:
        assert classes(nodes[name]) == {kind}, name
        assert nodes[name]["fillcolor"] == viz.STYLES[kind]["fillcolor"]
        assert nodes[name]["shape"] == viz.STYLES[kind]["shape"]
    looks = {(viz.STYLES[k]["shape"], viz.STYLES[k]["fillcolor"]) for k in ("placeholder", "var_handle", "constant")}
    assert len(looks) == 3                                            # placeholders, variables, constants distinct
    assert nodes["layer1/Const"]["label"] == "Const\\n= 1.0"
    assert nodes["layer1/w"]["label"] == "w\\nVarHandleOp" and nodes["layer1/MatMul"]["label"] == "MatMul"
    assert "layer1/MatMul (MatMul)" in nodes["layer1/MatMul"]["tooltip"]


# --- edges ---------------------------------------------------------------------------------------
def test_data_edges_carry_dtype_and_shape():
    t = small_graph()
    _, edges, _ = parse(viz.draw_graph(t.g).source)
    labels = {(tail, head): a.get("label") for tail, head, a in edges}
    assert labels[("x", "layer1/MatMul")] == "float32 (?, 3)"
    assert labels[("layer1/MatMul", "layer1/add")] == "float32 (?, 2)"
    assert labels[("layer1/Relu", "loss/Sum")] == "float32 (?, 2)"
    assert labels[("loss/Const", "loss/Sum")] == "int32 (2,)"
    assert len(edges) == sum(len(op.inputs) for op in t.g.get_operations())
    hidden = parse(viz.draw_graph(t.g, show_shapes=False).source)[1]
    assert all("label" not in a for _, _, a in hidden)


def test_control_edges_are_dashed_and_exactly_the_control_inputs():
    t = training_graph()
    _, edges, _ = parse(viz.draw_graph(t.g, collapse_scopes=False).source)
    dashed = {(tail, head) for tail, head, a in edges if a.get("style") == "dashed"}
    control = {(c.name, op.name) for op in t.g.get_operations() for c in op.control_inputs}
    assert dashed == control and ("GradientDescent", "after") in control
    assert all(classes(a) == {"control"} and "label" not in a for _, _, a in edges if a.get("style") == "dashed")
    resource = [a for tail, head, a in edges if (tail, head) == ("layer1/w", "layer1/ReadVariableOp")]
    assert resource[0]["label"] == "resource"


def test_repeated_input_is_one_edge_with_a_count():
    t = training_graph()
    _, edges, _ = parse(viz.draw_graph(t.g, collapse_scopes=False).source)
    square = [a for tail, head, a in edges if (tail, head) == ("layer1/Relu", "loss/mul")]
    assert len(square) == 1 and square[0]["label"] == "2 x float32 (?, 2)"


# --- name scopes ----------------------------------------------------------------------------------
def test_name_scopes_become_nested_clusters():
    t = training_graph()
    nodes, _, where = parse(viz.draw_graph(t.g, collapse_scopes=False).source)
    assert where["layer1/MatMul"] == ["cluster_layer1"]
    assert where["x"] == [] and where["init"] == []
    assert where["gradients/loss/Mean_grad/Shape"] == ["cluster_gradients", "cluster_gradients/loss",
                                                       "cluster_gradients/loss/Mean_grad"]
    assert nodes["layer1/MatMul"]["label"] == "MatMul"   # the cluster shows the scope


def test_small_graph_is_not_collapsed_by_default():
    t = training_graph()
    assert len(t.g.get_operations()) == 80
    nodes, _, _ = parse(viz.draw_graph(t.g, max_nodes=100).source)
    assert not any("scope" in classes(a) for a in nodes.values())


def _count_ops(nodes):
    """Ops drawn on their own plus ops inside collapsed-scope nodes (their label says how many)."""
    total = 0
    for attrs in nodes.values():
        if "scope" in classes(attrs):
            total += int(re.search(r"\\n(\d+) ops", attrs["label"]).group(1))
        elif attrs.get("class"):
            total += 1
    return total


def test_hundred_node_graph_collapses_scopes_to_stay_under_the_budget():
    g = deep_graph()
    n_ops = len(g.get_operations())
    assert 90 <= n_ops <= 110
    picture = viz.draw_graph(g)
    nodes, edges, _ = parse(picture.source)
    drawn = {k: a for k, a in nodes.items() if k != "legend"}
    assert len(drawn) <= 60
    folded = [k for k, a in drawn.items() if "scope" in classes(a)]
    assert folded and all(k.endswith("/") for k in folded)
    assert _count_ops(drawn) == n_ops                                    # every op accounted for
    assert all(tail in nodes and head in nodes for tail, head, _ in edges)
    assert all(tail != head for tail, head, _ in edges)
    everything = parse(viz.draw_graph(g, collapse_scopes=False).source)[0]
    assert len(everything) - 1 == n_ops
    assert len(parse(viz.draw_graph(g, max_nodes=30).source)[0]) - 1 <= 30


def test_collapse_scopes_by_depth_and_by_name():
    g = deep_graph(blocks=3)
    top = parse(viz.draw_graph(g, collapse_scopes=True).source)[0]
    assert {k for k, a in top.items() if "scope" in classes(a)} == {"block0/", "block1/", "block2/", "loss/"}
    assert parse(viz.draw_graph(g, collapse_scopes=0).source)[0].keys() == top.keys()
    assert top["block0/"]["label"] == "block0/\\n15 ops"
    named = parse(viz.draw_graph(g, collapse_scopes=["block1", "block2/dense/"]).source)[0]
    assert {k for k, a in named.items() if "scope" in classes(a)} == {"block1/", "block2/dense/"}
    assert "block0/dense/MatMul" in named and "block1/dense/MatMul" not in named
    assert named["block2/dense/"]["label"] == "dense/\\n5 ops" and "block2/w" in named
    depth1 = parse(viz.draw_graph(g, collapse_scopes=1).source)[0]
    assert "block0/dense/" in depth1 and "block0/w" in depth1 and "block0/dense/MatMul" not in depth1
    with pytest.raises(ValueError, match="No name scope"):
        viz.draw_graph(g, collapse_scopes="nope")


# --- highlighting one Session.run ------------------------------------------------------------------
def _run_ids(nodes):
    return {k for k, a in nodes.items() if "run" in classes(a)}


def _needed(fetches, targets, feeds):
    """The graph ops Session.run needs for this request, as the executor records them."""
    plan = compile_plan(fetches, targets, feeds)
    return {op.name for op in (getattr(plan, "graph_ops", None) or plan.ops)}


def test_highlight_marks_exactly_the_ops_session_run_executes():
    t = training_graph()
    needed = _needed([t.loss], [], [t.x])                    # what sess.run(loss, {x: ...}) compiles
    assert "layer1/MatMul" in needed and "init" not in needed and len(needed) == 10
    picture = viz.draw_graph(t.g, highlight=t.loss, feed_dict={t.x: [[1.0, 2.0, 3.0]]}, collapse_scopes=False)
    nodes, edges, _ = parse(picture.source)
    assert _run_ids(nodes) == needed
    assert classes(nodes["x"]) == {"placeholder", "fed"} and "(fed)" in nodes["x"]["label"]
    assert "fetch" in classes(nodes["loss/Mean"]) and nodes["loss/Mean"]["peripheries"] == "2"
    pruned = {k for k, a in nodes.items() if "pruned" in classes(a)}
    assert pruned == {op.name for op in t.g.get_operations()} - needed - {"x"}
    red = {(tail, head) for tail, head, a in edges if a.get("color") == viz.STYLES["run"]["color"]}
    assert ("x", "layer1/MatMul") in red and ("layer1/Relu", "loss/mul") in red
    assert all(head in needed for _, head in red)
    assert "Session.run executes 10 of 80 ops" in picture.source


def test_highlight_a_training_step_with_targets_names_and_variables():
    t = training_graph()
    nodes = parse(viz.draw_graph(t.g, highlight=[t.train], feed_dict={t.x: 0}, collapse_scopes=False).source)[0]
    assert _run_ids(nodes) == _needed([], [t.train], [t.x]) and "init" not in _run_ids(nodes)
    assert "fetch" in classes(nodes["GradientDescent"])
    by_name = parse(viz.draw_graph(t.g, highlight="loss/Mean:0", feed_dict={"x:0": 0},
                                   collapse_scopes=False).source)[0]
    assert _run_ids(by_name) == _needed([t.loss], [], [t.x])
    variable = parse(viz.draw_graph(t.g, highlight=t.w, collapse_scopes=False).source)[0]
    assert "layer1/w" in _run_ids(variable) and "layer1/MatMul" not in _run_ids(variable)


def test_highlight_a_compiled_plan_and_feeding_an_intermediate_tensor():
    t = small_graph()
    plan = compile_plan([t.loss], [], [t.h])                  # feed the hidden layer: layer1 is not run
    nodes = parse(viz.draw_graph(t.g, highlight=plan).source)[0]
    assert _run_ids(nodes) == {"loss/Const", "loss/Sum"}
    assert "fed" in classes(nodes["layer1/Relu"]) and "pruned" in classes(nodes["layer1/MatMul"])


def test_highlight_with_collapsed_scopes_counts_what_runs():
    t = training_graph()
    nodes = parse(viz.draw_graph(t.g, highlight=t.loss, feed_dict={t.x: 0}, collapse_scopes=True).source)[0]
    assert classes(nodes["layer1/"]) == {"scope", "run"} and "\\n7 run" in nodes["layer1/"]["label"]
    assert classes(nodes["gradients/"]) == {"scope", "pruned"} and "\\n0 run" in nodes["gradients/"]["label"]


# --- a plan, and before/after side by side -----------------------------------------------------------
def test_drawing_a_compiled_plan_shows_fed_inputs_outside():
    t = training_graph()
    plan = compile_plan([t.loss], [], [t.x])
    nodes, edges, _ = parse(viz.draw_graph(plan).source)
    fed = [k for k, a in nodes.items() if classes(a) == {"placeholder", "fed", "outside"} or
           classes(a) == {"fed", "outside"}]
    assert len(fed) == 1 and "(fed)" in nodes[fed[0]]["label"]
    assert set(nodes) - {"legend", fed[0]} == {op.name for op in plan.ops}
    assert "fetch" in classes(nodes["loss/Mean"])
    assert {tail for tail, _, _ in edges} >= {fed[0]}


def test_before_and_after_a_compiled_plan():
    t = training_graph()
    plan = compile_plan([t.loss], [], [t.x])
    fused = [n for n in plan.ops if getattr(n, "fused_from", ())]
    if not hasattr(plan, "graph_ops") or not fused:
        pytest.skip("this executor does not optimize plans")
    nodes, edges, where = parse(viz.draw_graph(t.g, before_after=plan).source)
    before = {k[len("before/"):] for k, a in nodes.items() if k.startswith("before/") and "outside" not in classes(a)}
    after = {k[len("after/"):] for k, a in nodes.items() if k.startswith("after/") and "outside" not in classes(a)}
    assert before == {op.name for op in plan.graph_ops} and after == {n.name for n in plan.ops}
    node = fused[0]
    assert classes(nodes["after/" + node.name]) == {"fused", "added"}
    assert "fused: " in nodes["after/" + node.name]["label"]
    removed = {k for k, a in nodes.items() if "removed" in classes(a)}
    assert {"before/" + name for name in node.fused_from} <= removed
    assert all(where[k][0] == ("cluster_before" if k.startswith("before/") else "cluster_after")
               for k in nodes if k != "legend")
    step = compile_plan([], [t.train], [t.x])                  # targets only: still the same request
    sides = parse(viz.draw_graph(t.g, before_after=step, collapse_scopes=False).source)[0]
    assert "before/init" not in sides and "before/GradientDescent" in sides
    assert sum(k.startswith("before/") and "outside" not in classes(a) for k, a in sides.items()) == \
        len(step.graph_ops)


class FakeOp:
    """What another graph rewriter may produce: an op-like node that is not an Operation of the graph."""

    def __init__(self, name, op_type, inputs, outputs):
        self.name, self.type, self.inputs, self.outputs = name, op_type, list(inputs), list(outputs)
        self.control_inputs, self.device, self.attrs = [], "", {}


def fused_by_hand(t):
    """The ops sess.run(loss, {x}) needs, with MatMul + AddV2 + Relu replaced by one op-like node."""
    needed = prune([t.loss.op], {t.x._id})
    ops = {op.name: op for op in needed}
    matmul, add, relu = ops["layer1/MatMul"], ops["layer1/add"], ops["layer1/Relu"]
    fused = FakeOp("layer1/_FusedMatMul", "_FusedMatMul", [t.x, matmul.inputs[1], add.inputs[1]],
                   relu.outputs)                         # reuses Relu's output tensors
    optimized = [op for op in needed if op not in (matmul, add, relu)]
    optimized.insert(optimized.index(ops["loss/mul"]), fused)
    return needed, types.SimpleNamespace(ops=optimized, fetch_tensors=[t.loss], feed_tensors=[t.x])


def test_before_and_after_side_by_side_with_op_like_nodes():
    t = training_graph()
    needed, optimized = fused_by_hand(t)
    picture = viz.draw_graph(t.g, before_after=optimized)
    nodes, edges, where = parse(picture.source)
    before = {k[len("before/"):] for k in nodes if k.startswith("before/")}
    after = {k[len("after/"):] for k in nodes if k.startswith("after/")}
    # the left side is the same request before rewriting (not the whole graph)
    assert before == {op.name for op in needed} | {"x"}
    assert after == {op.name for op in optimized.ops} | {"x"}
    assert all(where[k][0] == "cluster_before" for k in nodes if k.startswith("before/"))
    assert all(where[k][0] == "cluster_after" for k in nodes if k.startswith("after/"))
    assert 'label="before (10 ops)"' in picture.source and 'label="after (8 ops)"' in picture.source
    removed = {k for k, a in nodes.items() if "removed" in classes(a)}
    added = {k for k, a in nodes.items() if "added" in classes(a)}
    assert removed == {"before/layer1/MatMul", "before/layer1/add", "before/layer1/Relu"}
    assert added == {"after/layer1/_FusedMatMul"} and "fused" in classes(nodes["after/layer1/_FusedMatMul"])
    pairs = {(a, b): attrs.get("label") for a, b, attrs in edges}
    assert pairs[("after/layer1/_FusedMatMul", "after/loss/mul")] == "2 x float32 (?, 2)"
    assert pairs[("after/x", "after/layer1/_FusedMatMul")] == "float32 (?, 3)"
    assert all(a.split("/")[0] == b.split("/")[0] for a, b, _ in edges)       # no edge crosses sides


def test_before_and_after_two_graphs():
    first, second = small_graph(), training_graph()
    nodes = parse(viz.draw_graph(first.g, before_after=second.g, collapse_scopes=False).source)[0]
    assert sum(k.startswith("before/") for k in nodes) == len(first.g.get_operations())
    assert sum(k.startswith("after/") for k in nodes) == len(second.g.get_operations())
    assert "added" in classes(nodes["after/init"]) and "removed" in classes(nodes["before/loss/Sum"])
    with pytest.raises(ValueError, match="not both"):
        viz.draw_graph(first.g, before_after=second.g, highlight=first.loss)


# --- devices --------------------------------------------------------------------------------------
def test_color_by_device():
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [2], name="x")
        with tf.device("/CPU:0"):
            y = tf.exp(x, name="on_cpu")
        z = tf.negative(y, name="unplaced")
    g.get_operation_by_name("unplaced").device = "/job:localhost/replica:0/task:0/device:GPU:1"
    nodes = parse(viz.draw_graph(g, color_by="device").source)[0]
    cpu, gpu, none = (nodes[k]["fillcolor"] for k in ("on_cpu", "unplaced", "x"))
    assert len({cpu, gpu, none}) == 3 and none == "white"
    assert nodes["x"]["shape"] == viz.STYLES["placeholder"]["shape"]        # the kind still shows in the shape
    legend = viz.draw_graph(g, color_by="device").source
    assert ">CPU:0<" in legend and ">GPU:1<" in legend and ">no device<" in legend
    with pytest.raises(ValueError, match="color_by"):
        viz.draw_graph(g, color_by="dtype")
    del z


# --- rendering ------------------------------------------------------------------------------------
def test_graph_renders_to_svg_with_the_available_renderer():
    if not viz.find_renderers():
        pytest.skip("no renderer installed")
    picture = viz.draw_graph(training_graph().g)
    svg = picture.svg()
    assert svg is not None and "<svg" in svg and 'class="cluster"' in svg and "MatMul" in svg
    assert "<svg" in picture._repr_mimebundle_()["image/svg+xml"]
    assert picture.pipe(format="svg", encoding="utf-8") == svg
    assert picture.pipe(format="png")[:8] == b"\x89PNG\r\n\x1a\n"


def test_graph_without_renderer_shows_dot_text(monkeypatch):
    from IPython.core.formatters import DisplayFormatter
    monkeypatch.setattr(shutil, "which", lambda *args, **kwargs: None)
    picture = viz.draw_graph(training_graph().g, highlight=None)
    data, _ = DisplayFormatter().format(picture)
    assert "image/svg+xml" not in data and "No Graphviz renderer" in data["text/plain"]
    assert "subgraph cluster_layer1" in data["text/plain"]
    assert picture.svg() is None
    with pytest.raises(viz.RenderError, match="No Graphviz renderer"):
        picture.pipe()
