"""The graph optimizer (engine/framework/optimizer/): each pass, its report, and its safety rules.

Every test compiles one request twice, with the optimizer on and off, and checks both the rewrite (what
``plan.ops`` / ``plan.report`` show) and that the values are unchanged.
"""
import numpy as np
import pytest

import engine as tf
from engine import config_optimizer
from engine.framework.executor import compile_plan
from engine.framework.registry import get_op
from engine.ops._dispatch import execute

v1 = tf.compat.v1
OFF = {"disable_meta_optimizer": True}


def types(plan):
    return [op.type for op in plan.ops]


def both(fetches, feeds=(), values=(), options=None):
    """(optimized plan, its results, results with the optimizer off)."""
    on = compile_plan(list(fetches), [], list(feeds), options=options or {})
    off = compile_plan(list(fetches), [], list(feeds), options=OFF)
    got, want = on(list(values)), off(list(values))
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
        assert np.asarray(a).dtype == np.asarray(b).dtype
    return on, got


def plan_for(sess, fetch):
    """The plan a session compiled for ``fetch`` (the first fetched tensor)."""
    return next(p for p in sess._plans.values() if p.fetch_tensors[:1] == [fetch])


@pytest.fixture
def restore_options():
    saved = dict(config_optimizer._options)
    yield
    config_optimizer._replace_all(saved)


# --- constant folding ---------------------------------------------------------------------------------
def test_constant_subtrees_fold_into_one_const():
    g = tf.Graph()
    with g.as_default():
        y = (tf.constant(2.0) * tf.constant(3.0) + 1.0) * tf.ones([2])
    plan, (value,) = both([y])
    assert types(plan) == ["Const"] and value.tolist() == [7.0, 7.0]
    changes = plan.report.changes("constant_folding")
    assert any("'mul'" in c and "Mul" in c for c in changes) and len(changes) >= 3
    assert not value.flags.writeable or value is not plan.ops[0].attrs["value"]


def test_shapes_of_static_shapes_fold_but_placeholders_stay_inputs():
    g = tf.Graph()
    with g.as_default():
        p = v1.placeholder(tf.float32, [2, 3])
        q = v1.placeholder(tf.float32, [None, 3])
        n = tf.size(p) + tf.shape(p)[1]
        m = tf.reduce_sum(p) + tf.cast(tf.shape(q)[0], tf.float32)
    plan, (value,) = both([n], [p, q], [np.ones((2, 3), np.float32), np.ones((5, 3), np.float32)])
    assert value == 9 and types(plan) == ["Const"]   # q is fed but not needed
    assert any("shape of a known shape" in c for c in plan.report.changes("constant_folding"))
    plan, (value,) = both([m], [p, q], [np.ones((2, 3), np.float32), np.ones((5, 3), np.float32)])
    assert value == 11.0 and "Shape" in types(plan)  # q's batch size is only known at run time


def test_fed_constants_are_not_constants():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0)
        c = a * 4.0
    with v1.Session(graph=g) as sess:
        assert sess.run(c) == 4.0
        assert sess.run(c, {a: 10.0}) == 40.0
    plan, (value,) = both([c], [a], [np.float32(10.0)])
    assert value == 40.0 and types(plan) == ["Const", "Mul"]


def test_placeholder_with_default_is_never_folded():
    g = tf.Graph()
    with g.as_default():
        p = v1.placeholder_with_default(tf.constant(2.0), [])
        y = p * 3.0
    with v1.Session(graph=g) as sess:
        assert sess.run(y) == 6.0 and sess.run(y, {p: 5.0}) == 15.0
        plan = next(iter(sess._plans.values()))
        assert "PlaceholderWithDefault" in types(plan) and not plan.report.changes("constant_folding")


def test_huge_results_and_failing_kernels_are_not_folded():
    g = tf.Graph()
    with g.as_default():
        big = tf.fill([2000, 2000], 1.0) + 1.0          # 16 MB > 10 MiB
        bad = tf.constant(7) // tf.constant(0)
    plan = compile_plan([big], [], [])
    assert "Fill" in types(plan) and not plan.report.changes("constant_folding")
    plan = compile_plan([bad], [], [])
    assert "FloorDiv" in types(plan)
    with pytest.raises(tf.errors.InvalidArgumentError, match="(?s)Integer division by zero.*node floordiv"):
        plan([])


