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

**Across workers** (``MultiWorkerMirroredStrategy``, :class:`MultiWorkerDistributedDataset`)
every worker runs the same input pipeline and the dataset's
``options().experimental_distribute.auto_shard_policy``
(``tf.data.experimental.AutoShardPolicy``) says who gets what. Recorded from TF
2.21 with 2 and 3 CPU workers on localhost, ``from_tensor_slices(range(T)).batch(B)``:

* ``DATA`` (and ``AUTO`` for an in-memory dataset, which falls back from ``FILE``
  to ``DATA``): each global batch of b examples is cut into one contiguous piece
  per worker of ``ceil(b / workers)`` examples, worker k taking the k-th (TF's
  legacy rebatching, which its auto-shard rewrite uses with ``DATA``). Pieces can
  be short or **empty**: b = 7 over 2 workers gives 4 and 3; b = 4 over 3
  workers gives 2, 2 and 0 (worker 2 gets empty batches at every step); a short
  last batch of 2 over 2 workers gives 1 and 1. Every worker runs the same steps.
* ``FILE``: for an in-memory dataset, ``NotFoundError: Found an unshardable source
  dataset`` (no files to share out). For a pipeline read from files
  (``TextLineDataset``, ``TFRecordDataset``, ``list_files``...: :func:`file_sharded`)
  worker k reads files k, k+N, ... of the list, and its batches are rebatched into
  per-replica batches as with ``OFF`` below (a global batch of 2 over 2 workers:
  batches of 1); a worker that runs out of files gets empty batches until the
  others are done. Fewer files than workers: ``InvalidArgumentError`` ("Could not
  apply FILE based sharding..."). ``AUTO`` is ``FILE`` when the pipeline reads
  files, ``DATA`` otherwise (recorded from TF 2.21: ``tests/distribute/data/tf_file_sharding.json``).
* ``OFF`` (and ``HINT``, which shards only at shard hints; an in-memory dataset
  has none): every worker sees the whole dataset, rebatched into per-replica
  batches whose sizes cycle through TF's ``batch_sizes_for_worker``: the
  global batch's ``workers x replicas`` sizes (as equal as possible, larger
  first) rotated by the worker's first replica. B = 7 over 2 workers: worker 0
  cuts 4, 3, 4, 3, ...; worker 1 cuts 3, 4, 3, 4 (pieces may span input batches).
  Each step takes one piece per local replica, so a worker makes about
  ``workers`` times as many steps over the same data.
* Workers that run out of data before the others get **empty** batches until
  every worker is done (TF checks, at each step, whether any worker still has
  data: one small all-reduce; the engine does the same for ``OFF`` and
  ``distribute_datasets_from_function``, whose workers may differ in length).

``distribute_datasets_from_function(dataset_fn)`` calls ``dataset_fn`` once per
worker with ``InputContext(num_input_pipelines=workers, input_pipeline_id=worker
index, num_replicas_in_sync)``; nothing is sharded for you (TF: without a
``shard`` in ``dataset_fn`` every worker gets the same batches).
"""
import copy

import numpy as np

from ..data.options import AutoShardPolicy
from ..framework.device import default_device
from ..framework.device import device as device_scope
from ..framework.errors import InvalidArgumentError, NotFoundError, OutOfRangeError
from ..framework.tensor import EagerTensor, Tensor
from ..framework.tensor_shape import TensorShape
from ..framework.tensor_spec import TensorSpec
from ..ops import array_ops, math_ops
from ..util import nest
from . import collective_ring
from .replica_context import InputContext
from .values import PerReplica, PerReplicaSpec, _map_structure, flatten_values

__all__ = ["DistributedDataset", "DistributedDatasetsFromFunction", "DistributedIterator", "split_global_batch",
           "MultiWorkerDistributedDataset", "MultiWorkerDatasetsFromFunction", "worker_piece_bounds",
           "batch_sizes_for_worker"]


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


def worker_piece_bounds(batch, num_workers, index):
    """``(start, end)`` of worker ``index``'s contiguous piece of a batch of ``batch`` examples (DATA sharding).

    TF's legacy rebatching: pieces of ``ceil(batch / num_workers)``, the last ones short or empty.
    """
    size = -(-batch // num_workers)
    return min(index * size, batch), min((index + 1) * size, batch)


def batch_sizes_for_worker(global_batch, num_workers, replicas_per_worker, index):
    """TF's ``batch_sizes_for_worker``: worker ``index``'s cycle of per-replica batch sizes (OFF sharding)."""
    pieces = num_workers * replicas_per_worker
    base, extra = divmod(global_batch, pieces)
    sizes = [base + 1] * extra + [base] * (pieces - extra)
    offset = index * replicas_per_worker
    return sizes[offset:] + sizes[:offset]


def _worker_piece(x, num_workers, index):
    """This worker's piece of one tensor of a global batch (eager: a view; symbolic: slicing ops)."""
    if isinstance(x, EagerTensor):
        if x.shape.rank == 0:
            return x
        start, end = worker_piece_bounds(len(x._value), num_workers, index)
        return EagerTensor(x._value[start:end], x._device)
    batch = array_ops.shape(x)[0]
    size = math_ops.floordiv(batch + (num_workers - 1), num_workers)
    return x[math_ops.minimum(size * index, batch):math_ops.minimum(size * (index + 1), batch)]


