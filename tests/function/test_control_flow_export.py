"""Export and import of graphs and tf.functions with control flow (GraphDef function library).

A cond branch, a loop body or a loop's backward body is a sub-graph; a GraphDef keeps
them in its ``library`` and the If/While nodes name them (``docs/graph_format.md``).
Golden values come from TensorFlow 2.21 (the same graphs and modules, run there).
"""
import inspect
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import engine as tf
import engine.saved_model  # noqa: F401
from engine.framework.graph_io import (GraphDef, NameAttrList, NodeDef, VersionDef, graph_to_graph_def,
                                       import_graph_def)

v1 = tf.compat.v1
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# --- tf.Graph + Session ------------------------------------------------------------------------------
def _control_flow_graph():
    """A cond reading a graph variable, a loop whose body holds a cond, and tf.gradients of it all."""
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [], name="x")
        w = tf.Variable(3.0, name="w")
        y = tf.cond(x > 0, lambda: tf.sin(x) * w, lambda: x * x, name="c")
        z = tf.while_loop(lambda i, a: i < 3,
                          lambda i, a: (i + 1, tf.cond(a > 1.0, lambda: a * 0.5, lambda: a * x)), [0, y])[1]
        gx, gw = tf.gradients(z, [x, w])
        v1.global_variables_initializer()
    return g, [y.name, z.name, gx.name, gw.name]


# TF 2.21, graph mode: [z, dz/dx, dz/dw] at x = 0.5, 2.0, -0.7
GRAPH_GOLDEN = [[0.17978458106517792, 1.048231840133667, 0.05992819368839264],
                [1.3639460802078247, 0.057752788066864014, 0.4546487033367157],
                [-0.168069988489151, 1.2005000114440918, 0.0]]


def _run_imported(graph_def, names):
    g = tf.Graph()
    with g.as_default():
        x, *fetches, init = import_graph_def(graph_def, return_elements=["x:0"] + names[1:] + ["init"])
    with v1.Session(graph=g) as sess:
        sess.run(init)
        return [sess.run(fetches, {x: v}) for v in (0.5, 2.0, -0.7)]


def test_graph_with_cond_and_loop_round_trips_and_runs_in_a_session():
    g, names = _control_flow_graph()
    gd = graph_to_graph_def(g)
    assert [n.op for n in gd.node if n.op in ("If", "StatelessIf", "StatelessWhile", "While", "WhileGrad")]
    parsed = GraphDef.FromString(gd.SerializeToString())
    assert parsed == gd and str(parsed) == str(gd)
    np.testing.assert_allclose(np.array(_run_imported(parsed, names), np.float64), GRAPH_GOLDEN, rtol=1e-6)


def test_library_layout_and_versions():
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [], name="x")
        tf.cond(x > 0, lambda: x * 2., lambda: -x, name="c")
    gd = g.as_graph_def()
    assert gd.versions == VersionDef(2, 2)
    assert repr(gd) == "<GraphDef: 4 nodes, 2 functions, producer version 2>"
    cond = gd.node[-1]
    assert (cond.op, cond.input) == ("StatelessIf", ["Greater", "x"])
    assert cond.attr["then_branch"] == NameAttrList("c_true") and cond.attr["else_branch"] == NameAttrList("c_false")
    then = {f.name: f for f in gd.library.function}["c_true"]
    assert (then.input, then.output, then.control_output, then.arg_attr) == (["x:0"], ["mul:0"], [], {})
    assert [(n.name, n.op) for n in then.node_def] == [("Const", "Const"), ("x", "Placeholder"), ("mul", "Mul")]
    doc = json.loads(gd.to_json())
    assert doc["versions"] == {"producer": 2, "min_consumer": 2}
    assert doc["node"][-1]["attr"]["then_branch"] == {"func": {"name": "c_true"}}
    assert [f["name"] for f in doc["library"]["function"]] == ["c_true", "c_false"]
    lines = str(gd).splitlines()            # pretty form: still one node per line, functions included
    assert lines[-4] == '      {"name": "Neg", "op": "Neg", "input": ["x"], "attr": {}}'
    assert lines[-1] == "}" and lines[-2] == "  ]}"


def test_graphs_without_functions_stay_version_1_and_version_1_files_load():
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [2], name="x")
        tf.nn.relu(x, name="y")
    gd = graph_to_graph_def(g)
    assert gd.versions == VersionDef(1, 1) and "library" not in json.loads(gd.to_json())
    old = ('{"format": "engine.GraphDef", "versions": {"producer": 1, "min_consumer": 1}, "node": ['
           '{"name": "x", "op": "Placeholder", "input": [], "attr": {"dtype": {"type": "float32"}, '
           '"shape": {"shape": [2]}}}, {"name": "y", "op": "Relu", "input": ["x"], "attr": {}}]}')
    with tf.Graph().as_default() as target:
        x2, y2 = import_graph_def(GraphDef.from_json(old), return_elements=["x:0", "y:0"])
    with v1.Session(graph=target) as sess:
        np.testing.assert_array_equal(sess.run(y2, {x2: [-1., 2.]}), [0., 2.])


