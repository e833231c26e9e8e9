"""``tf.keras.metrics``: running statistics over many batches.

A metric is *stateful*: its variables (for ``Mean``: ``total`` and ``count``)
accumulate across calls of ``update_state(...)``; ``result()`` reads the
current value (``total / count``) and ``reset_state()`` zeroes the variables
(``fit`` does it at the start of every epoch). Because the state lives in
``tf.Variable`` s, ``update_state`` works eagerly and inside a ``tf.function``
(the updates become ``AssignAddVariableOp`` nodes).

``Accuracy``, ``SparseCategoricalAccuracy``, ``CategoricalAccuracy`` and
``BinaryAccuracy`` are ``Mean`` s of a per-sample function (``MeanMetricWrapper``):
1.0 where the prediction is right, 0.0 where it is wrong.

In ``compile(metrics=["accuracy"])`` the name ``"accuracy"`` is resolved from
the shapes of the first batch, as Keras does: one output unit -> binary,
integer labels -> sparse categorical, one-hot labels -> categorical.
"""
import numpy as np

from ..framework import dtypes
from ..framework.tensor import convert_to_tensor
from ..ops import array_ops, math_ops, reduction_ops
from ..variables import Variable, VariableAggregation
from . import backend, losses as losses_module
from .losses import squeeze_or_expand_to_same_rank

__all__ = ["Metric", "Mean", "Sum", "MeanMetricWrapper", "Accuracy", "BinaryAccuracy", "CategoricalAccuracy",
           "SparseCategoricalAccuracy", "MeanSquaredError", "MeanAbsoluteError", "MeanAbsolutePercentageError",
           "accuracy", "binary_accuracy",
           "categorical_accuracy", "sparse_categorical_accuracy", "get"]


def _tensor(x, dtype):
    t = convert_to_tensor(x)
    return t if t.dtype == dtype else math_ops.cast(t, dtype)


class Metric:
    """Base class: create state with :meth:`add_variable`, implement ``update_state`` and ``result``."""

    _direction = None   # "up" if bigger is better (EarlyStopping's mode="auto" reads it)

    def __init__(self, name=None, dtype=None):
        self.name = name or backend.to_snake_case(type(self).__name__)
        self._dtype = dtypes.as_dtype(dtype or backend.floatx())
        self._variables = []

    @property
    def dtype(self):
        return self._dtype.name

    @property
    def variables(self):
        return list(self._variables)

    def add_variable(self, shape=(), initializer="zeros", dtype=None, aggregation="sum", name=None):
        """A non-trainable state variable (summed across replicas under a distribution strategy)."""
        dtype = dtypes.as_dtype(dtype or self._dtype)
        value = np.zeros(shape, dtype.as_numpy_dtype) if initializer == "zeros" else initializer
        variable = Variable(lambda: convert_to_tensor(value, dtype=dtype), trainable=False, dtype=dtype,
                            name=f"{self.name}/{name}",
                            aggregation=VariableAggregation.SUM if aggregation == "sum" else VariableAggregation.NONE)
        self._variables.append(variable)
        return variable

    def update_state(self, *args, **kwargs):
        raise NotImplementedError

    def result(self):
        raise NotImplementedError

    def reset_state(self):
        """Zero every state variable."""
        for v in self._variables:
            v.assign(np.zeros(v.shape.as_list(), v.dtype.as_numpy_dtype))

    def __call__(self, *args, **kwargs):
        """``update_state`` then ``result``."""
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}>"


def reduce_to_samplewise_values(values, sample_weight, dtype):
    """Per-sample values (the mean over non-batch axes), multiplied by ``sample_weight`` if given."""
    values = _tensor(values, dtype)
    if sample_weight is not None:
        sample_weight = _tensor(sample_weight, dtype)
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        weight_ndim, values_ndim = sample_weight.shape.rank, values.shape.rank
        if values_ndim > weight_ndim:
            values = reduction_ops.reduce_mean(values, axis=list(range(weight_ndim, values_ndim)))
        sample_weight = array_ops.broadcast_to(sample_weight, array_ops.shape(values))
        values = math_ops.multiply(values, sample_weight)
        if weight_ndim > 1:
            sample_weight = reduction_ops.reduce_mean(sample_weight, axis=list(range(1, weight_ndim)))
    if values.shape.rank > 1:
        values = reduction_ops.reduce_mean(values, axis=list(range(1, values.shape.rank)))
    return values, sample_weight


