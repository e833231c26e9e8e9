"""``tf.keras.layers.Layer``: the base class of every layer and model.

A layer tracks its variables and sub-layers as a ``tf.Module`` does, but, as in
Keras 3 (TF 2.21), it is **not** a ``tf.Module``: ``isinstance(layer, tf.Module)``
is ``False``, and ``tf.Module``'s ``submodules``, ``name_scope``,
``with_name_scope`` and ``_flatten`` are absent (``layer.submodules`` raises
``AttributeError: 'Dense' object has no attribute 'submodules'``; Keras' own
walk is ``layer.layers`` / ``model.layers``). It has ``variables``,
``trainable_variables`` and ``non_trainable_variables`` (lists, Keras' order,
below). Its base is the engine's internal ``module.AutoTrackable`` (TF's is
``AutoTrackable`` too), which is what checkpoints and SavedModels walk: a layer
checkpoints and exports as before. ``name`` is a plain attribute: any string
without ``/`` (Keras 3's rule).

Its extra habits:

* **Deferred building.** Weights depend on the input shape, which is known only
  at the first call. ``layer(x)`` calls ``build(input_shape)`` once (creating the
  weights with :meth:`Layer.add_weight`), then ``call(x)``. ``built`` says whether
  that happened.
* **Ordered weight tracking.** ``tf.Module`` finds variables by walking
  attributes sorted by name, which would put ``bias`` before ``kernel``. Keras
  orders weights by creation instead: the layer's own trainable weights, its own
  non-trainable weights, then each sub-layer's weights, in the order the
  sub-layers were assigned as attributes (``__setattr__`` records them). The
  properties ``weights``, ``trainable_weights``, ``trainable_variables``... all
  follow that order, which is also the order of ``get_weights()``. Only
  ``add_weight`` makes weights: a ``tf.Variable`` assigned as an attribute is not
  one (Keras 3; a checkpoint still saves it). Weights are named as Keras 3 names
  them: ``kernel.name == "kernel"``, ``kernel.path == "sequential/dense/kernel"``
  (the Keras name scopes open when it was made: ``build``, ``call`` and
  ``add_weight`` open the layer's, see ``backend.keras_name_scope``), printed as
  ``<Variable path=..., shape=..., dtype=..., value=...>``. Deliberate
  differences: they are ``tf.Variable`` s (Keras 3's ``keras.Variable`` is not),
  with TF dtypes, and ``assign`` returns TF's ``UnreadVariable`` view rather than a tensor.
* **Errors in ``call``.** An exception escaping ``call`` is re-raised as Keras 3
  does, naming the layer class and listing the arguments (``call_errors.py``).
* **The training flag.** ``layer(x, training=True)`` passes ``training`` to
  ``call`` if its signature has it, and records it in the call context
  (``backend.call_context``) so that layers called inside (a ``Dropout`` inside a
  ``Sequential`` inside a ``Model``) receive it too. Priority: the explicit
  argument, then the enclosing call's value, then ``call``'s own default.
* **Input conversion.** NumPy arrays become tensors, and float inputs are cast
  to the layer's dtype (``float32``): Keras' *autocast*. Integer inputs are kept
  (an ``Embedding`` needs them).
* **Losses.** ``add_loss(t)`` (called from ``call``) records an extra loss
  term; ``add_weight(regularizer=...)`` attaches a penalty to a weight, and
  ``activity_regularizer`` adds a penalty on the outputs of every call
  (divided by the batch size, as Keras 3 does). ``layer.losses`` lists them
  all, recursively: the ``add_loss`` terms of this layer and of its sub-layers,
  then the weight penalties (recomputed from the current weight values, in
  ``trainable_weights`` order). The terms recorded by ``add_loss`` belong to the
  latest call: the *outermost* layer call (a model called by ``fit``) clears
  them in itself and all its sub-layers first. While a layer is only traced for
  its output shapes (the functional API), ``add_loss`` records nothing.

* **Masks.** A layer may produce a *mask* for its output (``compute_mask``:
  ``Embedding(mask_zero=True)``, ``Masking``), a boolean ``(batch, timesteps)``
  tensor that says which steps are real. As in Keras 3, the mask travels
  *attached to the output tensor* (``backend.get_keras_mask(t)``, Keras'
  ``t._keras_mask``): ``__call__`` passes the first input's mask to ``call`` when
  ``call`` has a ``mask`` argument (and it was not given explicitly), and, for a
  layer that ``supports_masking``, attaches ``compute_mask(inputs, mask)`` to the
  outputs (by default the input mask, unchanged). A layer that does not support
  masking drops the mask with a warning. ``supports_masking`` is true when a
  layer overrides ``compute_mask`` or sets it (``Dense``, ``Dropout``, the RNNs...).

Called on a ``KerasTensor`` (the functional API), a layer computes nothing: it
builds itself and returns KerasTensors describing its output (see
``engine/keras/keras_tensor.py``).
"""
import functools
import inspect
import math
import warnings

