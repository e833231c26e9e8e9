"""``tf.keras.callbacks``: hooks that ``fit``/``evaluate``/``predict`` call at fixed points.

``fit`` calls, in order::

    on_train_begin
      for each epoch:  on_epoch_begin(epoch)
                         for each batch: on_train_batch_begin(batch), on_train_batch_end(batch, logs)
                         (validation: on_test_begin, on_test_batch_begin/end ..., on_test_end)
                       on_epoch_end(epoch, logs)        # logs include val_* entries
    on_train_end

``logs`` is a dict of Python floats, keys sorted (``accuracy``, ``loss``,
``val_accuracy``, ``val_loss``), as Keras 3 gives them. A callback reaches the
model as ``self.model`` and can stop training with ``self.model.stop_training = True``.

``fit`` always adds a :class:`History` (it is what ``fit`` returns) and, unless
``verbose=0``, a :class:`ProgbarLogger` (the progress bar). As in Keras 3 they
run *after* the user's callbacks (progress bar, then History), so what a
callback adds to the epoch logs (``LearningRateScheduler`` and
``ReduceLROnPlateau`` add ``learning_rate``) is shown and recorded.

Callbacks that watch a quantity (``EarlyStopping``, ``ModelCheckpoint``,
``ReduceLROnPlateau``) share :class:`MonitorCallback`'s rule: ``mode="auto"``
minimizes losses and maximizes metrics whose direction is "up" (accuracies).
"""
import collections
import csv
import json
import os
import shutil
import tempfile
import time
import warnings

import numpy as np

from .. import summary as _summary
from .utils.progbar import Progbar, print_msg

__all__ = ["Callback", "CallbackList", "History", "ProgbarLogger", "EarlyStopping", "LambdaCallback",
           "MonitorCallback", "ModelCheckpoint", "ReduceLROnPlateau", "LearningRateScheduler", "TerminateOnNaN",
           "CSVLogger", "TensorBoard"]


class Callback:
    """Base class: override the hooks you need; they receive ``logs`` dicts."""

    def __init__(self):
        self.params = None
        self._model = None

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self._model = model

    @property
    def model(self):
        return self._model

    def on_train_begin(self, logs=None): pass  # noqa: E704
    def on_train_end(self, logs=None): pass  # noqa: E704
    def on_epoch_begin(self, epoch, logs=None): pass  # noqa: E704
    def on_epoch_end(self, epoch, logs=None): pass  # noqa: E704
    def on_train_batch_begin(self, batch, logs=None): self.on_batch_begin(batch, logs=logs)  # noqa: E704
    def on_train_batch_end(self, batch, logs=None): self.on_batch_end(batch, logs=logs)  # noqa: E704
    def on_test_begin(self, logs=None): pass  # noqa: E704
    def on_test_end(self, logs=None): pass  # noqa: E704
    def on_test_batch_begin(self, batch, logs=None): pass  # noqa: E704
    def on_test_batch_end(self, batch, logs=None): pass  # noqa: E704
    def on_predict_begin(self, logs=None): pass  # noqa: E704
    def on_predict_end(self, logs=None): pass  # noqa: E704
    def on_predict_batch_begin(self, batch, logs=None): pass  # noqa: E704
    def on_predict_batch_end(self, batch, logs=None): pass  # noqa: E704

    # Keras 2 names (the defaults of on_train_batch_begin/end call them)
    def on_batch_begin(self, batch, logs=None): pass  # noqa: E704
    def on_batch_end(self, batch, logs=None): pass  # noqa: E704


_HOOKS = ["on_train_begin", "on_train_end", "on_epoch_begin", "on_epoch_end", "on_train_batch_begin",
          "on_train_batch_end", "on_test_begin", "on_test_end", "on_test_batch_begin", "on_test_batch_end",
          "on_predict_begin", "on_predict_end", "on_predict_batch_begin", "on_predict_batch_end"]


class CallbackList(Callback):
    """Several callbacks called as one, in order (the user's, then the progress bar, then History)."""

    def __init__(self, callbacks=None, add_history=False, add_progbar=False, model=None, **params):
        super().__init__()
        self.callbacks = list(callbacks or [])
        if add_progbar and not any(isinstance(c, ProgbarLogger) for c in self.callbacks):
            self.callbacks.append(ProgbarLogger())
        if add_history and not any(isinstance(c, History) for c in self.callbacks):
            self.callbacks.append(History())
        if model is not None:
            self.set_model(model)
        if params:
            self.set_params(params)

    def set_model(self, model):
        super().set_model(model)
        for c in self.callbacks:
            c.set_model(model)

    def set_params(self, params):
        super().set_params(params)
        for c in self.callbacks:
            c.set_params(params)

    def _call(self, hook, *args):
        for c in self.callbacks:
            getattr(c, hook)(*args)


