"""``compile``, ``fit``, ``evaluate`` and ``predict``: the training loop of ``tf.keras.Model``.

The loop is ordinary Python; the work of one batch is a *step function*:

* ``train_step(data)``: forward pass under a ``GradientTape``, loss, gradients,
  ``optimizer.apply_gradients``, metric updates; returns the logs (a dict of
  scalar tensors: the running loss mean and the metrics);
* ``test_step(data)``: forward pass (``training=False``), loss and metrics;
* ``predict_step(data)``: the forward pass only.

Subclasses may override them (a custom ``train_step`` is the Keras way to
customize ``fit``). Unless ``run_eagerly=True``, each step function is wrapped
in a ``tf.function`` (``model.train_function``...) and traced at the first
batch with the batch dimension relaxed to ``None`` (``get_concrete_function``
on ``TensorSpec`` s): it is traced **once**, and every batch size, including the
smaller last batch, reuses that graph (Keras-on-TF gets the same from its
dataset's ``None`` batch dimension).
``model.train_function.experimental_get_tracing_count()`` shows it.

**The loss** is the compiled loss plus every term of ``model.losses``
(``add_loss`` terms and regularization penalties, see ``layers/layer.py`` and
``regularizers.py``), each summed to a scalar, as Keras 3's ``compute_loss``
does; this total is what is differentiated *and* what is reported. The loss
reported is the running mean over the epoch, weighted by batch
size (a ``Mean`` metric, ``model.metrics[0]``), and the metrics are running
means too, so the last batch's logs are the epoch's.

**Weights.** ``sample_weight`` (arrays) multiplies each sample's loss (and
metric) contribution; ``class_weight`` (a dict ``{class: weight}``) is turned
into such sample weights from the labels (``data_adapter.class_weight_to_sample_weights``). Logs are dicts of Python
floats with sorted keys, as Keras 3 gives them.

**tf.distribute.** The model remembers the strategy whose ``scope()`` was
active when it was created (``model.distribute_strategy``). With one, the step
functions become ``_distributed_train_step`` / ``_distributed_test_step`` /
``_distributed_predict_step``, which split each global batch across the replicas,
run ``train_step`` on every replica with ``strategy.run`` and reduce the logs.
Inside the step, losses are divided by the number of replicas in sync and the
optimizer all-reduces the gradients (see ``losses.py`` and ``optimizers/optimizer.py``).
"""
import numpy as np

from ..distribute.distribute_utils import distributed_step, gather_across_workers
from ..tracing.function import Function, function
from ..eager.tape import GradientTape
from ..framework.func_graph import FuncGraph
from ..framework.registry import get_op
from ..framework.tensor import Tensor
from ..framework.tensor_spec import TensorSpec
from ..framework.tensor_shape import TensorShape
from ..framework.tensor import convert_to_tensor
from ..ops import array_ops, math_ops, reduction_ops
from ..util import nest
from . import backend, callbacks as callbacks_module, metrics as metrics_module, optimizers
from .losses import unscale_loss_for_distribution
from .compile_utils import CompileLoss, CompileMetrics
from .data_adapter import EpochIterator, train_validation_split, unpack_x_y_sample_weight

__all__ = ["Trainer"]


