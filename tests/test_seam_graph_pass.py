"""The ``graph_pass`` seam: a student's pass replaces a reference pass, or joins the pipeline.

The passes here are deliberately small: a common-subexpression eliminator and a constant folder
written against the IR's public API (``ir.Rewriter``, ``node.op_def``, ``report.add``), and a pass
that only counts nodes. Real programs (``Session.run``, ``tf.function``) run through them.
"""
import numpy as np
import pytest

import engine as tf
from engine import seams
from engine.compat import v1
from engine.framework.optimizer import GRAPH_PASS_SEAM, constant_folding, cse, ir
from engine.framework.registry import get_op


class TinyCSE:
    """Replaces the reference CSE: merge nodes with the same type, inputs, attrs, controls and device."""

    name = "common_subgraph_elimination"
    calls = []

    def run(self, program, report):
        TinyCSE.calls.append(len(program.nodes))
        rw, first = ir.Rewriter(program), {}
        for node in program.nodes:
            rw.visit(node)
            rw.emit(node)
            if node.stateful or node.type == "Const":      # (constants are left to the folder)
                continue
            inputs = [(id(v.node), v.index) for v in node.inputs]
            if node.op_def.commutative:                     # the row says a + b == b + a
                inputs.sort()
            key = (node.type, tuple(inputs), repr(sorted(node.attrs.items())),
                   tuple(sorted(id(c) for c in node.control_inputs)), node.device)
            kept = first.setdefault(key, node)
            if kept is not node:
                for old, new in zip(node.outputs, kept.outputs):
                    rw.replace(old, new)
                rw.replace_node(node, kept)
                report.add(self.name, f"tiny: {node.name} is {kept.name}")
        rw.finish()
        return program


class TinyFolder:
    """Replaces the reference constant folding: a node whose inputs are all constants becomes a Const."""

    name = "constant_folding"
    calls = []

    def run(self, program, report):
        TinyFolder.calls.append(len(program.nodes))
        rw = ir.Rewriter(program)
        for node in program.nodes:
            rw.visit(node)
            values = [ir.const_value(v) for v in node.inputs]
            if node.stateful or node.type == "Const" or len(node.outputs) != 1 or not node.inputs or \
                    any(v is None for v in values) or node.outputs[0].dtype._np is None:
                rw.emit(node)
                continue
            value = np.asarray(node.op_def.kernel("numpy")(*values, **node.attrs))
            out = node.outputs[0]
            const = ir.Node(f"tiny/{node.name}", "Const", get_op("Const"), [], {"value": value, "dtype": out.dtype},
                            [(out.dtype, out.shape)], node.control_inputs)
            rw.emit(const)
            rw.replace(out, const.outputs[0])
            rw.replace_node(node, const)
            report.add(self.name, f"tiny: folded {node.name}")
        rw.finish()


class CountNodes:
    """An added pass: it sees the program after the reference rounds and before fusion."""

    name = "count_nodes"
    seen = []

    def run(self, program, report):
        CountNodes.seen.append([n.type for n in program.nodes])
        report.add(self.name, f"{len(program.nodes)} nodes")
        return program


@pytest.fixture(autouse=True)
def fresh_records():
    TinyCSE.calls, TinyFolder.calls, CountNodes.seen = [], [], []
    yield
    assert GRAPH_PASS_SEAM.current == ()


@pytest.fixture
def reference_calls(monkeypatch):
    """How often the reference CSE and constant folding run."""
    calls = {"cse": 0, "constant_folding": 0}
    for name, module in (("cse", cse), ("constant_folding", constant_folding)):
        def counted(program, report, _run=module.run, _name=name):
            calls[_name] += 1
            return _run(program, report)
        monkeypatch.setattr(module, "run", counted)
    return calls


def session_graph():
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [3])
        w = tf.constant(2.0) * tf.constant(1.5)               # foldable: 3.0
        y = tf.exp(x * w) + tf.sin(w * x)                     # x * w and w * x: one expression
    return g, x, y


X = np.array([0.5, -1.0, 2.0], np.float32)


