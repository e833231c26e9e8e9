"""Distributed input: split each global batch across the replicas.

``strategy.experimental_distribute_dataset(dataset)`` takes a dataset of
*global* batches. Each global batch of B examples is cut along its first
dimension into N consecutive slices, one per replica, each placed on its
replica's device: with B = 64 and N = 4 every replica gets 16 examples. As in
TF (``batch_sizes_for_worker``), slice sizes differ by at most one, the larger
ones first: B = 10 over 4 replicas gives 3, 3, 2 and 2; B = 5 gives 2, 1, 1, 1.
A short last batch (fewer than the dataset's B examples) fills the same slices
in order, as TF's rebatching does: the last 5 of a dataset batched by 10 give
3, 2, 0 and 0 (a replica may get an empty slice; ``tf.nn.compute_average_loss``
still divides by the global batch).

``strategy.distribute_datasets_from_function(dataset_fn)`` instead lets you build
per-replica batches yourself: ``dataset_fn(input_context)`` returns a dataset of
*per-replica* batches (``input_context.get_per_replica_batch_size(B)``), and
each step hands N consecutive batches to the N replicas.

The same splitting is available for tensors already in hand (the Keras hook
uses it inside a ``tf.function``, where the batch size is unknown until run
time): :func:`split_global_batch`.
"""
from ..framework.device import default_device
from ..framework.device import device as device_scope
from ..framework.errors import OutOfRangeError
from ..framework.tensor import EagerTensor, Tensor
from ..framework.tensor_shape import TensorShape
from ..framework.tensor_spec import TensorSpec
from ..ops import array_ops, math_ops
from .replica_context import InputContext
from .values import PerReplica, PerReplicaSpec, _map_structure, flatten_values

__all__ = ["DistributedDataset", "DistributedDatasetsFromFunction", "DistributedIterator", "split_global_batch"]


def slice_sizes(global_batch, n):
    """TF's per-replica batch sizes for a global batch: as equal as possible, the larger ones first."""
    base, extra = divmod(global_batch, n)
    return [base + (1 if i < extra else 0) for i in range(n)]


def _slice_bounds(batch, n, global_batch=None):
    """``(start, end)`` of each replica's slice of a batch of ``batch`` examples (of a ``global_batch``)."""
    bounds, start = [], 0
    for size in slice_sizes(batch if global_batch is None else global_batch, n):
        end = min(start + size, batch)
        bounds.append((start, end))
        start = end
    return bounds


def _split_tensor(x, devices, global_batch=None):
    """One tensor's N slices along axis 0 (eager: NumPy views placed on each device; symbolic: slicing ops)."""
    n = len(devices)
    if any(d is None for d in devices):      # the default strategy's one "device": wherever ops run now
        devices = [default_device() if d is None else d for d in devices]
    if isinstance(x, EagerTensor):
        if x.shape.rank == 0:
            raise ValueError(f"Cannot split a scalar across {n} replicas: every element of a distributed dataset "
                             f"must have a batch dimension. Call dataset.batch(global_batch_size) first.")
        value = x._value
        bounds = _slice_bounds(len(value), n, global_batch)
        return [EagerTensor(d.put(value[start:end]), d) for (start, end), d in zip(bounds, devices)]
    batch = array_ops.shape(x)[0]     # unknown until run time: the sizes as slice_sizes(batch, n) computes them
    base, extra = math_ops.floordiv(batch, n), math_ops.floormod(batch, n)
    pieces = []
    for i, d in enumerate(devices):
        with device_scope(d):
            start = base * i + math_ops.minimum(extra, i)
            end = base * (i + 1) + math_ops.minimum(extra, i + 1)
            pieces.append(x[start:end])
    return pieces


