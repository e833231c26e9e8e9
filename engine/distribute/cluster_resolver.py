"""``tf.distribute.cluster_resolver``: how a process learns the cluster and which task it is.

A multi-worker strategy needs three facts: the cluster (a
``tf.train.ClusterSpec``, ``cluster_spec.py``), this process's ``task_type``
and its ``task_id``. A *cluster resolver* supplies them:

* :class:`TFConfigClusterResolver` reads them from the ``TF_CONFIG``
  environment variable, a JSON object that every process of the job receives,
  each with its own ``task``::

      TF_CONFIG='{"cluster": {"worker": ["localhost:12345", "localhost:23456"]},
                  "task": {"type": "worker", "index": 0}}'

  Optional keys: ``"rpc_layer"`` (``"grpc"``) and ``"session_master"``. The
  launcher (``python -m engine.distribute.launch``) writes one per process.
* :class:`SimpleClusterResolver` is given them directly.
* :class:`UnionResolver` merges the clusters of several resolvers.

What TF does, and so does the engine (recorded from TF 2.21;
``tests/distribute/test_cluster_resolver.py``):

* ``TF_CONFIG`` is parsed again at **every** access (``cluster_spec()``,
  ``task_type``, ``task_id``, ``rpc_layer``, ``master()``), never cached: a
  resolver follows the environment. Creating the resolver parses nothing.
* JSON that does not parse raises the JSON decoder's own error,
  ``json.JSONDecodeError`` (a ``ValueError``), at the first access. A missing
  ``TF_CONFIG`` is ``{}``: an empty cluster, ``task_type`` and ``task_id`` None.
* ``task_id`` is ``int(task["index"])``; ``task_type`` ``str(task["type"])``.
* ``master()`` is ``''`` for an empty cluster or a cluster of one task, else
  the task's address, prefixed by ``rpc_layer://`` when there is one.
* The resolver itself validates nothing else: a task index out of range, a task
  type the cluster does not have, a PS cluster without ``ps`` or without
  workers are refused (``ValueError``) by the strategy that uses the resolver;
  the checks are in ``multi_worker_util.py``.
"""
import abc
import collections
import json
import os

from .. import config as _config
from .cluster_spec import ClusterSpec

__all__ = ["ClusterResolver", "SimpleClusterResolver", "TFConfigClusterResolver", "UnionResolver",
           "format_master_url", "load_tf_config"]

_TF_CONFIG_ENV = "TF_CONFIG"
_SESSION_MASTER_KEY = "session_master"
_RPC_LAYER_KEY = "rpc_layer"
_TASK_KEY = "task"


def format_master_url(master, rpc_layer=None):
    """``"grpc://host:port"`` for ``rpc_layer="grpc"``; the address as it is without an rpc layer."""
    return f"{rpc_layer}://{master}" if rpc_layer else master


def load_tf_config():
    """``TF_CONFIG`` parsed (``{}`` when unset). Malformed JSON raises ``json.JSONDecodeError``, as in TF."""
    return json.loads(os.environ.get(_TF_CONFIG_ENV, "{}"))


def _get_value_in_tfconfig(key, default=None):
    tf_config = load_tf_config()
    return tf_config[key] if key in tf_config else default


def _accelerator_devices():
    """The non-CPU logical devices of this process (TF's ``get_accelerator_devices``, eagerly)."""
    return [d for d in _config.list_logical_devices() if d.device_type not in ("CPU", "XLA_CPU")]


