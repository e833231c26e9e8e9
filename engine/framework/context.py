"""The per-thread execution context.

TensorFlow keeps its mode (eager or graph-building), its device scope and its
stack of active gradient tapes *per thread*. That is what lets
``MirroredStrategy`` run one replica per thread, each with its own device scope
and its own tapes, without them seeing each other. The engine does the same
with one ``threading.local`` object, ``ctx``.
"""
import threading

__all__ = ["ctx", "executing_eagerly", "get_default_session"]


class _Context(threading.local):
    """State that every op dispatch consults. Read it through ``ctx``."""

    def __init__(self):
        self.tapes = []          # GradientTapes and ForwardAccumulators currently recording, innermost last
        self.device = None       # the Device from the innermost ``tf.device`` scope, or None
        self.graph = None        # the Graph being built (graph mode / tracing), or None for eager
        self.name_scope = ""     # current ``tf.name_scope`` prefix
        self.replica_context = None  # set by tf.distribute inside strategy.run
        self.strategy_stack = []     # strategies whose scope() is active
        self.variable_watchers = []  # sets collecting variables read (custom_gradient)
        self.sessions = []           # TF1: the sessions made default by ``with sess.as_default()``, innermost last
        if not _eager_enabled[0]:    # TF1 mode (disable_eager_execution): new threads build graphs too
            self.graph = _default_graph[0]()


# ``tf.compat.v1.disable_eager_execution`` flips this for the whole process.
_eager_enabled = [True]
# The process's default graph (``tf.compat.v1.get_default_graph``): ``graph.py`` installs it, being built on
# this module. TF1 mode gives it to every new thread as the graph it builds.
_default_graph = [None]

ctx = _Context()


def get_default_session():
    """The session of the innermost ``with session.as_default():`` (or ``with Session() as sess:``) block."""
    return ctx.sessions[-1] if ctx.sessions else None


def executing_eagerly():
    """True when ops run immediately (eager mode), False while building a graph or tracing."""
    return ctx.graph is None and _eager_enabled[0]
