"""``tf.keras.Sequential``: a plain stack of layers, each feeding the next.

``Sequential([Input(shape=(8,)), Dense(16), Dense(2)])`` knows its input shape,
so it builds at once: the layers are called in turn on a symbolic input
(``(None, 8)``), which creates their weights and records their output shapes
(``summary()`` shows them). Without an ``Input`` the model builds at its first
call, from the data's shape (the batch dimension is recorded as ``None``).

``call`` simply runs the layers in order; ``training`` reaches them through the
call context (``backend.call_context``).
"""
from .. import backend
from ..keras_tensor import KerasTensor
from ..layers.input_layer import InputLayer
from ..layers.layer import Layer
from ..serialization import deserialize_keras_object, serialize_keras_object
from .model import Model

__all__ = ["Sequential"]


class Sequential(Model):
    """A linear stack of layers: ``model.add(layer)``, ``model(x)``."""

    def __init__(self, layers=None, trainable=True, name=None):
        super().__init__(trainable=trainable, name=name or backend.unique_object_name("sequential"))
        object.__setattr__(self, "_input_layer", None)
        for layer in layers or []:
            self.add(layer, rebuild=False)
        self._maybe_rebuild()

    def add(self, layer, rebuild=True):
        """Append a layer (an ``Input(...)`` KerasTensor is accepted first, to fix the input shape)."""
        if isinstance(layer, KerasTensor) and isinstance(layer._keras_history.operation, InputLayer):
            layer = layer._keras_history.operation
        if not isinstance(layer, Layer):
            raise ValueError(f"Only instances of `keras.Layer` can be added to a Sequential model. Received: "
                             f"{layer} (of type {type(layer)})")
        if isinstance(layer, InputLayer):
            if self._layers or self._input_layer is not None:
                raise ValueError(f"Sequential model '{self.name}' has already been configured to use an input "
                                 f"shape; an InputLayer can only be its first layer.")
            object.__setattr__(self, "_input_layer", layer)
        else:
            if any(layer.name == other.name for other in self._layers):
                raise ValueError(f"All layers added to a Sequential model should have unique names. Name "
                                 f"'{layer.name}' is already the name of a layer in this model. Update the `name` "
                                 f"argument to pass a unique name.")
            self._layers.append(layer)
        if rebuild:
            self._maybe_rebuild()
        else:
            self.built = False

    def pop(self, rebuild=True):
        layer = self._layers.pop()
        self.built = False
        if rebuild:
            self._maybe_rebuild()
        return layer

    def _maybe_rebuild(self):
        self.built = False
        if self._input_layer is not None:
            self.build(self._input_layer.batch_shape)
        elif self._layers and self._layers[0]._batch_input_shape is not None:
            self.build(self._layers[0]._batch_input_shape)

    def build(self, input_shape=None):
        """Call every layer on a symbolic input of ``input_shape`` (batch dim relaxed to None)."""
        if input_shape is None:
            raise ValueError("You must provide an `input_shape` argument.")
        input_shape = (None,) + tuple(input_shape[1:])
        if self._input_layer is None or tuple(self._input_layer.batch_shape) != input_shape:
            object.__setattr__(self, "_input_layer", InputLayer(batch_shape=input_shape,
                                                                name=f"{self.name}_input"))
        x = self._input_layer.output
        for layer in self._layers:
            x = layer(x)
        self._build_input_shape = input_shape
        self._output_shape = x.shape if isinstance(x, KerasTensor) else None
        object.__setattr__(self, "_output_tensor", x if isinstance(x, KerasTensor) else None)
        self.built = True

    def call(self, inputs, training=None, mask=None):
        """Each layer in turn; a layer whose ``call`` takes ``mask`` gets the previous output's mask."""
        x = inputs
        for layer in self._layers:
            kwargs = {"mask": mask} if layer._call_has_mask_arg and mask is not None else {}
            x = layer(x, **kwargs)
            mask = backend.get_keras_mask(x) if not isinstance(x, (list, tuple, dict)) else None
        return x

    def get_config(self):
        """``{"name", "trainable", "layers": [InputLayer config (if any), layer configs...]}`` (Keras 3's layout)."""
        layers = []
        if self._input_layer is not None:
            layers.append(serialize_keras_object(self._input_layer))
        layers.extend(serialize_keras_object(layer) for layer in self.layers)
        return {"name": self.name, "trainable": self.trainable, "layers": layers}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        layers = [deserialize_keras_object(c, custom_objects) for c in config["layers"]]
        return cls(layers=layers, name=config.get("name"), trainable=config.get("trainable", True))

    @property
    def layers(self):
        """The layers, without the input layer."""
        return list(self._layers)

    @property
    def inputs(self):
        return [self._input_layer.output] if self._input_layer is not None else None

    @property
    def outputs(self):
        return [self._output_tensor] if self.built and self._output_tensor is not None else None

    @property
    def input_shape(self):
        if self._input_layer is None:
            raise AttributeError(f"Sequential model '{self.name}' has no defined input shape yet.")
        return tuple(self._input_layer.batch_shape)

    @property
    def output_shape(self):
        if not self.built or self._output_shape is None:
            raise AttributeError(f"Sequential model '{self.name}' has no defined outputs yet.")
        return tuple(self._output_shape)