class ClusterResolver(abc.ABC):
    """The interface of every cluster resolver: ``cluster_spec()``, ``master()``, ``task_type``, ``task_id``...

    Subclasses implement ``cluster_spec`` and ``master``; ``task_type``,
    ``task_id`` and ``rpc_layer`` read ``self._task_type``, ``self._task_id``
    and ``self._rpc_layer`` unless a subclass overrides them.
    """

    @abc.abstractmethod
    def cluster_spec(self):
        """The cluster now, as a ``tf.train.ClusterSpec`` (recomputed at every call)."""
        raise NotImplementedError()

    @abc.abstractmethod
    def master(self, task_type=None, task_id=None, rpc_layer=None):
        """The address of the session master (TF 1's ``tf.compat.v1.Session`` target)."""
        raise NotImplementedError()

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        """``{device type: count}`` of the accelerators (GPUs) per worker; CPUs are not counted.

        As TF (eagerly): the local logical devices, keeping only those whose name
        holds ``/job:<task_type>`` and ``/task:<task_id>`` when both are given.
        """
        self.master(task_type, task_id)   # (TF connects to the master first; a bad TF_CONFIG raises here)
        mapping = collections.defaultdict(int)
        for device in _accelerator_devices():
            if task_type is not None and task_id is not None:
                if f"/job:{task_type}" not in device.name or f"/task:{task_id}" not in device.name:
                    continue
            mapping[device.device_type] += 1
        return mapping

    @property
    def environment(self):
        """``"google"`` inside Google, ``""`` elsewhere."""
        return ""

    @property
    def task_type(self):
        """This process's job name: ``"chief"``, ``"worker"``, ``"ps"`` or ``"evaluator"`` (None if unknown)."""
        return getattr(self, "_task_type", None)

    @task_type.setter
    def task_type(self, task_type):
        self._task_type = task_type

    @property
    def task_id(self):
        """This process's index in its job (None if unknown)."""
        return getattr(self, "_task_id", None)

    @task_id.setter
    def task_id(self, task_id):
        self._task_id = task_id

    @property
    def rpc_layer(self):
        return getattr(self, "_rpc_layer", None)

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer):
        self._rpc_layer = rpc_layer


class SimpleClusterResolver(ClusterResolver):
    """A resolver that returns what it was given: a ``ClusterSpec``, the task, the accelerators, the rpc layer."""

    def __init__(self, cluster_spec, master="", task_type=None, task_id=None, environment="",
                 num_accelerators=None, rpc_layer=None):
        self._task_type = task_type
        self._task_id = task_id
        self._environment = environment
        self._num_accelerators = num_accelerators
        self._rpc_layer = rpc_layer
        if not isinstance(cluster_spec, ClusterSpec):
            raise TypeError("cluster_spec must be a `tf.train.ClusterSpec`.")
        self._cluster_spec = cluster_spec
        if not isinstance(master, str):
            raise TypeError("master must be a string.")
        self._master = master

    def cluster_spec(self):
        return self._cluster_spec

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        """The given ``master``; with ``task_type`` and ``task_id``, that task's address. Prefixed by the rpc layer."""
        if task_type is not None and task_id is not None:
            master = self.cluster_spec().task_address(task_type, task_id)
        else:
            master = self._master
        return format_master_url(master, rpc_layer=rpc_layer or self._rpc_layer)

    @property
    def task_type(self):
        return self._task_type

    @task_type.setter
    def task_type(self, task_type):
        self._task_type = task_type

    @property
    def task_id(self):
        return self._task_id

    @task_id.setter
    def task_id(self, task_id):
        self._task_id = task_id

    @property
    def environment(self):
        return self._environment

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        """The ``num_accelerators`` given to the constructor (``{}`` if none): nothing is detected."""
        return {} if self._num_accelerators is None else self._num_accelerators

    @property
    def rpc_layer(self):
        return self._rpc_layer

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer):
        self._rpc_layer = rpc_layer