import numpy as np

from ...framework import dtypes
from ...framework.name_scope import name_scope
from ...framework.tensor import Tensor, convert_to_tensor
from ...module import AutoTrackable
from ...ops import array_ops, math_ops
from ...util import nest
from ...variables import Variable, VariableAggregation
from .. import backend, initializers, regularizers
from ..call_errors import with_call_arguments
from ..serialization import deserialize_value, serialize_value
from ..metrics import Metric
from ..keras_tensor import KerasTensor, Node, any_symbolic, compute_output_spec

__all__ = ["Layer"]

_AGGREGATIONS = {
    None: VariableAggregation.NONE, "none": VariableAggregation.NONE, "sum": VariableAggregation.SUM,
    "mean": VariableAggregation.MEAN, "only_first_replica": VariableAggregation.ONLY_FIRST_REPLICA,
}


def _is_variable(x):
    return hasattr(x, "_is_variable")


def _check_positional_tensors(args):
    """Keras 3's rule: every positional argument of a layer call is a tensor (or None, or an array, which is
    converted); Python numbers, strings and nested lists of numbers must be passed by keyword (or as a
    ``tf.constant``): ``ValueError``, with Keras' message, naming the first offending leaf."""
    for arg in nest.flatten(args):
        if arg is None or isinstance(arg, (Tensor, np.ndarray)) or _is_variable(arg) or hasattr(arg, "__array__"):
            continue
        raise ValueError(f"Only input tensors may be passed as positional arguments. The following argument value "
                         f"should be passed as a keyword argument: {arg} (of type {type(arg)})")


def _layers_in(value):
    """The layers in an attribute value: a layer, or layers inside lists, tuples and dicts."""
    if isinstance(value, Layer):
        return [value]
    if isinstance(value, (list, tuple)):
        return [layer for v in value for layer in _layers_in(v)]
    if isinstance(value, dict):
        return [layer for v in value.values() for layer in _layers_in(v)]
    return []


def _shape_of(x):
    """A Python tuple shape (``None`` for unknown dims), as ``build`` receives it."""
    if isinstance(x, KerasTensor):
        return x.shape
    shape = x.shape
    if hasattr(shape, "as_list"):
        return tuple(shape.as_list()) if shape.rank is not None else None
    return tuple(shape)


