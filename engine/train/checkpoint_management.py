"""Which checkpoints a directory holds: the ``checkpoint`` file, ``latest_checkpoint``, ``CheckpointManager``.

A directory of checkpoints carries a small text file named ``checkpoint`` (TF's
``CheckpointState`` protocol buffer in text form), written after every save::

    model_checkpoint_path: "ckpt-4"
    all_model_checkpoint_paths: "ckpt-3"
    all_model_checkpoint_paths: "ckpt-4"
    all_model_checkpoint_timestamps: 1796017160.2367404
    all_model_checkpoint_timestamps: 1796017160.2441056
    last_preserved_timestamp: 1796017159.2171607

Paths inside the directory are stored relative to it. ``latest_checkpoint(dir)``
reads ``model_checkpoint_path`` from it. ``CheckpointManager`` numbers the
saves, keeps the newest ``max_to_keep`` (deleting older files, except one every
``keep_checkpoint_every_n_hours``), and finds the previous run's checkpoints
again when it is created on the same directory. The file is TF's format; the
checkpoints themselves are the engine's (see ``checkpoint.py``).
"""
import collections
import glob
import os
import re
import time

__all__ = ["CheckpointManager", "CheckpointState", "get_checkpoint_state", "latest_checkpoint",
           "update_checkpoint_state", "checkpoint_exists"]

INDEX_SUFFIX = ".index"
"""The files of one checkpoint ``prefix`` (written by ``checkpoint.py``, which imports this module)."""
DATA_SUFFIX = ".data-00000-of-00001"


class CheckpointState:
    """The parsed ``checkpoint`` file (paths made absolute by :func:`get_checkpoint_state`)."""

    def __init__(self, model_checkpoint_path="", all_model_checkpoint_paths=(), all_model_checkpoint_timestamps=(),
                 last_preserved_timestamp=0.0):
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = list(all_model_checkpoint_paths)
        self.all_model_checkpoint_timestamps = list(all_model_checkpoint_timestamps)
        self.last_preserved_timestamp = last_preserved_timestamp

    def __str__(self):
        lines = [f"model_checkpoint_path: {_quote(self.model_checkpoint_path)}"]
        lines += [f"all_model_checkpoint_paths: {_quote(p)}" for p in self.all_model_checkpoint_paths]
        lines += [f"all_model_checkpoint_timestamps: {t!r}" for t in self.all_model_checkpoint_timestamps]
        if self.last_preserved_timestamp:
            lines.append(f"last_preserved_timestamp: {self.last_preserved_timestamp!r}")
        return "\n".join(lines) + "\n"

    __repr__ = __str__


def _quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _unquote(text):
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return re.sub(r"\\(.)", r"\1", text[1:-1])
    return text


def _state_file(directory, latest_filename=None):
    return os.path.join(directory, latest_filename or "checkpoint")


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The directory's ``checkpoint`` file, parsed, with relative paths made absolute; ``None`` if absent."""
    checkpoint_dir = os.fspath(checkpoint_dir)
    path = _state_file(checkpoint_dir, latest_filename)
    if not os.path.isfile(path):
        return None
    state = CheckpointState()
    with open(path) as f:
        for line in f:
            match = re.match(r"\s*(\w+)\s*:\s*(.*?)\s*$", line)
            if not match:
                continue
            field, value = match.groups()
            if field == "model_checkpoint_path":
                state.model_checkpoint_path = _unquote(value)
            elif field == "all_model_checkpoint_paths":
                state.all_model_checkpoint_paths.append(_unquote(value))
            elif field == "all_model_checkpoint_timestamps":
                state.all_model_checkpoint_timestamps.append(float(value))
            elif field == "last_preserved_timestamp":
                state.last_preserved_timestamp = float(value)

    def absolute(p):
        return p if os.path.isabs(p) else os.path.join(checkpoint_dir, p)
    state.model_checkpoint_path = absolute(state.model_checkpoint_path)
    state.all_model_checkpoint_paths = [absolute(p) for p in state.all_model_checkpoint_paths]
    return state


def update_checkpoint_state(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None,
                            latest_filename=None, all_model_checkpoint_timestamps=None,
                            last_preserved_timestamp=None, save_relative_paths=True):
    """Write the directory's ``checkpoint`` file (paths inside ``save_dir`` stored relative to it)."""
    save_dir = os.fspath(save_dir) or "."

    def relative(p):
        if save_relative_paths and os.path.isabs(p) == os.path.isabs(save_dir) \
                and os.path.dirname(os.path.abspath(p)) == os.path.abspath(save_dir):
            return os.path.basename(p)
        return p
    paths = list(all_model_checkpoint_paths or [])
    if model_checkpoint_path and (not paths or paths[-1] != model_checkpoint_path):
        paths = [p for p in paths if p != model_checkpoint_path] + [model_checkpoint_path]
    state = CheckpointState(relative(model_checkpoint_path), [relative(p) for p in paths],
                            all_model_checkpoint_timestamps or (), last_preserved_timestamp or 0.0)
    os.makedirs(save_dir, exist_ok=True)
    target = _state_file(save_dir, latest_filename)
    with open(target + ".tmp", "w") as f:
        f.write(str(state))
    os.replace(target + ".tmp", target)


