"""``tf.keras.Input`` and ``InputLayer``: where a functional graph starts.

``Input(shape=(8,))`` creates an ``InputLayer`` and returns its output, a
``KerasTensor`` of shape ``(None, 8)``: ``shape`` excludes the batch axis,
``batch_shape`` includes it. The ``InputLayer`` has no weights and no call of
its own; it is the node the functional model's graph walk stops at.
"""
from ...framework import dtypes
from .. import backend
from ..keras_tensor import KerasTensor, Node
from .layer import Layer

__all__ = ["InputLayer", "Input"]


class InputLayer(Layer):
    """The source of a functional graph: it owns the input ``KerasTensor``."""

    def __init__(self, shape=None, batch_size=None, dtype=None, sparse=None, batch_shape=None, input_tensor=None,
                 optional=False, name=None, **kwargs):
        if "input_shape" in kwargs:
            shape = kwargs.pop("input_shape")
        if "batch_input_shape" in kwargs:
            batch_shape = kwargs.pop("batch_input_shape")
        super().__init__(name=name or backend.unique_object_name("input_layer"), **kwargs)
        if sparse:
            raise NotImplementedError("Sparse inputs are not implemented in the engine.")
        if shape is not None and batch_shape is not None:
            raise ValueError("You cannot pass both `shape` and `batch_shape` at the same time.")
        if shape is None and batch_shape is None and input_tensor is None:
            raise ValueError("You must pass a `shape` argument.")
        if input_tensor is not None:
            if not isinstance(input_tensor, KerasTensor):
                raise ValueError(f"Argument `input_tensor` must be a KerasTensor. Received: {input_tensor}")
            batch_shape = input_tensor.shape
            dtype = dtype or input_tensor.dtype
        if batch_shape is None:
            shape = (shape,) if isinstance(shape, int) else tuple(shape)
            batch_shape = (batch_size,) + shape
        self._batch_shape = tuple(batch_shape)
        self._dtype = dtypes.as_dtype(dtype or backend.floatx())
        self.built = True
        tensor = input_tensor or KerasTensor(self._batch_shape, self._dtype, name=name)
        Node(self, outputs=tensor)
        self._output_shape = self._batch_shape

    @property
    def batch_shape(self):
        return self._batch_shape

    def call(self, inputs):
        return inputs

    def get_config(self):
        return {"batch_shape": list(self._batch_shape), "dtype": self.dtype, "sparse": False, "name": self.name}


def Input(shape=None, batch_size=None, dtype=None, sparse=None, batch_shape=None, name=None, tensor=None,  # noqa: N802
          optional=False):
    """A symbolic input of a functional model: ``shape`` without the batch axis, e.g. ``Input(shape=(8,))``."""
    layer = InputLayer(shape=shape, batch_size=batch_size, dtype=dtype, sparse=sparse, batch_shape=batch_shape,
                       input_tensor=tensor, name=name)
    return layer.output