def _make_hook(name):
    def hook(self, *args, **kwargs):
        if "logs" in kwargs:
            args = args + (kwargs.pop("logs"),)
        if len(args) < _ARITY[name]:   # Keras passes ``logs`` (None by default) positionally
            args = args + (None,)
        self._call(name, *args)
    hook.__name__ = name
    return hook


_ARITY = {name: 2 if "batch" in name or "epoch" in name else 1 for name in _HOOKS}
for _name in _HOOKS:
    setattr(CallbackList, _name, _make_hook(_name))


class History(Callback):
    """Records the epoch logs: ``history.history == {"loss": [...], "val_loss": [...], ...}``."""

    def __init__(self):
        super().__init__()
        self.history = {}
        self.epoch = []

    def on_train_begin(self, logs=None):
        self.epoch = []

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)
        self.model.history = self


class ProgbarLogger(Callback):
    """Prints the progress bar (``verbose=1``) or one line per epoch (``verbose=2``).

    ``Epoch i/n`` heads each epoch when there is more than one. Inside ``fit`` the
    validation pass is silent; its ``val_*`` results appear on the epoch's last line.
    """

    def __init__(self):
        super().__init__()
        self.progbar = None
        self.target = None
        self.seen = 0
        self.verbose = 1
        self.epochs = 1
        self._called_in_fit = False

    def set_params(self, params):
        verbose = params.get("verbose", 1)
        self.verbose = 1 if verbose == "auto" else verbose
        self.epochs = params.get("epochs", 1)
        self.target = params.get("steps")

    def on_train_begin(self, logs=None):
        self._called_in_fit = True

    def on_test_begin(self, logs=None):
        if not self._called_in_fit:
            self._reset()

    def on_predict_begin(self, logs=None):
        self._reset()

    def on_epoch_begin(self, epoch, logs=None):
        self._reset()
        if self.verbose and self.epochs > 1:
            print_msg(f"Epoch {epoch + 1}/{self.epochs}")

    def on_train_batch_end(self, batch, logs=None):
        self._update(batch, logs)

    def on_test_batch_end(self, batch, logs=None):
        if not self._called_in_fit:
            self._update(batch, logs)

    def on_predict_batch_end(self, batch, logs=None):
        self._update(batch, None)

    def on_epoch_end(self, epoch, logs=None):
        self._finalize(logs)

    def on_test_end(self, logs=None):
        if not self._called_in_fit:
            self._finalize(logs)

    def on_predict_end(self, logs=None):
        self._finalize(logs)

    def _reset(self):
        self.seen = 0
        self.progbar = None

    def _progbar(self):
        if self.progbar is None:
            # our logs are already running means: show them as they are (all metrics "stateful")
            self.progbar = Progbar(target=self.target, verbose=self.verbose, unit_name="step",
                                   stateful_metrics=_Everything())
        return self.progbar

    def _update(self, batch, logs):
        bar = self._progbar()
        self.seen = batch + 1
        if self.verbose == 1:
            bar.update(self.seen, list((logs or {}).items()), finalize=False)

    def _finalize(self, logs):
        bar = self._progbar()
        if self.target is None:
            self.target = self.seen
            bar.target = self.target
        bar.update(self.target, list((logs or {}).items()), finalize=True)


class _Everything(set):
    def __contains__(self, item):
        return True


class MonitorCallback(Callback):
    """Base of the callbacks that watch ``monitor``: picks the comparison from ``mode`` (Keras 3's class).

    ``mode="min"``/``"max"``, or ``"auto"``: ``loss``/``val_loss`` are minimized,
    a compiled metric is maximized or minimized by its ``_direction``; any other
    name raises ``ValueError`` (at the first epoch end, once the metrics exist).
    ``_is_improvement(value, best)``: better than ``best`` by more than ``min_delta``.
    """

    def __init__(self, monitor="val_loss", mode="auto", baseline=None, min_delta=0):
        super().__init__()
        if mode not in ("auto", "min", "max"):
            warnings.warn(f"{type(self).__name__} mode '{mode}' is unknown, fallback to auto mode.", stacklevel=2)
            mode = "auto"
        self.monitor = monitor
        self.mode = mode
        self.best = baseline
        self.min_delta = abs(min_delta)
        self.monitor_op = None

    def _set_monitor_op(self):
        if self.mode == "min":
            self.monitor_op = np.less
        elif self.mode == "max":
            self.monitor_op = np.greater
        else:
            name = self.monitor[4:] if self.monitor.startswith("val_") else self.monitor
            if name == "loss":
                self.monitor_op = np.less
            for metric in _compiled_metrics(self.model):
                if metric.name == name and getattr(metric, "_direction", None):
                    self.monitor_op = np.greater if metric._direction == "up" else np.less
            if self.monitor_op is None:
                raise ValueError(f"{type(self).__name__} callback received monitor={self.monitor}, but Keras isn't "
                                 f"able to automatically determine whether that metric should be maximized or "
                                 f"minimized. Pass `mode='max'` in order to monitor based on the highest metric "
                                 f"value, or pass `mode='min'` in order to use the lowest value.")
        if self.monitor_op is np.less:
            self.min_delta *= -1

    def _is_improvement(self, value, reference):
        return reference is None or bool(self.monitor_op(value - self.min_delta, reference))