def split_global_batch(strategy, structure, global_batch=None):
    """Split every tensor of ``structure`` (a global batch) into a ``PerReplica`` of per-replica slices.

    ``global_batch``: the dataset's batch size, when ``structure`` may be its short last batch
    (None: the batch itself is the global batch). With one replica the tensors are only placed
    on its device (no ``PerReplica``).
    """
    devices = strategy.extended._devices

    def split(x):
        if not isinstance(x, Tensor):
            return x
        pieces = _split_tensor(x, devices, global_batch)
        return pieces[0] if len(pieces) == 1 else PerReplica(pieces)
    return _map_structure(split, structure)


def _check_batched(dataset, n):
    for spec in flatten_values(dataset.element_spec):
        shape = getattr(spec, "shape", None)
        if shape is not None and shape.rank == 0:
            raise ValueError(f"experimental_distribute_dataset needs a batched dataset: each element is split along "
                             f"its first (batch) dimension across the {n} replicas, but this dataset's element_spec "
                             f"{dataset.element_spec} has scalars. Call dataset.batch(global_batch_size) first.")


class DistributedIterator:
    """Iterates a distributed dataset: each ``next`` is one step's input, ``PerReplica`` leaves."""

    def __init__(self, strategy, next_fn):
        self._strategy = strategy
        self._next_fn = next_fn

    def __iter__(self):
        return self

    def __next__(self):
        return self._next_fn()

    def get_next(self):
        """The next step's input; ``OutOfRangeError`` at the end (``next()`` raises ``StopIteration``)."""
        try:
            return self._next_fn()
        except StopIteration:
            raise OutOfRangeError(None, None, "End of sequence") from None


class DistributedDataset:
    """``strategy.experimental_distribute_dataset(dataset)``: global batches in, per-replica slices out."""

    def __init__(self, strategy, dataset):
        self._strategy = strategy
        self._dataset = dataset
        _check_batched(dataset, strategy.num_replicas_in_sync)

    def __iter__(self):
        it = iter(self._dataset)
        global_batch = []   # the dataset's batch size: the first batch's (only the last may be shorter)

        def next_step():
            batch = next(it)
            sizes = [len(x._value) for x in flatten_values(batch) if isinstance(x, EagerTensor) and x.shape.rank]
            if sizes and not global_batch:
                global_batch.append(sizes[0])
            return split_global_batch(self._strategy, batch, global_batch[0] if global_batch else None)
        return DistributedIterator(self._strategy, next_step)

    @property
    def element_spec(self):
        """The dataset's spec with the batch dimension unknown, one per replica (``PerReplicaSpec``)."""
        n = self._strategy.num_replicas_in_sync

        def spec(s):
            shape = TensorShape([None] + list(s.shape)[1:]) if s.shape.rank else s.shape
            per = TensorSpec(shape, s.dtype)
            return per if n == 1 else PerReplicaSpec(*([per] * n))
        return _map_structure(spec, self._dataset.element_spec)

    def __repr__(self):
        return f"<DistributedDataset over {self._strategy.num_replicas_in_sync} replicas of {self._dataset!r}>"


class DistributedDatasetsFromFunction:
    """``strategy.distribute_datasets_from_function(fn)``: per-replica batches, replica i gets every N-th one."""

    def __init__(self, strategy, dataset_fn):
        self._strategy = strategy
        n = strategy.num_replicas_in_sync
        self._dataset = dataset_fn(InputContext(num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=n))

    def __iter__(self):
        it = iter(self._dataset)
        devices = [default_device() if d is None else d for d in self._strategy.extended._devices]

        def next_step():
            batches = [next(it) for _ in devices]   # a partial last step ends the iteration
            placed = []
            for batch, d in zip(batches, devices):
                placed.append(_map_structure(
                    lambda x, d=d: EagerTensor(d.put(x._value), d) if isinstance(x, EagerTensor) else x, batch))
            if len(placed) == 1:
                return placed[0]
            return _map_structure(lambda *parts: PerReplica(parts), *placed)
        return DistributedIterator(self._strategy, next_step)

    @property
    def element_spec(self):
        n = self._strategy.num_replicas_in_sync
        return _map_structure(lambda s: s if n == 1 else PerReplicaSpec(*([s] * n)), self._dataset.element_spec)