def test_a_library_needs_version_2_readers():
    gd = graph_to_graph_def(_control_flow_graph()[0])
    gd.versions = VersionDef(1, 1)                 # claims too little: the writer corrects it
    assert json.loads(gd.to_json())["versions"] == {"producer": 2, "min_consumer": 2}
    doc = json.loads(gd.to_json())
    doc["versions"] = {"producer": 3, "min_consumer": 3}
    with pytest.raises(ValueError, match="min consumer version 3 above current version 2"):
        GraphDef.from_json(json.dumps(doc))


def _cond_graph_def():
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [], name="x")
        tf.cond(x > 0, lambda: x * 2., lambda: -x, name="c")
    return g.as_graph_def()


def test_bad_libraries_are_refused_before_anything_is_built():
    cases = []
    gd = _cond_graph_def()
    gd.node[-1].attr["then_branch"] = NameAttrList("nothere")
    cases.append((gd, ValueError, r"Node 'c': function 'nothere' is not in the GraphDef's library"))
    gd = _cond_graph_def()
    gd.library.function.append(gd.library.function[0])
    cases.append((gd, ValueError, "Function 'c_true' is defined twice"))
    gd = _cond_graph_def()
    gd.library.function[1].node_def[1].op = "FooBar"
    cases.append((gd, tf.errors.NotFoundError, r"Op type not registered 'FooBar' .*function 'c_false': node 'Neg'"))
    gd = _cond_graph_def()
    gd.library.function[1].node_def[1].input = ["nothere"]
    cases.append((gd, ValueError, "Function 'c_false': Node 'Neg': Unknown input node 'nothere'"))
    gd = _cond_graph_def()
    gd.library.function[0].output = ["zz:0"]
    cases.append((gd, ValueError, "Function 'c_true': output 'zz:0' not found"))
    gd = _cond_graph_def()
    gd.library.function[0].input = ["mul:0"]
    cases.append((gd, ValueError, r"Function 'c_true': input 0 \('mul:0'\) must name the output of a Placeholder"))
    gd = _cond_graph_def()
    gd.library.function[0].node_def.append(NodeDef("again", "StatelessIf", ["x"], attr=dict(
        gd.node[-1].attr, then_branch=NameAttrList("c_true"))))
    for graph_def, error, message in cases:
        target = tf.Graph()
        with target.as_default(), pytest.raises(error, match=message):
            import_graph_def(graph_def)
        assert target.get_operations() == []
    target = tf.Graph()                            # a function that calls itself
    with target.as_default(), pytest.raises(ValueError, match="'c_true' of the GraphDef's library calls itself"):
        import_graph_def(gd)


def test_bad_func_attr_in_json_and_hand_built_graph_function():
    doc = json.loads(_cond_graph_def().to_json())
    doc["node"][-1]["attr"]["then_branch"] = {"func": "c_true"}
    with pytest.raises(ValueError, match=r"Bad attr value for node 'c' \(StatelessIf\), attr 'then_branch': "
                                         r"a func attr is \{\"name\": function name\}"):
        GraphDef.from_json(json.dumps(doc))
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [], name="x")
        y = tf.cond(x > 0, lambda: x, lambda: -x, name="c")
    from engine.framework.graph_io import node_def_of
    with pytest.raises(TypeError, match="GraphFunction .* has no GraphDef encoding.* function library"):
        GraphDef([node_def_of(y.op)]).to_json()


def test_function_inputs_that_are_not_placeholders_get_one():
    """A cond's backward branch is fed forward intermediates: the file gives each a Placeholder node."""
    g, _ = _control_flow_graph()
    gd = g.as_graph_def()
    fed = [(f, t) for f in gd.library.function for t in f.input if t is not None and "/_arg" in t]
    assert fed
    for f, t in fed:
        node = next(n for n in f.node_def if n.name == t.split(":")[0])
        assert node.op == "Placeholder" and node.input == []
    assert any(t is None for f in gd.library.function for t in f.input)   # a branch ignores the other's values


