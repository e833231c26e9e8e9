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
``verbose=0``, a :class:`ProgbarLogger` (the progress bar).
"""
import warnings

import numpy as np

from .utils.progbar import Progbar, print_msg

__all__ = ["Callback", "CallbackList", "History", "ProgbarLogger", "EarlyStopping", "LambdaCallback"]


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
    """Several callbacks called as one, in order (History first, the progress bar last)."""

    def __init__(self, callbacks=None, add_history=False, add_progbar=False, model=None, **params):
        super().__init__()
        self.callbacks = list(callbacks or [])
        if add_history and not any(isinstance(c, History) for c in self.callbacks):
            self.callbacks.insert(0, History())
        if add_progbar and not any(isinstance(c, ProgbarLogger) for c in self.callbacks):
            self.callbacks.append(ProgbarLogger())
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


class EarlyStopping(Callback):
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
        super().__init__()
        if mode not in ("auto", "min", "max"):
            warnings.warn(f"EarlyStopping mode '{mode}' is unknown, fallback to auto mode.", stacklevel=2)
            mode = "auto"
        self.monitor = monitor
        self.mode = mode
        self.min_delta = abs(min_delta)
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.restore_best_weights = restore_best_weights
        self.start_from_epoch = start_from_epoch
        self.monitor_op = None
        self.best = None
        self.wait = 0
        self.stopped_epoch = 0
        self.best_weights = None
        self.best_epoch = 0

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
                raise ValueError(f"EarlyStopping callback received monitor={self.monitor}, but Keras isn't able to "
                                 f"automatically determine whether that metric should be maximized or minimized. "
                                 f"Pass `mode='max'` in order to monitor based on the highest metric value, or pass "
                                 f"`mode='min'` in order to use the lowest value.")
        if self.monitor_op is np.less:
            self.min_delta *= -1

    def _is_improvement(self, value, reference):
        return reference is None or bool(self.monitor_op(value - self.min_delta, reference))

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
