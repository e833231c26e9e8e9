"""``tf.keras.losses``: how wrong a prediction is, as one number to minimize.

A loss works in two steps (Keras 3's ``Loss.__call__``):

1. ``call(y_true, y_pred)`` gives one value per sample (the mean over the last
   axis for MSE/MAE/binary crossentropy, the crossentropy of each distribution
   for the categorical losses). Both arguments are first converted to the
   loss's dtype (``float32``; integer labels too: the sparse loss casts them back).
2. The **reduction** turns those into the result: ``"sum_over_batch_size"`` (the
   default: the sum divided by the *number of values*, so the mean),
   ``"sum"``, ``"mean_with_sample_weight"`` (sum divided by the sum of the
   weights) or ``"none"``/``None`` (the per-sample values). ``sample_weight``
   multiplies the per-sample values before the reduction.

Each loss exists as a class (``SparseCategoricalCrossentropy(from_logits=True)``),
as a function (``sparse_categorical_crossentropy(y_true, y_pred)``: per-sample
values) and by name in ``compile`` (``loss="sparse_categorical_crossentropy"``,
``"mse"``...).

**Probabilities versus logits.** With ``from_logits=False`` the crossentropies
clip probabilities to ``[epsilon, 1 - epsilon]`` (``epsilon = 1e-7``) before the
log. Inside a ``tf.function`` (``fit``), if ``y_pred`` was produced by a softmax
(or sigmoid) op, Keras reads the logits from the graph and uses the stable
logits formula instead; the engine does the same (:func:`_get_logits`). In eager
mode there is no graph to look into, so the clipped formula is used, as in TF.

**Distribution.** A reduced loss is divided by the number of replicas in sync
(1 without a ``tf.distribute`` strategy), so that the replicas' gradients sum to
the gradient of the global-batch mean.
"""
import warnings

from ..framework import dtypes
from ..framework.name_scope import name_scope
from ..framework.tensor import EagerTensor, Tensor, convert_to_tensor
from ..ops import array_ops, math_ops, nn_ops, reduction_ops
from . import backend

__all__ = ["Loss", "LossFunctionWrapper", "MeanSquaredError", "MeanAbsoluteError", "MeanAbsolutePercentageError",
           "BinaryCrossentropy", "CategoricalCrossentropy", "SparseCategoricalCrossentropy", "binary_crossentropy",
           "categorical_crossentropy", "sparse_categorical_crossentropy", "mse", "mae", "MSE", "MAE", "mape", "MAPE",
           "get", "serialize", "Reduction"]

_REDUCTIONS = ("sum_over_batch_size", "sum", None, "none", "mean", "mean_with_sample_weight")


class Reduction:
    """``tf.keras.losses.Reduction``: the names of the reductions, kept by TF 2.21's ``tf.keras`` (Keras 3's
    ``keras.src.legacy.losses.Reduction``; plain ``keras.losses`` has no such class).

    The members are strings, so ``MeanSquaredError(reduction=Reduction.SUM)`` works (``"sum"``), as does
    ``Reduction.NONE``; ``Reduction.AUTO`` (``"auto"``) is a Keras 2 name Keras 3 losses reject
    (``ValueError``), as in TF 2.21. Keras 3 losses also accept ``"mean"`` and ``"mean_with_sample_weight"``,
    which are not members.
    """

    AUTO = "auto"
    NONE = "none"
    SUM = "sum"
    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"

    @classmethod
    def all(cls):
        return (cls.AUTO, cls.NONE, cls.SUM, cls.SUM_OVER_BATCH_SIZE)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError(f'Invalid Reduction Key: {key}. Expected keys are "{cls.all()}"')


def standardize_reduction(reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"Invalid value for argument `reduction`. Expected one of {set(_REDUCTIONS)}. "
                         f"Received: reduction={reduction}")
    return reduction


def _tensor(x, dtype):
    """Convert to ``dtype``: tensors are cast (as Keras' ``convert_to_tensor(x, dtype)`` does)."""
    if isinstance(x, Tensor) or hasattr(x, "_is_variable"):
        x = convert_to_tensor(x)
        return x if x.dtype == dtype else math_ops.cast(x, dtype)
    t = convert_to_tensor(x)
    return t if t.dtype == dtype else math_ops.cast(t, dtype)


