"""What ``tf.random`` remembers: the global seed, op seeds, and the random streams.

TensorFlow's random ops are stateful: each op (each graph node, each eager call
site with an op seed) has its own generator, advanced on every run. The engine
keeps all of that state here, in one structure, below the op library, because
two layers need it: the random ops' kernels (``ops/random_ops.py``), and the
graph executor, which runs each graph node's random kernel inside
``stream_owner(node)`` so that the node draws from its own stream.
"""
import collections
import contextlib
import threading
import weakref

import numpy as np

__all__ = ["STATE", "stream_owner"]


class _RandomState:
    """Everything ``tf.random`` remembers, in one structure.

    ``global_seed``: the value of ``set_seed`` (or None). ``op_seeds``: the
    ``random.Random(global_seed)`` that hands out op seeds in eager mode.
    ``graph_counters``: per-graph op-seed counters (graph mode numbers its random
    ops 0, 1, 2 ... as TF does). ``streams``: ``key -> numpy Generator``.
    ``session_streams``: ``runtime -> streams`` for graphs run by a Session.
    """

    def __init__(self):
        self.lock = threading.RLock()
        self.global_seed = None
        self.op_seeds = None
        self.graph_counters = weakref.WeakKeyDictionary()
        self.streams = collections.OrderedDict()
        self.session_streams = weakref.WeakKeyDictionary()
        self.unseeded = np.random.default_rng()
        self.local = threading.local()   # .owner: the stream owner (None = eager)

    def reset_streams(self):
        self.streams.clear()


STATE = _RandomState()


@contextlib.contextmanager
def stream_owner(owner):
    """Random kernels run inside this block draw from streams owned by ``owner`` (a graph node)."""
    previous = getattr(STATE.local, "owner", None)
    STATE.local.owner = owner
    try:
        yield
    finally:
        STATE.local.owner = previous
