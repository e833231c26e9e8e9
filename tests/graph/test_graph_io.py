"""GraphDef export/import (engine/framework/graph_io.py, engine/io.py, docs/graph_format.md).

Error messages follow TensorFlow 2.21's import_graph_def (recorded with the real TF).
"""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import engine as tf
from engine import io as tf_io
from engine.framework import graph_io
from engine.framework.graph_io import GraphDef, NodeDef, VersionDef, graph_to_graph_def, import_graph_def
from op_catalog import CASES  # sample calls covering every registered op (tests/graph/op_catalog.py)

v1 = tf.compat.v1
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _dense_graph():
    """placeholder -> matmul(Const weight) + graph-mode variable -> relu, an initializer and an update."""
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 3], name="x")
        w = tf.constant([[1., -1.], [2., 0.5], [-3., 1.]], name="W")
        b = tf.Variable([0.5, -0.25], name="b")
        y = tf.nn.relu(tf.matmul(x, w) + b, name="y")
        step = b.assign_add([1., 1.], read_value=False)
        init = v1.global_variables_initializer()
    return g, x, y, step, init


def _roundtrip(graph_def, **kwargs):
    """Through the file text and back, then into a fresh graph."""
    parsed = GraphDef.from_json(graph_def.to_json())
    g = tf.Graph()
    with g.as_default():
        result = import_graph_def(parsed, **kwargs)
    return g, result


# --- the data structure and the file text -------------------------------------------------------------
def test_graph_def_nodes_edges_and_attrs():
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 3], name="x")
        a, b = tf.unstack(tf.ones([2, 3]), name="u")
        with tf.control_dependencies([x]):
            y = tf.add(b, x, name="y")
    gd = graph_to_graph_def(g)
    by_name = {n.name: n for n in gd.node}
    assert [n.name for n in gd.node] == [op.name for op in g.get_operations()]
    assert by_name["y"].op == "AddV2"
    assert by_name["y"].input == ["u:1", "x"]  # a control input that is also a data input is dropped
    assert by_name["x"].attr == {"dtype": tf.float32, "shape": tf.TensorShape([None, 3])}
    assert by_name["u"].attr == {"num": 2, "axis": 0}
    assert gd.versions == VersionDef(1, 1)
    assert repr(gd) == f"<GraphDef: {len(gd.node)} nodes, producer version 1>"


def test_control_inputs_are_caret_names():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0, name="a")
        with tf.control_dependencies([a]):
            c = tf.constant(2.0, name="c")
    assert graph_to_graph_def(g).node[1].input == ["^a"]
    assert c.op.control_inputs == [a.op]


def test_text_form_is_the_documented_json():
    g, *_ = _dense_graph()
    gd = graph_to_graph_def(g)
    text = str(gd)
    assert text == gd.to_json(pretty=True)
    lines = text.splitlines()
    assert lines[:4] == ["{", '  "format": "engine.GraphDef",', '  "versions": {"producer": 1, "min_consumer": 1},',
                         '  "node": [']
    assert len(lines) == len(gd.node) + 6  # one node per line
    assert lines[4] == ('    {"name": "x", "op": "Placeholder", "input": [], "attr": {"dtype": {"type": "float32"}, '
                        '"shape": {"shape": [null, 3]}}},')
    weight = json.loads(text)["node"][1]
    assert weight["attr"]["value"] == {"tensor": {"dtype": "float32", "shape": [3, 2],
                                                  "tensor_content": "AACAPwAAgL8AAABAAAAAPwAAQMAAAIA/"}}
    compact = gd.SerializeToString()
    assert isinstance(compact, bytes) and b"\n" not in compact
    assert json.loads(compact) == json.loads(text)
    assert GraphDef.FromString(compact) == gd and GraphDef.from_json(text) == gd