def test_random_and_variables_are_never_folded():
    g = tf.Graph()
    with g.as_default():
        r = tf.random.uniform([3]) * 2.0
        v = tf.Variable(1.0)
        w = v.read_value() * 2.0
        s = tf.shape(v.read_value())
    with v1.Session(graph=g) as sess:
        assert not np.array_equal(sess.run(r), sess.run(r))
        with pytest.raises(tf.errors.FailedPreconditionError):  # the read still runs, and fails, as unoptimized
            sess.run(s)
        sess.run(v.initializer)
        assert sess.run(w) == 2.0 and sess.run(s).tolist() == []
        sess.run(v.assign(3.0))
        assert sess.run(w) == 6.0


# --- arithmetic simplification -------------------------------------------------------------------------
def test_multiplying_by_one_and_adding_zero_are_removed():
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 3])
        y = ((x * 1.0 + 0.0) / 1.0 - 0.0) * tf.ones([1, 1])
        z = 1.0 * (0.0 + x)
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    plan, (yv, zv) = both([y, z], [x], [xv])
    assert plan.ops == [] and yv.tolist() == xv.tolist() == zv.tolist()
    assert yv is not xv, "a fetched value that became the fed array is returned as a copy"
    rules = " ".join(plan.report.changes("arithmetic_optimization"))
    for rule in ("x * 1", "x + 0", "x / 1", "x - 0", "1 * x", "0 + x"):
        assert rule in rules


def test_broadcasting_constants_are_not_identities():
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [3])
        y = x + tf.zeros([2, 3])        # shape [2, 3]: not x
        u = v1.placeholder(tf.float32, None)
        z = u * tf.ones([1])            # unknown rank: [1] could add a dimension
        w = tf.constant(0.0) - x        # 0 - x is -x
    plan, (yv, zv, wv) = both([y, z, w], [x, u], [np.ones(3, np.float32), np.float32(2.0)])
    assert yv.shape == (2, 3) and zv.shape == (1,) and wv.tolist() == [-1.0] * 3
    assert not plan.report.changes("arithmetic_optimization")


def test_involutions_transposes_reshapes_and_casts():
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [2, 3, 4])
        a = tf.negative(tf.negative(x))
        b = tf.transpose(tf.transpose(x, [2, 0, 1]), [1, 2, 0])
        c = tf.reshape(x, [2, 3, 4])
        d = execute(get_op("Cast"), (x,), {"DstT": tf.float32, "SrcT": tf.float32, "Truncate": False})
        e = tf.transpose(tf.transpose(x, [2, 0, 1]), [2, 0, 1])     # not the inverse
        f = tf.logical_not(tf.logical_not(x > 0))
    xv = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    plan, values = both([a, b, c, d, e, f], [x], [xv])
    for v in values[:4]:
        np.testing.assert_array_equal(v, xv)
    assert values[4].shape == (3, 4, 2)
    rules = " ".join(plan.report.changes("arithmetic_optimization"))
    for rule in ("Neg(Neg(x))", "inverse of p", "Reshape(x) to the shape", "Cast(x) to its own dtype",
                 "LogicalNot(LogicalNot(x))"):
        assert rule in rules
    assert types(plan).count("Transpose") == 2   # e's two transposes stay


def test_a_node_with_control_inputs_is_not_forwarded():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(1.0)
        assign = v.assign(5.0)
        with tf.control_dependencies([assign]):
            y = v.read_value() * 1.0
    with v1.Session(graph=g) as sess:
        sess.run(v.initializer)
        assert sess.run(y) == 5.0
        plan = next(iter(sess._plans.values())) if len(sess._plans) == 1 else list(sess._plans.values())[-1]
        assert "AssignVariableOp" in types(plan)
        assert not plan.report.changes("arithmetic_optimization")