# --- SavedModel -------------------------------------------------------------------------------------------
class Flow(tf.Module):
    """Functions with an ``if``, a ``for`` over tf.range, a cond inside a while, and a TensorArray loop."""

    def __init__(self):
        super().__init__()
        self.v = tf.Variable(2.0)
        self.count = tf.Variable(0)

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def branch(self, x):
        if x > 0:
            y = x * self.v
        else:
            self.count.assign_add(1)
            y = -x
        return y

    @tf.function(input_signature=[tf.TensorSpec([], tf.int32), tf.TensorSpec([], tf.float32)])
    def loop(self, n, x):
        acc = x
        for i in tf.range(n):
            acc = acc * self.v + tf.cast(i, tf.float32)
        return acc

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def nested(self, x):
        i = tf.constant(0)
        while i < 4:
            if x > 10.0:
                x = x - 3.0
            else:
                x = x * x
            i += 1
        return x

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def ta(self, xs):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        for i in tf.range(tf.shape(xs)[0]):
            ta = ta.write(i, xs[i] * xs[i] + self.v)
        return ta.stack()

    @tf.function(input_signature=[tf.TensorSpec([], tf.float64)])
    def inner_grad(self, x):
        """A loop gradient computed inside the function (a WhileGrad node with a body_grad function)."""
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, tf.sin(a) * 1.5), [0, x])[1]
        return y, t.gradient(y, x)


CALLS = [("branch", [3.0]), ("branch", [-3.0]), ("loop", [4, 1.5]), ("nested", [1.5]), ("nested", [2.5]),
         ("ta", [[1., 2., 3.]])]
# TF 2.21 (the same module): value, then d/d(float arguments) and d/dv under one persistent tape
FLOW_GOLDEN = [[6.0, [2.0, 3.0]], [3.0, [-1.0, 0.0]], [35.0, [16.0, 54.0]], [22.62890625, [136.6875, None]],
               [33.0625, [62.5, None]], [[3.0, 6.0, 11.0], [[2.0, 4.0, 6.0], 3.0]]]
# TF 2.21: inner_grad(0.7) = (y, dy/dx); an outer tape: d(dy/dx)/dx
INNER_GOLDEN = [1.415829057375501, 0.4845224764646778, -2.5671835576838706]


def _values_and_gradients(obj, calls):
    out = []
    for name, args in calls:
        ts = [tf.constant(a) for a in args]
        with tf.GradientTape(persistent=True) as tape:
            for a in ts:
                if a.dtype.is_floating:
                    tape.watch(a)
            r = getattr(obj, name)(*ts)
        grads = tape.gradient(r, [a for a in ts if a.dtype.is_floating] + [obj.v])
        out.append([r.numpy().tolist(), [None if g is None else g.numpy().tolist() for g in grads]])
    return out


# The child process runs the same helper (its source), never importing this module.
_CHILD = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, sys.argv[1])
    import engine as tf
    import engine.saved_model