def split_global_batch(strategy, structure, global_batch=None):
    """Split every tensor of ``structure`` (a global batch) into a ``PerReplica`` of per-replica slices.

    ``global_batch``: the dataset's batch size, when ``structure`` may be its short last batch
    (None: the batch itself is the global batch). With one replica the tensors are only placed
    on its device (no ``PerReplica``). Under a strategy of several workers
    (``strategy._input_worker()``: (workers, this worker's index)) each tensor is first cut to
    this worker's piece (:func:`worker_piece_bounds`, DATA sharding), which its local replicas share.
    """
    devices = strategy.extended._devices
    input_worker = getattr(strategy, "_input_worker", None)
    num_workers, index = input_worker() if input_worker is not None else (1, 0)

    def split(x):
        if not isinstance(x, Tensor):
            return x
        if num_workers > 1:
            x = _worker_piece(x, num_workers, index)
        pieces = _split_tensor(x, devices, global_batch if num_workers == 1 else None)
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


# --------------------------------------------------------------------------------------
# Several workers (MultiWorkerMirroredStrategy)
# --------------------------------------------------------------------------------------
def _auto_shard_policy(dataset):
    options = dataset.options() if hasattr(dataset, "options") else None
    policy = getattr(getattr(options, "experimental_distribute", None), "auto_shard_policy", None)
    return AutoShardPolicy.AUTO if policy is None else AutoShardPolicy(policy)


def _host(x):
    value = x._value
    return value.get() if hasattr(value, "get") and not isinstance(value, np.ndarray) else np.asarray(value)


class _StepSync:
    """Whether any worker still has data, asked once per step (TF's ``get_next_as_optional`` across workers)."""

    def __init__(self, strategy):
        self._group = strategy._group

    def anyone_has_data(self, mine):
        total = collective_ring.ring_all_reduce(self._group, np.array([1 if mine else 0], np.int64))
        return int(total[0]) > 0


def _empty_like(template):
    """A batch of 0 examples with ``template``'s structure, dtypes and row shapes (for a worker out of data)."""
    def empty(x):
        if not isinstance(x, EagerTensor):
            return x
        return EagerTensor(np.zeros((0,) + tuple(np.shape(x._value))[1:], _host(x).dtype), x._device)
    return _map_structure(empty, template)


def _empty_from_spec(strategy, element_spec):
    """Empty batches for each local replica from a dataset's ``element_spec`` (a worker that had no data at all)."""
    device = strategy.extended._devices[0] or default_device()

    def empty(spec):
        shape = spec.shape.as_list() if spec.shape.rank is not None else [None]
        dims = [0] + [0 if d is None else d for d in shape[1:]] if shape else []
        return EagerTensor(np.zeros(dims, spec.dtype.as_numpy_dtype), device)
    return [_map_structure(empty, element_spec) for _ in strategy.extended._devices]


def _local_element_spec(strategy, element_spec, batched=True):
    """The spec of one step on this worker: a ``PerReplicaSpec`` of its local replicas' specs, batch ``None``.

    TF 2.21 (2 CPU workers, recorded): ``PerReplicaSpec(TensorSpec(shape=(None,), dtype=tf.int64, name=None),)``,
    one spec per *local* replica, even for one.
    """
    replicas = len(strategy.extended._devices)

    def spec(s):
        shape = TensorShape([None] + list(s.shape)[1:]) if batched and s.shape.rank else s.shape
        return PerReplicaSpec(*([TensorSpec(shape, s.dtype)] * replicas))
    return _map_structure(spec, element_spec)


