"""engine.viz: DOT text of tapes and graphs, rendering, and the no-renderer fallback."""
import os
import shutil
import stat
import sysconfig
import warnings

import graphviz
import pytest

import engine as tf
from engine import viz
from test_viz_graph import parse   # DOT -> nodes, edges (tests/ is on sys.path)


def _cubic_tape():
    """y = x**3 + c*x on a persistent tape: Read, Pow, Read, Mul, AddV2."""
    x = tf.Variable(2.0, name="x")
    c = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        y = x ** 3 + c * x
    return tape, x, y


@pytest.fixture
def no_renderer(monkeypatch):
    """Hide both `dot` and `graphviz-pure`, wherever they are."""
    monkeypatch.setattr(shutil, "which", lambda *args, **kwargs: None)


# --- DOT source ------------------------------------------------------------------------
def test_tape_source_lists_ops_in_recording_order():
    tape, _, _ = _cubic_tape()
    src = viz.draw_tape(tape).source
    labels = ["1. ReadVariableOp", "2. Pow", "3. ReadVariableOp", "4. Mul", "5. AddV2"]
    positions = [src.index(f'"{label}"') for label in labels]
    assert positions == sorted(positions)
    assert src.count("->") == 2 + 3 + 2 + 3 + 3   # in + out edges of the five ops


def test_tape_source_labels_tensors_with_shape_dtype_and_kind():
    x = tf.Variable([[1.0, 2.0, 3.0]], name="w")
    with tf.GradientTape(persistent=True) as tape:
        y = tf.reduce_sum(tf.exp(x))
    src = viz.draw_tape(tape).source
    assert "w:0" in src and "float32 (1, 3)" in src and "float32 ()" in src
    assert "Exp" in src and "Sum" in src
    assert viz.STYLES["variable"]["fillcolor"] in src
    del y