@pytest.mark.parametrize("value, tagged", [
    (None, None), (True, {"b": True}), (np.bool_(False), {"b": False}), (3, {"i": 3}), (np.int64(-7), {"i": -7}),
    (0.25, {"f": 0.25}), (float("inf"), {"f": "inf"}), ("SAME", {"s": "SAME"}), (tf.int64, {"type": "int64"}),
    (tf.dtypes.resource, {"type": "resource"}), (tf.TensorShape(None), {"shape": None}),
    (tf.TensorShape([]), {"shape": []}), (tf.TensorShape([None, 4]), {"shape": [None, 4]}),
    ((1, 2, 2, 1), {"list": [{"i": 1}, {"i": 2}, {"i": 2}, {"i": 1}]}), ((), {"list": []}),
])
def test_attr_values_are_tagged(value, tagged):
    assert graph_io._encode_attr(value, "test") == tagged
    back = graph_io._decode_attr(json.loads(json.dumps(tagged)), "test")
    assert back == value


def test_nan_attr_round_trips():
    assert np.isnan(graph_io._decode_attr(graph_io._encode_attr(float("nan"), "t"), "t"))


@pytest.mark.parametrize("array", [
    np.arange(6, dtype=np.float32).reshape(2, 3), np.array([1.5, -2.25], np.float16), np.array(np.pi),
    np.array([[-(2 ** 40)]], np.int64), np.array([0, 255], np.uint8), np.array([True, False]),
    np.zeros((0, 3), np.float32), np.array([b"ab", b"", b"\xff\x00"]), np.array([[b"x"], [b"yz"]]),
    np.empty((0,), "S1"),
])
def test_tensors_round_trip_exactly(array):
    tagged = graph_io._encode_attr(array, "test")
    back = graph_io._decode_attr(json.loads(json.dumps(tagged)), "test")
    assert back.dtype == array.dtype and back.shape == array.shape
    np.testing.assert_array_equal(back, array)


def test_tensor_content_is_little_endian():
    big = np.array([1, 2], dtype=">i4")
    assert graph_io._encode_tensor(big)["tensor_content"] == "AQAAAAIAAAA="
    assert graph_io._decode_tensor({"dtype": "int32", "shape": [2], "tensor_content": "AQAAAAIAAAA="},
                                   "t").tolist() == [1, 2]


def test_documented_example_is_what_the_engine_writes():
    doc = open(os.path.join(REPO, "docs", "graph_format.md"), encoding="utf-8").read()
    example = doc.split("```json\n")[1].split("```")[0]
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 3], name="x")
        w = tf.constant([[1., -1.], [2., 0.5], [-3., 1.]], name="W")
        b = tf.Variable([0.5, -0.25], name="b")
        y = tf.nn.relu(tf.matmul(x, w) + b, name="y")
        tf.constant(["cat", "dog"], name="labels")
        tf.unstack(y, num=2, axis=1, name="parts")
        v1.global_variables_initializer()
    assert graph_to_graph_def(g).to_json() == example
    g2, (x2, y2, init2) = _roundtrip(GraphDef.from_json(example), return_elements=["x:0", "y:0", "init"])
    with v1.Session(graph=g2) as sess:
        sess.run(init2)
        np.testing.assert_array_equal(sess.run(y2, {x2: [[1., 2., 3.]]}), [[0., 2.75]])


# --- deployment: a fresh process that never sees the builder code ---------------------------------------
_SERVER = textwrap.dedent("""
    import json, sys
    import numpy as np
    import engine as tf
    from engine.io import read_graph
    from engine.framework.graph_io import import_graph_def

    path, feed = sys.argv[1], json.loads(sys.argv[2])
    graph_def = read_graph(path)
    g = tf.Graph()
    with g.as_default():
        x, y, init, step = import_graph_def(graph_def, return_elements=["x:0", "y:0", "init", sys.argv[3]])
    with tf.compat.v1.Session(graph=g) as sess:
        sess.run(init)
        first = sess.run(y, {x: feed})
        sess.run(step)
        second = sess.run(y, {x: feed})
    print(json.dumps({"first": first.tolist(), "second": second.tolist(), "dtype": str(first.dtype),
                      "names": [op.name for op in g.get_operations()][:3],
                      "builder_modules": sorted(m for m in sys.modules if "test_graph_io" in m or "conftest" in m)}))
""")


