"""The functional API's symbolic tensors: ``KerasTensor`` and ``Node``.

``x = tf.keras.Input(shape=(8,))`` holds no data: it is a ``KerasTensor``, a
shape ``(None, 8)`` (``None``: the batch size, unknown yet) and a dtype.
Calling a layer on it, ``y = Dense(4)(x)``, does not compute anything either:

1. the layer is **built** from the input shape (its weights are created now);
2. its **output spec** is found by tracing ``layer.call`` once on a placeholder
   in a scratch ``FuncGraph`` (:func:`compute_output_spec`): every op's shape
   function runs, none of its kernels. This is how Keras-on-TF does it too, and
   it works for any custom layer, with no ``compute_output_shape`` to write;
3. a :class:`Node` records the call: which layer, on which KerasTensors, giving
   which KerasTensors. Each output remembers its node in ``_keras_history``.

``tf.keras.Model(inputs, outputs)`` then walks the ``_keras_history`` links back
from ``outputs`` to ``inputs`` to recover the graph of layer calls, and replays
it on real tensors (``models/functional.py``).
"""
import collections

from ..framework import dtypes
from ..framework.func_graph import FuncGraph
from ..framework.registry import get_op
from ..framework.tensor_shape import TensorShape
from ..util import nest
from . import backend

__all__ = ["KerasTensor", "KerasHistory", "Node", "any_symbolic", "compute_output_spec"]

KerasHistory = collections.namedtuple("KerasHistory", ["operation", "node_index", "tensor_index"])
"""Where a KerasTensor came from: output ``tensor_index`` of call ``node_index`` of layer ``operation``."""


class KerasTensor:
    """A symbolic tensor of the functional API: a shape (a tuple, ``None`` for unknown) and a dtype."""

    def __init__(self, shape, dtype="float32", name=None):
        self._shape = tuple(None if d is None else int(d) for d in shape)
        self._dtype = dtypes.as_dtype(dtype)
        self.name = name or backend.unique_object_name("keras_tensor")
        self._keras_history = None
        self._keras_mask = None          # the mask a layer attached to this output (a KerasTensor), if any

    @property
    def shape(self):
        """The static shape as a tuple, e.g. ``(None, 8)`` (Keras 3 uses tuples, not TensorShape)."""
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def ndim(self):
        return len(self._shape)

    def __tf_tensor__(self, dtype=None, name=None):
        raise TypeError(
            f"A KerasTensor ({self.name}, shape={self._shape}) is a symbolic placeholder of the functional API and "
            f"has no value, so it cannot be passed to a TensorFlow op. Use it only as the input of Keras layers; "
            f"for custom computations, write a Layer subclass whose call() uses the op.")

    def __array__(self, dtype=None, copy=None):
        self.__tf_tensor__()

    def __repr__(self):
        return (f"<KerasTensor shape={self._shape}, dtype={self._dtype.name}, sparse=False, ragged=False, "
                f"name={self.name}>")


def any_symbolic(structure):
    """True if a KerasTensor is anywhere in ``structure``."""
    return any(isinstance(x, KerasTensor) for x in nest.flatten(structure))


class Node:
    """One call of a layer on KerasTensors: an edge list of the functional graph.

    ``arguments`` keeps the call's ``(args, kwargs)`` with the KerasTensors in
    place, so the functional model can replay the call with real tensors.
    """

    def __init__(self, operation, call_args=(), call_kwargs=None, outputs=None):
        self.operation = operation
        self.arguments = (tuple(call_args), dict(call_kwargs or {}))
        self.input_tensors = [x for x in nest.flatten(self.arguments) if isinstance(x, KerasTensor)]
        self.outputs = outputs
        self.output_tensors = [x for x in nest.flatten(outputs) if isinstance(x, KerasTensor)]
        self.is_input = not self.input_tensors
        self.parent_nodes = []
        for kt in self.input_tensors:
            history = kt._keras_history
            if history is not None:
                self.parent_nodes.append(history.operation._inbound_nodes[history.node_index])
        operation._inbound_nodes.append(self)
        node_index = len(operation._inbound_nodes) - 1
        for i, kt in enumerate(self.output_tensors):
            kt._keras_history = KerasHistory(operation, node_index, i)

    def __repr__(self):
        return (f"<Node of {self.operation.name}: {len(self.input_tensors)} inputs -> "
                f"{len(self.output_tensors)} outputs>")


def compute_output_spec(call, args, kwargs, name="output_spec"):
    """The KerasTensors ``call(*args, **kwargs)`` would return, found by tracing it in a scratch graph.

    Each KerasTensor argument becomes a ``Placeholder`` of its shape and dtype;
    ``call`` runs once in a :class:`FuncGraph` (so a sub-layer built on the way
    creates its variables eagerly, lifted out of the graph as in ``tf.function``),
    and the static shapes of its outputs are read back. The graph is then dropped.
    """
    graph = FuncGraph(name)
    with graph.as_default(), backend.symbolic_trace():
        def placeholder(x, with_mask=True):
            if isinstance(x, KerasTensor):
                p = graph.create_op_from_def(get_op("Placeholder"), [],
                                             {"dtype": x.dtype, "shape": TensorShape(list(x.shape))},
                                             name=x.name)
                mask = getattr(x, "_keras_mask", None)
                if with_mask and isinstance(mask, KerasTensor):   # the input's mask rides along (Keras masks)
                    backend.set_keras_mask(p, placeholder(mask, with_mask=False))
                return p
            return x
        symbolic_args, symbolic_kwargs = nest.map_structure(placeholder, (tuple(args), dict(kwargs)))
        outputs = call(*symbolic_args, **symbolic_kwargs)

    def to_keras_tensor(t):
        if t is None:
            return None
        if t.shape.rank is None:
            raise ValueError(f"{name}: the output {t!r} has an unknown rank, so no KerasTensor can describe it.")
        kt = KerasTensor(t.shape.as_list(), t.dtype)
        mask = backend.get_keras_mask(t)
        if mask is not None and mask.shape.rank is not None:
            kt._keras_mask = KerasTensor(mask.shape.as_list(), mask.dtype)
        return kt
    return nest.map_structure(to_keras_tensor, outputs)
