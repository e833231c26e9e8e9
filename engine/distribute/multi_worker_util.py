"""Questions about a cluster that multi-worker strategies ask, and the checks that refuse a bad one.

Who is the chief, how many workers train, which rank a task has in the
collectives, and whether the cluster a strategy was given makes sense. TF keeps
these in ``tensorflow/python/distribute/multi_worker_util.py``; the names, the
order of the checks and the error messages are TF 2.21's (recorded by running
``MultiWorkerMirroredStrategy`` and ``ParameterServerStrategy`` on malformed
``TF_CONFIG`` values; ``tests/distribute/test_cluster_resolver.py``).

The roles (TF's conventions):

* ``"chief"``: at most one; a worker with extra duties (writing checkpoints and
  summaries). Without a chief, ``worker`` 0 is the chief.
* ``"worker"``: computes. In ``MultiWorkerMirroredStrategy`` the chief and the
  workers all train: their collective ranks are chief first, then workers in
  index order (:func:`id_in_cluster`).
* ``"ps"``: parameter servers, which hold variables (``ParameterServerStrategy``).
* ``"evaluator"``: at most one, outside the training cluster.

A strategy refuses a cluster with ``ValueError`` when it is constructed: a task
type the cluster does not have, a ``task_id`` past the job's last task, a job
name that is not one of the four roles, two chiefs; a PS cluster without any
``ps`` task or without any worker.
"""
from ..framework import errors
from .cluster_spec import ClusterDef, ClusterSpec

__all__ = ["normalize_cluster_spec", "task_count", "validate_cluster_spec", "is_chief", "collective_leader",
           "coordination_leader", "worker_count", "id_in_cluster", "collective_tasks", "task_name",
           "resolve_multi_worker_task", "validate_parameter_server_cluster"]

ALLOWED_TASK_TYPES = ("chief", "worker", "evaluator", "ps", None)


def normalize_cluster_spec(cluster_spec):
    """A dict or ``ClusterDef`` -> ``ClusterSpec``; a ``ClusterSpec`` as it is; anything else ``ValueError``."""
    if isinstance(cluster_spec, (dict, ClusterDef)):
        return ClusterSpec(cluster_spec)
    if not isinstance(cluster_spec, ClusterSpec):
        raise ValueError("`cluster_spec' should be dict or a `tf.train.ClusterSpec` or a `tf.train.ClusterDef` "
                         "object")
    return cluster_spec


def task_count(cluster_spec, task_type):
    """The number of tasks of ``task_type`` (0 if the cluster has no such job)."""
    try:
        return cluster_spec.num_tasks(task_type)
    except ValueError:
        return 0


def validate_cluster_spec(cluster_spec, task_type, task_id):
    """Raise ``ValueError`` unless ``(task_type, task_id)`` is a task of a well-formed cluster (TF's checks, in order).

    1. every job is one of ``chief``, ``worker``, ``evaluator``, ``ps``;
    2. so is ``task_type`` (or it is None);
    3. the cluster has a ``task_type`` job (an evaluator may be outside it);
    4. at most one chief and one evaluator;
    5. ``task_id`` is below the number of tasks of its job.
    """
    cluster_spec = normalize_cluster_spec(cluster_spec)
    if any(job not in ALLOWED_TASK_TYPES for job in cluster_spec.jobs):
        raise ValueError(f"Disallowed task type found in cluster spec. Allowed types are {ALLOWED_TASK_TYPES} and "
                         f"the cluster spec is {cluster_spec}.")
    if task_type not in ALLOWED_TASK_TYPES:
        raise ValueError(f"Unrecognized task_type: {task_type}, valid task types are: {ALLOWED_TASK_TYPES}")
    if task_type and task_type not in cluster_spec.jobs and task_type != "evaluator":
        raise ValueError(f"`task_type` {task_type!r} not found in cluster_spec.")
    if task_count(cluster_spec, "chief") > 1:
        raise ValueError("There must be at most one 'chief' job.")
    if task_count(cluster_spec, "evaluator") > 1:
        raise ValueError("There must be at most one 'evaluator' job.")
    if task_type in cluster_spec.jobs and task_id >= task_count(cluster_spec, task_type):
        raise ValueError(f"The `task_id` {task_id} exceeds the maximum id of {task_type}.")


_validate_cluster_spec = validate_cluster_spec   # TF's name


def is_chief(cluster_spec=None, task_type=None, task_id=None):
    """True for the chief, for the evaluator, and for worker 0 when the cluster has no chief."""
    validate_cluster_spec(cluster_spec, task_type, task_id)
    jobs = normalize_cluster_spec(cluster_spec).as_dict()
    if task_type in ("chief", "evaluator"):
        return True
    return "chief" not in jobs and task_type == "worker" and task_id == 0