def test_imported_graph_runs_in_a_fresh_process(tmp_path):
    g, x, y, step, init = _dense_graph()
    feed = [[1., 2., 3.], [-1., 0.5, 2.]]
    with v1.Session(graph=g) as sess:
        sess.run(init)
        first = sess.run(y, {x: feed})
        sess.run(step)
        second = sess.run(y, {x: feed})
    path = tf_io.write_graph(g, str(tmp_path / "model"), "dense.json")
    assert path == str(tmp_path / "model" / "dense.json")

    env = dict(os.environ, PYTHONPATH=REPO)
    done = subprocess.run([sys.executable, "-c", _SERVER, path, json.dumps(feed), step.name],
                          capture_output=True, text=True, timeout=120, cwd=str(tmp_path), env=env)
    assert done.returncode == 0, done.stderr
    served = json.loads(done.stdout.strip().splitlines()[-1])
    assert served["builder_modules"] == []
    assert served["names"] == ["import/x", "import/W", "import/Const"]
    assert served["dtype"] == "float32"
    np.testing.assert_array_equal(np.array(served["first"], np.float32), first)
    np.testing.assert_array_equal(np.array(served["second"], np.float32), second)
    assert not np.array_equal(first, second)  # the update ran against the served variable


# --- round trips ---------------------------------------------------------------------------------------------
def test_gradient_graph_round_trips():
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 3], name="x")
        w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2) / 10, name="w")
        b = tf.Variable([0.1, -0.2], name="b")
        logits = tf.matmul(x, w) + b
        loss = tf.reduce_mean(tf.square(tf.nn.relu(logits) - 1.0)) + tf.reduce_sum(tf.reshape(b, [1, 2]))
        grads = v1.gradients(loss, [x, w, b])
        init = v1.global_variables_initializer()
    gd = graph_to_graph_def(g)
    types = {n.op for n in gd.node}
    assert {"Shape", "BroadcastGradientArgs", "Sum", "Reshape", "ReluGrad"} <= types
    feed = np.array([[1., 2., 3.], [0.5, -1., 2.], [0., 0., 1.]], np.float32)
    with v1.Session(graph=g) as sess:
        sess.run(init)
        expected = sess.run([loss] + grads, {x: feed})

    g2, (x2, loss2, init2, *grads2) = _roundtrip(gd, return_elements=["x:0", loss.name, "init"] +
                                                  [t.name for t in grads])
    assert [op.type for op in g2.get_operations()] == [op.type for op in g.get_operations()]
    assert [t.shape.as_list() for t in grads2] == [t.shape.as_list() for t in grads]
    with v1.Session(graph=g2) as sess:
        sess.run(init2)
        got = sess.run([loss2] + grads2, {x2: feed})
    for e, r in zip(expected, got):
        np.testing.assert_array_equal(r, e)


def _catalog_graph(case):
    """The case's ops on placeholders, plus first-order gradients of the sum of its float outputs."""
    g = tf.Graph()
    with g.as_default():
        phs = [v1.placeholder(tf.as_dtype(a.dtype), a.shape) for a in case.inputs]
        outs = case.fn(*phs)
        outs = [o for o in (outs if isinstance(outs, (list, tuple)) else [outs]) if hasattr(o, "op")]
        floats = [tf.reduce_sum(tf.cast(o, tf.float64)) for o in outs if o.dtype.is_floating]
        grads = []
        if floats and case.grad:
            grads = [t for t in v1.gradients(tf.add_n(floats), [phs[i] for i in case.grad]) if t is not None]
    return g, phs, outs + grads


def _outcome(graph, fetch, feeds):
    """The fetched values, or the error a run raises (both must survive export and import unchanged)."""
    try:
        with v1.Session(graph=graph) as sess:
            return [np.asarray(v) for v in sess.run(fetch, feeds)]
    except Exception as error:  # noqa: BLE001
        return type(error), str(error)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_every_catalog_op_round_trips(case):
    g, phs, fetch = _catalog_graph(case)
    gd = graph_to_graph_def(g)
    g2, _ = _roundtrip(gd, name="")
    assert graph_to_graph_def(g2).to_json() == gd.to_json()  # same nodes, edges and attrs
    fetch2 = [g2.get_tensor_by_name(t.name) for t in fetch]
    for t, t2 in zip(fetch, fetch2):
        assert t2.dtype == t.dtype and t2.shape.is_compatible_with(t.shape)
    expected = _outcome(g, fetch, dict(zip(phs, case.inputs)))
    got = _outcome(g2, fetch2, {g2.get_tensor_by_name(p.name): a for p, a in zip(phs, case.inputs)})
    if isinstance(expected, tuple):
        assert got == expected
        return
    for e, r in zip(expected, got):
        assert r.dtype == e.dtype
        np.testing.assert_array_equal(r, e)


