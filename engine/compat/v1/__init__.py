"""``tf.compat.v1``: TensorFlow 1's graph-mode API.

Build a graph with placeholders and variables, then run it in a Session::

    import engine as tf
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, shape=[None, 3])
        w = tf.Variable(tf.ones([3, 1]))
        y = tf.matmul(x, w)
        init = tf.compat.v1.global_variables_initializer()
    with tf.compat.v1.Session(graph=g) as sess:
        sess.run(init)
        print(sess.run(y, feed_dict={x: [[1, 2, 3]]}))   # [[6.]]

Names not defined here fall back to the top-level ``engine`` namespace, as most
of ``tf.compat.v1`` mirrors ``tf``.
"""
import sys

from ... import framework as _framework  # noqa: F401
from ...client.session import InteractiveSession, Session, get_default_session  # noqa: F401
from ...framework import dtypes as _dtypes
from ...framework.context import _eager_enabled, ctx, executing_eagerly as _executing_eagerly
from ...framework.graph import (Graph, GraphKeys, Operation, _default_graph_stack, control_dependencies,  # noqa: F401
                                get_default_graph, reset_default_graph)
from ...framework.graph_gradients import gradients  # noqa: F401
from ...framework.graph_io import GraphDef, import_graph_def  # noqa: F401
from ...framework.registry import get_op
from ...framework.tensor_shape import TensorShape
from ...ops import random_ops
from ...ops._dispatch import execute, to_tensor
from ...variables import Variable  # noqa: F401
from .graph_building import (global_variables, global_variables_initializer, group,  # noqa: F401
                             initialize_all_variables, trainable_variables, variables_initializer)
from . import graph_util, train  # noqa: F401
from . import io  # noqa: F401  (tf.compat.v1.io: tf.io + tf_record_iterator)

__all__ = ["placeholder", "placeholder_with_default", "Session", "InteractiveSession", "Variable",
           "global_variables_initializer", "variables_initializer", "initialize_all_variables", "assign",
           "assign_add", "assign_sub", "gradients", "trainable_variables", "global_variables", "train",
           "disable_eager_execution", "enable_eager_execution", "get_default_graph", "reset_default_graph",
           "get_default_session", "Graph", "GraphKeys", "control_dependencies", "group", "executing_eagerly",
           "disable_v2_behavior", "enable_v2_behavior", "set_random_seed", "get_seed", "GraphDef", "import_graph_def"]


def placeholder(dtype, shape=None, name=None):
    """An input of the graph that must be fed in ``Session.run``. ``None`` dims accept any size."""
    graph = ctx.graph
    if graph is None:
        raise RuntimeError("tf.placeholder() is not compatible with eager execution.")
    shape = TensorShape(shape) if shape is not None else TensorShape(None)
    return graph.create_op_from_def(get_op("Placeholder"), [], {"dtype": _dtypes.as_dtype(dtype), "shape": shape},
                                    name=name or "Placeholder")


def placeholder_with_default(input, shape, name=None):  # noqa: A002
    """Like ``placeholder`` but takes ``input``'s value when not fed."""
    value = to_tensor(input)
    return execute(get_op("PlaceholderWithDefault"), (value,), {"shape": TensorShape(shape)},
                   name=name or "PlaceholderWithDefault")


def assign(ref, value, validate_shape=None, use_locking=None, name=None):
    return ref.assign(value)


def assign_add(ref, value, use_locking=None, name=None):
    return ref.assign_add(value)


def assign_sub(ref, value, use_locking=None, name=None):
    return ref.assign_sub(value)


def set_random_seed(seed):
    """TF1's name for ``tf.random.set_seed``."""
    random_ops.set_seed(seed)


def get_seed(op_seed):
    return random_ops.get_seed(op_seed)


def executing_eagerly():
    return _executing_eagerly()


def disable_eager_execution():
    """Switch this process to TF1 graph mode: ops build into the default graph."""
    _eager_enabled[0] = False
    if ctx.graph is None:
        ctx.graph = get_default_graph()


def enable_eager_execution(config=None, device_policy=None, execution_mode=None):
    _eager_enabled[0] = True
    if ctx.graph is not None and not _default_graph_stack():
        ctx.graph = None


disable_v2_behavior = disable_eager_execution
enable_v2_behavior = enable_eager_execution


def __getattr__(name):
    # The fallback to ``tf.X`` looks the name up in the top-level package, already imported (it imports this
    # module while it initializes): a look-up at call time, not an import of the package above.
    try:
        return getattr(sys.modules[__name__.partition(".")[0]], name)
    except AttributeError:
        raise AttributeError(f"module 'engine.compat.v1' has no attribute '{name}'") from None