class EarlyStopping(MonitorCallback):
    """Stop training when ``monitor`` (default ``"val_loss"``) stops improving.

    After each epoch: if the value improved on the best one by more than
    ``min_delta``, remember it (and the weights if ``restore_best_weights``) and
    reset the wait; otherwise wait one more epoch, and stop once ``patience``
    epochs passed without improvement. ``mode="auto"`` minimizes losses and
    maximizes accuracies. Keras 3 semantics, including ``baseline`` and
    ``start_from_epoch``.
    """

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto", baseline=None,
                 restore_best_weights=False, start_from_epoch=0):
        super().__init__(monitor=monitor, mode=mode, baseline=None, min_delta=min_delta)
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.restore_best_weights = restore_best_weights
        self.start_from_epoch = start_from_epoch
        self.wait = 0
        self.stopped_epoch = 0
        self.best_weights = None
        self.best_epoch = 0

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = None
        self.best_weights = None
        self.best_epoch = 0

    def on_epoch_end(self, epoch, logs=None):
        if self.monitor_op is None:
            self._set_monitor_op()
        current = (logs or {}).get(self.monitor)
        if current is None:
            warnings.warn(f"Early stopping conditioned on metric `{self.monitor}` which is not available. "
                          f"Available metrics are: {','.join(list((logs or {}).keys()))}", stacklevel=2)
            return
        if epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()
            self.best_epoch = epoch
        self.wait += 1
        if self._is_improvement(current, self.best):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._is_improvement(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print_msg(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print_msg(f"Restoring model weights from the end of the best epoch: {self.best_epoch + 1}.")
            self.model.set_weights(self.best_weights)


def _compiled_metrics(model):
    metrics = []
    for m in getattr(model, "metrics", []):
        metrics.extend(getattr(m, "metrics", [m]))
    return metrics


class LambdaCallback(Callback):
    """A callback from functions: ``LambdaCallback(on_epoch_end=lambda epoch, logs: ...)``."""

    def __init__(self, **hooks):
        super().__init__()
        for name, fn in hooks.items():
            if name not in _HOOKS + ["on_batch_begin", "on_batch_end"]:
                raise ValueError(f"LambdaCallback: unknown hook {name!r}")
            setattr(self, name, fn)


# --------------------------------------------------------------------------------------
# Callbacks that watch a monitored quantity
# --------------------------------------------------------------------------------------
class ModelCheckpoint(MonitorCallback):
    """Save the model (or only its weights) at the end of every epoch, or every ``save_freq`` batches.

    ``filepath`` is formatted with ``str.format(epoch=epoch + 1, **logs)``, so
    ``"ckpt-{epoch:02d}-{val_loss:.2f}.weights.h5"`` names each file after its
    epoch and validation loss. ``save_weights_only=True`` calls
    ``model.save_weights`` (the path must end in ``.weights.h5``; the engine
    writes its npz weights format there, see ``saving.py``); otherwise
    ``model.save`` (the path must end in ``.keras``; the engine's zip, see
    ``saving.py``). With ``save_best_only`` a file is written only when
    ``monitor`` improved (``mode``, ``initial_value_threshold``). ``verbose=1``
    prints Keras' messages. Keras 3 semantics.
    """

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False, save_weights_only=False,
                 mode="auto", save_freq="epoch", initial_value_threshold=None):
        super().__init__(monitor, mode, initial_value_threshold)
        self.verbose = verbose
        self.filepath = os.fspath(filepath)
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        self.save_freq = save_freq
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen = None
        self._current_epoch = 0
        if save_freq != "epoch" and not isinstance(save_freq, int):
            raise ValueError(f"Unrecognized save_freq: {save_freq}. Expected save_freq are 'epoch' or integer values")
        if save_weights_only:
            if not self.filepath.endswith(".weights.h5"):
                raise ValueError(f"When using `save_weights_only=True` in `ModelCheckpoint`, the filepath provided "
                                 f"must end in `.weights.h5` (Keras weights format). Received: "
                                 f"filepath={self.filepath}")
        elif not self.filepath.endswith((".keras", ".h5")):
            raise ValueError(f"The filepath provided must end in `.keras` (Keras model format). Received: "
                             f"filepath={self.filepath}")

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if self._should_save_on_batch(batch):
            self._save_model(self._current_epoch, batch, logs)

    def on_epoch_end(self, epoch, logs=None):
        if self.monitor_op is None:
            self._set_monitor_op()
        if self.save_freq == "epoch":
            self._save_model(epoch, None, logs)

    def _should_save_on_batch(self, batch):
        if self.save_freq == "epoch":
            return False
        if self._last_batch_seen is None or batch <= self._last_batch_seen:
            added = batch + 1
        else:
            added = batch - self._last_batch_seen
        self._batches_seen_since_last_saving += added
        self._last_batch_seen = batch
        if self._batches_seen_since_last_saving >= self.save_freq:
            self._batches_seen_since_last_saving = 0
            return True
        return False

    def _get_file_path(self, epoch, batch, logs):
        logs = logs or {}
        try:
            if batch is None or "batch" in logs:
                return self.filepath.format(epoch=epoch + 1, **logs)
            return self.filepath.format(epoch=epoch + 1, batch=batch + 1, **logs)
        except KeyError as e:
            raise KeyError(f'Failed to format this callback filepath: "{self.filepath}". Reason: {e}') from None

    def _should_save_model(self, epoch, logs, filepath):
        logs = logs or {}
        if not self.save_best_only:
            if self.verbose > 0:
                print_msg(f"\nEpoch {epoch + 1}: saving model to {filepath}")
            return True
        if self.monitor_op is None:
            self._set_monitor_op()
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(f"Can save best model only with {self.monitor} available.", stacklevel=2)
            return True
        best_str = "None" if self.best is None else f"{self.best:.5f}"
        if self._is_improvement(current, self.best):
            if self.verbose > 0:
                print_msg(f"\nEpoch {epoch + 1}: {self.monitor} improved from {best_str} to {current:.5f}, saving "
                          f"model to {filepath}")
            self.best = current
            return True
        if self.verbose > 0:
            print_msg(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {best_str}")
        return False

    def _save_model(self, epoch, batch, logs):
        filepath = self._get_file_path(epoch, batch, logs)
        if os.path.isdir(filepath):
            raise IOError(f"Please specify a non-directory filepath for ModelCheckpoint. Filepath used is an "
                          f"existing directory: {filepath}")
        if not self._should_save_model(epoch, logs, filepath):
            return
        dirname = os.path.dirname(filepath)
        if dirname:
            os.makedirs(dirname, exist_ok=True)
        if self.save_weights_only:
            self.model.save_weights(filepath, overwrite=True)
        else:
            self.model.save(filepath, overwrite=True)
        if self.verbose > 0:
            print_msg(f"\nEpoch {epoch + 1}: finished saving model to {filepath}")


def _learning_rate(optimizer):
    return float(np.asarray(optimizer.learning_rate.numpy() if hasattr(optimizer.learning_rate, "numpy")
                            else optimizer.learning_rate))


class ReduceLROnPlateau(MonitorCallback):
    """Multiply the learning rate by ``factor`` once ``monitor`` has not improved for ``patience`` epochs.

    After a reduction, ``cooldown`` epochs pass before waiting starts again; the
    rate never goes below ``min_lr``. Adds ``learning_rate`` to the epoch logs
    (so ``History`` records it). Keras 3 semantics and messages.
    """

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto", min_delta=1e-4,
                 cooldown=0, min_lr=0.0, **kwargs):
        super().__init__(monitor, mode, min_delta=min_delta)
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau does not support a factor >= 1.0. Received factor={factor}")
        self.factor = factor
        self.min_lr = min_lr
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.cooldown_counter = 0
        self.wait = 0

    def _reset(self):
        self.best = None
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs=None):
        self._reset()

    def in_cooldown(self):
        return self.cooldown_counter > 0

    def _reduce_lr(self, epoch):
        optimizer = self.model.optimizer
        old_lr = _learning_rate(optimizer)
        if old_lr > np.float32(self.min_lr):
            new_lr = max(old_lr * self.factor, self.min_lr)
            optimizer.learning_rate = new_lr
            if self.verbose > 0:
                print_msg(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning rate to {new_lr}.")
            return True
        return False

    def on_epoch_end(self, epoch, logs=None):
        if self.monitor_op is None:
            self._set_monitor_op()
        logs = logs if logs is not None else {}
        logs["learning_rate"] = _learning_rate(self.model.optimizer)
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(f"Learning rate reduction is conditioned on metric `{self.monitor}` which is not available. "
                          f"Available metrics are: {','.join(list(logs.keys()))}.", stacklevel=2)
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self._is_improvement(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience and self._reduce_lr(epoch):
                self.cooldown_counter = self.cooldown
                self.wait = 0


class LearningRateScheduler(Callback):
    """At each epoch start, set the learning rate to ``schedule(epoch, lr)`` (or ``schedule(epoch)``).

    ``epoch`` counts from 0; ``lr`` is the current rate as a Python float. The
    result must be a float. ``verbose=1`` prints
    ``Epoch 1: LearningRateScheduler setting learning rate to 0.05...`` as Keras.
    Adds ``learning_rate`` to the epoch logs.
    """

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule = schedule
        self.verbose = verbose

    def on_epoch_begin(self, epoch, logs=None):
        optimizer = self.model.optimizer
        if not hasattr(optimizer, "learning_rate"):
            raise ValueError('Optimizer must have a "learning_rate" attribute.')
        try:
            lr = self.schedule(epoch, _learning_rate(optimizer))
        except TypeError:   # the old one-argument API
            lr = self.schedule(epoch)
        if hasattr(lr, "numpy"):
            lr = lr.numpy()
        if not isinstance(lr, (float, np.float32, np.float64)):
            raise ValueError(f"The output of the `schedule` function should be a float. Got: {lr}")
        optimizer.learning_rate = lr
        if self.verbose > 0:
            print_msg(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {lr}.")

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["learning_rate"] = _learning_rate(self.model.optimizer)


class TerminateOnNaN(Callback):
    """Stop training at the first batch whose loss is NaN or infinite (``raise_error=True``: raise instead)."""

    def __init__(self, raise_error=False):
        super().__init__()
        self.raise_error = raise_error

    def on_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and (np.isnan(loss) or np.isinf(loss)):
            if self.raise_error:
                raise RuntimeError(f"NaN or Inf loss encountered at batch {batch}. Loss value: {loss}. Terminating "
                                   f"training immediately.")
            print_msg(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True


class CSVLogger(Callback):
    """Write one CSV row per epoch: ``epoch`` then the logs' keys, sorted (``NA`` for a missing value).

    Without validation the header also lists the ``val_*`` columns (filled with
    ``NA``), as Keras does. ``append=True`` continues an existing file (no
    second header); ``separator`` sets the delimiter.
    """

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.sep = separator
        self.filename = os.fspath(filename)
        self.append = append
        self.writer = None
        self.keys = None
        self.append_header = True
        self.csv_file = None

    def on_train_begin(self, logs=None):
        if self.append:
            if os.path.exists(self.filename):
                with open(self.filename) as f:
                    self.append_header = not bool(len(f.readline()))
            mode = "a"
        else:
            mode = "w"
        if self.csv_file and not self.csv_file.closed:
            self.csv_file.close()
        self.csv_file = open(self.filename, mode, newline="")
        self.writer = None
        self.keys = None

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}

        def handle_value(v):
            if isinstance(v, str):
                return v
            if isinstance(v, collections.abc.Iterable) and not (isinstance(v, np.ndarray) and v.ndim == 0):
                return f'"[{", ".join(map(str, v))}]"'
            return v
        if self.keys is None:
            self.keys = sorted(logs.keys())
            if self.keys and not any(k.startswith("val_") for k in self.keys):
                self.keys.extend([f"val_{k}" for k in self.keys])
        if not self.writer:
            class Dialect(csv.excel):
                delimiter = self.sep
            self.writer = csv.DictWriter(self.csv_file, fieldnames=["epoch"] + self.keys, dialect=Dialect)
            if self.append_header:
                self.writer.writeheader()
        row = collections.OrderedDict({"epoch": epoch})
        row.update((k, handle_value(logs.get(k, "NA"))) for k in self.keys)
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs=None):
        if self.csv_file and not self.csv_file.closed:
            self.csv_file.close()
        self.writer = None


class TensorBoard(Callback):
    """``tf.keras.callbacks.TensorBoard``: write training curves (and weight histograms) for TensorBoard.

    ``log_dir/train`` and ``log_dir/validation`` get one event file each (``tf.summary``), as Keras 3
    writes them:

    * at the start (``write_graph=True``): the model's config as JSON, tag ``keras`` (plugin
      ``graph_keras_model``), step 0, in ``train``;
    * each epoch end: ``epoch_<metric>`` for every training log (``epoch_loss``, ``epoch_accuracy``,
      ``epoch_learning_rate``) in ``train``, and for every ``val_*`` log, without the prefix, in
      ``validation``; the step is the epoch;
    * each validation's end: ``evaluation_<metric>_vs_iterations`` in ``validation``, at the
      optimizer's iteration count;
    * ``histogram_freq=n``: every n epochs, ``<model>/<layer>/<weight>/histogram`` for each weight;
    * ``update_freq="batch"`` (or an int n): ``batch_<metric>`` every (n-th) batch, and any
      ``tf.summary`` call made by the model during training goes to ``train`` at the batch number.

    * ``write_images=True``: with the histograms, each weight as an image (``.../image``: a bias as a
      1-pixel-high row, a kernel as a matrix, conv kernels one image per filter), as Keras does;
    * ``write_steps_per_second=True``: ``epoch_steps_per_second`` and ``batch_steps_per_second``.

    Differences from Keras: no profiler (``profile_batch`` is accepted and ignored), no embeddings
    (``embeddings_freq`` is ignored); the train function's graph is not written (Keras 3 writes none
    either when its train function is not a ``tf.function`` with a ``function_spec``).
    """

    def __init__(self, log_dir="logs", histogram_freq=0, write_graph=True, write_images=False,
                 write_steps_per_second=False, update_freq="epoch", profile_batch=0, embeddings_freq=0,
                 embeddings_metadata=None):
        super().__init__()
        self.log_dir = os.fspath(log_dir)
        self.histogram_freq = histogram_freq
        self.write_graph = write_graph
        self.write_images = write_images
        self.write_steps_per_second = write_steps_per_second
        self.update_freq = 1 if update_freq == "batch" else update_freq
        self.profile_batch = profile_batch
        self.embeddings_freq = embeddings_freq
        self.embeddings_metadata = embeddings_metadata
        self._writers = {}
        self._prev_summary_state = []
        self._global_train_batch = 0
        self._global_test_batch = 0
        self._previous_epoch_iterations = 0.0
        self._epoch_start_time = self._batch_start_time = None

    def set_model(self, model):
        super().set_model(model)
        self._train_dir = os.path.join(self.log_dir, "train")
        self._val_dir = os.path.join(self.log_dir, "validation")
        self._writers = {}
        if self.write_graph:
            self._write_keras_model_summary()

    @property
    def _train_writer(self):
        if "train" not in self._writers:
            self._writers["train"] = _summary.create_file_writer(self._train_dir)
        return self._writers["train"]

    @property
    def _val_writer(self):
        if "val" not in self._writers:
            self._writers["val"] = _summary.create_file_writer(self._val_dir)
        return self._writers["val"]

    def _write_keras_model_summary(self):
        if type(self.model).__name__ not in ("Sequential", "Functional"):
            return
        try:
            config = json.dumps({"class_name": type(self.model).__name__, "config": self.model.get_config()})
        except Exception as exc:  # noqa: BLE001  (as Keras: a model that cannot be serialized is skipped)
            warnings.warn(f"Model failed to serialize as JSON. Ignoring... {exc}")
            return
        metadata = _summary.events.summary_metadata("graph_keras_model", content=b"1")
        with self._train_writer.as_default():
            _summary.write("keras", config, step=0, metadata=metadata)

    def _push_writer(self, writer, step):
        if self.update_freq == "epoch":
            return
        context = (writer.as_default(step), _summary.record_if(lambda: step % self.update_freq == 0))
        self._prev_summary_state.append(context)
        context[0].__enter__()
        context[1].__enter__()

    def _pop_writer(self):
        if self.update_freq == "epoch":
            return
        context = self._prev_summary_state.pop()
        context[1].__exit__(None, None, None)
        context[0].__exit__(None, None, None)

    def on_train_begin(self, logs=None):
        self._global_train_batch = 0
        self._push_writer(self._train_writer, self._global_train_batch)

    def on_train_end(self, logs=None):
        self._pop_writer()
        for writer in self._writers.values():
            writer.close()

    def on_test_begin(self, logs=None):
        self._push_writer(self._val_writer, self._global_test_batch)

    def on_test_batch_begin(self, batch, logs=None):
        self._global_test_batch += 1
        if self.update_freq != "epoch":
            self._pop_writer()
            self._push_writer(self._val_writer, self._global_test_batch)

    def on_test_end(self, logs=None):
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is not None and hasattr(optimizer, "iterations") and logs:
            with self._val_writer.as_default():
                for name, value in logs.items():
                    _summary.scalar(f"evaluation_{name}_vs_iterations", value, step=optimizer.iterations)
        self._pop_writer()

    def on_train_batch_begin(self, batch, logs=None):
        self._global_train_batch += 1
        if self.update_freq != "epoch":
            self._pop_writer()
            self._push_writer(self._train_writer, self._global_train_batch)
        if self.write_steps_per_second:
            self._batch_start_time = time.time()

    def on_train_batch_end(self, batch, logs=None):
        if self.write_steps_per_second:
            _summary.scalar("batch_steps_per_second", 1.0 / max(time.time() - self._batch_start_time, 1e-9),
                            step=self._global_train_batch)
        if isinstance(logs, dict):   # written only under update_freq="batch"/n: then a writer is the default
            for name, value in logs.items():
                _summary.scalar(f"batch_{name}", value, step=self._global_train_batch)

    def on_epoch_begin(self, epoch, logs=None):
        if self.write_steps_per_second:
            self._previous_epoch_iterations = float(self.model.optimizer.iterations.numpy())
            self._epoch_start_time = time.time()

    def on_epoch_end(self, epoch, logs=None):
        self._log_epoch_metrics(epoch, logs)
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._log_weights(epoch)

    def _log_epoch_metrics(self, epoch, logs):
        if not logs:
            return
        train_logs = {k: v for k, v in logs.items() if not k.startswith("val_")}
        val_logs = {k[4:]: v for k, v in logs.items() if k.startswith("val_")}
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is not None and hasattr(optimizer, "learning_rate") and "learning_rate" not in train_logs:
            train_logs["learning_rate"] = _learning_rate(optimizer)
        if self.write_steps_per_second:
            elapsed = max(time.time() - self._epoch_start_time, 1e-9)
            train_logs["steps_per_second"] = \
                (float(self.model.optimizer.iterations.numpy()) - self._previous_epoch_iterations) / elapsed
        if train_logs:
            with self._train_writer.as_default():
                for name, value in train_logs.items():
                    _summary.scalar(f"epoch_{name}", value, step=epoch)
        if val_logs:
            with self._val_writer.as_default():
                for name, value in val_logs.items():
                    _summary.scalar(f"epoch_{name}", value, step=epoch)

    def _log_weights(self, epoch):
        prefix = getattr(self.model, "name", "")
        with self._train_writer.as_default():
            for layer in self.model.layers:
                for weight in layer.weights:
                    path = getattr(weight, "path", None) or weight.name.split(":")[0]
                    if prefix and not path.startswith(prefix + "/"):
                        path = f"{prefix}/{path}"   # Keras 3's variable paths start with the model's name
                    _summary.histogram(f"{path.replace(':', '_')}/histogram", weight, step=epoch)
                    if self.write_images:
                        self._log_weight_as_image(weight, f"{path.replace(':', '_')}/image", epoch)
        self._train_writer.flush()

    def _log_weight_as_image(self, weight, name, epoch):
        """Keras's picture of a weight: bias ``[1, n, 1, 1]``, kernel ``[1, rows, cols, 1]`` (the longer side
        across), conv kernel ``[filters, h, w, 1]``; other shapes are not drawn."""
        image = np.squeeze(np.asarray(weight.numpy()))
        if image.ndim == 1:
            image = image.reshape(1, image.shape[0], 1, 1)
        elif image.ndim == 2:
            if image.shape[0] > image.shape[1]:
                image = image.T
            image = image.reshape(1, image.shape[0], image.shape[1], 1)
        elif image.ndim == 3:
            image = np.transpose(image, [2, 0, 1])   # channels_last: one image per kernel
            image = image.reshape(image.shape[0], image.shape[1], image.shape[2], 1)
        if image.ndim == 4 and image.shape[-1] in (1, 3, 4):
            _summary.image(name, image, step=epoch)


class BackupAndRestore(Callback):
    """Back up the training state at the end of every epoch (or every ``save_freq`` batches); after an
    interruption, the next ``fit`` with the same ``backup_dir`` resumes from the last backup.

    This is how a multi-worker job survives a lost worker: the cluster manager restarts the
    job, every worker calls ``fit`` again, and training continues from the epoch after the
    last backup, with the weights and the optimizer's state of that moment (Keras 3 keeps
    both in ``latest.weights.h5``; the epoch and batch in ``training_metadata.json``), so it
    ends with the weights an uninterrupted run would have.

    As in Keras 3: the model must be built before ``fit``; ``double_checkpoint=True`` keeps
    the previous backup (``*.bkp``) for when the latest is unreadable; the backup is deleted
    when ``fit`` completes (``delete_checkpoint=True``). Deliberate difference: under a
    multi-worker strategy only the chief writes to ``backup_dir`` (the other workers write a
    scratch copy in a temporary folder and delete it, as Keras 2 did); Keras 3 lets every
    worker write the same files. Every worker reads ``backup_dir`` when it restores.
    """

    def __init__(self, backup_dir, save_freq="epoch", double_checkpoint=False, delete_checkpoint=True):
        super().__init__()
        if not backup_dir:
            raise ValueError("Empty `backup_dir` argument passed")
        if save_freq != "epoch" and not isinstance(save_freq, int):
            raise ValueError(f"Invalid value for argument `save_freq`. Received: save_freq={save_freq}. Expected "
                             f"either 'epoch' or an integer value.")
        self.backup_dir = backup_dir
        self.save_freq = save_freq
        self.double_checkpoint = double_checkpoint
        self.delete_checkpoint = delete_checkpoint
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen = 0
        self._current_epoch = 0
        self._weights_path = os.path.join(backup_dir, "latest.weights.h5")
        self._training_metadata_path = os.path.join(backup_dir, "training_metadata.json")
        self._prev_weights_path = self._weights_path + ".bkp"
        self._prev_training_metadata_path = self._training_metadata_path + ".bkp"

    # --- restoring ----------------------------------------------------------------------------
    def on_train_begin(self, logs=None):
        try:
            self._load_model()
        except (OSError, ValueError) as error:     # an unreadable latest backup: fall back on the previous one
            if not os.path.exists(self._prev_weights_path):
                raise error
            shutil.copy(self._prev_weights_path, self._weights_path)
            if os.path.exists(self._prev_training_metadata_path):
                shutil.copy(self._prev_training_metadata_path, self._training_metadata_path)
            elif os.path.exists(self._training_metadata_path):
                os.remove(self._training_metadata_path)
            self._load_model()

    def _load_model(self):
        if not self.model.built:
            raise ValueError(f"To use the BackupAndRestore callback, you model must be built before you call "
                             f"`fit()`. Model {self.model} is unbuilt. You can build it beforehand by calling it "
                             f"on a batch of data.")
        if os.path.exists(self._weights_path):
            optimizer = getattr(self.model, "optimizer", None)
            if optimizer is not None and not optimizer.built:
                optimizer.build(self.model.trainable_variables)   # its variables must exist to be loaded
            self.model.load_weights(self._weights_path)
        if os.path.exists(self._training_metadata_path):
            with open(self._training_metadata_path) as f:
                self.model._initial_epoch = json.loads(f.read())["epoch"]

    # --- backing up ------------------------------------------------------------------------------
    def on_epoch_end(self, epoch, logs=None):
        self._current_epoch = epoch + 1
        self._last_batch_seen = 0
        if self.save_freq == "epoch":
            self._save_model()

    def on_train_batch_end(self, batch, logs=None):
        if self._should_save_on_batch(batch):
            self._save_model()

    def _write_dir(self):
        """``backup_dir`` on the chief (or without a multi-worker strategy); a scratch folder elsewhere."""
        extended = getattr(getattr(self.model, "distribute_strategy", None), "extended", None)
        if extended is None or getattr(extended, "should_checkpoint", True):
            return self.backup_dir
        return tempfile.mkdtemp(prefix=f"backup_workertemp_{getattr(extended, '_task_id', 0)}_")

    def _save_model(self):
        directory = self._write_dir()
        weights = os.path.join(directory, os.path.basename(self._weights_path))
        metadata = os.path.join(directory, os.path.basename(self._training_metadata_path))
        os.makedirs(directory, exist_ok=True)
        if self.double_checkpoint and os.path.exists(weights):
            shutil.copy(weights, weights + ".bkp")
        if self.double_checkpoint and os.path.exists(metadata):
            shutil.copy(metadata, metadata + ".bkp")
        self.model.save_weights(filepath=weights, overwrite=True)
        with open(metadata, "w") as f:
            f.write(json.dumps({"epoch": self._current_epoch, "batch": self._last_batch_seen}))
        if directory != self.backup_dir:
            shutil.rmtree(directory, ignore_errors=True)

    def _should_save_on_batch(self, batch):
        if self.save_freq == "epoch":
            return False
        add_batches = batch + 1 if batch <= self._last_batch_seen else batch - self._last_batch_seen
        self._batches_seen_since_last_saving += add_batches
        self._last_batch_seen = batch
        if self._batches_seen_since_last_saving >= self.save_freq:
            self._batches_seen_since_last_saving = 0
            return True
        return False

    def on_train_end(self, logs=None):
        extended = getattr(getattr(self.model, "distribute_strategy", None), "extended", None)
        chief = extended is None or getattr(extended, "should_checkpoint", True)
        if self.delete_checkpoint and chief and os.path.exists(self.backup_dir):
            shutil.rmtree(self.backup_dir, ignore_errors=True)