def test_control_dependencies_survive_import():
    g = tf.Graph()
    with g.as_default():
        counter = tf.Variable(0, name="counter")
        bump = counter.assign_add(1, read_value=False)
        with tf.control_dependencies([bump]):
            out = tf.identity(tf.constant(7), name="out")
        current = tf.identity(counter, name="current")
        v1.global_variables_initializer()
    out_node = graph_to_graph_def(g).node[[op.name for op in g.get_operations()].index("out")]
    assert out_node.input == [out.op.inputs[0].op.name, "^" + bump.name]
    g2, (out2, current2, init2) = _roundtrip(graph_to_graph_def(g), return_elements=["out:0", "current:0", "init"])
    assert [c.name for c in out2.op.control_inputs] == ["import/" + bump.name]
    with v1.Session(graph=g2) as sess:
        sess.run(init2)
        assert sess.run(current2) == 0
        assert sess.run(out2) == 7 and sess.run(out2) == 7
        assert sess.run(current2) == 2  # each run of `out` ran the increment first


def test_name_scopes_and_prefixes():
    g = tf.Graph()
    with g.as_default():
        with tf.name_scope("layer"):
            y = tf.multiply(tf.constant(2.0, name="two"), 3.0, name="y")
    gd = graph_to_graph_def(g)
    assert [n.name for n in gd.node] == ["layer/two", "layer/Const", "layer/y"]
    target = tf.Graph()
    with target.as_default():
        first, = import_graph_def(gd, return_elements=["layer/y:0"])
        second, = import_graph_def(gd, return_elements=["layer/y:0"])
        with tf.name_scope("outer"):
            third, = import_graph_def(gd, return_elements=["layer/y:0"], name="model")
        top, = import_graph_def(gd, return_elements=["layer/y:0"], name="")
        again, = import_graph_def(gd, return_elements=["layer/y:0"], name="")
    assert [t.name for t in (first, second, third, top, again)] == [
        "import/layer/y:0", "import_1/layer/y:0", "outer/model/layer/y:0", "layer/y:0", "layer/y_1:0"]
    assert again.op.inputs[0].name == "layer/two_1:0"
    with v1.Session(graph=target) as sess:
        assert sess.run([first, third, again]) == [6.0, 6.0, 6.0]


def test_names_do_not_clash_with_later_ops():
    g = tf.Graph()
    with g.as_default():
        tf.constant(1.0, name="c")
    target = tf.Graph()
    with target.as_default():
        import_graph_def(graph_to_graph_def(g), name="")
        later = tf.constant(2.0, name="c")
    assert later.name == "c_1:0"


def test_multi_output_ops():
    g = tf.Graph()
    with g.as_default():
        data = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3), name="data")
        rows = tf.unstack(data, name="rows")
        halves = tf.split(data, 2, name="halves")
        first_row = halves[1][0]
        tf.add(rows[3], first_row, name="total")
    nodes = {n.name: n for n in graph_to_graph_def(g).node}
    assert nodes["total"].input == ["rows:3", first_row.op.name]
    assert nodes[first_row.op.name].input[0] == "halves:1"
    g2, (r3, h1, total2) = _roundtrip(graph_to_graph_def(g), return_elements=["rows:3", "halves:1", "total:0"])
    assert r3.op.type == "Unpack" and len(r3.op.outputs) == 4 and r3.value_index == 3
    assert h1.op.type == "Split" and h1.shape.as_list() == [2, 3]
    with v1.Session(graph=g2) as sess:
        r, h, t = sess.run([r3, h1, total2])
    np.testing.assert_array_equal(r, [9., 10., 11.])
    np.testing.assert_array_equal(h, [[6., 7., 8.], [9., 10., 11.]])
    np.testing.assert_array_equal(t, [15., 17., 19.])


