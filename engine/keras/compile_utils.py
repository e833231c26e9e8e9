"""What ``compile(loss=..., metrics=...)`` turns its arguments into.

:class:`CompileLoss` resolves the loss (a ``Loss``, a name such as ``"mse"``, a
function) and, for models with several outputs, one loss per output (a list or
dict matching the outputs), weighted by ``loss_weights``.

:class:`CompileMetrics` holds the metrics. They can only be resolved once the
data's shapes are known (``"accuracy"`` means binary, sparse-categorical or
categorical accuracy depending on them), so it is *built* at the first batch.
If that batch is traced by ``tf.function``, the metric variables are created
during the first trace, which tf.function allows (they are lifted out of the
graph). It appears in ``model.metrics`` as one entry named ``compile_metrics``,
as in Keras 3.

``metrics`` ignore ``sample_weight`` (and so ``class_weight``); only
``weighted_metrics`` use it, as in Keras 3. A weighted metric whose name is
already taken by an unweighted one is reported as ``weighted_<name>``.
"""
from ..framework.tensor import convert_to_tensor
from ..ops import math_ops
from ..util import nest
from . import losses as losses_module
from . import metrics as metrics_module

__all__ = ["CompileLoss", "CompileMetrics"]


def _shape(x):
    return tuple(convert_to_tensor(x).shape.as_list())


def is_binary_or_sparse_categorical(y_true, y_pred):
    true_shape, pred_shape = _shape(y_true), _shape(y_pred)
    is_binary = pred_shape[-1] == 1
    is_sparse = len(true_shape) < len(pred_shape) or (true_shape[-1] == 1 and pred_shape[-1] > 1)
    return is_binary, is_sparse


def get_metric(identifier, y_true, y_pred):
    """One compiled metric; ``"accuracy"``/``"acc"`` is resolved from the shapes."""
    if str(identifier).lower() in ("accuracy", "acc"):
        is_binary, is_sparse = is_binary_or_sparse_categorical(y_true, y_pred)
        if is_binary:
            metric = metrics_module.BinaryAccuracy(name=str(identifier))
        elif is_sparse:
            metric = metrics_module.SparseCategoricalAccuracy(name=str(identifier))
        else:
            metric = metrics_module.CategoricalAccuracy(name=str(identifier))
    else:
        metric = metrics_module.get(identifier)
        if isinstance(identifier, str):
            metric.name = identifier
    return metric


def _get_loss(identifier):
    loss = losses_module.get(identifier)
    if loss is None or isinstance(loss, losses_module.Loss):
        return loss
    name = identifier if isinstance(identifier, str) else getattr(loss, "__name__", None)
    return losses_module.LossFunctionWrapper(loss, name=name)


class CompileLoss:
    """The compiled loss: ``sum(weight_i * loss_i(y_true_i, y_pred_i))`` over the model's outputs."""

    def __init__(self, loss, loss_weights=None):
        self._structure = loss
        if isinstance(loss, dict):
            self._keys = sorted(loss)
            self.losses = [_get_loss(loss[k]) for k in self._keys]
            weights = loss_weights or {}
            self.weights = [weights.get(k, 1.0) for k in self._keys]
        elif isinstance(loss, (list, tuple)):
            self._keys = None
            self.losses = [_get_loss(x) for x in loss]
            self.weights = list(loss_weights) if loss_weights is not None else [1.0] * len(self.losses)
        else:
            self._keys = None
            self.losses = [_get_loss(loss)]
            self.weights = [1.0 if loss_weights is None else float(loss_weights)]

    def __call__(self, y_true, y_pred, sample_weight=None):
        if len(self.losses) == 1:
            pairs = [(y_true, y_pred)]
        elif self._keys is not None:
            pairs = [(y_true[k], y_pred[k]) for k in self._keys]
        else:
            pairs = list(zip(nest.flatten(y_true), nest.flatten(y_pred)))
        total = None
        for loss, weight, (yt, yp) in zip(self.losses, self.weights, pairs):
            if loss is None:
                continue
            value = loss(yt, yp, sample_weight=sample_weight)
            if weight != 1.0:
                value = math_ops.multiply(value, convert_to_tensor(weight, dtype=value.dtype))
            total = value if total is None else math_ops.add(total, value)
        return total


class CompileMetrics:
    """The compiled metrics, built at the first batch (see the module docstring)."""

    name = "compile_metrics"

    def __init__(self, metrics, weighted_metrics=None):
        self._identifiers = self._as_list(metrics, "metrics")
        self._weighted_identifiers = self._as_list(weighted_metrics, "weighted_metrics")
        self.metrics = []
        self._unweighted = []
        self._weighted = []
        self.built = False

    @staticmethod
    def _as_list(metrics, argument):
        if not metrics:
            return []
        if isinstance(metrics, dict):
            raise NotImplementedError(f"Per-output {argument} (a dict) are not implemented in the engine; pass a "
                                      f"list.")
        return list(metrics) if isinstance(metrics, (list, tuple)) else [metrics]

    def build(self, y_true, y_pred):
        self._unweighted = [get_metric(m, y_true, y_pred) for m in self._identifiers]
        self._weighted = [get_metric(m, y_true, y_pred) for m in self._weighted_identifiers]
        taken = {m.name for m in self._unweighted}
        for m in self._weighted:
            if m.name in taken:
                m.name = f"weighted_{m.name}"
            taken.add(m.name)
        self.metrics = self._unweighted + self._weighted
        self.built = True

    @property
    def variables(self):
        return [v for m in self.metrics for v in m.variables]

    def update_state(self, y_true, y_pred, sample_weight=None):
        if not self.built:
            self.build(y_true, y_pred)
        for m in self._unweighted:
            m.update_state(y_true, y_pred)
        for m in self._weighted:
            m.update_state(y_true, y_pred, sample_weight=sample_weight)

    def result(self):
        return {m.name: m.result() for m in self.metrics}

    def reset_state(self):
        for m in self.metrics:
            m.reset_state()