# --- common-subexpression elimination --------------------------------------------------------------------
def test_equal_expressions_are_computed_once_and_commutative_inputs_match():
    g = tf.Graph()
    with g.as_default():
        a = v1.placeholder(tf.float32, [3])
        b = v1.placeholder(tf.float32, [3])
        s1, s2 = tf.exp(a + b), tf.exp(b + a)
        d1, d2 = a - b, b - a
    av, bv = np.array([1.0, 2.0, 3.0], np.float32), np.array([0.5, 0.0, -1.0], np.float32)
    plan, (x1, x2, y1, y2) = both([s1, s2, d1, d2], [a, b], [av, bv], options={"remapping": False})
    assert types(plan).count("AddV2") == 1 and types(plan).count("Exp") == 1 and types(plan).count("Sub") == 2
    assert x1 is x2 and y1.tolist() == (-y2).tolist()
    assert sorted(plan.report.changes("common_subgraph_elimination")) == [
        "'Exp_1' (Exp) is the same expression as 'Exp'", "'add_1' (AddV2) is the same expression as 'add'"]


def test_stateful_nodes_and_different_control_inputs_are_never_merged():
    g = tf.Graph()
    with g.as_default():
        r1, r2 = tf.random.uniform([4], seed=1), tf.random.uniform([4], seed=1)
        v = tf.Variable(1.0)
        first = v.read_value()
        assign = v.assign_add(1.0)
        with tf.control_dependencies([assign]):
            x = tf.constant(2.0)
            after = v.read_value() * x
        before = first * tf.constant(2.0)
    with v1.Session(graph=g) as sess:
        sess.run(v.initializer)
        a, b = sess.run([r1, r2])
        plan = list(sess._plans.values())[-1]
        assert types(plan).count("RandomUniform") == 2
        assert sess.run([before, after]) == [2.0, 4.0]
        plan = list(sess._plans.values())[-1]
        # two reads, never merged: ``control_dependencies([assign])`` waits on the assignment op itself (the
        # result of ``assign_add`` is TF's _UnreadVariable, whose ``op`` it is), not on a read of its value
        assert types(plan).count("ReadVariableOp") == 2 and not plan.report.changes("common_subgraph_elimination")
        assert types(plan).count("Mul") == 2   # x * ... with and without the control input


# --- pruning -----------------------------------------------------------------------------------------
def test_identity_chains_and_dead_nodes_are_removed():
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [2])
        y = tf.identity(tf.identity(tf.stop_gradient(x * 3.0)))
        unused = tf.constant(1.0) + tf.constant(2.0)
        z = y + (unused * 0.0 + 1.0) * 0.0
    plan, (value,) = both([y], [x], [np.array([1.0, 2.0], np.float32)], options={"remapping": False})
    assert types(plan) == ["Const", "Mul"] and value.tolist() == [3.0, 6.0]
    assert len(plan.report.changes("model_pruning")) == 3
    plan, _ = both([z], [x], [np.array([1.0, 2.0], np.float32)])
    assert any("removed dead node" in c for c in plan.report.changes("model_pruning"))
    del unused


def test_an_identity_with_control_inputs_is_kept():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(1.0)
        x = v1.placeholder(tf.float32, [])
        with tf.control_dependencies([v.assign(7.0)]):
            y = tf.identity(x)
        z = y + v.read_value()
    with v1.Session(graph=g) as sess:
        sess.run(v.initializer)
        assert sess.run(z, {x: 1.0}) in (2.0, 8.0)
        assert sess.run(v) == 7.0     # the assignment ran: y waited for it
        assert "Identity" in types(plan_for(sess, z))


def test_targets_and_grouped_assignments_run():
    g = tf.Graph()
    with g.as_default():
        a, b = tf.Variable(1.0), tf.Variable(2.0)
        both_assign = tf.group(a.assign(a + 1.0 * 1.0), b.assign(b * 1.0 * 3.0))
        init = v1.global_variables_initializer()
    with v1.Session(graph=g) as sess:
        sess.run(init)
        sess.run(both_assign)
        assert sess.run([a, b]) == [2.0, 6.0]


# --- fusion ------------------------------------------------------------------------------------------------
def _dense_graph(activation, bias_with_add=False, batch=None):
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [batch, 4])
        w = tf.constant(np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32))
        b = tf.constant(np.array([0.5, -1.0, 2.0], np.float32))
        m = tf.matmul(x, w)
        z = m + b if bias_with_add else tf.nn.bias_add(m, b)
        y = activation(z) if activation else z
    return g, x, m, z, y


@pytest.mark.parametrize("activation, fused", [(tf.nn.relu, ["BiasAdd", "Relu"]), (None, ["BiasAdd"]),
                                               (tf.nn.relu6, ["BiasAdd", "Relu6"]),
                                               (tf.nn.elu, ["BiasAdd", "Elu"]),
                                               (lambda z: tf.nn.leaky_relu(z, 0.3), ["BiasAdd", "LeakyRelu"])])