def test_split_output_index_in_inputs():
    g = tf.Graph()
    with g.as_default():
        a, b = tf.split(tf.ones([4]), 2, name="s")
        tf.identity(b, name="out")
    assert graph_to_graph_def(g).node[-1].input == ["s:1"]


def test_random_ops_keep_their_seeds():
    g = tf.Graph()
    with g.as_default():
        tf.random.set_seed(5)
        n = tf.random.normal([3], name="n")
        u = tf.random.uniform([2], maxval=10, dtype=tf.int32, seed=7, name="u")
    originals = {op.name: op.attrs for op in g.get_operations() if op.type.startswith("Random")}
    assert {(a["seed"], a["seed2"]) for a in originals.values()} == {(5, 0), (5, 7)}
    g2, (n2, u2) = _roundtrip(graph_to_graph_def(g), return_elements=[n.name, u.name])
    for op in g2.get_operations():
        if op.type.startswith("Random"):
            assert op.attrs == originals[op.name[len("import/"):]]
    with v1.Session(graph=g) as sess:
        expected = sess.run([n, u])
    with v1.Session(graph=g2) as sess:
        got = sess.run([n2, u2])
    for e, r in zip(expected, got):
        np.testing.assert_array_equal(r, e)


def test_string_attrs_and_string_constants():
    g = tf.Graph()
    with g.as_default():
        image = tf.reshape(tf.range(16.0), [1, 4, 4, 1])
        pooled = tf.nn.max_pool2d(image, 2, 2, "VALID", name="pool")
        prod = tf.einsum("ij,jk->ik", tf.ones([2, 3]), tf.ones([3, 2]), name="prod")
        words = tf.constant([["héllo", "a"], ["", "b"]], name="words")
    node = {n.name: n for n in graph_to_graph_def(g).node}
    assert node["pool"].attr["padding"] == "VALID" and node[prod.op.name].attr["equation"] == "ij,jk->ik"
    g2, results = _roundtrip(graph_to_graph_def(g), return_elements=["pool:0", prod.name, "words:0"])
    assert g2.get_operation_by_name("import/pool").attrs == g.get_operation_by_name("pool").attrs
    with v1.Session(graph=g) as sess:
        expected = sess.run([pooled, prod, words])
    with v1.Session(graph=g2) as sess:
        got = sess.run(results)
    for e, r in zip(expected, got):
        assert r.dtype == e.dtype
        np.testing.assert_array_equal(r, e)
    assert got[2][0, 0].decode("utf-8") == "héllo"


def test_nested_list_attrs_round_trip(capsys):
    g = tf.Graph()
    with g.as_default():
        printed = tf.print("value:", tf.constant([1, 2]), output_stream=sys.stdout, name="show")
    template = printed.attrs["template"]
    assert template == ((False, "value:"), (True, None))
    g2, (show,) = _roundtrip(graph_to_graph_def(g), return_elements=["show"])
    assert show.attrs == printed.attrs
    with v1.Session(graph=g2) as sess:
        sess.run(show)
    assert capsys.readouterr().out == "value: [1 2]\n"


def test_nodes_may_come_in_any_order():
    g, x, y, step, init = _dense_graph()
    gd = graph_to_graph_def(g)
    shuffled = GraphDef(list(reversed(gd.node)))
    g2, (x2, y2, init2) = _roundtrip(shuffled, return_elements=["x:0", "y:0", "init"])
    names = [op.name for op in g2.get_operations()]
    assert names.index("import/W") < names.index("import/MatMul") < names.index("import/y")
    with v1.Session(graph=g2) as sess:
        sess.run(init2)
        np.testing.assert_array_equal(sess.run(y2, {x2: [[1., 1., 1.]]}), [[0.5, 0.25]])


