"""``tf.keras.Model``: a layer that can be trained (``Layer`` + ``Trainer``).

There are three ways to make one, all ending in this class:

* **subclassing**: ``class MyModel(tf.keras.Model)`` with sub-layers assigned in
  ``__init__`` and the computation in ``call``; built at the first call;
* **functional**: ``tf.keras.Model(inputs, outputs)`` from ``tf.keras.Input``
  KerasTensors. ``Model.__new__`` notices the arguments and returns a
  :class:`~engine.keras.models.functional.Functional` instead (as Keras does);
* **Sequential**: a stack of layers (``models/sequential.py``).

Besides the training methods (``trainer.py``) a model adds ``summary()``,
``save_weights``/``load_weights`` (``saving.py``) and ``build(input_shape)``.
"""
from ..keras_tensor import KerasTensor, compute_output_spec
from ..layers.layer import Layer
from ..trainer import Trainer
from .. import saving
from ..utils import summary as summary_utils

__all__ = ["Model"]


def _is_functional_call(args, kwargs):
    return "inputs" in kwargs and "outputs" in kwargs or len(args) == 2 or (len(args) == 1 and "outputs" in kwargs)


class Model(Trainer, Layer):
    """A trainable layer. See the module docstring for the three ways to define one."""

    _functional_class = None
    """``Functional``, which ``Model(inputs, outputs)`` builds; set by ``functional.py`` (it subclasses ``Model``)."""

    def __new__(cls, *args, **kwargs):
        if cls is Model and _is_functional_call(args, kwargs):
            functional = Model._functional_class
            return functional.__new__(functional)
        return super().__new__(cls)

    def __init__(self, *args, **kwargs):
        trainable = kwargs.pop("trainable", True)
        name = kwargs.pop("name", None)
        dtype = kwargs.pop("dtype", None)
        if args or kwargs:
            raise TypeError(f"Model.__init__ got unexpected arguments {args} {kwargs}. A subclassed model passes "
                            f"only `name`/`trainable`/`dtype` to super().__init__(); a functional model is "
                            f"`Model(inputs, outputs)`.")
        Layer.__init__(self, trainable=trainable, name=name, dtype=dtype)
        Trainer.__init__(self)

    def build(self, input_shape=None):
        """Create the weights by running ``call`` once on a symbolic input of ``input_shape``.

        (A subclassed model called on real data does not need this: its layers build
        themselves during the first call.)
        """
        if input_shape is None:
            raise ValueError("You must provide an `input_shape` argument.")
        spec = KerasTensor(tuple(input_shape))
        compute_output_spec(lambda x: self.call(x), (spec,), {}, name=f"{self.name}_build")
        self._build_input_shape = tuple(input_shape)
        self.built = True

    def _maybe_build(self, inputs):
        if self.built:
            return
        if type(self).build is Model.build:
            # a subclassed model without its own build: its layers build during the call itself
            self._build_input_shape = None
            self.built = True
            return
        super()._maybe_build(inputs)

    def summary(self, line_length=None, positions=None, print_fn=None, expand_nested=False, show_trainable=False,
                layer_range=None):
        """Print a table of the layers, their output shapes and parameter counts (Keras 3's layout)."""
        summary_utils.print_summary(self, line_length=line_length, positions=positions, print_fn=print_fn,
                                    expand_nested=expand_nested, show_trainable=show_trainable,
                                    layer_range=layer_range)

    def save_weights(self, filepath, overwrite=True):
        """Save every weight to ``filepath`` (``*.weights.h5`` or ``*.weights.npz``; NumPy npz format)."""
        saving.save_weights(self, filepath, overwrite=overwrite)

    def load_weights(self, filepath, skip_mismatch=False):
        """Load weights saved by :meth:`save_weights` (same architecture, same weight order)."""
        saving.load_weights(self, filepath, skip_mismatch=skip_mismatch)

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """A functional config (``layers`` + ``input_layers``) gives a functional model, as in Keras;
        otherwise ``cls(**config)`` (a subclassed model whose ``__init__`` takes its config)."""
        if "input_layers" in config and "layers" in config:
            return Model._functional_class.from_config(config, custom_objects)
        return super().from_config(config)

    def save(self, filepath, overwrite=True, zipped=None, **kwargs):
        """Save the architecture (``get_config``), the weights and the compile arguments to a ``.keras`` zip.

        The engine's own format, not byte-compatible with Keras's ``.keras``; the
        optimizer state is not saved (see ``saving.py``). Reload with
        ``tf.keras.models.load_model``.
        """
        saving.save_model(self, filepath, overwrite=overwrite, zipped=zipped, **kwargs)

    def get_layer(self, name=None, index=None):
        """A layer by name or by index in ``layers``."""
        if index is not None:
            if len(self.layers) <= index:
                raise ValueError(f"Was asked to retrieve layer at index {index} but model only has "
                                 f"{len(self.layers)} layers.")
            return self.layers[index]
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name}. Existing layers are: {[layer.name for layer in self.layers]}.")