def collective_leader(cluster_spec, task_type, task_id):
    """The task that leads the collectives: the chief, else worker 0 (``""`` for an empty cluster or the evaluator)."""
    cluster_spec = normalize_cluster_spec(cluster_spec)
    if not cluster_spec.as_dict():
        return ""
    validate_cluster_spec(cluster_spec, task_type, task_id)
    if task_type == "evaluator":
        return ""
    if "chief" in cluster_spec.jobs:
        return "/job:chief/replica:0/task:0"
    assert "worker" in cluster_spec.jobs
    return "/job:worker/replica:0/task:0"


def coordination_leader(cluster_spec):
    """The task that leads the coordination service: ps 0, else the chief, else worker 0."""
    cluster_spec = normalize_cluster_spec(cluster_spec)
    if not cluster_spec.as_dict():
        return ""
    for job in ("ps", "chief"):
        if job in cluster_spec.jobs:
            return f"/job:{job}/replica:0/task:0"
    assert "worker" in cluster_spec.jobs
    return "/job:worker/replica:0/task:0"


def worker_count(cluster_spec, task_type):
    """How many tasks train together: chief + workers (the evaluator counts its own job)."""
    validate_cluster_spec(cluster_spec, task_type, task_id=0)
    jobs = normalize_cluster_spec(cluster_spec).as_dict()
    if task_type not in ("chief", "worker", "evaluator"):
        raise ValueError(f"Unexpected `task_type` {task_type!r}")
    if task_type == "evaluator":
        return len(jobs["evaluator"])
    return len(jobs.get("chief", [])) + len(jobs.get("worker", []))


def id_in_cluster(cluster_spec, task_type, task_id):
    """This task's rank among the training tasks: the chief is 0, worker i is i + (1 if there is a chief)."""
    validate_cluster_spec(cluster_spec, task_type, task_id)
    jobs = normalize_cluster_spec(cluster_spec).as_dict()
    if task_type == "chief":
        return 0
    if task_type == "worker":
        return task_id + len(jobs.get("chief", []))
    if task_type == "evaluator":
        return task_id
    raise ValueError(f"There is no id for task_type {task_type!r}")


def collective_tasks(cluster_spec):
    """``[(task_type, task_id), ...]`` of the tasks that all-reduce together, in rank order (chief, then workers)."""
    cluster_spec = normalize_cluster_spec(cluster_spec)
    out = []
    for job in ("chief", "worker"):
        if job in cluster_spec.jobs:
            out += [(job, i) for i in cluster_spec.task_indices(job)]
    return out


def task_name(task_type, task_id):
    """``/job:worker/replica:0/task:1``: a task's name, the prefix of its devices' names."""
    return f"/job:{task_type}/replica:0/task:{task_id}"


def resolve_multi_worker_task(cluster_resolver):
    """What ``MultiWorkerMirroredStrategy`` reads from its resolver, with TF's checks in TF's order.

    Returns ``(cluster_spec, task_type, task_id, rank, num_workers, is_chief)``.
    Errors: ``ValueError`` when the task is not given (``TF_CONFIG`` without a
    ``task``), for the checks of :func:`validate_cluster_spec`, for a ``ps``
    task (``There is no id for task_type 'ps'``), for a cluster without
    training tasks; ``InvalidArgumentError`` for a negative ``task_id`` (TF
    accepts it until it builds the device filter ``/job:worker/task:-1``).
    """
    cluster_spec = normalize_cluster_spec(cluster_resolver.cluster_spec())
    task_type, task_id = cluster_resolver.task_type, cluster_resolver.task_id
    if task_type is None or task_id is None:
        raise ValueError("When `cluster_spec` is given, you must also specify `task_type` and `task_id`.")
    rank = id_in_cluster(cluster_spec, task_type, task_id)
    num_workers = worker_count(cluster_spec, task_type)
    if not num_workers:
        raise ValueError("No `worker`, `chief` or `evaluator` tasks can be found in `cluster_spec`.")
    chief = is_chief(cluster_spec, task_type, task_id)
    if task_id < 0:
        raise errors.InvalidArgumentError(None, None, f"Invalid device filter: /job:{task_type}/task:{task_id}")
    return cluster_spec, task_type, task_id, rank, num_workers, chief


def validate_parameter_server_cluster(cluster_resolver):
    """``ParameterServerStrategy``'s checks of its resolver (TF's ``_verify_args_and_config``): ``ValueError``s."""
    if not cluster_resolver.cluster_spec():
        raise ValueError("Cluster spec must be non-empty in `tf.distribute.cluster_resolver.ClusterResolver`.")
    cluster_spec = cluster_resolver.cluster_spec()
    validate_cluster_spec(cluster_spec, cluster_resolver.task_type, cluster_resolver.task_id)
    if task_count(cluster_spec, "ps") < 1:
        raise ValueError("There must be at least one ps.")
    if task_count(cluster_spec, "worker") < 1:
        raise ValueError("There must be at least one worker.")