class Layer(AutoTrackable):
    """Base class for layers: override ``build(input_shape)`` (create weights) and ``call(inputs)``.

    Example::

        class Scale(tf.keras.layers.Layer):
            def build(self, input_shape):
                self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="w")

            def call(self, inputs):
                return inputs * self.w
    """

    _serialized_module = "keras.layers"
    """The ``"module"`` of every layer's (and model's) serialized config (``serialization.serialize_keras_object``)."""

    def __init_subclass__(cls, **kwargs):
        """Wrap a subclass's ``build`` so that ``built`` is set however ``build`` is reached, and its
        ``__init__`` so that the constructor arguments are remembered (the default ``get_config``)."""
        super().__init_subclass__(**kwargs)
        if "__init__" in cls.__dict__:
            original_init = cls.__dict__["__init__"]

            @functools.wraps(original_init)
            def __init__(self, *args, **kw):
                if "_init_arguments" not in self.__dict__:   # the outermost (most derived) constructor
                    object.__setattr__(self, "_init_arguments", _bound_arguments(original_init, self, args, kw))
                original_init(self, *args, **kw)
            cls.__init__ = __init__
        if "build" in cls.__dict__:
            original = cls.__dict__["build"]

            @functools.wraps(original)
            def build(self, *args, **kw):
                with backend.keras_name_scope(self.name, caller=self):   # the weights' paths: Keras 3's
                    result = original(self, *args, **kw)
                self.built = True
                if self._build_input_shape is None:
                    self._build_input_shape = args[0] if args else kw.get("input_shape")
                return result
            cls.build = build

    def __init__(self, trainable=True, dtype=None, autocast=True, name=None, **kwargs):
        input_shape = kwargs.pop("input_shape", None)
        input_dim = kwargs.pop("input_dim", None)
        batch_size = kwargs.pop("batch_size", None)
        batch_input_shape = kwargs.pop("batch_input_shape", None)
        activity_regularizer = kwargs.pop("activity_regularizer", None)
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments passed to {type(self).__name__}: {kwargs}")
        object.__setattr__(self, "_layers", [])           # tracked sub-layers, in assignment order
        object.__setattr__(self, "_own_trainable", [])    # weights created by this layer, in creation order
        object.__setattr__(self, "_own_non_trainable", [])
        object.__setattr__(self, "_metrics", [])           # Metric objects assigned as attributes
        object.__setattr__(self, "_losses", [])            # add_loss terms of the latest call
        self.activity_regularizer = regularizers.get(activity_regularizer)
        if name is None:
            name = backend.unique_object_name(backend.to_snake_case(type(self).__name__))
        if not isinstance(name, str) or "/" in name:
            raise ValueError(f"Argument `name` must be a string and cannot contain character `/`. "
                             f"Received: name={name} (of type {type(name)})")
        self.name = name
        self.built = False
        self._trainable = bool(trainable)
        self._dtype = dtypes.as_dtype(dtype or backend.floatx())
        self.autocast = autocast
        self._inbound_nodes = []
        self._build_input_shape = None
        self._output_shape = None        # recorded at the first call, for summary()
        if batch_input_shape is not None:
            self._batch_input_shape = tuple(batch_input_shape)
        elif input_shape is not None or input_dim is not None:
            shape = tuple(input_shape) if input_shape is not None else (input_dim,)
            self._batch_input_shape = (batch_size,) + shape
        else:
            self._batch_input_shape = None
        parameters = inspect.signature(self.call).parameters
        self._call_has_training_arg = "training" in parameters
        self._call_has_mask_arg = "mask" in parameters
        default = parameters["training"].default if self._call_has_training_arg else None
        self._default_training = None if default is inspect.Parameter.empty else default

    # --- attribute tracking -------------------------------------------------------------
    def __setattr__(self, name, value):
        if isinstance(value, Metric) and "_metrics" in self.__dict__:
            if not any(value is m for m in self._metrics):
                self._metrics.append(value)
        tracked = self.__dict__.get("_layers")
        found = _layers_in(value)
        if found:
            if tracked is None:
                raise RuntimeError(f"It looks like you are subclassing `{type(self).__name__}` and you forgot to "
                                   f"call `super().__init__()`. Always start with this line.")
            for layer in found:
                if layer is not self and not any(layer is known for known in tracked):
                    tracked.append(layer)
        # A ``tf.Variable`` assigned as an attribute is *not* a weight (Keras 3, as TF 2.21 runs it): only
        # ``add_weight`` makes weights. (A checkpoint still saves it: it walks the attributes.)
        object.__setattr__(self, name, value)

    # --- weights ------------------------------------------------------------------------
    def add_weight(self, shape=None, initializer=None, dtype=None, trainable=True, autocast=True,
                   regularizer=None, constraint=None, aggregation="none", overwrite_with_gradient=False, name=None):
        """Create a weight (a ``tf.Variable``) of this layer and track it.

        ``initializer`` is a name or an initializer (default: ``"glorot_uniform"``
        for floats, ``"zeros"`` otherwise). The initial value is passed as a
        callable, so a weight created while a ``tf.function`` is being traced is
        created eagerly, once, outside the graph (TF's variable lifting).
        ``regularizer`` (a name or a callable, see ``regularizers.py``) is stored on
        the variable as ``variable.regularizer``, as Keras does; ``losses`` applies it.
        """
        dtype = dtypes.as_dtype(dtype or self._dtype)
        if initializer is None:
            initializer = "glorot_uniform" if dtype.is_floating else "zeros"
        init = initializers.get(initializer)
        shape = tuple(int(d) for d in (shape or ()))
        if any(d is None for d in shape):
            raise ValueError(f"Layer '{self.name}': cannot create weight '{name}' of unknown shape {shape}.")
        with backend.keras_name_scope(self.name, caller=self):
            path = f"{backend.current_path()}/{name or 'variable'}"
        variable = Variable(lambda: init(shape, dtype=dtype), trainable=trainable, dtype=dtype,
                            name=path, constraint=constraint, aggregation=_AGGREGATIONS.get(aggregation, aggregation))
        variable.regularizer = regularizers.get(regularizer)
        # Keras 3's naming: ``path`` is the Keras name scopes and the weight's name ("sequential/dense/kernel"),
        # ``name`` the weight's name alone ("kernel"), ``repr`` is ``<Variable path=..., value=...>``.
        variable.path = variable._keras_path = path
        (self._own_trainable if trainable else self._own_non_trainable).append(variable)
        return variable

    @property
    def weights(self):
        """Own trainable, own non-trainable, then each sub-layer's weights (deduplicated)."""
        return _dedup(self._own_trainable + self._own_non_trainable
                      + [w for layer in self._layers for w in layer.weights])

    @property
    def trainable_weights(self):
        if not self.trainable:
            return []
        return _dedup(self._own_trainable + [w for layer in self._layers for w in layer.trainable_weights])

    @property
    def non_trainable_weights(self):
        if not self.trainable:
            return self.weights
        return _dedup(self._own_non_trainable + [w for layer in self._layers for w in layer.non_trainable_weights])

    # ``tf.Module``'s names, with Keras' order (lists, as Keras returns).
    variables = weights
    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights

    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        """Freeze (``False``) or unfreeze this layer and every sub-layer."""
        self._trainable = bool(value)
        for layer in self._layers:
            layer.trainable = value

    @property
    def dtype(self):
        """The layer's variable and compute dtype name (``"float32"``)."""
        return self._dtype.name

    @property
    def compute_dtype(self):
        return self._dtype.name

    @property
    def variable_dtype(self):
        return self._dtype.name

    def get_weights(self):
        """The weights' values as NumPy arrays, in ``weights`` order."""
        return [np.array(w.numpy()) for w in self.weights]

    def set_weights(self, weights):
        """Assign NumPy arrays to the weights, in ``weights`` order (counts and shapes are checked)."""
        layer_weights = self.weights
        if len(layer_weights) != len(weights):
            raise ValueError(f"You called `set_weights(weights)` on layer '{self.name}' with a weight list of "
                             f"length {len(weights)}, but the layer was expecting {len(layer_weights)} weights.")
        for variable, value in zip(layer_weights, weights):
            value = np.asarray(value)
            if tuple(variable.shape.as_list()) != value.shape:
                raise ValueError(f"Layer {self.name} weight shape {tuple(variable.shape.as_list())} is not "
                                 f"compatible with provided weight shape {value.shape}.")
            variable.assign(value.astype(variable.dtype.as_numpy_dtype, copy=False))

    def count_params(self):
        """The number of scalars in all weights (the layer must be built)."""
        if not self.built:
            raise ValueError(f"You tried to call `count_params` on layer '{self.name}', but the layer isn't built. "
                             f"You can build it manually via: `layer.build(input_shape)`.")
        return int(sum(math.prod(w.shape.as_list()) for w in self.weights))

    @property
    def layers(self):
        """The directly tracked sub-layers."""
        return list(self._layers)

    @property
    def metrics(self):
        """Metrics assigned as attributes of this layer and of its sub-layers."""
        return _dedup(self._metrics + [m for layer in self._layers for m in layer.metrics])

    # --- losses ---------------------------------------------------------------------------
    def add_loss(self, loss):
        """Record a loss term (a tensor, or a nest of them) from inside ``call``.

        ``fit`` adds the sum of every term of ``model.losses`` to the compiled loss.
        """
        terms = nest.flatten(loss)
        for x in terms:
            if not (isinstance(x, Tensor) or _is_variable(x)):
                raise ValueError(f"`add_loss()` can only be called from inside `build()` or `call()`, on a tensor "
                                 f"input. Received invalid value: {x}")
        if backend.in_symbolic_trace():
            return        # tracing for output shapes (functional API): nothing to record (Keras' stateless scope)
        self._losses.extend(terms)

    @property
    def losses(self):
        """``add_loss`` terms (this layer, then sub-layers, recursively), then the weight regularization penalties."""
        out = list(self._losses)
        for layer in self._flatten_sublayers():
            out.extend(layer._losses)
        for variable in self.trainable_weights:
            regularizer = getattr(variable, "regularizer", None)
            if regularizer is not None:
                out.append(regularizer(variable))
        return out

    def _flatten_sublayers(self):
        """Every sub-layer, depth first, each once."""
        seen, out = {id(self)}, []

        def walk(layer):
            for sub in layer._layers:
                if id(sub) not in seen:
                    seen.add(id(sub))
                    out.append(sub)
                    walk(sub)
        walk(self)
        return out

    def _clear_losses(self):
        self._losses.clear()
        for layer in self._layers:
            layer._clear_losses()

    def _add_activity_regularization(self, outputs):
        """``activity_regularizer(output) / batch_size`` for every tensor output (Keras 3)."""
        for output in nest.flatten(outputs):
            if not isinstance(output, Tensor):
                continue
            loss = self.activity_regularizer(output)
            if output.shape.rank:
                batch = output.shape[0]
                batch = (convert_to_tensor(float(batch), dtype=loss.dtype) if batch is not None
                         else math_ops.cast(array_ops.shape(output)[0], loss.dtype))
                loss = math_ops.divide_no_nan(loss, batch)
            self.add_loss(loss)

    # --- masking ---------------------------------------------------------------------------
    _masks_by_default = False      # a layer class that passes masks through sets this to True

    @property
    def supports_masking(self):
        """Whether the outputs get a mask (``compute_mask``) after each call; see the module docstring."""
        value = self.__dict__.get("_supports_masking")
        if value is None:
            return type(self)._masks_by_default or type(self).compute_mask is not Layer.compute_mask
        return value

    @supports_masking.setter
    def supports_masking(self, value):
        object.__setattr__(self, "_supports_masking", bool(value))

    def compute_mask(self, inputs, previous_mask):
        """The output mask, given the inputs and the mask of the first input: by default that mask."""
        return previous_mask

    def _call_with_masks(self, args, kwargs):
        """``self.call`` with the input mask passed in and the output mask attached (Keras 3's ``__call__``)."""
        first = args[0]
        tensor_args = [a for a in list(args) + list(kwargs.values())
                       if any(isinstance(x, Tensor) for x in nest.flatten(a))]
        if self._call_has_mask_arg and kwargs.get("mask") is None and len(tensor_args) == 1:
            mask = _masks_of(first)
            if mask is not None:
                kwargs = dict(kwargs, mask=mask)
        previous_mask = kwargs.get("mask")
        if previous_mask is None:
            previous_mask = _masks_of(first)
        outputs = self.call(*args, **kwargs)
        if self.supports_masking:
            flat_outputs = [t for t in nest.flatten(outputs) if isinstance(t, Tensor)]
            if flat_outputs and not all(backend.get_keras_mask(t) is not None for t in flat_outputs):
                output_masks = self.compute_mask(first, previous_mask)
                if output_masks is not None:
                    for tensor, mask in zip(nest.flatten(outputs), nest.flatten(output_masks)):
                        if mask is not None and backend.get_keras_mask(tensor) is None:
                            backend.set_keras_mask(tensor, mask)
        elif previous_mask is not None and not backend.in_symbolic_trace():
            warnings.warn(f"Layer '{self.name}' (of type {type(self).__name__}) was passed an input with a mask "
                          f"attached to it. However, this layer does not support masking and will therefore "
                          f"destroy the mask information. Downstream layers will not see the mask.")
        return outputs

    # --- building -------------------------------------------------------------------------
    def build(self, input_shape):
        """Create the weights, given the input shape (a tuple; ``None`` for unknown dims). Override it."""
        self.built = True

    def _maybe_build(self, inputs):
        if self.built:
            return
        shapes = nest.map_structure(_shape_of, inputs)
        self._build_input_shape = shapes
        if type(self).build is not Layer.build:   # layers without weights need no build
            with name_scope(self.name), backend.keras_name_scope(self.name, caller=self):
                self.build(shapes)
        self.built = True

    def _record_build_shapes(self, inputs):
        """The input shapes of the call that builds the layer (Keras 3's ``_build_shapes_dict``)."""
        if not self.built and "_build_shapes" not in self.__dict__:
            object.__setattr__(self, "_build_shapes", nest.map_structure(
                lambda x: _shape_of(x) if hasattr(x, "shape") else None, inputs))

    def get_build_config(self):
        """``{"input_shape": ...}``: the input shape the layer was built with (``None`` if it was not built),
        saved in ``.keras`` files so that loading can build the layer before assigning its weights
        (Keras 3's; the engine records the first positional input only)."""
        shapes = self.__dict__.get("_build_shapes")
        if shapes is None:
            shapes = self._build_input_shape
        if not self.built or shapes is None:
            return None
        return {"input_shape": shapes}

    def build_from_config(self, config):
        """Build the layer from :meth:`get_build_config`'s dict: ``build(config["input_shape"])`` (Keras 3's)."""
        if config and "input_shape" in config:
            self.build(config["input_shape"])
            self.built = True

    # --- calling ----------------------------------------------------------------------------
    def call(self, inputs, *args, **kwargs):
        """The computation. Override it; the base class returns its input."""
        return inputs

    def __call__(self, *args, **kwargs):
        if not args:
            raise ValueError(f"Layer '{self.name}' must be called with at least one positional argument "
                             f"(the inputs).")
        explicit = kwargs.pop("training", None)
        if any_symbolic((args, kwargs)):
            return self._symbolic_call(args, kwargs, explicit)
        inputs = nest.map_structure(self._convert_input, args[0])
        args = (inputs,) + args[1:]
        _check_positional_tensors(args)
        training = explicit
        if training is None:
            training = backend.current_training()
        if training is None:
            training = self._default_training
        if self._call_has_training_arg and training is not None:
            kwargs["training"] = training
        self._record_build_shapes(inputs)
        self._maybe_build(inputs)
        if backend.current_call_depth() == 0:
            self._clear_losses()       # the outermost call: the losses of the previous call are stale
        with name_scope(self.name), backend.keras_name_scope(self.name, caller=self), backend.call_context(training):
            try:
                outputs = self._call_with_masks(args, kwargs)
            except Exception as error:  # noqa: BLE001  (Keras 3 adds the call's arguments to any error)
                raise with_call_arguments(error, self, args, kwargs) from None
            if self.activity_regularizer is not None:
                self._add_activity_regularization(outputs)
        if self._output_shape is None:
            self._output_shape = nest.map_structure(
                lambda t: _shape_of(t) if isinstance(t, Tensor) else None, outputs)
        return outputs

    def _convert_input(self, x):
        """NumPy arrays become tensors; float tensors are cast to the layer's dtype (autocast)."""
        if isinstance(x, np.ndarray) or (hasattr(x, "__array__") and not isinstance(x, Tensor)
                                         and not _is_variable(x)):
            x = convert_to_tensor(np.asarray(x))
        if isinstance(x, Tensor) and self.autocast and x.dtype.is_floating and x.dtype != self._dtype:
            mask = backend.get_keras_mask(x)
            x = math_ops.cast(x, self._dtype)
            backend.set_keras_mask(x, mask)     # the mask survives the cast, as in Keras
        return x

    def _symbolic_call(self, args, kwargs, training):
        """The functional API: build from the KerasTensors' shapes, trace the output spec, record a Node."""
        self._record_build_shapes(args[0])
        self._maybe_build(args[0])
        call_kwargs = dict(kwargs)
        if self._call_has_training_arg and training is not None:
            call_kwargs["training"] = training

        def traced_call(*a, **kw):
            with name_scope(self.name), backend.keras_name_scope(self.name, caller=self), \
                    backend.call_context(training):
                return self._call_with_masks(a, kw)
        outputs = compute_output_spec(traced_call, args, call_kwargs, name=f"{self.name}_output_spec")
        Node(self, args, kwargs, outputs)
        self._output_shape = nest.map_structure(lambda t: None if t is None else t.shape, outputs)
        return outputs

    # --- functional-API conveniences -------------------------------------------------------------
    @property
    def input(self):
        """The KerasTensor(s) this layer was first called on (functional models only)."""
        if not self._inbound_nodes:
            raise AttributeError(f"Layer {self.name} has never been called and thus has no defined input.")
        args, _ = self._inbound_nodes[0].arguments
        return args[0] if args else self._inbound_nodes[0].outputs

    @property
    def output(self):
        """The KerasTensor(s) of this layer's first call (functional models only)."""
        if not self._inbound_nodes:
            raise AttributeError(f"Layer {self.name} has no inbound nodes.")
        return self._inbound_nodes[0].outputs

    def get_config(self):
        """The constructor arguments that rebuild this layer: ``type(layer).from_config(layer.get_config())``.

        By default: every argument the most derived ``__init__`` received (its
        defaults filled in), made JSON-friendly by ``serialization.serialize_value``
        (initializers, regularizers and nested layers become
        ``{"class_name", "config"}`` dicts, activations their names), then
        ``name``, ``trainable`` and ``dtype``. Layers add what ``__init__``
        does not show by extending this dict, as in Keras.
        """
        config = {}
        for key, value in (self.__dict__.get("_init_arguments") or {}).items():
            if key not in ("name", "trainable", "dtype", "self"):
                config[key] = serialize_value(value)
        config.update(name=self.name, trainable=self.trainable, dtype=self.dtype)
        if self.activity_regularizer is not None and hasattr(self.activity_regularizer, "get_config"):
            config["activity_regularizer"] = regularizers.serialize(self.activity_regularizer)
        return config

    @classmethod
    def from_config(cls, config):
        """``cls(**config)``, with serialized objects (initializers, nested layers...) rebuilt first."""
        return cls(**{k: deserialize_value(v) for k, v in config.items()})

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"


def _masks_of(x):
    """The mask attached to ``x`` (a tensor), or the list of masks of a list of tensors (None if none)."""
    if isinstance(x, (list, tuple)):
        masks = [backend.get_keras_mask(t) for t in x]
        return masks if any(m is not None for m in masks) else None
    return backend.get_keras_mask(x)


def _bound_arguments(init, layer, args, kwargs):
    """``init``'s arguments by name, defaults included; ``**kwargs`` entries are merged in."""
    try:
        bound = inspect.signature(init).bind(layer, *args, **kwargs)
    except TypeError:
        return {}          # a wrong call: __init__ itself will raise the real error
    bound.apply_defaults()
    out = {}
    params = list(inspect.signature(init).parameters.values())[1:]
    for (name, value), param in zip(list(bound.arguments.items())[1:], params):
        if param.kind is inspect.Parameter.VAR_KEYWORD:
            out.update(value)
        elif param.kind is not inspect.Parameter.VAR_POSITIONAL:
            out[name] = value
    return out


def _dedup(items):
    seen, out = set(), []
    for w in items:
        if id(w) not in seen:
            seen.add(id(w))
            out.append(w)
    return out
