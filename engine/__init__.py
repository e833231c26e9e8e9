"""engine: a readable re-implementation of TensorFlow 2's core, on NumPy (and CuPy).

``import engine as tf`` and write ordinary TF code::

    import engine as tf
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = x ** 3
    print(tape.gradient(y, x))   # tf.Tensor(12.0, shape=(), dtype=float32)

Read the package bottom-up, one layer at a time: each imports only the layers
before it (``pyproject.toml`` declares the order; ``tests/test_layers.py`` checks it).

1. ``seams``, ``util`` and ``config_optimizer``: the seams a student's code plugs into
   (``engine.seams.using(tape=...)``), nested structures, the optimizer's options.
2. ``framework/``: dtypes, shapes, errors, devices, the op registry (``registry.py``:
   one row per op, ``override``), tensors, graphs, the executor and graph optimizer,
   the backward walk (``backprop.py``) and ``tf.gradients``.
3. ``eager/``: how one op runs now (``execute.py``, the one door) and how
   ``GradientTape`` records ops and replays them backwards (``tape.py``).
4. ``ops/``: every op, each defined once with its kernel, shape function and gradient.
5. The ``tf.*`` namespaces over the ops: ``math``, ``nn``, ``random``, ``linalg``,
   ``bitwise``, ``debugging``, ``dtypes``, ``errors``, ``io``, ``graph_util``, ``nest``, ``ragged``,
   ``types``, ``experimental``.
6. ``variables`` and ``module``: state and its containers.
7. ``autograph/``: Python ``if``/``while``/``for`` on tensors to ``cond``/``while_loop``.
8. ``client/`` (``Session``), ``tracing/`` (``tf.function``) and ``autodiff``
   (forward mode).
9. ``config`` and ``test``, and ``summary/`` (``tf.summary``: TensorBoard event files); then
   ``compat/`` (``tf.compat.v1``).
10. ``data/`` (``tf.data``), ``distribute/`` (``tf.distribute``), ``keras/``,
    ``train`` and ``saved_model``, and ``viz/`` (pictures of tapes and graphs).
"""
__version__ = "2.21.0"   # the TensorFlow release the engine follows (tf.version)

from . import framework  # noqa: F401
from .framework import dtypes as _dtypes
from .framework.context import executing_eagerly  # noqa: F401
from .framework.device import device  # noqa: F401
from .framework.dtypes import (DType, as_dtype, bool, complex64, complex128, double, float16, float32,  # noqa: F401,A004
                               float64, half, int8, int16, int32, int64, string, uint8, uint16, uint32, uint64)
from .framework.name_scope import name_scope  # noqa: F401
from .framework.registry import RegisterGradient, NotDifferentiable  # noqa: F401
from .framework.tensor import (EagerTensor, Tensor, constant, is_tensor,  # noqa: F401
                               register_tensor_conversion_function)
from .framework.tensor import convert_to_tensor_v2_with_dispatch as convert_to_tensor  # noqa: F401
from .framework.tensor_shape import TensorShape  # noqa: F401
from .variables import Variable, VariableAggregation, VariableSynchronization  # noqa: F401
from .module import Module  # noqa: F401
from . import ops  # noqa: F401  (registers every op and installs the operators)
from .ops.ragged import ragged_dispatch as _ragged_dispatch  # noqa: F401,E402  (ragged versions of tf.* ops)
from .eager.tape import GradientTape, UnconnectedGradients  # noqa: F401
from .eager.custom_gradient import custom_gradient  # noqa: F401
from .eager.recompute import recompute_grad  # noqa: F401
from . import autodiff  # noqa: F401,E402  (tf.autodiff: ForwardAccumulator)