def squeeze_or_expand_to_same_rank(x1, x2, expand_rank_1=True):
    """Make ranks equal when they differ by one trailing axis of size 1 (labels ``(n,)`` vs ``(n, 1)``)."""
    r1, r2 = x1.shape.rank, x2.shape.rank
    if r1 == r2 or r1 is None or r2 is None:
        return x1, x2
    if r1 == r2 + 1 and x1.shape[-1] == 1:
        if r2 == 1 and expand_rank_1:
            x2 = array_ops.expand_dims(x2, -1)
        else:
            x1 = array_ops.squeeze(x1, [-1])
    if r2 == r1 + 1 and x2.shape[-1] == 1:
        if r1 == 1 and expand_rank_1:
            x1 = array_ops.expand_dims(x1, -1)
        else:
            x2 = array_ops.squeeze(x2, [-1])
    return x1, x2


def scale_loss_for_distribution(value):
    """Divide by the number of replicas in sync (a no-op without a ``tf.distribute`` strategy)."""
    replicas = backend.num_replicas_in_sync()
    if replicas > 1:
        value = math_ops.multiply(value, convert_to_tensor(1.0 / replicas, dtype=value.dtype))
    return value


def unscale_loss_for_distribution(value):
    replicas = backend.num_replicas_in_sync()
    if replicas > 1:
        value = math_ops.multiply(value, convert_to_tensor(float(replicas), dtype=value.dtype))
    return value


def _num_elements(values):
    """The number of values, as a float tensor (dynamic when the batch size is unknown)."""
    if values.shape.is_fully_defined():
        n = 1
        for d in values.shape.as_list():
            n *= d
        return convert_to_tensor(float(n), dtype=values.dtype)
    return math_ops.cast(reduction_ops.reduce_prod(array_ops.shape(values)), values.dtype)


def reduce_values(values, sample_weight=None, reduction="sum_over_batch_size"):
    """Apply the reduction to (already weighted) per-sample values."""
    if reduction is None or reduction == "none" or values.shape.as_list() in ([], [0]):
        return values
    loss = reduction_ops.reduce_sum(values)
    if reduction in ("sum_over_batch_size", "mean", "mean_with_sample_weight"):
        if reduction == "mean_with_sample_weight" and sample_weight is not None:
            divisor = math_ops.cast(reduction_ops.reduce_sum(sample_weight), loss.dtype)
        else:
            divisor = _num_elements(values)
        loss = math_ops.divide_no_nan(loss, divisor)
        loss = scale_loss_for_distribution(loss)
    return loss


def apply_mask(sample_weight, mask, dtype, reduction):
    """Fold a mask (True = keep) into ``sample_weight``, as Keras 3 does.

    For the mean reductions a kept entry weighs ``total / valid`` (the number of
    entries over the number kept) and a masked one 0, so that the reduction
    ``sum(loss * w) / total`` becomes the mean over the kept entries only. For
    ``"sum"`` (and metrics) the mask is simply a 0/1 weight.
    """
    if mask is None:
        return sample_weight
    if reduction in ("mean", "sum_over_batch_size"):
        total = math_ops.cast(reduction_ops.reduce_prod(array_ops.shape(mask)), dtype)
        valid = reduction_ops.reduce_sum(math_ops.cast(mask, dtype))
        mask_weight = math_ops.divide_no_nan(total, valid)
        float_mask = math_ops.multiply(math_ops.cast(mask, dtype), mask_weight)   # Keras: where(mask, w, 0)
    else:
        float_mask = math_ops.cast(mask, dtype)
    if sample_weight is not None:
        sample_weight = _tensor(sample_weight, dtype)
        float_mask, sample_weight = squeeze_or_expand_to_same_rank(float_mask, sample_weight)
        return math_ops.multiply(sample_weight, float_mask)
    return float_mask