def test_matmul_bias_add_activation_fuse(activation, fused):
    g, x, m, z, y = _dense_graph(activation)
    xv = np.random.default_rng(1).standard_normal((5, 4)).astype(np.float32)
    plan, (value,) = both([y], [x], [xv])
    (node,) = [op for op in plan.ops if op.type == "_FusedMatMul"]
    assert list(node.attrs["fused_ops"]) == fused and node.name == y.op.name
    assert node.fused_from == (m.op.name, z.op.name) + ((y.op.name,) if activation else ())
    assert "_FusedMatMul" in plan.report.changes("remapping")[0]
    if activation is not None and fused[1] == "LeakyRelu":
        assert node.attrs["leakyrelu_alpha"] == pytest.approx(0.3)


def test_a_bias_added_with_add_fuses_and_fetching_an_intermediate_blocks_fusion():
    g, x, m, z, y = _dense_graph(tf.nn.relu, bias_with_add=True, batch=2)
    xv = np.random.default_rng(1).standard_normal((2, 4)).astype(np.float32)
    plan, _ = both([y], [x], [xv])
    assert types(plan).count("_FusedMatMul") == 1 and "MatMul" not in types(plan)
    plan, (yv, mv) = both([y, m], [x], [xv])        # m is fetched: it must exist
    assert "MatMul" in types(plan) and "_FusedMatMul" not in types(plan)
    np.testing.assert_allclose(mv, xv @ g.get_operation_by_name("Const").attrs["value"], rtol=1e-6)
    plan, (yv2, zv) = both([y, z], [x], [xv])       # z is fetched: MatMul + Add fuse, Relu stays
    (node,) = [op for op in plan.ops if op.type == "_FusedMatMul"]
    assert list(node.attrs["fused_ops"]) == ["BiasAdd"] and "Relu" in types(plan)
    np.testing.assert_array_equal(yv, yv2)


def test_fused_matmul_reports_bias_errors_like_bias_add():
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, None])
        w = v1.placeholder(tf.float32, [None, None])
        b = v1.placeholder(tf.float32, [None])
        y = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w), b))
    plan = compile_plan([y], [], [x, w, b])
    assert "_FusedMatMul" in types(plan)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Must provide as many biases as the last dimension"):
        plan([np.ones((2, 3), np.float32), np.ones((3, 4), np.float32), np.ones(5, np.float32)])


def test_elementwise_chains_become_one_kernel_that_reuses_its_buffer():
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 3])
        b = v1.placeholder(tf.float32, [3])
        y = x
        for i in range(10):
            y = tf.tanh(y * float(i + 1) + b) if i % 2 else tf.nn.relu(tf.square(y) - b)
    xv = np.random.default_rng(2).standard_normal((4, 3)).astype(np.float32)
    bv = np.array([0.1, 0.2, 0.3], np.float32)
    saved = xv.copy(), bv.copy()
    plan, (value,) = both([y], [x, b], [xv, bv])
    (node,) = [op for op in plan.ops if op.type == "_FusedElementwise"]
    program = node.attrs["program"]
    assert len(node.fused_from) == 30 and node.name == y.op.name
    assert program.buffers == 1 and program.source.count(": in place, t") == 29
    assert plan.fused_kernels == {node.name: program.source} and "t0 = square(i0)" in program.source
    assert "1 buffer(s) allocated per run instead of 30" in plan.report.changes("remapping")[0]
    np.testing.assert_array_equal(xv, saved[0])     # inputs are never written
    np.testing.assert_array_equal(bv, saved[1])
    np.testing.assert_array_equal(plan([xv, bv])[0], value)


def test_buffers_are_not_reused_where_broadcasting_could_grow_them():
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 1])
        r = v1.placeholder(tf.float32, [None])
        y = tf.exp(x) + r          # (n, 1) + (m,) -> (n, m): exp(x)'s buffer is too small
        s = tf.exp(r[:1]) * tf.ones([1])
    plan, (value,) = both([y], [x, r], [np.ones((2, 1), np.float32), np.arange(3, dtype=np.float32)])
    assert value.shape == (2, 3)
    program = [op for op in plan.ops if op.type == "_FusedElementwise"][0].attrs["program"]
    assert ": in place" not in program.source and program.buffers == 2
    del s