def test_input_map_replaces_a_tensor():
    g, *_ = _dense_graph()
    gd = graph_to_graph_def(g)
    target = tf.Graph()
    with target.as_default():
        batch = tf.constant([[1., 1., 1.]])
        y, x, init = import_graph_def(gd, input_map={"x": batch}, return_elements=["y:0", "x:0", "init"])
        assert y.shape.as_list() == [1, 2]  # re-inferred from the mapped tensor
        assert y.op.inputs[0].op.inputs[0].op.inputs[0] is batch
        assert x.name == "import/x:0"  # the mapped node is still imported
        y_again, = import_graph_def(gd, input_map={"x:0": batch}, return_elements=["y:0"])
    with v1.Session(graph=target) as sess:
        sess.run(init)
        np.testing.assert_array_equal(sess.run(y), [[0.5, 0.25]])
        np.testing.assert_array_equal(sess.run(y_again), [[0.5, 0.25]])


def test_input_map_dtype_must_match():
    g, *_ = _dense_graph()
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"Input 0 of node import/MatMul was passed int32 from Const:0 "
                                             r"incompatible with expected float32\."):
            import_graph_def(graph_to_graph_def(g), input_map={"x:0": tf.constant([[1, 2, 3]])})
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
            import_graph_def(graph_to_graph_def(g), input_map={"x:0": tf.constant([[1., 2.]])})
        with pytest.raises(TypeError, match="input_map must map names to Tensors"):
            import_graph_def(graph_to_graph_def(g), input_map={"x:0": [[1., 2., 3.]]})


def test_devices_are_kept_and_soft_placed():
    g = tf.Graph()
    with g.as_default(), tf.device("/CPU:0"):
        tf.constant(1.0, name="c")
        tf.constant(2.0, name="d")
    gd = graph_to_graph_def(g)
    assert gd.node[0].device == "/job:localhost/replica:0/task:0/device:CPU:0"
    assert '"device": "/job:localhost/replica:0/task:0/device:CPU:0"' in gd.to_json()
    gd.node[1].device = "/job:localhost/replica:0/task:0/device:GPU:7"  # written on a machine with GPUs
    g2, (c, d) = _roundtrip(gd, return_elements=["c:0", "d:0"])
    assert (c.device, d.device) == (gd.node[0].device, gd.node[1].device)
    with v1.Session(graph=g2) as sess:
        assert sess.run([c, d]) == [1.0, 2.0]  # a missing device falls back to the default one


def test_import_in_eager_mode_uses_the_default_graph():
    g, *_ = _dense_graph()
    try:
        result = import_graph_def(graph_to_graph_def(g), return_elements=["y:0"])
        assert result[0].graph is tf.get_default_graph() and tf.executing_eagerly()
    finally:
        v1.reset_default_graph()


# --- eager variables -----------------------------------------------------------------------------------------------
def test_eager_variables_must_be_frozen():
    w = tf.Variable([[1.], [2.], [3.]], name="w")
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 3], name="x")
        y = tf.matmul(x, w, name="y")
    with pytest.raises(ValueError, match=r"Cannot export node 'w' \(VarHandleOp\): it refers to the eager "
                                         r"tf.Variable 'w:0'.*freeze_variables=True"):
        graph_to_graph_def(g)
    with pytest.raises(ValueError, match="freeze_variables=True"):
        tf_io.write_graph(g, "/nonexistent-never-created", "g.json")
    gd = graph_to_graph_def(g, freeze_variables=True)
    assert [(n.name, n.op) for n in gd.node] == [("x", "Placeholder"), ("ReadVariableOp", "Const"), ("y", "MatMul")]
    w.assign([[10.], [20.], [30.]])  # the export kept the value at freezing time
    g2, (x2, y2) = _roundtrip(gd, return_elements=["x:0", "y:0"])
    with v1.Session(graph=g2) as sess:
        np.testing.assert_array_equal(sess.run(y2, {x2: [[1., 1., 1.]]}), [[6.]])


def test_assigned_eager_variables_cannot_be_frozen():
    v = tf.Variable(1.0, name="v")
    g = tf.Graph()
    with g.as_default():
        v.assign_add(1.0, read_value=False)
    with pytest.raises(ValueError, match=r"Cannot freeze the eager tf.Variable 'v:0': node 'AssignAdd' "
                                         r"\(AssignAddVariableOp\) uses its handle"):
        graph_to_graph_def(g, freeze_variables=True)


