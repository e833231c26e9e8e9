"""``trace_on``/``trace_export`` and ``tf.summary.graph``: graphs TensorBoard's Graphs dashboard parses."""
import pytest

import engine as tf

from summary_testlib import GOLDEN, read_events

COMPUTE = {"Mul", "AddV2", "Sum"}


@tf.function
def traced(x):
    y = x * 2.0 + 1.0
    return tf.reduce_sum(y, name="total")


def test_trace_export_writes_tfs_run_metadata_summary(tmp_path):
    config_pb2 = pytest.importorskip("tensorboard.compat.proto.config_pb2")
    g = GOLDEN["trace"]
    writer = tf.summary.create_file_writer(str(tmp_path))
    tf.summary.trace_on(graph=True, profiler=False)
    traced(tf.constant([1.0, 2.0]))
    with writer.as_default():
        tf.summary.trace_export("my_trace", step=3)
    writer.close()
    (event,) = [ev for ev in read_events(str(tmp_path)) if ev.summary.value]
    value = event.summary.value[0]
    assert (value.tag, event.step) == (g["tag"], g["step"])
    assert value.metadata.plugin_data.plugin_name == g["plugin"]
    assert value.metadata.plugin_data.content.decode() == g["content"]
    run_metadata = config_pb2.RunMetadata.FromString(value.tensor.string_val[0])
    assert len(run_metadata.function_graphs) == len(g["function_graphs"]) == 1
    nodes = run_metadata.function_graphs[0].pre_optimization_graph.node
    # The computing nodes are TF's: names, op types, and what feeds them (constants and the argument
    # nodes are named differently: TF's "mul/y" is the engine's "Const"; TF's "_Arg" is a "Placeholder").
    ours = {n.name: (n.op, [i.split(":")[0] for i in n.input]) for n in nodes}
    theirs = {name: (op, inputs) for name, op, inputs in g["function_graphs"][0] if op in COMPUTE}
    for name, (op, inputs) in theirs.items():
        assert ours[name][0] == op
        computed = [i for i in inputs if i in theirs or i == "x"]
        assert [i for i in ours[name][1] if i in theirs or i == "x"] == computed
    assert ours["x"][0] == "Placeholder"


def test_trace_export_turns_tracing_off_and_trace_off_forgets(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    tf.summary.trace_on()
    traced(tf.constant([1.0, 2.0]))
    tf.summary.trace_off()
    with pytest.raises(ValueError, match="Must enable trace before export"):
        tf.summary.trace_export("t", step=0)
    with writer.as_default():
        tf.summary.trace_on()
        tf.summary.trace_export("empty", step=0)         # nothing called: a RunMetadata without graphs
        with pytest.raises(ValueError, match="Must enable trace"):
            tf.summary.trace_export("again", step=0)
    writer.close()
    assert [ev.summary.value[0].tag for ev in read_events(str(tmp_path)) if ev.summary.value] == ["empty"]


def test_summary_graph_writes_the_graph_def_event(tmp_path):
    accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    writer = tf.summary.create_file_writer(str(tmp_path))
    graph = traced.get_concrete_function(tf.constant([1.0, 2.0])).graph
    assert not bool(tf.summary.graph(graph))             # no default writer
    with writer.as_default():
        assert bool(tf.summary.graph(graph))
    writer.close()
    acc = accumulator.EventAccumulator(str(tmp_path))
    acc.Reload()
    assert acc.Tags()["graph"]
    graph_def = acc.Graph()
    assert [n.name for n in graph_def.node] == [op.name for op in graph.get_operations()]
    by_name = {n.name: n for n in graph_def.node}
    assert by_name["total"].op == "Sum" and list(by_name["total"].input) == ["add", "Const_2"]
    assert by_name["total"].attr["keep_dims"].b is False
    assert by_name["x"].attr["dtype"].type == 1     # DT_FLOAT
    assert [d.size for d in by_name["x"].attr["shape"].shape.dim] == [2]


def test_graph_of_a_tf1_graph_with_a_variable_and_a_cond(tmp_path):
    accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    tensor_util = pytest.importorskip("tensorboard.util.tensor_util")
    tf1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        p = tf1.placeholder(tf.float32, [None, 3], name="p")
        c = tf.constant([[1.0], [2.0], [3.0]], name="w")
        y = tf.matmul(p, c, name="y")
        tf.cond(tf.reduce_sum(y) > 0, lambda: y, lambda: -y, name="branch")
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        tf.summary.graph(graph.as_graph_def())
    writer.close()
    acc = accumulator.EventAccumulator(str(tmp_path))
    acc.Reload()
    nodes = {n.name: n for n in acc.Graph().node}
    assert nodes["y"].op == "MatMul" and list(nodes["y"].input) == ["p", "w"]
    assert tensor_util.make_ndarray(nodes["w"].attr["value"].tensor).tolist() == [[1.0], [2.0], [3.0]]
    assert [d.size for d in nodes["p"].attr["shape"].shape.dim] == [-1, 3]
    assert any(n.attr["then_branch"].func.name for n in nodes.values() if "then_branch" in n.attr)