def test_values_with_the_shape_of_one_input_share_buffers_even_with_unknown_dims():
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 3])
        y = tf.exp(x) + tf.sin(x)           # both sides have x's (runtime) shape
    plan, (value,) = both([y], [x], [np.ones((4, 3), np.float32)])
    (source,) = plan.fused_kernels.values()
    assert "t2 = add(t0, t1, t0)  # " in source


def test_fetching_an_intermediate_of_a_chain_splits_it():
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float64, [5])
        a = tf.exp(x)
        b = tf.sin(a) * 2.0
        c = tf.sqrt(tf.abs(b)) + a
    xv = np.linspace(-1, 1, 5)
    plan, (av, cv) = both([a, c], [x], [xv])
    np.testing.assert_array_equal(av, np.exp(xv))
    assert types(plan).count("Exp") == 1 and types(plan).count("_FusedElementwise") == 1


def test_scalar_int_and_bool_chains():
    g = tf.Graph()
    with g.as_default():
        s = v1.placeholder(tf.float32, [])
        i = v1.placeholder(tf.int32, [4])
        ys = tf.exp(s) * 2.0 + 1.0
        yi = tf.maximum(i * 3 - 2, 0) + tf.abs(i)
        yb = tf.logical_not((i > 1) & (i < 3))
    plan, (a, b, c) = both([ys, yi, yb], [s, i], [np.float32(0.5), np.array([-2, 0, 2, 4], np.int32)])
    assert type(a) is np.float32 and b.dtype == np.int32 and c.dtype == bool
    assert b.tolist() == [2, 0, 6, 14] and c.tolist() == [True, True, False, True]


def test_errors_inside_a_fused_kernel_name_the_original_node():
    g = tf.Graph()
    with g.as_default():
        i = v1.placeholder(tf.int32, [2])
        y = tf.abs(tf.math.floordiv(i * 2, i - 1, name="divide_here")) + 1
    plan = compile_plan([y], [], [i])
    assert "_FusedElementwise" in types(plan)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Integer division by zero.*'divide_here' \(FloorDiv\)"):
        plan([np.array([1, 2], np.int32)])


# --- memory plan ---------------------------------------------------------------------------------------------
def _wide_graph():
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float64, [256, 256])
        y = x
        for _ in range(8):
            y = tf.matmul(y, x) * 0.001          # matmul breaks elementwise chains: 8 separate values
    return x, y


def test_values_are_released_after_their_last_reader():
    x, y = _wide_graph()
    xv = np.eye(256)
    plan = compile_plan([y], [], [x])
    held = compile_plan([y], [], [x], options={"memory_optimization": False})
    assert "del " in plan.source and "del " not in held.source
    mem = plan.memory
    assert mem.peak_before == 16 * 256 * 256 * 8 and mem.peak_after == 2 * 256 * 256 * 8
    assert held.memory.peak_after == mem.peak_before
    assert "peak live bytes 8.0 MiB before" in str(plan.report)
    measured, measured_held = plan.measure_peak_bytes([xv]), held.measure_peak_bytes([xv])
    assert measured < 0.5 * measured_held
    np.testing.assert_array_equal(plan([xv])[0], held([xv])[0])


def test_unknown_static_sizes_are_reported():
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 3])
        y = tf.reduce_sum(tf.exp(x) * 2.0, axis=0)
    plan = compile_plan([y], [], [x])
    assert plan.memory.unknown == 1 and "1 value(s) of unknown static size not counted" in str(plan.report)


# --- options, reports, the graph itself ---------------------------------------------------------------------
def test_experimental_options_behave_like_tensorflow(restore_options):
    config_optimizer._replace_all({})
    assert config_optimizer.get_experimental_options() == {'disable_model_pruning': False,
                                                          'disable_meta_optimizer': False}
    key = config_optimizer.options_key()
    assert config_optimizer.options_key() is key           # cached: cheap enough for every Session.run
    config_optimizer.set_experimental_options({"constant_folding": 0, "disable_model_pruning": True, "bogus": 1})
    assert config_optimizer.get_experimental_options() == {
        'constant_folding': False, 'disable_model_pruning': True, 'disable_meta_optimizer': False}
    assert config_optimizer.options_key() != key
    assert dict(config_optimizer.options_key())["constant_folding"] is False
    config_optimizer.set_experimental_options({"min_graph_nodes": 5, "constant_folding": None})
    assert config_optimizer.get_experimental_options() == {
        'disable_model_pruning': True, 'disable_meta_optimizer': False, 'min_graph_nodes': 5}
    config_optimizer.set_jit(True)
    assert config_optimizer.get_jit() == "autoclustering"
    config_optimizer.set_jit(False)
    assert config_optimizer.get_jit() == ""