def test_unserializable_attr_is_a_clear_error():
    gd = GraphDef([NodeDef("c", "NoOp", attr={"callback": print})])
    with pytest.raises(TypeError, match=r"Cannot export node 'c' \(NoOp\), attr 'callback': a "
                                        r"builtin_function_or_method .* has no GraphDef encoding"):
        gd.to_json()


# --- bad GraphDefs ------------------------------------------------------------------------------------------------
def _small_graph_def():
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 3], name="x")
        tf.nn.relu(tf.matmul(x, tf.ones([3, 2])), name="y")
    return graph_to_graph_def(g)


def _edited(mutate):
    doc = json.loads(_small_graph_def().to_json())
    mutate(doc)
    return json.dumps(doc)


def test_unknown_op_type_names_op_and_node_and_changes_nothing():
    gd = _small_graph_def()
    next(n for n in gd.node if n.name == "MatMul").op = "FooBar"
    target = tf.Graph()
    with target.as_default():
        with pytest.raises(tf.errors.NotFoundError, match=r"Op type not registered 'FooBar' .*node 'MatMul'"):
            import_graph_def(gd)
    assert target.get_operations() == []


def test_file_versions_are_checked():
    with pytest.raises(ValueError, match="GraphDef min consumer version 99 above current version 2 for this engine. "
                                         "Please upgrade the engine."):
        GraphDef.from_json(_edited(lambda d: d["versions"].update(min_consumer=99)))
    with pytest.raises(ValueError, match="GraphDef producer version 0 below min producer 1"):
        GraphDef.from_json(_edited(lambda d: d["versions"].update(producer=0)))
    gd = _small_graph_def()
    gd.versions = VersionDef(producer=3, min_consumer=3)
    with tf.Graph().as_default(), pytest.raises(ValueError, match="min consumer version 3 above current version 2"):
        import_graph_def(gd)


def test_other_files_are_refused():
    with pytest.raises(ValueError, match=r'Not a GraphDef file: expected "format": "engine.GraphDef", found '
                                         r"'something.else'"):
        GraphDef.from_json(_edited(lambda d: d.update(format="something.else")))
    with pytest.raises(ValueError, match="Not a GraphDef file: invalid JSON"):
        GraphDef.from_json("node { name: 'x' }")
    with pytest.raises(ValueError, match="found 'list'"):
        GraphDef.from_json("[1, 2]")
    with pytest.raises(ValueError, match="every node needs \"name\" and \"op\""):
        GraphDef.from_json(_edited(lambda d: d["node"].append({"name": "z"})))
    with pytest.raises(ValueError, match=r"Bad attr value for node 'x' \(Placeholder\), attr 'dtype': unknown kind "
                                         r"'dtype'"):
        GraphDef.from_json(_edited(lambda d: d["node"][0]["attr"].update(dtype={"dtype": "float32"})))
    with pytest.raises(ValueError, match=r"Bad tensor for node 'Const_1' \(Const\), attr 'value': tensor_content "
                                         r"has 8 bytes, but a int32 tensor of shape \[3, 3\] needs 36\."):
        GraphDef.from_json(_edited(lambda d: d["node"][2]["attr"]["value"]["tensor"].update(shape=[3, 3])))


def test_broken_edges_and_names():
    def fails(gd, message):
        target = tf.Graph()
        with target.as_default(), pytest.raises(ValueError, match=message):
            import_graph_def(gd)
        assert target.get_operations() == []

    gd = _small_graph_def()
    gd.node[-1].input[0] = "nothere"
    fails(gd, "Node 'y': Unknown input node 'nothere'")
    gd = _small_graph_def()
    gd.node[-1].input[0] = "MatMul:3"
    fails(gd, "Node 'y': Connecting to invalid output 3 of source node MatMul which has 1 outputs.")
    gd = _small_graph_def()
    gd.node.append(gd.node[0])
    fails(gd, "Node 'x' is not unique")
    gd = _small_graph_def()
    gd.node[1].input += ["y", "^y"]
    fails(gd, "4 nodes in a cycle or depending on one: Const, ones, MatMul, y")
    gd = _small_graph_def()
    gd.node[0].name = "a b"
    fails(gd, "Node 'a b': Node name contains invalid characters")