def checkpoint_exists(prefix):
    """True if the files of the checkpoint ``prefix`` exist."""
    return os.path.exists(os.fspath(prefix) + INDEX_SUFFIX)


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The path of the newest checkpoint recorded in ``checkpoint_dir`` (``None`` if there is none)."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state is None or not state.model_checkpoint_path:
        return None
    if checkpoint_exists(state.model_checkpoint_path):
        return state.model_checkpoint_path
    return None


def _delete(prefix):
    for path in [prefix + INDEX_SUFFIX] + glob.glob(glob.escape(prefix) + ".data-?????-of-?????"):
        if os.path.exists(path):
            os.remove(path)


class CheckpointManager:
    """Saves numbered checkpoints of one ``tf.train.Checkpoint`` in a directory and deletes old ones.

    >>> manager = tf.train.CheckpointManager(ckpt, "/tmp/run", max_to_keep=3)
    >>> manager.save()                 # '/tmp/run/ckpt-1'
    >>> ckpt.restore(manager.latest_checkpoint)
    """

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None, init_fn=None):
        if not hasattr(checkpoint, "save_counter"):
            raise TypeError(f"CheckpointManager expects a tf.train.Checkpoint, got {checkpoint!r}.")
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got {max_to_keep}.")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not None.")
        self._checkpoint = checkpoint
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._directory = os.fspath(directory)
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._last_checkpoint_step = None
        self._init_fn = init_fn
        self._maybe_delete = collections.OrderedDict()   # path -> timestamp, oldest first
        now = time.time()
        state = get_checkpoint_state(self._directory)
        if state is None:
            self._latest_checkpoint = None
            self._last_preserved_timestamp = now - 1.0
        else:
            self._latest_checkpoint = state.model_checkpoint_path or None
            self._last_preserved_timestamp = min(state.last_preserved_timestamp, now)
            stamps = state.all_model_checkpoint_timestamps or \
                [self._last_preserved_timestamp] * len(state.all_model_checkpoint_paths)
            for path, stamp in zip(state.all_model_checkpoint_paths, stamps):
                stamp = min(stamp, now)
                if stamp > self._last_preserved_timestamp:
                    self._maybe_delete[path] = stamp

    @property
    def directory(self):
        return self._directory

    @property
    def checkpoint(self):
        return self._checkpoint

    @property
    def checkpoint_interval(self):
        return self._checkpoint_interval

    @property
    def latest_checkpoint(self):
        """The newest checkpoint's path (``None`` before the first save in an empty directory)."""
        return self._latest_checkpoint

    @property
    def checkpoints(self):
        """The paths of the checkpoints this manager keeps, oldest first."""
        return list(self._maybe_delete)

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Write ``<directory>/<checkpoint_name>-<n>``; ``n`` is ``checkpoint_number`` or the save counter."""
        if self._checkpoint_interval is not None:
            step = int(_value(self._step_counter))
            if self._last_checkpoint_step is not None:
                if step == self._last_checkpoint_step:
                    return None
                if check_interval and step < self._last_checkpoint_step + self._checkpoint_interval:
                    return None
            self._last_checkpoint_step = step
        counter = self._checkpoint.save_counter
        counter.assign_add(1)
        number = int(_value(counter)) if checkpoint_number is None else int(_value(checkpoint_number))
        path = self._checkpoint.write(f"{self._prefix}-{number}")
        self._maybe_delete.pop(path, None)
        self._maybe_delete[path] = time.time()
        self._latest_checkpoint = path
        self._record_state()
        self._sweep()
        self._record_state()
        return path

    def _sweep(self):
        if not self._max_to_keep:
            return
        while len(self._maybe_delete) > self._max_to_keep:
            path, stamp = self._maybe_delete.popitem(last=False)
            hours = self._keep_checkpoint_every_n_hours
            if hours and stamp - hours * 3600.0 >= self._last_preserved_timestamp:
                self._last_preserved_timestamp = stamp
                continue
            _delete(path)

    def _record_state(self):
        paths = list(self._maybe_delete)
        update_checkpoint_state(self._directory, self._latest_checkpoint, paths,
                                all_model_checkpoint_timestamps=list(self._maybe_delete.values()),
                                last_preserved_timestamp=self._last_preserved_timestamp)

    def restore_or_initialize(self):
        """Restore the latest checkpoint and return its path; else run ``init_fn`` and return ``None``."""
        if self._latest_checkpoint is not None:
            self._checkpoint.restore(self._latest_checkpoint)
            if self._checkpoint_interval is not None:
                self._last_checkpoint_step = int(_value(self._step_counter))
            return self._latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
        return None

    def sync(self):
        """Nothing to wait for: saves are synchronous."""


def _value(x):
    return x.numpy() if hasattr(x, "numpy") else x
