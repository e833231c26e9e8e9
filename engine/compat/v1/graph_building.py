"""The TF1 functions that train.py shares with ``tf.compat.v1``: ``group`` and the variable collections.

``group`` is one ``NoOp`` with control dependencies on its inputs; the
collections are the default graph's ``GraphKeys.GLOBAL_VARIABLES`` /
``TRAINABLE_VARIABLES``, which every ``tf.Variable`` made in a graph joins.
A module of its own so that ``v1/__init__.py`` (which re-exports them) and
``v1/train.py`` (whose optimizers use them) both import it, in that order.
"""
from ...framework.context import ctx
from ...framework.graph import GraphKeys
from ...framework.registry import get_op
from ...ops._dispatch import execute

__all__ = ["group", "variables_initializer", "global_variables", "trainable_variables",
           "global_variables_initializer", "initialize_all_variables"]


def group(*inputs, name=None):
    """One op that runs after all ``inputs`` (a ``NoOp`` with control dependencies)."""
    graph = ctx.graph
    if graph is None:
        return None
    flat = []
    for i in inputs:
        flat.extend(i if isinstance(i, (list, tuple)) else [i])
    with graph.control_dependencies([i for i in flat if i is not None]):
        return execute(get_op("NoOp"), (), {}, name=name or "group_deps")


def variables_initializer(var_list, name="init"):
    """An op running the initializers of ``var_list``."""
    return group(*[v.initializer for v in var_list], name=name)


def global_variables(scope=None):
    graph = ctx.graph
    return [] if graph is None else graph.get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


def trainable_variables(scope=None):
    graph = ctx.graph
    return [] if graph is None else graph.get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


def global_variables_initializer():
    """An op that initializes every variable of the default graph (run it once per Session)."""
    return variables_initializer(global_variables(), name="init")


initialize_all_variables = global_variables_initializer
