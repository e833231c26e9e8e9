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

**Several outputs.** For a model with more than one output the losses and
metrics are matched to the outputs by name (``model.output_names``: the output
layers' names, or the keys of a dict of outputs) or by position: ``loss`` may be
one loss (used for every output), a list, or a dict; ``metrics`` a list with one
entry (a metric or a list of metrics) per output, or a dict. Each output's
metrics are reported as ``<output>_<metric>`` and, when more than one output has
a loss, each output's (unweighted) loss as ``<output>_loss``, as in Keras 3.

``metrics`` ignore ``sample_weight`` (and so ``class_weight``); only
``weighted_metrics`` use it, as in Keras 3. A weighted metric whose name is
already taken by an unweighted one is reported as ``weighted_<name>``.
"""
from ..framework.tensor import convert_to_tensor
from ..ops import array_ops, math_ops
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


def _output_names(y_pred, output_names):
    """The names of the model's flat outputs: dict keys, the model's ``output_names``, or ``output_<i>``."""
    flat = nest.flatten(y_pred)
    if isinstance(y_pred, dict):
        return sorted(y_pred)
    if output_names is not None and len(output_names) == len(flat):
        return list(output_names)
    return [f"output_{i + 1}" for i in range(len(flat))]


def _per_output(structure, names, argument):
    """``structure`` (one value, a list with one entry per output, or a dict by name) as one entry per output."""
    if isinstance(structure, dict):
        unknown = [k for k in structure if k not in names]
        if unknown:
            raise ValueError(f"Expected keys {names} in {argument} dict, but found {argument}.keys()="
                             f"{list(structure)}")
        return [structure.get(n) for n in names]
    if isinstance(structure, (list, tuple)):
        if len(structure) != len(names):
            raise ValueError(f"Invalid `{argument}`. `{argument}` should either be a dict or a list matching the "
                             f"output names of the model {names}. Received: {argument}={structure} (length "
                             f"{len(structure)}, the model has {len(names)} outputs).")
        return list(structure)
    return [structure] * len(names)


def _flat_targets(y_true, names):
    if isinstance(y_true, dict):
        return [y_true[n] for n in names]
    return nest.flatten(y_true)


class CompileLoss:
    """The compiled loss: ``sum(weight_i * loss_i(y_true_i, y_pred_i))`` over the model's outputs.

    Built at the first batch, when the outputs' structure is known; ``metrics``
    then holds the per-output loss trackers (``<output>_loss``), if any.
    """

    def __init__(self, loss, loss_weights=None, output_names=None):
        self._structure = loss
        self._weights_structure = loss_weights
        self._output_names = output_names
        self.losses, self.weights, self.metrics = [], [], []
        self.built = False
        entries = loss.values() if isinstance(loss, dict) else loss if isinstance(loss, (list, tuple)) else [loss]
        for entry in entries:   # unknown names fail at compile time, as in Keras
            _get_loss(entry)

    def build(self, y_true, y_pred):
        flat = nest.flatten(y_pred)
        if len(flat) == 1 and not isinstance(y_pred, dict):
            loss = self._structure
            if isinstance(loss, (list, tuple)) and len(loss) == 1:
                loss = loss[0]
            weight = self._weights_structure
            if isinstance(weight, (list, tuple)) and len(weight) == 1:
                weight = weight[0]
            self._names = None
            self.losses = [_get_loss(loss)]
            self.weights = [1.0 if weight is None else float(weight)]
        else:
            self._names = _output_names(y_pred, self._output_names)
            if isinstance(self._structure, dict) and not isinstance(y_true, dict) and \
                    sorted(self._structure) != sorted(self._names):
                raise ValueError(f"Expected keys {self._names} in loss dict, but found "
                                 f"loss.keys()={list(self._structure)}")
            self.losses = [_get_loss(x) for x in _per_output(self._structure, self._names, "loss")]
            weights = _per_output(self._weights_structure, self._names, "loss_weights")
            self.weights = [1.0 if w is None else float(w) for w in weights]
            if sum(loss is not None for loss in self.losses) > 1:
                self.metrics = [metrics_module.Mean(name=f"{name}_loss") if loss is not None else None
                                for name, loss in zip(self._names, self.losses)]
        self.built = True

    def __call__(self, y_true, y_pred, sample_weight=None):
        if not self.built:
            self.build(y_true, y_pred)
        if self._names is None:
            pairs = [(y_true, y_pred)]
        else:
            pairs = list(zip(_flat_targets(y_true, self._names), nest.flatten(y_pred)))
        trackers = self.metrics or [None] * len(pairs)
        total = None
        for loss, weight, tracker, (yt, yp) in zip(self.losses, self.weights, trackers, pairs):
            if loss is None:
                continue
            value = loss(yt, yp, sample_weight=sample_weight)
            if tracker is not None:
                tracker.update_state(losses_module.unscale_loss_for_distribution(value),
                                     sample_weight=_batch_size(yp))
            if weight != 1.0:
                value = math_ops.multiply(value, convert_to_tensor(weight, dtype=value.dtype))
            total = value if total is None else math_ops.add(total, value)
        return total


def _batch_size(y):
    shape = convert_to_tensor(y).shape
    if shape.rank and shape[0] is not None:
        return shape[0]
    return array_ops.shape(y)[0]


class CompileMetrics:
    """The compiled metrics, built at the first batch (see the module docstring)."""

    name = "compile_metrics"

    def __init__(self, metrics, weighted_metrics=None, output_names=None):
        self._identifiers = metrics
        self._weighted_identifiers = weighted_metrics
        self._output_names = output_names
        self.metrics = []
        self._unweighted = []   # (output index or None, prefix, metric)
        self._weighted = []
        self.built = False

    @staticmethod
    def _as_list(metrics):
        if not metrics:
            return []
        return list(metrics) if isinstance(metrics, (list, tuple)) else [metrics]

    def _build_group(self, identifiers, y_true, y_pred, argument):
        flat = nest.flatten(y_pred)
        if len(flat) == 1 and not isinstance(y_pred, dict):
            if isinstance(identifiers, dict):
                identifiers = list(identifiers.values())[0] if len(identifiers) == 1 else identifiers
            return [(None, "", get_metric(m, y_true, y_pred)) for m in self._as_list(identifiers)]
        if not identifiers:
            return []
        names = _output_names(y_pred, self._output_names)
        targets = _flat_targets(y_true, names)
        out = []
        for i, entry in enumerate(_per_output(identifiers, names, argument)):
            for m in self._as_list(entry):
                out.append((i, f"{names[i]}_", get_metric(m, targets[i], flat[i])))
        return out

    def build(self, y_true, y_pred):
        self._unweighted = self._build_group(self._identifiers, y_true, y_pred, "metrics")
        self._weighted = self._build_group(self._weighted_identifiers, y_true, y_pred, "weighted_metrics")
        taken = {prefix + m.name for _, prefix, m in self._unweighted}
        for _, prefix, m in self._weighted:
            if prefix + m.name in taken:
                m.name = f"weighted_{m.name}"
            taken.add(prefix + m.name)
        self.metrics = [m for _, _, m in self._unweighted + self._weighted]
        self.built = True

    @property
    def variables(self):
        return [v for m in self.metrics for v in m.variables]

    def update_state(self, y_true, y_pred, sample_weight=None):
        if not self.built:
            self.build(y_true, y_pred)
        flat_true = flat_pred = None
        if any(i is not None for i, _, _ in self._unweighted + self._weighted):
            names = _output_names(y_pred, self._output_names)
            flat_true, flat_pred = _flat_targets(y_true, names), nest.flatten(y_pred)
        for group, weighted in ((self._unweighted, False), (self._weighted, True)):
            for i, _, m in group:
                yt, yp = (y_true, y_pred) if i is None else (flat_true[i], flat_pred[i])
                if weighted:
                    m.update_state(yt, yp, sample_weight=sample_weight)
                else:
                    m.update_state(yt, yp)

    def result(self):
        return {prefix + m.name: m.result() for _, prefix, m in self._unweighted + self._weighted}

    def reset_state(self):
        for m in self.metrics:
            m.reset_state()