@pytest.mark.parametrize("option, pass_name", [
    ({"constant_folding": False}, "constant_folding"), ({"arithmetic_optimization": False}, "arithmetic_optimization"),
    ({"arithmetic_optimization": False}, "common_subgraph_elimination"),
    ({"common_subgraph_elimination": False}, "common_subgraph_elimination"), ({"remapping": False}, "remapping"),
    ({"disable_model_pruning": True}, "model_pruning"), ({"disable_meta_optimizer": True}, None)])
def test_each_pass_can_be_switched_off(restore_options, option, pass_name):
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [2, 2])
        k = tf.constant(2.0) * tf.constant(3.0)
        y = tf.identity(tf.nn.relu(tf.nn.bias_add(tf.matmul(x, x), tf.ones([2]))) * 1.0)
        z = tf.exp(y * k + 1.0) + tf.exp(y * k + 1.0)
    xv = np.ones((2, 2), np.float32)
    every = compile_plan([z], [], [x])
    assert set(every.report.counts()) == {"constant_folding", "arithmetic_optimization",
                                          "common_subgraph_elimination", "remapping", "model_pruning"}
    config_optimizer.set_experimental_options(option)
    plan = compile_plan([z], [], [x])
    if pass_name is None:
        assert plan.report.entries == [] and len(plan.ops) == len(plan.graph_ops)
    else:
        assert pass_name not in plan.report.counts() and len(plan.report.counts()) >= 1
    assert plan.options != every.options
    np.testing.assert_array_equal(plan([xv])[0], every([xv])[0])


def test_min_graph_nodes_skips_small_graphs():
    g = tf.Graph()
    with g.as_default():
        y = tf.constant(1.0) + tf.constant(2.0)
    assert compile_plan([y], [], [], options={"min_graph_nodes": 4}).report.entries == []
    assert compile_plan([y], [], [], options={}).report.entries != []


def test_the_graph_is_never_modified_and_reports_print():
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [2, 3])
        y = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, tf.ones([3, 3])), tf.zeros([3]))) * 1.0 + 0.0
    before = [(op.name, op.type, [t.name for t in op.inputs], dict(op.attrs).keys(), list(op.control_inputs))
              for op in g.get_operations()]
    version = g.version
    plan = compile_plan([y], [], [x])
    after = [(op.name, op.type, [t.name for t in op.inputs], dict(op.attrs).keys(), list(op.control_inputs))
             for op in g.get_operations()]
    assert before == after and g.version == version
    assert [op.name for op in plan.graph_ops][-1] == y.op.name
    text = str(plan.report)
    assert text.startswith("graph optimizer: ") and "remapping:" in text and "memory: peak live bytes" in text
    assert repr(plan) == f"<Plan: {len(plan.ops)} ops, 1 feeds, 1 fetches>"


def test_session_training_with_every_pass():
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(64, 3)).astype(np.float32)
    ys = xs @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.25
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 3])
        y = v1.placeholder(tf.float32, [None, 1])
        w = tf.Variable(tf.zeros([3, 1]))
        b = tf.Variable(tf.zeros([1]))
        pred = tf.nn.bias_add(tf.matmul(x, w), b)
        loss = tf.reduce_mean(tf.square(pred - y))
        train = v1.train.GradientDescentOptimizer(0.1).minimize(loss)
        init = v1.global_variables_initializer()
    with v1.Session(graph=g) as sess:
        sess.run(init)
        for _ in range(200):
            sess.run(train, {x: xs, y: ys})
        np.testing.assert_allclose(sess.run(w).ravel(), [1.0, -2.0, 0.5], atol=1e-2)
        np.testing.assert_allclose(sess.run(b), [0.25], atol=1e-2)
        assert any(p.report.entries for p in sess._plans.values())