class TFConfigClusterResolver(ClusterResolver):
    """The cluster and this task from the ``TF_CONFIG`` environment variable (read at every access).

    ``task_type``, ``task_id``, ``rpc_layer``, ``environment``: optional
    overrides of what ``TF_CONFIG`` says.
    """

    def __init__(self, task_type=None, task_id=None, rpc_layer=None, environment=None):
        self._task_type = task_type
        self._task_id = task_id
        self._rpc_layer = rpc_layer
        self._environment = environment

    @property
    def task_type(self):
        if self._task_type is None:
            task_info = _get_value_in_tfconfig(_TASK_KEY, {})
            return str(task_info["type"]) if "type" in task_info else None
        return str(self._task_type)

    @task_type.setter
    def task_type(self, task_type):
        self._task_type = task_type

    @property
    def task_id(self):
        if self._task_id is None:
            task_info = _get_value_in_tfconfig(_TASK_KEY, {})
            return int(task_info["index"]) if "index" in task_info else None
        return int(self._task_id)

    @task_id.setter
    def task_id(self, task_id):
        self._task_id = task_id

    @property
    def environment(self):
        return self._environment   # (None unless given: TF does not read it from TF_CONFIG)

    @property
    def rpc_layer(self):
        if self._rpc_layer is None:
            return _get_value_in_tfconfig(_RPC_LAYER_KEY)
        return self._rpc_layer

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer):
        self._rpc_layer = rpc_layer

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        task_type = self.task_type if task_type is None else task_type
        task_id = self.task_id if task_id is None else task_id
        return super().num_accelerators(task_type, task_id, config_proto)

    def cluster_spec(self):
        """``ClusterSpec(TF_CONFIG["cluster"])``; an empty ``ClusterSpec`` without a ``"cluster"`` key."""
        tf_config = load_tf_config()
        if "cluster" not in tf_config:
            return ClusterSpec({})
        return ClusterSpec(tf_config["cluster"])

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        """``TF_CONFIG["session_master"]`` if set; ``''`` for a cluster of at most one task; else the task's URL."""
        session_master = _get_value_in_tfconfig(_SESSION_MASTER_KEY)
        if session_master is not None:
            return session_master
        cluster_spec = self.cluster_spec()
        if not cluster_spec.jobs or (len(cluster_spec.jobs) == 1 and
                                     len(cluster_spec.job_tasks(cluster_spec.jobs[0])) == 1):
            return ""
        task_type = task_type if task_type is not None else self.task_type
        task_id = task_id if task_id is not None else self.task_id
        rpc_layer = rpc_layer if rpc_layer is not None else self.rpc_layer
        return format_master_url(cluster_spec.task_address(task_type, task_id), rpc_layer)


class UnionResolver(ClusterResolver):
    """The union of the clusters of several resolvers; the task, rpc layer... of the first one (or overrides).

    Jobs present in several clusters are merged: lists are concatenated (in
    resolver order); if any of them is a dict, all are merged as dicts and a
    task index given twice raises ``KeyError``.
    """

    def __init__(self, *args, **kwargs):
        self._rpc_layer = kwargs.pop("rpc_layer", None)
        self._task_type = kwargs.pop("task_type", None)
        self._task_id = kwargs.pop("task_id", None)
        if kwargs:
            raise ValueError(f"Unexpected kwargs provided {kwargs!r}")
        if not args:
            raise ValueError("At least one ClusterResolver is required.")
        for resolver in args:
            if not isinstance(resolver, ClusterResolver):
                raise TypeError("All arguments must be a sub-class of `ClusterResolver.`")
        self._cluster_resolvers = args

    def cluster_spec(self):
        merged = {}
        dicts = [r.cluster_spec().as_dict() for r in self._cluster_resolvers]
        for cluster in dicts:          # a job is a dict as soon as one resolver gives it as a dict
            for job, tasks in cluster.items():
                if job not in merged:
                    merged[job] = [] if isinstance(tasks, list) else {}
                elif isinstance(tasks, dict):
                    merged[job] = {}
        for cluster in dicts:
            for job, tasks in cluster.items():
                if isinstance(merged[job], list):
                    merged[job].extend(tasks)
                    continue
                task_dict = dict(enumerate(tasks)) if isinstance(tasks, list) else dict(tasks)
                duplicated = set(task_dict) & set(merged[job])
                if duplicated:
                    raise KeyError(f"Duplicate keys detected when merging two ClusterSpecs: {duplicated!r}")
                merged[job].update(task_dict)
        return ClusterSpec(merged)

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        if task_type is not None and task_id is not None:
            master = self.cluster_spec().task_address(task_type, task_id)
            return format_master_url(master, rpc_layer or self._rpc_layer)
        return self._cluster_resolvers[0].master(rpc_layer=rpc_layer)

    @property
    def task_type(self):
        return self._task_type or self._cluster_resolvers[0].task_type

    @task_type.setter
    def task_type(self, task_type):
        self._task_type = task_type

    @property
    def task_id(self):
        return self._task_id or self._cluster_resolvers[0].task_id

    @task_id.setter
    def task_id(self, task_id):
        self._task_id = task_id

    @property
    def environment(self):
        return self._cluster_resolvers[0].environment

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        return self._cluster_resolvers[0].num_accelerators(task_type, task_id, config_proto)

    @property
    def rpc_layer(self):
        return self._rpc_layer or self._cluster_resolvers[0].rpc_layer

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer):
        self._rpc_layer = rpc_layer