class Mean(Metric):
    """The (weighted) mean of all values seen: ``total / count``.

    ``update_state(values)`` adds ``sum(values)`` to ``total`` and the number of
    samples (the first dimension; 1 for a scalar) to ``count``; with
    ``sample_weight``, the weighted sum and the sum of the weights.
    """

    def __init__(self, name="mean", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(name="total")
        self.count = self.add_variable(name="count")

    def update_state(self, values, sample_weight=None):
        values, sample_weight = reduce_to_samplewise_values(values, sample_weight, self._dtype)
        self.total.assign_add(reduction_ops.reduce_sum(values))
        if sample_weight is not None:
            num_samples = reduction_ops.reduce_sum(sample_weight)
        elif values.shape.rank and values.shape.rank >= 1:
            num_samples = array_ops.shape(values)[0]
        else:
            num_samples = 1
        self.count.assign_add(_tensor(num_samples, self._dtype))

    def result(self):
        return math_ops.divide_no_nan(self.total.value(), self.count.value())


class Sum(Metric):
    """The (weighted) sum of all values seen."""

    def __init__(self, name="sum", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(name="total")

    def update_state(self, values, sample_weight=None):
        values, _ = reduce_to_samplewise_values(values, sample_weight, self._dtype)
        self.total.assign_add(reduction_ops.reduce_sum(values))

    def result(self):
        return self.total.value()


class MeanMetricWrapper(Mean):
    """The running mean of a per-sample function ``fn(y_true, y_pred, **kwargs)``."""

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super().__init__(name=name or getattr(fn, "__name__", "mean_metric_wrapper"), dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true, y_pred, sample_weight=None):
        mask = backend.get_keras_mask(y_pred)     # Keras 3: masked predictions do not count
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        sample_weight = losses_module.apply_mask(sample_weight, mask, self._dtype, "sum")
        return super().update_state(values, sample_weight=sample_weight)


# --- the per-sample functions ------------------------------------------------------------------
def accuracy(y_true, y_pred):
    """1.0 where ``y_true == y_pred`` exactly (compare class ids, not probabilities)."""
    y_pred = convert_to_tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return math_ops.cast(math_ops.equal(y_true, y_pred), dtypes.float32)


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """1.0 where ``y_pred > threshold`` agrees with the 0/1 label."""
    y_pred = convert_to_tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    y_pred = math_ops.cast(math_ops.greater(y_pred, _tensor(threshold, y_pred.dtype)), y_true.dtype)
    return math_ops.cast(math_ops.equal(y_true, y_pred), dtypes.float32)


def sparse_categorical_accuracy(y_true, y_pred):
    """1.0 where ``argmax(y_pred)`` equals the integer label (``(n,)`` or ``(n, 1)``)."""
    y_pred = convert_to_tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    reshape_matches = False
    original_shape = array_ops.shape(y_true)
    if y_true.shape.rank == y_pred.shape.rank and y_true.shape[-1] == 1:
        y_true = array_ops.squeeze(y_true, [-1])
        reshape_matches = True
    predicted = math_ops.cast(reduction_ops.argmax(y_pred, axis=-1), y_true.dtype)
    matches = math_ops.cast(math_ops.equal(y_true, predicted), dtypes.float32)
    if reshape_matches:
        matches = array_ops.reshape(matches, original_shape)
    if matches.shape.rank is not None and matches.shape.rank > 1 and matches.shape[-1] == 1:
        matches = array_ops.squeeze(matches, [-1])
    return matches


def categorical_accuracy(y_true, y_pred):
    """1.0 where ``argmax(y_pred)`` equals ``argmax(y_true)`` (one-hot labels)."""
    y_pred = convert_to_tensor(y_pred)
    y_true = reduction_ops.argmax(convert_to_tensor(y_true), axis=-1)
    predicted = reduction_ops.argmax(y_pred, axis=-1)
    return math_ops.cast(math_ops.equal(y_true, predicted), dtypes.float32)


# --- the metric classes ------------------------------------------------------------------------
class Accuracy(MeanMetricWrapper):
    """How often predictions equal labels exactly."""

    _direction = "up"

    def __init__(self, name="accuracy", dtype=None):
        super().__init__(accuracy, name=name, dtype=dtype)


class BinaryAccuracy(MeanMetricWrapper):
    """How often ``y_pred > threshold`` matches the 0/1 labels."""

    _direction = "up"

    def __init__(self, name="binary_accuracy", dtype=None, threshold=0.5):
        super().__init__(binary_accuracy, name=name, dtype=dtype, threshold=threshold)


class SparseCategoricalAccuracy(MeanMetricWrapper):
    """How often ``argmax(y_pred)`` equals the integer labels."""

    _direction = "up"

    def __init__(self, name="sparse_categorical_accuracy", dtype=None):
        super().__init__(sparse_categorical_accuracy, name=name, dtype=dtype)


class CategoricalAccuracy(MeanMetricWrapper):
    """How often ``argmax(y_pred)`` equals ``argmax`` of the one-hot labels."""

    _direction = "up"

    def __init__(self, name="categorical_accuracy", dtype=None):
        super().__init__(categorical_accuracy, name=name, dtype=dtype)


class MeanSquaredError(MeanMetricWrapper):
    """The running mean of the per-sample mean squared error."""

    _direction = "down"

    def __init__(self, name="mean_squared_error", dtype=None):
        super().__init__(losses_module.mse, name=name, dtype=dtype)


class MeanAbsoluteError(MeanMetricWrapper):
    """The running mean of the per-sample mean absolute error."""

    _direction = "down"

    def __init__(self, name="mean_absolute_error", dtype=None):
        super().__init__(losses_module.mae, name=name, dtype=dtype)


class MeanAbsolutePercentageError(MeanMetricWrapper):
    """The running mean of the per-sample mean absolute percentage error."""

    _direction = "down"

    def __init__(self, name="mean_absolute_percentage_error", dtype=None):
        super().__init__(losses_module.mape, name=name, dtype=dtype)


_BY_NAME = {
    "accuracy": Accuracy, "binary_accuracy": BinaryAccuracy, "categorical_accuracy": CategoricalAccuracy,
    "sparse_categorical_accuracy": SparseCategoricalAccuracy, "mean_squared_error": MeanSquaredError,
    "mse": MeanSquaredError, "mean_absolute_error": MeanAbsoluteError, "mae": MeanAbsoluteError,
    "mean_absolute_percentage_error": MeanAbsolutePercentageError, "mape": MeanAbsolutePercentageError,
}
_LOSS_FUNCTIONS = {"binary_crossentropy", "categorical_crossentropy", "sparse_categorical_crossentropy"}


def get(identifier):
    """A metric from a name (``"mae"``, ``"sparse_categorical_accuracy"``, a class name), an object or a function.

    (``"accuracy"`` in ``compile`` is resolved from the data's shapes, see the module docstring.)
    """
    if isinstance(identifier, Metric):
        return identifier
    if isinstance(identifier, str):
        if identifier in _BY_NAME:
            return _BY_NAME[identifier]()
        snake = backend.to_snake_case(identifier)
        if snake in _BY_NAME:
            return _BY_NAME[snake]()
        if identifier in _LOSS_FUNCTIONS:
            return MeanMetricWrapper(losses_module.get(identifier), name=identifier)
        raise ValueError(f"Could not interpret metric identifier: {identifier}")
    if isinstance(identifier, type) and issubclass(identifier, Metric):
        return identifier()
    if callable(identifier):
        return MeanMetricWrapper(identifier)
    raise ValueError(f"Could not interpret metric identifier: {identifier}")
