"""The all-reduce as a graph op: ``MirroredAllReduce``, N replicas' tensors in, N reduced tensors out.

Eagerly, the coordinator of ``strategy.run`` calls the cross-device algorithm
on the replicas' arrays directly. Inside a ``tf.function``, the replicas are
traced into one graph, so the all-reduce must be a node of that graph: one
``MirroredAllReduce`` node takes every replica's tensors (replica-major: all of
replica 0's, then replica 1's...) and returns them reduced, in the same order.
Its kernel runs the strategy's algorithm (``attrs["algorithm"]``) when the
graph runs, so ``record_all_reduce()`` sees the same steps eagerly and in a
``tf.function``.

It is an engine op (TF instead places one ``CollectiveReduceV2`` or
``NcclAllReduce`` node per replica that meet at run time). It is ``stateful``
so the graph optimizer never folds or merges it, and it has no registered
gradient: each replica records the all-reduce on its own tape instead
(``ReplicaContext.all_reduce``), whose gradient is again an all-reduce.
"""
from ..eager.execute import execute
from ..framework import dtypes
from ..framework.device import device as device_scope
from ..framework.registry import register_op
from ..framework.tensor import EagerTensor
from ..ops import array_ops
from .reduce_util import ReduceOp, as_reduce_op

__all__ = ["all_reduce_tensors"]


def _kernel(xp):
    def all_reduce(*arrays, algorithm, reduce_op, devices, tensors_per_replica):
        k = tensors_per_replica
        per_replica = [list(arrays[r * k:(r + 1) * k]) for r in range(len(devices))]
        out = algorithm.all_reduce_arrays(ReduceOp(reduce_op), devices, per_replica)
        flat = [a for replica in out for a in replica]
        return flat[0] if len(flat) == 1 else flat
    return all_reduce


def _infer(ic):
    out = []
    mean = ic.attrs["reduce_op"] == "MEAN" and len(ic.attrs["devices"]) > 1
    for i in range(len(ic.inputs)):
        dtype = ic.dtype(i)
        if mean and not (dtype.is_floating or dtype.is_complex):
            dtype = dtypes.float64
        out.append((dtype, ic.shape(i)))
    return out


_OP = register_op(
    "MirroredAllReduce", kernel=_kernel, infer=_infer, grad=None, stateful=True,
    num_outputs=lambda attrs: len(attrs["devices"]) * attrs["tensors_per_replica"],
    doc="All-reduce (SUM or MEAN) of every replica's tensors with the strategy's cross-device algorithm.")


def all_reduce_tensors(algorithm, reduce_op, devices, per_replica_tensors):
    """All-reduce ``per_replica_tensors[r]`` (replica r's list of tensors) across ``devices``.

    Eager tensors: the algorithm runs now, and replica r's results are placed on
    ``devices[r]``. Symbolic tensors (tracing): one ``MirroredAllReduce`` node.
    """
    reduce_op = as_reduce_op(reduce_op)
    n, k = len(devices), len(per_replica_tensors[0])
    eager = all(isinstance(t, EagerTensor) for tensors in per_replica_tensors for t in tensors)
    if eager:
        arrays = [[t._value for t in tensors] for tensors in per_replica_tensors]
        out = algorithm.all_reduce_arrays(reduce_op, devices, arrays)
        return [[EagerTensor(a, d) for a in replica] for replica, d in zip(out, devices)]
    if n == 1 and not getattr(algorithm, "spans_processes", False):   # one replica in all (OneDevice, a PS worker)
        return [[array_ops.identity(t) for t in per_replica_tensors[0]]]
    flat = [t for tensors in per_replica_tensors for t in tensors]
    attrs = {"algorithm": algorithm, "reduce_op": reduce_op.value, "devices": tuple(devices),
             "tensors_per_replica": k}
    with device_scope(None):
        result = execute(_OP, tuple(flat), attrs, name="MirroredAllReduce")
    result = list(result) if isinstance(result, (list, tuple)) else [result]
    return [result[r * k:(r + 1) * k] for r in range(n)]