class Trainer:
    """The training half of ``Model`` (mixed into it): compile, fit, evaluate, predict."""

    def __init__(self):
        self.compiled = False
        self.optimizer = None
        self.loss = None
        self._compile_loss = None
        self._compile_metrics = None
        self._loss_tracker = None
        self.run_eagerly = False
        self.stop_training = False
        self.history = None
        self.train_function = self.test_function = self.predict_function = None
        self._traced_signatures = {}
        self._distribute_strategy = backend.current_strategy()

    @property
    def distribute_strategy(self):
        """The ``tf.distribute`` strategy active when the model was created (None without one)."""
        return self._distribute_strategy

    # --- compile -------------------------------------------------------------------------------
    def compile(self, optimizer="rmsprop", loss=None, loss_weights=None, metrics=None, weighted_metrics=None,
                run_eagerly=False, steps_per_execution=1, jit_compile="auto", auto_scale_loss=True):
        """Choose the optimizer, the loss and the metrics (by object or by name)."""
        object.__setattr__(self, "_compile_args", {"optimizer": optimizer, "loss": loss, "loss_weights": loss_weights,
                                                   "metrics": metrics, "weighted_metrics": weighted_metrics})
        self.optimizer = optimizers.get(optimizer)
        self.loss = loss
        output_names = getattr(self, "output_names", None)
        self._compile_loss = CompileLoss(loss, loss_weights, output_names) if loss is not None else None
        self._compile_metrics = CompileMetrics(metrics, weighted_metrics, output_names) \
            if metrics or weighted_metrics else None
        object.__setattr__(self, "_loss_tracker", metrics_module.Mean(name="loss"))  # not a tracked attribute
        self.run_eagerly = run_eagerly
        self.train_function = self.test_function = self.predict_function = None
        self.compiled = True

    def _assert_compile_called(self, method):
        if not self.compiled:
            raise ValueError("You must call `compile()` before using the model.")   # Keras 3's words

    @property
    def metrics(self):
        """``[loss tracker, compiled metrics]`` then metrics the model's layers own (reset every epoch)."""
        out = []
        if self.compiled:
            if self._loss_tracker is not None:
                out.append(self._loss_tracker)
            if self._compile_metrics is not None:
                out.append(self._compile_metrics)
            if self._compile_loss is not None:
                out.extend(m for m in self._compile_loss.metrics if m is not None)
        for m in self._metrics + [m for layer in self._layers for m in layer.metrics]:
            if not any(m is known for known in out):
                out.append(m)
        return out

    @property
    def metrics_names(self):
        return [m.name for m in self.metrics]

    def reset_metrics(self):
        for m in self.metrics:
            m.reset_state()

    # --- the step functions -------------------------------------------------------------------------
    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """The compiled loss plus the sum of each of ``self.losses`` (``add_loss`` terms, regularizers).

        Override it to add terms of your own.
        """
        losses = []
        if self._compile_loss is not None:
            loss = self._compile_loss(y, y_pred, sample_weight)
            if loss is not None:
                losses.append(loss)
        for loss in self.losses:
            losses.append(_aggregate_additional_loss(loss))
        if not losses:
            raise ValueError("No loss to compute. Provide a `loss` argument in `compile()`.")
        total = losses[0]
        for loss in losses[1:]:
            total = math_ops.add(total, math_ops.cast(loss, total.dtype) if loss.dtype != total.dtype else loss)
        return total

    def compute_metrics(self, x, y, y_pred, sample_weight=None):
        """Update the compiled metrics and return every metric's result."""
        if self._compile_metrics is not None:
            self._compile_metrics.update_state(y, y_pred, sample_weight)
        return self.get_metrics_result()

    def get_metrics_result(self):
        """``{"loss": ..., "accuracy": ...}``: each metric's current result (tensors)."""
        logs = {}
        for m in self.metrics:
            result = m.result()
            if isinstance(result, dict):
                logs.update(result)
            else:
                logs[m.name] = result
        return logs

    def train_step(self, data):
        """One optimization step on one batch; returns the logs."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, training=True)
        self._loss_tracker.update_state(_unscale(loss), sample_weight=_batch_size(x))
        variables = self.trainable_variables
        if variables:
            grads = tape.gradient(loss, variables)
            self.optimizer.apply_gradients(zip(grads, variables))
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def test_step(self, data):
        """Loss and metrics on one batch, in inference mode; returns the logs."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self(x, training=False)
        loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, training=False)
        self._loss_tracker.update_state(_unscale(loss), sample_weight=_batch_size(x))
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def predict_step(self, data):
        x, _, _ = unpack_x_y_sample_weight(data)
        return self(x, training=False)

    # --- tf.distribute: run each step on every replica (engine/distribute/distribute_utils.py) ---------
    def _distributed_train_step(self, data):
        """``train_step`` on every replica of ``self.distribute_strategy``; logs reduced over replicas."""
        return distributed_step(self, "train", data)

    def _distributed_test_step(self, data):
        return distributed_step(self, "test", data)

    def _distributed_predict_step(self, data):
        return distributed_step(self, "predict", data)

    def _step(self, kind):
        if self.distribute_strategy is not None:
            return getattr(self, f"_distributed_{kind}_step")
        return getattr(self, f"{kind}_step")

    def _make_function(self, kind):
        """The step function of ``kind`` as a ``tf.function`` (or as is, with ``run_eagerly``)."""
        step = self._step(kind)
        if self.run_eagerly:
            return step

        def one_step(data):
            return step(data)
        one_step.__name__ = f"{kind}_function"
        return function(one_step, autograph=False)

    def _step_function(self, kind, batch):
        """``train_function`` (or test/predict), traced for ``batch``'s signature with the batch size relaxed.

        The first batch of each structure/dtype signature is traced once with its batch
        dimension set to ``None`` (``get_concrete_function`` on ``TensorSpec`` s), so
        every batch size, including a smaller last batch, reuses that one graph.
        """
        attr = f"{kind}_function"
        fn = getattr(self, attr)
        if fn is None:
            fn = self._make_function(kind)
            setattr(self, attr, fn)
            self._traced_signatures[kind] = set()
        if isinstance(fn, Function):
            specs = nest.map_structure(_relaxed_spec, batch)
            key = tuple((s.dtype, s.shape) for s in nest.flatten(specs)), _structure(batch)
            if key not in self._traced_signatures[kind]:
                if kind == "train":
                    self._build_before_tracing(specs)
                fn.get_concrete_function(specs)
                self._traced_signatures[kind].add(key)
        return fn

    def _build_before_tracing(self, specs):
        """Keras 3's "symbolic build": create the model's, the compiled metrics' and the optimizer's
        variables *before* ``train_function`` is traced.

        Otherwise the first trace would create them, and a ``tf.function`` whose first trace
        creates variables traces a second time (TF's rule; see ``engine/tracing/function.py``).
        The model runs once on placeholders in a throwaway graph (nothing is computed); its
        layers and the metrics build their variables outside it, as they do in a trace.
        (Under a distribution strategy only the optimizer is built here.)
        """
        metrics = self._compile_metrics
        if self.distribute_strategy is None and (not getattr(self, "built", False) or
                                                 (metrics is not None and not metrics.built)):
            graph = FuncGraph("symbolic_build")
            with graph.as_default():
                inputs = nest.map_structure(lambda spec: graph.create_op_from_def(
                    get_op("Placeholder"), [], {"dtype": spec.dtype, "shape": spec.shape}, name="input"), specs)
                x, y, _ = unpack_x_y_sample_weight(inputs)
                y_pred = self(x, training=False)
                if metrics is not None and not metrics.built and y is not None:
                    metrics.build(y, y_pred)
        optimizer = getattr(self, "optimizer", None)
        if optimizer is None or getattr(optimizer, "built", True) or not getattr(self, "built", False):
            return
        variables = self.trainable_variables
        if not variables:
            return
        strategy = self.distribute_strategy
        scope = getattr(strategy, "scope", None)
        if scope is not None:
            with scope():
                optimizer.build(variables)
        else:
            optimizer.build(variables)

    def make_train_function(self, force=False):
        """Reset ``train_function`` (if ``force``); it is made, and traced, at the first batch."""
        if force:
            self.train_function = None
        return self.train_function

    def make_test_function(self, force=False):
        if force:
            self.test_function = None
        return self.test_function

    def make_predict_function(self, force=False):
        if force:
            self.predict_function = None
        return self.predict_function

    def _run_step(self, kind, batch):
        return self._step_function(kind, batch)(batch)

    # --- fit / evaluate / predict ---------------------------------------------------------------------
    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose="auto", callbacks=None, validation_split=0.0,
            validation_data=None, shuffle=True, class_weight=None, sample_weight=None, initial_epoch=0,
            steps_per_epoch=None, validation_steps=None, validation_batch_size=None, validation_freq=1):
        """Train for ``epochs`` epochs; returns the ``History`` (``history.history["loss"]``...)."""
        self._assert_compile_called("fit")
        if validation_split and validation_data is None:
            (x, y, sample_weight), validation_data = train_validation_split((x, y, sample_weight), validation_split)
        data = EpochIterator(x, y, sample_weight, batch_size=batch_size, steps_per_epoch=steps_per_epoch,
                             shuffle=shuffle, class_weight=class_weight)
        val = None
        if validation_data is not None:
            val = unpack_x_y_sample_weight(validation_data)
        verbose = 1 if verbose == "auto" else verbose
        if not isinstance(callbacks, callbacks_module.CallbackList):
            callbacks = callbacks_module.CallbackList(callbacks, add_history=True, add_progbar=verbose != 0,
                                                      model=self, verbose=verbose, epochs=epochs,
                                                      steps=data.num_batches)
        self.stop_training = False
        callbacks.on_train_begin()
        initial_epoch = getattr(self, "_initial_epoch", None) or initial_epoch   # set by BackupAndRestore
        epoch_logs = None
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            callbacks.on_epoch_begin(epoch)
            logs = {}
            for step, batch in data.enumerate_epoch():
                callbacks.on_train_batch_begin(step)
                logs = _to_floats(self._run_step("train", batch))
                callbacks.on_train_batch_end(step, logs)
                if self.stop_training:
                    break
            epoch_logs = dict(logs) if logs else _to_floats(self.get_metrics_result())
            if val is not None and _should_validate(epoch, validation_freq):
                val_logs = self.evaluate(val[0], val[1], sample_weight=val[2],
                                         batch_size=validation_batch_size or batch_size, steps=validation_steps,
                                         callbacks=callbacks, return_dict=True, verbose=0)
                epoch_logs.update({"val_" + k: v for k, v in val_logs.items()})
            callbacks.on_epoch_end(epoch, epoch_logs)
            if self.stop_training:
                break
        callbacks.on_train_end(logs=epoch_logs)
        return self.history

    def evaluate(self, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None, steps=None,
                 callbacks=None, return_dict=False, **kwargs):
        """The loss and metrics over the data: a scalar, a list ``[loss, metric...]``, or a dict."""
        self._assert_compile_called("evaluate")
        data = EpochIterator(x, y, sample_weight, batch_size=batch_size, steps_per_epoch=steps, shuffle=False)
        verbose = 1 if verbose == "auto" else verbose
        if not isinstance(callbacks, callbacks_module.CallbackList):
            callbacks = callbacks_module.CallbackList(callbacks, add_progbar=verbose != 0, model=self,
                                                      verbose=verbose, epochs=1, steps=data.num_batches)
        self.reset_metrics()
        callbacks.on_test_begin()
        for step, batch in data.enumerate_epoch():
            callbacks.on_test_batch_begin(step)
            logs = _to_floats(self._run_step("test", batch))
            callbacks.on_test_batch_end(step, logs)
        logs = _to_floats(self.get_metrics_result())
        callbacks.on_test_end(logs)
        if return_dict:
            return logs
        return self._flatten_metrics_in_order(logs)

    def _flatten_metrics_in_order(self, logs):
        """``[loss, compiled metrics in compile order, anything else sorted]``; a scalar if only one."""
        names = ["loss"] + ([m.name for m in self._compile_metrics.metrics] if self._compile_metrics else []) + \
            [m.name for m in self.metrics if m is not self._loss_tracker and m is not self._compile_metrics]
        results = [logs[n] for n in names if n in logs] + [logs[k] for k in sorted(logs) if k not in names]
        return results[0] if len(results) == 1 else results

    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None):
        """The model's outputs for ``x``, batch by batch, concatenated into NumPy arrays."""
        data = EpochIterator(x, batch_size=batch_size, steps_per_epoch=steps, shuffle=False)
        verbose = 1 if verbose == "auto" else verbose
        if not isinstance(callbacks, callbacks_module.CallbackList):
            callbacks = callbacks_module.CallbackList(callbacks, add_progbar=verbose != 0, model=self,
                                                      verbose=verbose, epochs=1, steps=data.num_batches)
        callbacks.on_predict_begin()
        outputs = []
        for step, batch in data.enumerate_epoch():
            callbacks.on_predict_batch_begin(step)
            batch = (unpack_x_y_sample_weight(batch)[0],)
            out = gather_across_workers(self.distribute_strategy, self._run_step("predict", batch))
            outputs.append(nest.map_structure(lambda t: np.asarray(t.numpy()), out))
            callbacks.on_predict_batch_end(step, {"outputs": out})
        callbacks.on_predict_end()
        if not outputs:
            raise ValueError("Unexpected result of `predict_function` (Empty batch_outputs). Please use "
                             "`Model.compile(..., run_eagerly=True)`, or `tf.config.run_functions_eagerly(True)` "
                             "for more information of where went wrong, or file a issue/bug to `tf.keras`.")
        return nest.map_structure(lambda *parts: np.concatenate(parts, axis=0), *outputs)

    def train_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        """One ``train_step`` on one batch; returns the logs like ``evaluate``."""
        self._assert_compile_called("train_on_batch")
        self.reset_metrics()
        batch = next(EpochIterator(x, y, sample_weight, batch_size=2 ** 31).enumerate_epoch())[1]
        logs = _to_floats(self._run_step("train", batch))
        return logs if return_dict else self._flatten_metrics_in_order(logs)

    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        return self.evaluate(x, y, sample_weight=sample_weight, batch_size=2 ** 31, verbose=0,
                             return_dict=return_dict)

    def predict_on_batch(self, x):
        return self.predict(x, verbose=0, batch_size=2 ** 31)