class _SyncedSteps:
    """Each worker's steps, padded with empty batches until every worker is out of data."""

    def __init__(self, strategy, steps, place, element_spec=None):
        self._sync = _StepSync(strategy)
        self._steps = steps
        self._place = place
        self._template = None if element_spec is None else _empty_from_spec(strategy, element_spec)
        self._done = False

    def __call__(self):
        step = None
        if not self._done:
            try:
                step = next(self._steps)
            except StopIteration:
                self._done = True
        if not self._sync.anyone_has_data(step is not None):
            raise StopIteration
        if step is None:
            step = [_empty_like(t) for t in self._template]
        else:
            self._template = step
        return self._place(step)


def _place_on_replicas(strategy, batches):
    """One batch per local replica (a list), each placed on its replica's device: a ``PerReplica`` step."""
    devices = [default_device() if d is None else d for d in strategy.extended._devices]
    placed = [_map_structure(lambda x, d=d: EagerTensor(d.put(x._value), d) if isinstance(x, EagerTensor) else x, b)
              for b, d in zip(batches, devices)]
    if len(placed) == 1:
        return placed[0]
    return _map_structure(lambda *parts: PerReplica(parts), *placed)


def _rebatch(dataset, sizes):
    """TF's ``rebatch(batch_sizes)``: batches of the cycling ``sizes``, which may span input batches."""
    pending, structure, k = None, None, 0
    for batch in dataset:
        flat = nest.flatten(batch)
        structure = batch
        arrays = [_host(x) for x in flat]
        devices = [x._device for x in flat]
        pending = arrays if pending is None else [np.concatenate([p, a]) for p, a in zip(pending, arrays)]
        while len(pending[0]) >= sizes[k]:
            out, pending = [p[:sizes[k]] for p in pending], [p[sizes[k]:] for p in pending]
            k = (k + 1) % len(sizes)
            yield nest.pack_sequence_as(structure, [EagerTensor(a, d) for a, d in zip(out, devices)])
    if pending is not None and len(pending[0]):
        yield nest.pack_sequence_as(structure, [EagerTensor(a, d) for a, d in zip(pending, devices)])


def file_sharded(dataset, num_workers, index):
    """TF's FILE auto-sharding: ``dataset`` rebuilt so that it reads only this worker's files, k, k+N...

    The pipeline is walked from its end to its source; the list of files it reads (the file names a
    ``TextLineDataset``/``TFRecordDataset`` was given, or ``Dataset.list_files``: marked by
    ``data.readers.mark_file_names``) gets a ``.shard(num_workers, index)``, and every dataset above it
    is copied onto the new input. None when the pipeline reads no file list the engine can see.
    (Deliberate difference: TF also finds readers made inside an ``interleave`` function over any
    dataset of names; the engine only knows names given to a reader or listed by ``list_files``.)
    Fewer files than workers is TF's ``InvalidArgumentError``.
    """
    count = getattr(dataset, "_file_names_count", None)
    if count is not None:
        if count < num_workers:
            raise InvalidArgumentError(
                None, None, f"Could not apply FILE based sharding: the dataset only has {count} file(s), which is "
                            f"not enough for the required {num_workers} shards/workers. If you are using datasets "
                            f"with distribution strategy, consider setting the auto sharding policy to either DATA "
                            f"or OFF using the `experimental_distribute.auto_shard_policy` option of "
                            f"`tf.data.Options()`. Or, split your input files into a larger number of small files "
                            f"such that number of files is greater than number of shards/workers.")
        return dataset.shard(num_workers, index)
    inputs = dataset._inputs()
    if len(inputs) != 1:
        return None
    child = file_sharded(inputs[0], num_workers, index)
    if child is None:
        return None
    rebuilt = copy.copy(dataset)
    for attribute, value in vars(dataset).items():
        if value is inputs[0]:
            setattr(rebuilt, attribute, child)
    return rebuilt


