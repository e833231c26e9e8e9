"""TensorBoard's own Graphs plugin reads the engine's files: the run graph, a trace, and Keras's model graph."""
import os

import numpy as np
import pytest

import engine as tf


@tf.function
def traced(x):
    return tf.reduce_sum(x * 2.0 + 1.0, name="total")


def test_the_graphs_plugin_lists_and_renders_every_graph(tmp_path):
    pytest.importorskip("tensorboard")
    from tensorboard import context
    from tensorboard.backend.event_processing import data_provider, plugin_event_multiplexer
    from tensorboard.compat.proto import graph_pb2
    from tensorboard.plugins import base_plugin
    from tensorboard.plugins.graph import graphs_plugin
    from google.protobuf import text_format

    logdir = str(tmp_path)
    tf.keras.backend.clear_session()
    rs = np.random.RandomState(0)
    x = rs.uniform(size=(8, 2)).astype("float32")
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(3, activation="relu"),
                                 tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(x, x[:, :1], epochs=1, verbose=0, callbacks=[tf.keras.callbacks.TensorBoard(os.path.join(logdir, "k"))])
    writer = tf.summary.create_file_writer(os.path.join(logdir, "t"))
    tf.summary.trace_on()
    traced(tf.constant([1.0, 2.0]))
    with writer.as_default():
        tf.summary.trace_export("trace", step=0)
        tf.summary.graph(traced.get_concrete_function(tf.constant([1.0, 2.0])).graph)
    writer.close()

    multiplexer = plugin_event_multiplexer.EventMultiplexer()
    multiplexer.AddRunsFromDirectory(logdir)
    multiplexer.Reload()
    provider = data_provider.MultiplexerDataProvider(multiplexer, logdir)
    plugin = graphs_plugin.GraphsPlugin(base_plugin.TBContext(data_provider=provider, logdir=logdir,
                                                              multiplexer=multiplexer))
    ctx = context.RequestContext()
    info = plugin.info_impl(ctx, "")
    assert info["t"]["run_graph"] and info["t"]["tags"]["trace"]["op_graph"]
    assert info["k/train"]["tags"]["keras"]["conceptual_graph"]

    def graph(run, tag, conceptual):
        body, mime = plugin.graph_impl(ctx, run, tag, conceptual, "")
        assert mime == "text/x-protobuf"
        return text_format.Parse(body, graph_pb2.GraphDef())

    for tag in (None, "trace"):
        nodes = {n.name: n for n in graph("t", tag, False).node}
        assert nodes["total"].op == "Sum" and nodes["mul"].op == "Mul" and nodes["add"].op == "AddV2"
        assert list(nodes["total"].input)[0] == "add"
    keras_nodes = [n.name for n in graph("k/train", "keras", True).node]
    assert keras_nodes[0] == "sequential/input_layer" and "sequential/dense_1" in keras_nodes