def _relaxed_spec(t):
    """A TensorSpec of ``t`` with the batch dimension unknown."""
    shape = t.shape.as_list()
    return TensorSpec(TensorShape([None] + shape[1:]) if shape else TensorShape([]), t.dtype)


def _structure(batch):
    return type(batch).__name__, tuple(_structure(b) for b in batch) if isinstance(batch, (list, tuple)) else \
        tuple(sorted(batch)) if isinstance(batch, dict) else ()


def _batch_size(x):
    """The batch size of ``x`` (a scalar tensor: dynamic when the batch dimension is unknown while tracing)."""
    first = nest.flatten(x)[0]
    if isinstance(first, Tensor) and first.shape.rank and first.shape[0] is not None:
        return first.shape[0]
    return array_ops.shape(first)[0]


def _aggregate_additional_loss(loss):
    """One term of ``model.losses`` as a float scalar: cast to floatx if needed, then summed (Keras 3)."""
    loss = convert_to_tensor(loss)
    if not loss.dtype.is_floating:
        loss = math_ops.cast(loss, backend.floatx())
    return reduction_ops.reduce_sum(loss)


def _unscale(loss):
    """The loss tracker reports the global-batch loss: undo the division by the number of replicas."""
    return unscale_loss_for_distribution(loss)


def _to_floats(logs):
    """Logs as Python floats, keys sorted (Keras 3's logs)."""
    return {k: float(np.asarray(v.numpy() if hasattr(v, "numpy") else v)) for k, v in sorted(logs.items())}


def _should_validate(epoch, freq):
    if isinstance(freq, int):
        return (epoch + 1) % freq == 0
    return epoch + 1 in freq