def reduce_weighted_values(values, sample_weight=None, reduction="sum_over_batch_size", dtype=None, mask=None):
    """Fold ``mask`` into ``sample_weight`` (:func:`apply_mask`), multiply (ranks matched), then
    :func:`reduce_values`."""
    reduction = standardize_reduction(reduction)
    dtype = dtype or values.dtype
    values = _tensor(values, dtype)
    sample_weight = apply_mask(sample_weight, mask, dtype, reduction)
    if sample_weight is not None:
        sample_weight = _tensor(sample_weight, dtype)
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        values = math_ops.multiply(values, sample_weight)
    return reduce_values(values, sample_weight, reduction)


# --------------------------------------------------------------------------------------
# The per-sample loss functions
# --------------------------------------------------------------------------------------
def _get_logits(output, from_logits, op_type, fn_name):
    """Inside a traced function, look through a final ``Softmax``/``Sigmoid`` op to its logits (Keras-on-TF)."""
    if isinstance(output, EagerTensor) or not hasattr(output, "op") or output.op is None:
        return output, from_logits
    if output.op.type != op_type:
        return output, from_logits
    if from_logits:
        warnings.warn(f'"`{fn_name}` received `from_logits=True`, but the `output` argument was produced by a '
                      f'{op_type} activation and thus does not represent logits. Was this intended?', stacklevel=3)
    return output.op.inputs[0], True


def _check_same_shape(target, output):
    if target.shape.rank != output.shape.rank:
        raise ValueError(f"Arguments `target` and `output` must have the same rank (ndim). Received: "
                         f"target.shape={tuple(target.shape.as_list())}, output.shape={tuple(output.shape.as_list())}")
    for a, b in zip(target.shape.as_list(), output.shape.as_list()):
        if a is not None and b is not None and a != b:
            raise ValueError(f"Arguments `target` and `output` must have the same shape. Received: "
                             f"target.shape={tuple(target.shape.as_list())}, "
                             f"output.shape={tuple(output.shape.as_list())}")


def _clip(x):
    eps = backend.epsilon()
    return math_ops.clip_by_value(x, convert_to_tensor(eps, dtype=x.dtype), convert_to_tensor(1.0 - eps, dtype=x.dtype))


def mean_squared_error(y_true, y_pred):
    """``mean((y_true - y_pred) ** 2, axis=-1)``: one value per sample."""
    y_pred = convert_to_tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return reduction_ops.reduce_mean(math_ops.square(math_ops.subtract(y_true, y_pred)), axis=-1)


def mean_absolute_error(y_true, y_pred):
    """``mean(|y_true - y_pred|, axis=-1)``: one value per sample."""
    y_pred = convert_to_tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return reduction_ops.reduce_mean(math_ops.abs(math_ops.subtract(y_true, y_pred)), axis=-1)