def test_watched_tensor_and_constant_kinds():
    a = tf.constant([1.0, 2.0])
    b = tf.constant([3.0, 4.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(a)
        tf.multiply(a, b)
    src = viz.draw_tape(tape).source
    assert "watched\\nfloat32 (2,)\\n= [1., 2.]" in src
    assert viz.STYLES["constant"]["fillcolor"] in src
    assert viz.STYLES["source"]["fillcolor"] in src


def test_backward_walk_is_newest_first_and_skips_ops_after_the_target():
    tape, x, y = _cubic_tape()
    with tape:
        z = y * 2.0   # recorded after y: the walk for y must not visit it
    src = viz.draw_tape(tape, target=y).source
    assert '"5. AddV2\\nbackward step 1"' in src
    assert '"1. ReadVariableOp\\nbackward step 5"' in src
    assert '"6. Mul"' in src          # on the tape, not on y's backward walk
    assert src.count("backward step") == 5
    del x, z


def test_backward_step_by_step():
    tape, _, y = _cubic_tape()
    seeded = viz.draw_tape(tape, target=y, step=0).source
    assert "step 0 of 5" in seeded and viz.STYLES["grad_now"]["fillcolor"] not in seeded
    second = viz.draw_tape(tape, target=y, step=2).source
    assert "backward step 2 of 5: Mul" in second
    assert second.count(viz.STYLES["grad_now"]["fillcolor"]) == 1
    assert second.count(viz.STYLES["grad_done"]["fillcolor"]) == 1   # AddV2 done, Mul running
    finished = viz.draw_tape(tape, target=y, step=99).source
    assert "finished" in finished


def test_gradients_are_printed_beside_sources():
    tape, x, y = _cubic_tape()
    grads = tape.gradient(y, tape.watched_variables())
    src = viz.draw_tape(tape, target=y, gradients=grads).source
    assert "grad = 15.0" in src   # 3x^2 + c = 12 + 3
    assert float(grads[0]) == 15.0


def _dashed(edges):
    return [(tail, head) for tail, head, a in edges if a.get("style") == "dashed"]


def test_tape_picture_is_a_graphviz_digraph():
    tape, _, y = _cubic_tape()
    picture = viz.draw_tape(tape, target=y)
    assert isinstance(picture, graphviz.Digraph) and isinstance(picture, viz.Diagram)
    picture.node("note", label="my note")
    assert "my note" in picture.source


def test_target_is_marked_and_the_gradient_flows_backwards():
    tape, x, y = _cubic_tape()
    nodes, edges, _ = parse(viz.draw_tape(tape, target=y).source)
    target = f"t{y._id}"
    assert nodes[target]["label"].startswith("target") and nodes[target]["peripheries"] == "2"
    assert "= 14.0" in nodes[target]["label"]                 # the caller's y still holds its value
    assert nodes[f"t{x._id}"]["label"].startswith("x:0\\nwatched variable")
    dashed = _dashed(edges)
    # Each visited op: gradient in from its output, out to each input that leads back to x (not to constants).
    assert len(dashed) == 11 and (target, "op4") in dashed
    assert sum(head == f"t{x._id}" for _, head in dashed) == 2            # both reads pass it on to x
    constants = {k for k, a in nodes.items() if a.get("fillcolor") == viz.STYLES["constant"]["fillcolor"]}
    assert len(constants) == 2 and not any(head in constants for _, head in dashed)
    forward = [(tail, head) for tail, head, a in edges if a.get("style") != "dashed"]
    assert set(dashed) == {(head, tail) for tail, head in forward} - {("op1", t) for t in constants} \
        - {("op3", t) for t in constants}                         # the forward edges, reversed
    assert all(a.get("constraint") == "false" for _, _, a in edges if a.get("style") == "dashed")


def test_backward_flow_follows_the_steps():
    tape, _, y = _cubic_tape()
    assert _dashed(parse(viz.draw_tape(tape, target=y, step=0).source)[1]) == []
    first = _dashed(parse(viz.draw_tape(tape, target=y, step=1).source)[1])
    assert sorted(first) == sorted([(f"t{y._id}", "op4"), ("op4", first[1][1]), ("op4", first[2][1])])
    assert len(first) == 3 and len(_dashed(parse(viz.draw_tape(tape).source)[1])) == 0


def test_sources_limit_where_the_gradient_flows():
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(2.0, name="b")
    with tf.GradientTape(persistent=True) as tape:
        y = a * b
    both = _dashed(parse(viz.draw_tape(tape, target=y).source)[1])
    only_a = _dashed(parse(viz.draw_tape(tape, target=y, sources=[a]).source)[1])
    assert len(only_a) < len(both)
    assert not any(head == f"t{b._id}" for _, head in only_a) and any(head == f"t{b._id}" for _, head in both)


def _long_tape():
    x = tf.Variable([1.0, 2.0], name="x")
    with tf.GradientTape(persistent=True) as tape:
        y = x
        for _ in range(50):
            y = tf.sin(y) * 0.5
    assert len(tape._entries) == 101        # a ReadVariableOp, then Sin, Mul, Sin, Mul...
    return tape, x, y


def test_long_tape_draws_ops_only():
    tape, x, y = _long_tape()
    nodes, edges, _ = parse(viz.draw_tape(tape, target=y, max_nodes=150).source)
    ops = [k for k in nodes if k.startswith("op")]
    ovals = [k for k in nodes if k.startswith("t")]
    assert len(ops) == 101 and sorted(ovals) == sorted([f"t{x._id}", f"t{y._id}"])
    assert "float32 (2,)" in nodes["op1"]["label"]               # results are inside the op boxes
    labels = {(tail, head): a.get("label") for tail, head, a in edges}
    assert labels[("op1", "op2")] == "0: float32 (2,)"
    assert len(_dashed(edges)) == 101 + 1                         # op -> op backwards, plus the target's seed
    full = parse(viz.draw_tape(tape, tensors=True).source)[0]
    assert len([k for k in full if k.startswith("t")]) > 100
    small, _, _ = parse(viz.draw_tape(_cubic_tape()[0], tensors=False).source)
    assert len([k for k in small if k.startswith("t")]) == 1       # only the variable


def test_long_tape_folds_its_middle_to_fit_the_budget():
    tape, x, y = _long_tape()
    nodes, edges, _ = parse(viz.draw_tape(tape, target=y).source)
    assert len(nodes) <= 60
    label = nodes["folded"]["label"]
    assert label.startswith("ops 29-73 folded\\n45 ops:") and "23 Mul" in label and "22 Sin" in label
    assert "45 on the backward walk" in label
    ops = sorted(int(k[2:]) for k in nodes if k.startswith("op"))
    assert ops == list(range(28)) + list(range(73, 101))            # 56 drawn + 45 folded = 101
    pairs = {(tail, head) for tail, head, _ in edges}
    assert ("op27", "folded") in pairs and ("folded", "op73") in pairs
    dashed = set(_dashed(edges))
    assert ("op73", "folded") in dashed and ("folded", "op27") in dashed
    assert all(tail in nodes and head in nodes for tail, head in pairs)


def test_used_tape_gives_a_note_not_an_error():
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = x * x
    tape.gradient(y, x)
    diagram = viz.draw_tape(tape)
    assert "persistent=True" in diagram.source


def test_draw_graph_generic():
    d = viz.draw_graph({"GPU:0": {"kind": "device"}, "GPU:1": {"kind": "device"}},
                       [("GPU:0", "GPU:1", "chunk 0"), ("GPU:1", "GPU:2", {"color": "red"})],
                       title="ring", layout="circo")
    src = d.source
    assert 'label="GPU:0"' in src and 'label="GPU:2"' in src    # GPU:2 added from the edge
    assert "n0 -> n1" in src and 'label="chunk 0"' in src and "color=red" in src
    assert viz.STYLES["device"]["shape"] in src and "layout=circo" in src and "ring" in src
    plain = viz.draw_graph(["a", ("b", "B label")], [("a", "b")]).source
    assert 'label="B label"' in plain and "n0 -> n1" in plain


# --- rendering ---------------------------------------------------------------------------
def test_a_renderer_is_available_after_pip_install():
    """`pip install -e .` brings graphviz-pure, so this machine can draw (dot is optional)."""
    found = viz.find_renderers()
    assert found, "neither `dot` nor `graphviz-pure` found: is the project installed with its dependencies?"


def test_renders_svg():
    tape, _, y = _cubic_tape()
    diagram = viz.draw_tape(tape, target=y)
    svg = diagram.svg()
    assert svg is not None and "<svg" in svg and "Pow" in svg and "AddV2" in svg
    bundle = diagram._repr_mimebundle_()
    assert "<svg" in bundle["image/svg+xml"]
    assert diagram._repr_svg_() == svg


def test_jupyter_displays_svg():
    from IPython.core.formatters import DisplayFormatter
    tape, _, _ = _cubic_tape()
    data, _ = DisplayFormatter().format(viz.draw_tape(tape))
    assert "<svg" in data["image/svg+xml"]


def test_save_by_extension(tmp_path):
    d = viz.draw_graph(["a", "b"], [("a", "b")])
    assert d.save(tmp_path / "g.svg").read_text().lstrip().startswith("<?xml")
    assert d.save(tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert d.save(tmp_path / "g.dot").read_text() == d.source


def test_graphviz_pure_found_beside_python_without_path(monkeypatch):
    """A Jupyter kernel started as .venv/bin/jupyter may not have .venv/bin on PATH."""
    beside = os.path.join(sysconfig.get_path("scripts"), "graphviz-pure")
    if not os.path.exists(beside):
        pytest.skip("graphviz-pure is not installed next to this Python")
    monkeypatch.setenv("PATH", "")
    assert beside in viz.find_renderers()


# --- the fallback: never crash a notebook -------------------------------------------------
def test_no_renderer_falls_back_to_dot_text(no_renderer, tmp_path):
    tape, _, y = _cubic_tape()
    diagram = viz.draw_tape(tape, target=y, step=1)
    assert viz.find_renderers() == []
    assert diagram.svg() is None and diagram._repr_svg_() is None
    bundle = diagram._repr_mimebundle_()
    assert "image/svg+xml" not in bundle
    assert "No Graphviz renderer" in bundle["text/plain"] and diagram.source in bundle["text/plain"]
    with pytest.warns(RuntimeWarning, match="DOT source"):
        written = diagram.save(tmp_path / "tape.svg")
    assert written.suffix == ".dot" and written.read_text() == diagram.source


def test_jupyter_shows_text_without_renderer(no_renderer):
    from IPython.core.formatters import DisplayFormatter
    data, _ = DisplayFormatter().format(viz.draw_graph(["a"]))
    assert "image/svg+xml" not in data and "digraph" in data["text/plain"]


def test_failing_renderer_falls_back(tmp_path, monkeypatch):
    fake = tmp_path / "dot"
    fake.write_text("#!/bin/sh\necho 'Error: syntax error in line 1' >&2\nexit 1\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setattr(viz.diagram, "RENDERERS", ("dot",))
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(viz.diagram.sysconfig, "get_path", lambda name: str(tmp_path))
    d = viz.draw_graph(["a"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bundle = d._repr_mimebundle_()
    assert "syntax error" in bundle["text/plain"] and "digraph" in bundle["text/plain"]


def test_no_gradient_highlight_on_integer_inputs():
    x = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape(persistent=True) as tape:
        y = tf.reduce_sum(x, axis=0)          # the axis is an int32 input of Sum
    src = viz.draw_tape(tape, target=y).source
    int_node = [line for line in src.splitlines() if "int32" in line]
    assert int_node and viz.STYLES["grad_tensor"]["color"] not in int_node[0]
    float_nodes = [line for line in src.splitlines() if "float32 (2,)" in line]
    assert viz.STYLES["grad_tensor"]["color"] in float_nodes[0]


def test_wide_pictures_shrink_to_the_output_area_in_a_notebook():
    # a graph of 60 parallel ops is far wider than a notebook's output area: its displayed SVG carries
    # max-width: 100% (the viewBox keeps its proportions); the saved file is left as drawn
    import engine as tf
    from engine import viz
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [3], name="x")
        outs = [tf.exp(x * float(k)) for k in range(60)]
    d = viz.draw_graph(g)
    svg = d.svg()
    if svg is None:
        import pytest
        pytest.skip("no SVG renderer here")
    shown = d._repr_mimebundle_()["image/svg+xml"]
    root = shown[shown.find("<svg"):shown.find(">", shown.find("<svg"))]
    assert 'style="max-width: 100%; height: auto"' in root and "viewBox" in root
    assert "max-width" not in svg[svg.find("<svg"):svg.find(">", svg.find("<svg"))]
    assert len(outs) == 60