def test_session_run_with_a_replacing_cse_and_an_added_pass(reference_calls):
    g, x, y = session_graph()
    with v1.Session(graph=g) as sess:
        expected = sess.run(y, {x: X})
        assert reference_calls["cse"] > 0
        reference_calls["cse"] = 0
        with seams.using(graph_pass=CountNodes):
            with seams.using(graph_pass=TinyCSE):
                got = sess.run(y, {x: X})
                report = sess.last_plan.report
        np.testing.assert_array_equal(got, expected)
        assert TinyCSE.calls and reference_calls["cse"] == 0              # replaced: the reference did not run
        merged = report.changes("common_subgraph_elimination")
        assert merged and all(m.startswith("tiny: ") for m in merged)
        assert report.changes("count_nodes") and len(CountNodes.seen) == 1
        (types,) = CountNodes.seen
        assert "_FusedElementwise" not in types and types.count("Mul") == 1   # after the rounds, before fusion
        assert "_FusedElementwise" in [op.type for op in sess.last_plan.ops]  # fusion ran on its result
        calls = len(TinyCSE.calls)
        np.testing.assert_array_equal(sess.run(y, {x: X}), expected)      # the plan compiled inside is not reused
        assert len(TinyCSE.calls) == calls and reference_calls["cse"] > 0
        assert not sess.last_plan.report.changes("count_nodes")


def test_a_replacing_constant_folder_gives_the_reference_results(reference_calls):
    g, x, y = session_graph()
    with v1.Session(graph=g) as sess:
        expected = sess.run(y, {x: X})
        reference_calls["constant_folding"] = 0
        with seams.using(graph_pass=TinyFolder()):            # an object: used as it is
            got = sess.run(y, {x: X})
            changes = sess.last_plan.report.changes("constant_folding")
        np.testing.assert_array_equal(got, expected)
        assert TinyFolder.calls and reference_calls["constant_folding"] == 0
        assert changes and all(m.startswith("tiny: folded") for m in changes)


def test_tf_function_plans_follow_the_passes_in_force(reference_calls):
    @tf.function
    def f(x):
        w = tf.constant(3.0)
        return tf.exp(x * w) + tf.sin(w * x)

    x = tf.constant(X)
    expected = f(x).numpy()                                   # compiled before the block
    reference_calls["cse"] = 0
    with seams.using(graph_pass=TinyCSE):
        np.testing.assert_array_equal(f(x).numpy(), expected)
        calls = len(TinyCSE.calls)                             # the cached plan compiled again, with TinyCSE
        assert calls > 0 and reference_calls["cse"] == 0       # (once per optimizer round)
        np.testing.assert_array_equal(f(x).numpy(), expected)
        assert len(TinyCSE.calls) == calls                     # and is then reused inside the block
    np.testing.assert_array_equal(f(x).numpy(), expected)
    assert len(TinyCSE.calls) == calls and reference_calls["cse"] > 0   # compiled again without it


def test_the_seam_is_restored_on_exceptions():
    g, x, y = session_graph()
    with pytest.raises(RuntimeError, match="inside"):
        with seams.using(graph_pass=CountNodes):
            assert GRAPH_PASS_SEAM.current == (CountNodes,)
            raise RuntimeError("inside")
    assert GRAPH_PASS_SEAM.current == ()
    with v1.Session(graph=g) as sess:
        sess.run(y, {x: X})
    assert CountNodes.seen == []


def test_nested_added_passes_run_outermost_first():
    order = []

    class First:
        name = "first"

        def run(self, program, report):
            order.append("first")

    class Second(First):
        name = "second"

        def run(self, program, report):
            order.append("second")

    g, x, y = session_graph()
    with seams.using(graph_pass=First), seams.using(graph_pass=Second):
        with v1.Session(graph=g) as sess:
            sess.run(y, {x: X})
    assert order == ["first", "second"]


def test_a_pass_without_run_is_refused_naming_it():
    class NoRun:
        name = "no_run"

    with pytest.raises(TypeError, match="NoRun cannot fill the 'graph_pass' seam: it has no run"):
        with seams.using(graph_pass=NoRun):
            pass
    assert GRAPH_PASS_SEAM.current == ()


def test_a_pass_without_a_name_or_returning_something_else_is_refused_naming_it():
    class Nameless:
        def run(self, program, report):
            return program

    class Wrong:
        name = "wrong"

        def run(self, program, report):
            return program.nodes

    g, x, y = session_graph()
    with v1.Session(graph=g) as sess:
        with seams.using(graph_pass=Nameless):
            with pytest.raises(TypeError, match="Nameless cannot fill the 'graph_pass' seam: it has no name"):
                sess.run(y, {x: X})
        with seams.using(graph_pass=Wrong):
            with pytest.raises(TypeError, match="Graph pass 'wrong' returned list"):
                sess.run(y, {x: X})
        sess.run(y, {x: X})                                    # and outside, the reference again