def mean_absolute_percentage_error(y_true, y_pred):
    """``100 * mean(|y_true - y_pred| / max(|y_true|, epsilon), axis=-1)``: one value per sample."""
    y_pred = convert_to_tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    eps = convert_to_tensor(backend.epsilon(), dtype=y_pred.dtype)
    diff = math_ops.abs(math_ops.divide(math_ops.subtract(y_true, y_pred), math_ops.maximum(math_ops.abs(y_true), eps)))
    return math_ops.multiply(convert_to_tensor(100.0, dtype=y_pred.dtype), reduction_ops.reduce_mean(diff, axis=-1))


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """``mean(-(y log p + (1 - y) log(1 - p)), axis)``; with logits, ``sigmoid_cross_entropy_with_logits``."""
    y_pred = convert_to_tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    _check_same_shape(y_true, y_pred)
    output, from_logits = _get_logits(y_pred, from_logits, "Sigmoid", "binary_crossentropy")
    if from_logits:
        per_element = nn_ops.sigmoid_cross_entropy_with_logits(labels=y_true, logits=output)
    else:
        output = _clip(output)
        bce = math_ops.multiply(y_true, math_ops.log(output))
        bce = math_ops.add(bce, math_ops.multiply(1.0 - y_true, math_ops.log(1.0 - output)))
        per_element = math_ops.negative(bce)
    return reduction_ops.reduce_mean(per_element, axis=axis)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """``-sum(y_true * log(p), axis)`` for one-hot (or soft) labels; ``p`` renormalized and clipped."""
    y_pred = convert_to_tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    if label_smoothing:
        num_classes = math_ops.cast(array_ops.shape(y_true)[-1], y_pred.dtype)
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / num_classes
    _check_same_shape(y_true, y_pred)
    output, from_logits = _get_logits(y_pred, from_logits, "Softmax", "categorical_crossentropy")
    if from_logits:
        return nn_ops.softmax_cross_entropy_with_logits(labels=y_true, logits=output, axis=axis)
    output = math_ops.divide(output, reduction_ops.reduce_sum(output, axis, keepdims=True))
    output = _clip(output)
    return math_ops.negative(reduction_ops.reduce_sum(math_ops.multiply(y_true, math_ops.log(output)), axis))


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, ignore_class=None, axis=-1):
    """``-log(p[label])`` for integer labels (``(n,)`` or ``(n, 1)``); with logits, the fused sparse op."""
    if ignore_class is not None:
        raise NotImplementedError("sparse_categorical_crossentropy: `ignore_class` is not implemented.")
    y_pred = convert_to_tensor(y_pred)
    if axis != -1 and axis != y_pred.shape.rank - 1:
        raise ValueError(f"Only axis=-1 is currently supported. Received: axis={axis}")
    output, from_logits = _get_logits(y_pred, from_logits, "Softmax", "sparse_categorical_crossentropy")
    target = _tensor(y_true, dtypes.int64) if not (isinstance(y_true, Tensor) and y_true.dtype.is_integer) \
        else math_ops.cast(y_true, dtypes.int64)
    if target.shape.rank == output.shape.rank and target.shape[-1] == 1:
        target = array_ops.squeeze(target, [-1])
    if target.shape.rank != output.shape.rank - 1:
        raise ValueError(f"Argument `output` must have rank (ndim) `target.ndim - 1`. Received: "
                         f"target.shape={tuple(target.shape.as_list())}, output.shape={tuple(output.shape.as_list())}")
    for a, b in zip(target.shape.as_list(), output.shape.as_list()[:-1]):
        if a is not None and b is not None and a != b:
            raise ValueError(f"Arguments `target` and `output` must have the same shape up until the last "
                             f"dimension: target.shape={tuple(target.shape.as_list())}, "
                             f"output.shape={tuple(output.shape.as_list())}")
    if not from_logits:
        output = math_ops.log(_clip(output))
    return nn_ops.sparse_softmax_cross_entropy_with_logits(labels=target, logits=output)


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
# As Keras 3 (TF 2.21's tf.keras.losses): only the short names are exported; the functions keep their
# long __name__ ("mean_squared_error", which metrics and logs show), and "mean_squared_error" still
# works as a string (``get``, ``compile(loss=...)``).
del mean_squared_error, mean_absolute_error, mean_absolute_percentage_error


# --------------------------------------------------------------------------------------
# Loss classes
# --------------------------------------------------------------------------------------
class Loss:
    """Base class: subclasses implement ``call(y_true, y_pred)`` returning per-sample values."""

    def __init__(self, name=None, reduction="sum_over_batch_size", dtype=None):
        self.name = name or backend.unique_object_name(backend.to_snake_case(type(self).__name__))
        self.reduction = standardize_reduction(reduction)
        self._dtype = dtypes.as_dtype(dtype or backend.floatx())

    @property
    def dtype(self):
        return self._dtype.name

    def __call__(self, y_true, y_pred, sample_weight=None):
        in_mask = backend.get_keras_mask(y_pred)     # Keras 3: a mask on the predictions weights the loss
        with name_scope(self.name):
            y_pred = _tensor(y_pred, self._dtype)
            y_true = _tensor(y_true, self._dtype)
            losses = self.call(y_true, y_pred)
            out_mask = backend.get_keras_mask(losses)
            if in_mask is not None and out_mask is not None:
                mask = math_ops.logical_and(in_mask, out_mask)
            else:
                mask = in_mask if in_mask is not None else out_mask
            return reduce_weighted_values(losses, sample_weight=sample_weight, reduction=self.reduction,
                                          dtype=self._dtype, mask=mask)

    def call(self, y_true, y_pred):
        raise NotImplementedError

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}, reduction={self.reduction}>"