""") + inspect.getsource(_values_and_gradients) + textwrap.dedent("""
    loaded = tf.saved_model.load(sys.argv[2])
    out = {"flow": _values_and_gradients(loaded, json.loads(sys.argv[3])), "count": int(loaded.count.numpy())}
    x = tf.constant(0.7, tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y, dx = loaded.inner_grad(x)
    out["inner"] = [float(y), float(dx), float(tape.gradient(dx, x))]
    with tf.GradientTape() as t2:                 # second order through a restored cond, nested tapes
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = loaded.branch(tf.cast(x, tf.float32)) ** 3
        d1 = t1.gradient(y, x)
    out["second"] = [float(d1), float(t2.gradient(d1, x))]
    out["imported"] = sorted(name for name, m in sys.modules.items()
                             if (getattr(m, "__file__", None) or "").startswith(sys.argv[1] + "/tests"))
    print(json.dumps(out))
""")


@pytest.fixture(scope="module")
def saved_flow(tmp_path_factory):
    flow = Flow()
    before = _values_and_gradients(flow, CALLS)   # also builds the gradients: loops are saved in recording form
    flow.inner_grad(tf.constant(0.7, tf.float64))
    path = str(tmp_path_factory.mktemp("flow"))
    tf.saved_model.save(flow, path)
    return flow, before, path


def _close(a, b):
    if isinstance(a, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    return (a is None and b is None) or (a is not None and b is not None and np.isclose(a, b, rtol=1e-6))


def test_values_and_gradients_before_saving_match_tf(saved_flow):
    _, before, _ = saved_flow
    assert _close(before, FLOW_GOLDEN), before


def test_saved_functions_store_control_flow_in_the_library(saved_flow):
    _, _, path = saved_flow
    with open(os.path.join(path, "saved_model.json")) as f:
        doc = json.load(f)

    def graph_def(attribute):
        name, = doc["object_graph"]["children"][attribute]["concrete_functions"]
        return doc["functions"][name]["graph_def"]
    for attribute in ("branch", "loop", "nested", "ta", "inner_grad"):
        gd = graph_def(attribute)
        assert gd["versions"] == {"producer": 2, "min_consumer": 2}
        for f in gd["library"]["function"]:
            assert all(n["op"] != "VarHandleOp" for n in f["node_def"])   # variables enter as captured handles
    branch = graph_def("branch")
    cond, = [n for n in branch["node"] if n["op"] == "If"]            # the else branch assigns: a stateful If
    else_fn, = [f for f in branch["library"]["function"] if f["name"] == cond["attr"]["else_branch"]["func"]["name"]]
    assert "AssignAdd" in else_fn["control_output"]
    assert else_fn["arg_attr"]["2"] == {"_handle_dtype": {"type": "int32"}, "_handle_shape": {"shape": []}}
    nested = graph_def("nested")                                       # the loop body holds a cond
    loop, = [n for n in nested["node"] if n["op"] == "StatelessWhile"]
    body, = [f for f in nested["library"]["function"] if f["name"] == loop["attr"]["body"]["func"]["name"]]
    assert any(n["op"] == "StatelessIf" for n in body["node_def"])
    assert loop["attr"]["_record"] == {"b": True}                      # saved after a gradient: it records
    assert {"StatelessWhile", "WhileGrad"} <= {n["op"] for n in graph_def("inner_grad")["node"]}
    assert {"TensorListReserve", "TensorListStack"} <= {n["op"] for n in graph_def("ta")["node"]}


def test_load_in_a_fresh_process_runs_and_differentiates(saved_flow):
    flow, before, path = saved_flow
    done = subprocess.run([sys.executable, "-I", "-c", _CHILD, REPO, path, json.dumps(CALLS)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    child = json.loads(done.stdout.strip().splitlines()[-1])
    assert child["imported"] == []                              # the defining code was never imported
    assert _close(child["flow"], FLOW_GOLDEN), child["flow"]
    assert child["count"] == int(flow.count.numpy()) + 1        # the else branch's assign_add ran there once
    assert np.allclose(child["inner"], INNER_GOLDEN, rtol=1e-12)
    # d/dx (2x)^3 = 24 x^2 * ... : y = (x*v)^3 with v = 2: dy/dx = 3 * 8 x^2, d2y/dx2 = 48 x at x = 0.7
    assert np.allclose(child["second"], [24 * 0.49, 48 * 0.7], rtol=1e-6)


def test_load_in_process_matches_and_gradients_can_be_built_again(saved_flow):
    flow, before, path = saved_flow
    loaded = tf.saved_model.load(path)
    assert _close(_values_and_gradients(loaded, CALLS), before)
    assert _close(_values_and_gradients(loaded, CALLS), before)     # a second tape reuses the rebuilt gradients
    x = tf.constant(1.5)                                     # nested tapes over restored loops: replayed
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = loaded.nested(x) + tf.reduce_sum(loaded.ta(tf.stack([x, x])))
        d1 = t1.gradient(y, x)
    d2 = t2.gradient(d1, x)
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = flow.nested(x) + tf.reduce_sum(flow.ta(tf.stack([x, x])))
        d1_before = t1.gradient(y, x)
    assert (float(d1), float(d2)) == (float(d1_before), float(t2.gradient(d1_before, x)))
    assert float(d1) == 136.6875 + 4 * 1.5 and float(d2) != 0.0       # x^16 (x < 10 throughout) + 2 x^2


def test_saved_before_any_gradient_then_differentiated_after_loading(tmp_path):
    flow = Flow()
    tf.saved_model.save(flow, str(tmp_path))
    loaded = tf.saved_model.load(str(tmp_path))
    assert _close(_values_and_gradients(loaded, CALLS), FLOW_GOLDEN)
    x = tf.constant(0.7, tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y, dx = loaded.inner_grad(x)
    assert np.allclose([float(y), float(dx), float(tape.gradient(dx, x))], INNER_GOLDEN, rtol=1e-12)


def test_signature_with_control_flow(tmp_path):
    class Sig(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32, name="xs")])
        def __call__(self, xs):
            total = tf.constant(0.0)
            for x in xs:                                    # a loop over a tensor's rows
                total += tf.cond(x > 0, lambda: x, lambda: -2 * x)
            return {"total": total}
    tf.saved_model.save(Sig(), str(tmp_path))
    loaded = tf.saved_model.load(str(tmp_path))
    out = loaded.signatures["serving_default"](xs=tf.constant([1., -2., 3.]))
    assert float(out["total"]) == 8.0 and float(loaded(tf.constant([-1.]))["total"]) == 2.0