class MultiWorkerDistributedDataset(DistributedDataset):
    """``experimental_distribute_dataset`` under several workers: shard by the dataset's ``AutoShardPolicy``.

    ``DATA``/``AUTO``: this worker's contiguous piece of every global batch
    (:func:`worker_piece_bounds`), shared by its local replicas. ``OFF``/``HINT``:
    the whole dataset, rebatched per replica (:func:`batch_sizes_for_worker`),
    steps padded with empty batches until every worker is done. ``FILE``: the same, on this worker's
    share of the files (:func:`file_sharded`). See the module's docstring for what TF 2.21 does.
    """

    def __init__(self, strategy, dataset):
        super().__init__(strategy, dataset)
        self._policy = _auto_shard_policy(dataset)
        self._worker_dataset = dataset         # what this worker reads (FILE: its share of the files)
        if self._policy in (AutoShardPolicy.FILE, AutoShardPolicy.AUTO):
            num_workers, index = strategy._input_worker()
            sharded = file_sharded(dataset, num_workers, index)
            if sharded is not None:
                self._policy, self._worker_dataset = AutoShardPolicy.FILE, sharded
            elif self._policy is AutoShardPolicy.FILE:
                raise NotFoundError(None, None, "Found an unshardable source dataset: the FILE auto-shard policy "
                                                "needs a dataset read from files (TFRecordDataset, TextLineDataset, "
                                                f"list_files...); this one ({dataset!r}) is in memory. Use "
                                                f"AutoShardPolicy.DATA or OFF.")

    def __iter__(self):
        if self._policy in (AutoShardPolicy.AUTO, AutoShardPolicy.DATA):
            it = iter(self._dataset)
            return DistributedIterator(self._strategy, lambda: split_global_batch(self._strategy, next(it)))
        strategy = self._strategy
        num_workers, index = strategy._input_worker()
        replicas = len(strategy.extended._devices)
        sizes = None
        it = iter(self._worker_dataset)
        try:
            first = next(it)
        except StopIteration:
            first = None

        def all_batches():
            if first is not None:
                yield first
                yield from it
        if first is not None:
            lengths = [len(x._value) for x in flatten_values(first) if isinstance(x, EagerTensor) and x.shape.rank]
            sizes = batch_sizes_for_worker(lengths[0] if lengths else 1, num_workers, replicas, index)
            sizes = [s for s in sizes if s > 0] or [1]
        pieces = _rebatch(all_batches(), sizes) if sizes else iter(())

        def steps():
            while True:
                step = []
                for piece in pieces:
                    step.append(piece)
                    if len(step) == replicas:
                        break
                if not step:
                    return
                while len(step) < replicas:
                    step.append(_empty_like(step[0]))
                yield step
        return DistributedIterator(strategy, _SyncedSteps(strategy, steps(), lambda s: _place_on_replicas(strategy, s),
                                                          self._dataset.element_spec))

    @property
    def element_spec(self):
        """One step's spec on this worker: a ``PerReplicaSpec`` of its local replicas (``_local_element_spec``)."""
        return _local_element_spec(self._strategy, self._dataset.element_spec)

    def __repr__(self):
        n, k = self._strategy._input_worker()
        return (f"<DistributedDataset over {self._strategy.num_replicas_in_sync} replicas (worker {k} of {n}, "
                f"{self._policy.name} sharding) of {self._dataset!r}>")


class MultiWorkerDatasetsFromFunction(DistributedDatasetsFromFunction):
    """``distribute_datasets_from_function`` under several workers: one ``dataset_fn`` call per worker.

    ``InputContext(num_input_pipelines=workers, input_pipeline_id=this worker, num_replicas_in_sync)``;
    each step gives the local replicas consecutive batches; workers out of data get empty batches
    until all are.
    """

    def __init__(self, strategy, dataset_fn):
        self._strategy = strategy
        num_workers, index = strategy._input_worker()
        self._dataset = dataset_fn(InputContext(num_input_pipelines=num_workers, input_pipeline_id=index,
                                                num_replicas_in_sync=strategy.num_replicas_in_sync))

    def __iter__(self):
        strategy = self._strategy
        replicas = len(strategy.extended._devices)
        it = iter(self._dataset)

        def steps():
            while True:
                step = []
                for batch in it:
                    step.append(batch)
                    if len(step) == replicas:
                        break
                if len(step) < replicas:     # a partial last step ends this worker's data (as on one worker)
                    return
                yield step
        return DistributedIterator(strategy, _SyncedSteps(strategy, steps(), lambda s: _place_on_replicas(strategy, s),
                                                          self._dataset.element_spec))

    @property
    def element_spec(self):
        return _local_element_spec(self._strategy, self._dataset.element_spec, batched=False)