class LossFunctionWrapper(Loss):
    """A ``Loss`` from a per-sample function ``fn(y_true, y_pred, **kwargs)``."""

    def __init__(self, fn, reduction="sum_over_batch_size", name=None, dtype=None, **kwargs):
        super().__init__(name=name or getattr(fn, "__name__", None), reduction=reduction, dtype=dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self):
        return dict(super().get_config(), **self._fn_kwargs)


class MeanSquaredError(LossFunctionWrapper):
    """The mean of squares of errors (``"mse"``)."""

    def __init__(self, reduction="sum_over_batch_size", name="mean_squared_error", dtype=None):
        super().__init__(mse, reduction=reduction, name=name, dtype=dtype)


class MeanAbsoluteError(LossFunctionWrapper):
    """The mean of absolute errors (``"mae"``)."""

    def __init__(self, reduction="sum_over_batch_size", name="mean_absolute_error", dtype=None):
        super().__init__(mae, reduction=reduction, name=name, dtype=dtype)


class MeanAbsolutePercentageError(LossFunctionWrapper):
    """The mean absolute percentage error (``"mape"``): ``100 * |y_true - y_pred| / |y_true|``."""

    def __init__(self, reduction="sum_over_batch_size", name="mean_absolute_percentage_error", dtype=None):
        super().__init__(mape, reduction=reduction, name=name, dtype=dtype)


class BinaryCrossentropy(LossFunctionWrapper):
    """Crossentropy of 0/1 labels and probabilities (or logits with ``from_logits=True``)."""

    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1, reduction="sum_over_batch_size",
                 name="binary_crossentropy", dtype=None):
        super().__init__(binary_crossentropy, reduction=reduction, name=name, dtype=dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits


class CategoricalCrossentropy(LossFunctionWrapper):
    """Crossentropy of one-hot labels and class probabilities (or logits with ``from_logits=True``)."""

    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1, reduction="sum_over_batch_size",
                 name="categorical_crossentropy", dtype=None):
        super().__init__(categorical_crossentropy, reduction=reduction, name=name, dtype=dtype,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    """Crossentropy of integer labels and class probabilities (or logits with ``from_logits=True``)."""

    def __init__(self, from_logits=False, ignore_class=None, reduction="sum_over_batch_size",
                 name="sparse_categorical_crossentropy", dtype=None):
        super().__init__(sparse_categorical_crossentropy, reduction=reduction, name=name, dtype=dtype,
                         from_logits=from_logits, ignore_class=ignore_class)
        self.from_logits = from_logits


_FUNCTIONS = {
    "mean_squared_error": mse, "mse": mse, "MSE": mse,
    "mean_absolute_error": mae, "mae": mae, "MAE": mae,
    "mean_absolute_percentage_error": mape, "mape": mape,
    "MAPE": mape,
    "binary_crossentropy": binary_crossentropy, "categorical_crossentropy": categorical_crossentropy,
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
}
_CLASSES = {cls.__name__: cls for cls in (MeanSquaredError, MeanAbsoluteError, MeanAbsolutePercentageError,
                                           BinaryCrossentropy,
                                           CategoricalCrossentropy, SparseCategoricalCrossentropy)}


def get(identifier):
    """A loss from a name (function or class name), a ``Loss``, a class, or a callable.

    Function names (``"mse"``, ``"sparse_categorical_crossentropy"``) give the
    per-sample function; class names (``"MeanSquaredError"``) give an instance.
    """
    if identifier is None:
        return None
    if isinstance(identifier, str):
        if identifier in _FUNCTIONS:
            return _FUNCTIONS[identifier]
        if identifier in _CLASSES:
            return _CLASSES[identifier]()
        raise ValueError(f"Could not interpret loss identifier: {identifier}")
    if isinstance(identifier, type) and issubclass(identifier, Loss):
        return identifier()
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret loss identifier: {identifier}")


def serialize(loss):
    return {"class_name": type(loss).__name__, "config": loss.get_config()} if isinstance(loss, Loss) else \
        getattr(loss, "__name__", repr(loss))