from .ops.math_ops import *  # noqa: F401,F403
from .ops.reduction_ops import *  # noqa: F401,F403
from .ops.trig_ops import *  # noqa: F401,F403
from .ops.array_ops import *  # noqa: F401,F403
from .ops.linalg_ops import *  # noqa: F401,F403
from .ops.sort_ops import *  # noqa: F401,F403
from .ops.segment_ops import *  # noqa: F401,F403
from .ops.scatter_ops import *  # noqa: F401,F403
from .ops.control_flow_ops import case, cond, switch_case, while_loop  # noqa: F401
from .ops.tensor_array_ops import TensorArray  # noqa: F401
from .framework.dtypes import resource, variant  # noqa: F401,E402  (tf.variant: a TensorArray's flow; tf.resource: a variable's handle)
from .ops.functional_ops import foldl, foldr, map_fn, scan, vectorized_map  # noqa: F401
from .ops.script_ops import numpy_function, py_function  # noqa: F401
from .ops.clip_ops import clip_by_global_norm, clip_by_norm, norm  # noqa: F401
from .framework.indexed_slices import IndexedSlices  # noqa: F401,E402  (tf.IndexedSlices)
from .ops import linalg_extras, special_ops  # noqa: F401,E402  (register tf.linalg / tf.math special ops)
from .ops.bitwise_ops import *  # noqa: F401,F403,E402  (saturate_cast, broadcast_static/dynamic_shape)
from . import bitwise  # noqa: F401,E402  (tf.bitwise)

from .framework.graph import Graph, Operation, control_dependencies, get_default_graph  # noqa: F401,E402
from .framework.graph import constant_value as get_static_value  # noqa: F401,E402
from .compat.v1 import group  # noqa: F401,E402
from .framework.graph_gradients import gradients  # noqa: F401,E402
from .framework.tensor_spec import TensorSpec  # noqa: F401,E402
from .framework.type_spec import TypeSpec  # noqa: F401,E402  (tf.TypeSpec: the base of every value type)
from .ops.ragged.ragged_tensor import RaggedTensor, RaggedTensorSpec  # noqa: F401,E402  (tf.RaggedTensor)
from . import ragged  # noqa: F401,E402  (tf.ragged)
from . import experimental, types  # noqa: F401,E402  (tf.experimental's ragged shapes; tf.types.experimental.TraceType)
from . import strings  # noqa: F401,E402  (tf.strings)
from .framework.sparse_tensor import SparseTensor, SparseTensorSpec  # noqa: F401,E402  (tf.SparseTensor)
from . import sparse  # noqa: F401,E402  (tf.sparse)
from .framework.func_graph import init_scope  # noqa: F401,E402
from .tracing.function import function  # noqa: F401,E402
from . import saved_model  # noqa: F401,E402
from .ops.logging_ops import print  # noqa: F401,E402,A004
from .framework.graph_io import import_graph_def  # noqa: F401,E402
from . import graph_util, io  # noqa: F401,E402
from . import version  # noqa: F401,E402  (tf.version)
from . import debugging  # noqa: F401,E402
from . import autograph, compat, config, data, dtypes, errors, linalg, math, nest, nn, random, test  # noqa: F401,E402
from . import image  # noqa: F401,E402  (tf.image)
from .debugging import (Assert, assert_equal, assert_greater, assert_less, assert_rank)  # noqa: F401,E402
from .framework.func_graph import inside_function  # noqa: F401,E402
from .framework.name_scope import get_current_name_scope  # noqa: F401,E402
from .framework.registry import NotDifferentiable as no_gradient  # noqa: F401,E402
from .ops.resource_ops import no_op  # noqa: F401,E402

newaxis = None
"""``x[:, tf.newaxis]`` inserts a dimension, as with NumPy."""

from . import summary  # noqa: F401,E402  (tf.summary: TensorBoard event files)
from . import keras  # noqa: F401,E402  (tf.keras)
from . import train  # noqa: F401,E402  (tf.train: Checkpoint, CheckpointManager)
from . import distribute  # noqa: F401,E402  (tf.distribute; installs the variable-creator hook on tf.Variable)
