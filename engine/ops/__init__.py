"""The op library: every op registered in the one registry, grouped by topic.

Import order matters only for registration: each module registers its ops at
import time, and ``overloads`` attaches Python operators once they all exist.
"""
from . import _dispatch  # noqa: F401
from . import resource_ops  # noqa: F401
from . import math_ops, reduction_ops, array_ops, linalg_ops, nn_ops, random_ops, slicing  # noqa: F401
from . import trig_ops  # noqa: F401
from . import logging_ops  # noqa: F401
from . import control_flow_ops  # noqa: F401
from . import clip_ops  # noqa: F401
from . import overloads  # noqa: F401
from . import segment_ops
from ..framework import op_library

# The layers below (the backward walk, IndexedSlices, the tape's jacobians) build results out of these ops.
op_library.install(array_ops=array_ops, math_ops=math_ops, segment_ops=segment_ops)