def test_input_map_and_return_elements_must_name_real_things():
    gd = _small_graph_def()
    with tf.Graph().as_default() as target:
        p = tf.constant([[1., 2., 3.]])
        with pytest.raises(ValueError, match=r"Attempted to map inputs that were not found in graph_def: \[zz:0\]"):
            import_graph_def(gd, input_map={"zz:0": p})
        with pytest.raises(ValueError, match=r"not found in graph_def: \[x:1\]"):
            import_graph_def(gd, input_map={"x:1": p})
        with pytest.raises(ValueError, match="Requested return tensor 'zz:0' not found in graph def"):
            import_graph_def(gd, return_elements=["zz:0"])
        with pytest.raises(ValueError, match="Requested return node 'zz' not found in graph def"):
            import_graph_def(gd, return_elements=["zz"])
        with pytest.raises(ValueError, match=r"Invalid return output 5 of node 'y', which has 1 output\(s\)"):
            import_graph_def(gd, return_elements=["y:5"])
        with pytest.raises(TypeError, match="graph_def must be a GraphDef, not dict"):
            import_graph_def({"node": []})
    assert [op.name for op in target.get_operations()] == ["Const"]
    with tf.Graph().as_default():
        assert import_graph_def(gd) is None


# --- tf.io ------------------------------------------------------------------------------------------------------------
def test_write_graph_text_and_compact(tmp_path):
    g, *_ = _dense_graph()
    text_path = tf_io.write_graph(g, str(tmp_path / "a" / "b"), "g.json")
    compact_path = tf_io.write_graph(graph_to_graph_def(g), str(tmp_path), "g.bin", as_text=False)
    text, compact = open(text_path).read(), open(compact_path).read()
    assert len(text.splitlines()) == len(g.get_operations()) + 6 and "\n" not in compact
    assert tf_io.read_graph(text_path) == tf_io.read_graph(compact_path) == graph_to_graph_def(g)
    with pytest.raises(TypeError, match="write_graph needs a tf.Graph or a GraphDef, not str"):
        tf_io.write_graph("graph", str(tmp_path), "x.json")


def test_public_names():
    g, *_ = _dense_graph()
    assert g.as_graph_def() == graph_to_graph_def(g)
    assert tf.compat.v1.import_graph_def is import_graph_def
    assert tf.graph_util.import_graph_def is import_graph_def
    assert tf.import_graph_def is import_graph_def
    assert tf.compat.v1.GraphDef is GraphDef
    assert tf.io.write_graph is tf_io.write_graph and tf.io.read_graph is tf_io.read_graph


def test_a_function_graph_writes_a_captured_variable_as_a_resource_placeholder():
    """TF 2.21 writes a tf.function's captured variable as a ``resource`` Placeholder its calls feed
    (``mul/ReadVariableOp/resource``); the engine's graph holds the variable itself, and writes that
    node as TF's kind of node, under the engine's name for it."""
    v = tf.Variable(2.0, name="weight")

    @tf.function
    def f(x):
        return x * v
    graph_def = f.get_concrete_function(tf.constant(1.0)).graph.as_graph_def()
    nodes = {n.name: n for n in graph_def.node}
    assert (nodes["weight"].op, nodes["weight"].attr["dtype"], nodes["weight"].input) == \
        ("Placeholder", tf.resource, [])
    assert [n.op for n in graph_def.node] == ["Placeholder", "Placeholder", "ReadVariableOp", "Mul", "Identity",
                                              "NoOp"]   # TF 2.21's list (the read is a side effect)
    assert nodes["ReadVariableOp"].input == ["weight"]
    frozen = f.get_concrete_function(tf.constant(1.0)).graph.as_graph_def(freeze_variables=True)
    # TF's convert_variables_to_constants_v2 keeps the NoOp too, waiting for the frozen read
    assert [n.op for n in frozen.node] == ["Placeholder", "Const", "Mul", "Identity", "NoOp"]
    assert frozen.node[-1].input == ["^ReadVariableOp"] and frozen.node[-2].input == ["mul", "^NoOp"]
