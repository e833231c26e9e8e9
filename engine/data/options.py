"""``tf.data.Options``: the options ``with_options`` attaches and ``options()`` returns.

They have TF's attribute names (and TF refuses unknown ones), but **no option
changes what the engine does** but one, ``experimental_distribute.auto_shard_policy``
(read by ``MultiWorkerMirroredStrategy``, :class:`AutoShardPolicy`): it has no graph rewrites, maps sequentially,
and its one thread is ``prefetch``'s. ``deterministic=False`` in particular
does not reorder anything. A module of its own, below ``dataset_ops.py``
(``Dataset.options()`` builds one) and ``extras.py`` (``with_options``).
"""

import enum

__all__ = ["Options", "AutoShardPolicy"]


class AutoShardPolicy(enum.IntEnum):
    """``tf.data.experimental.AutoShardPolicy``: how a multi-worker strategy shards a dataset (TF's values).

    The one option the engine acts on: ``MultiWorkerMirroredStrategy.experimental_distribute_dataset``
    reads ``options().experimental_distribute.auto_shard_policy`` (see ``engine/distribute/input_lib.py``).
    ``AUTO`` tries ``FILE`` and falls back to ``DATA``; the engine has no file-based datasets, so
    ``AUTO`` is ``DATA`` and ``FILE`` is TF's ``NotFoundError`` ("Found an unshardable source dataset").
    ``HINT`` shards only at ``tf.data.experimental.SHARD_HINT`` placeholders: the engine has none, so
    it is ``OFF``, as TF 2.21 behaves for an in-memory dataset (recorded).
    """

    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class _OptionsGroup:
    """A group of options with a fixed set of attribute names (TF refuses unknown ones)."""

    _names = ()

    def __init__(self):
        for name in self._names:
            object.__setattr__(self, name, None)

    def __setattr__(self, name, value):
        if name not in self._names:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        object.__setattr__(self, name, value)

    def _merge(self, other):
        for name in self._names:
            mine, theirs = getattr(self, name), getattr(other, name)
            if isinstance(mine, _OptionsGroup):
                mine._merge(theirs)
            elif theirs is not None:
                object.__setattr__(self, name, theirs)

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{n}={getattr(self, n)!r}' for n in self._names)})"


class OptimizationOptions(_OptionsGroup):
    _names = ("apply_default_optimizations", "filter_fusion", "filter_parallelization", "inject_prefetch",
              "map_and_batch_fusion", "map_and_filter_fusion", "map_fusion", "map_parallelization",
              "noop_elimination", "parallel_batch", "seq_interleave_prefetch", "shuffle_and_repeat_fusion")


class ThreadingOptions(_OptionsGroup):
    _names = ("max_intra_op_parallelism", "private_threadpool_size")


class AutotuneOptions(_OptionsGroup):
    _names = ("autotune_algorithm", "cpu_budget", "enabled", "initial_parallelism", "min_parallelism",
              "ram_budget")


class DistributeOptions(_OptionsGroup):
    _names = ("auto_shard_policy", "num_devices")


class Options(_OptionsGroup):
    """``tf.data.Options``: accepted, merged and returned by ``options()``; none changes the engine's behaviour.

    Unknown attributes raise ``AttributeError("Cannot set the property bogus on Options.")`` as in TF.
    """

    _names = ("autotune", "deterministic", "experimental_deterministic", "experimental_distribute",
              "experimental_external_state_policy", "experimental_optimization", "experimental_slack",
              "experimental_symbolic_checkpoint", "experimental_threading", "experimental_warm_start",
              "framework_type", "threading", "dataset_name")

    def __init__(self):
        super().__init__()
        object.__setattr__(self, "autotune", AutotuneOptions())
        object.__setattr__(self, "experimental_distribute", DistributeOptions())
        object.__setattr__(self, "experimental_optimization", OptimizationOptions())
        threading = ThreadingOptions()
        object.__setattr__(self, "threading", threading)
        object.__setattr__(self, "experimental_threading", threading)

    def __setattr__(self, name, value):
        if name == "experimental_deterministic":
            name = "deterministic"
        super().__setattr__(name, value)
        if name == "deterministic":
            object.__setattr__(self, "experimental_deterministic", value)

    def merge(self, options):
        merged = Options()
        merged._merge(self)
        merged._merge(options)
        return merged
