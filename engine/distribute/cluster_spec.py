"""``tf.train.ClusterSpec``: the processes of a distributed job, by job name and task index.

A distributed TensorFlow job is a set of processes, the **tasks**, grouped in
named **jobs**: ``"worker"`` tasks compute, ``"ps"`` (parameter server) tasks
hold variables, a ``"chief"`` coordinates. Every task is one process with one
network address (``host:port``), where its gRPC server listens
(``server_lib.py``). A ``ClusterSpec`` is that table::

    cluster = tf.train.ClusterSpec({"worker": ["localhost:2222", "localhost:2223"],
                                    "ps": ["localhost:2224"]})
    cluster.jobs                          # ['worker', 'ps']
    cluster.num_tasks("worker")           # 2
    cluster.task_address("worker", 1)     # 'localhost:2223'

A task is named by its job and index, ``/job:worker/replica:0/task:1``, which is
also the prefix of its devices' names (``/job:worker/replica:0/task:1/device:CPU:0``).

A job may also be a *sparse* mapping ``{task index: address}``: a process can be
configured knowing only some of its peers (``{"worker": {1: "host:2222"}}``).
``as_dict`` gives a job back as a list when its indices are dense (0..n-1), else
as that dict.

Every process of a job gets the same cluster (usually through the ``TF_CONFIG``
environment variable, read by ``cluster_resolver.TFConfigClusterResolver``) and
its own ``(job_name, task_index)``.

TF keeps the table also as a ``tf.train.ClusterDef`` protocol buffer
(``as_cluster_def()``, jobs sorted by name). The engine has no protocol buffers:
:class:`ClusterDef` and :class:`JobDef` are plain classes with the same fields
and the same text format when printed.

Behaviour recorded from TF 2.21 (``tests/distribute/test_cluster_spec.py``):
unknown jobs and task indices raise ``ValueError`` (``No such job in cluster:
'chief'``, ``No task with index 5 in job 'worker'``); a cluster that is not a
dict, ``ClusterDef`` or ``ClusterSpec``, or a job whose tasks are not a list or
a dict, raises ``TypeError``; ``==`` compares the table (also with a plain dict
of ``{index: address}`` dicts); a ``ClusterSpec`` is unhashable and is false
when it has no jobs.
"""

__all__ = ["ClusterSpec", "ClusterDef", "JobDef"]


class JobDef:
    """One job of a :class:`ClusterDef`: its ``name`` and ``tasks`` (``{task index: address}``)."""

    def __init__(self, name="", tasks=None):
        self.name = name
        self.tasks = dict(tasks or {})

    def __eq__(self, other):
        return isinstance(other, JobDef) and (self.name, self.tasks) == (other.name, other.tasks)

    def __repr__(self):
        return f"JobDef(name={self.name!r}, tasks={self.tasks!r})"


class ClusterDef:
    """The engine's stand-in for the ``tf.train.ClusterDef`` protocol buffer: a list of :class:`JobDef` (``job``).

    ``str()`` prints the protocol buffer's text format, as TF does.
    """

    def __init__(self, job=None):
        self.job = list(job or [])

    def __eq__(self, other):
        return isinstance(other, ClusterDef) and self.job == other.job

    def __str__(self):
        lines = []
        for job in self.job:
            lines += ["job {", f'  name: "{_text(job.name)}"']
            for index, address in sorted(job.tasks.items()):
                lines += ["  tasks {", f"    key: {index}", f'    value: "{_text(address)}"', "  }"]
            lines.append("}")
        return "\n".join(lines) + ("\n" if lines else "")

    def __repr__(self):
        return f"ClusterDef(job={self.job!r})"


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


def _as_bytes(value, what):
    """TF's ``compat.as_bytes`` check: names and addresses must be ``str`` or ``bytes``."""
    if not isinstance(value, (str, bytes, bytearray)):
        raise TypeError(f"{what} {value!r} must be bytes or unicode")


class ClusterSpec:
    """A cluster as a set of tasks, organized into jobs: ``{job name: [address, ...]}``.

    ``cluster``: a dict mapping each job name to a list of ``host:port``
    addresses (task i is the i-th) or to a dict ``{task index: address}``; or a
    :class:`ClusterDef`; or another ``ClusterSpec`` (copied).
    """

    def __init__(self, cluster):
        if isinstance(cluster, dict):
            self._cluster_spec = {}
            for job_name, tasks in cluster.items():
                if isinstance(tasks, (list, tuple)):
                    job_tasks = {i: task for i, task in enumerate(tasks)}
                elif isinstance(tasks, dict):
                    job_tasks = {int(i): task for i, task in tasks.items()}
                else:
                    raise TypeError(f"The tasks for job {job_name!r} must be a list or a dictionary from integers "
                                    f"to strings.")
                self._cluster_spec[job_name] = job_tasks
            self._cluster_def = self._make_cluster_def()
        elif isinstance(cluster, (ClusterDef, ClusterSpec)):
            # TF copies a ClusterSpec through its ClusterDef: the jobs come back sorted by name
            cluster_def = cluster if isinstance(cluster, ClusterDef) else cluster.as_cluster_def()
            self._cluster_def = ClusterDef([JobDef(j.name, j.tasks) for j in cluster_def.job])
            self._cluster_spec = {job.name: dict(job.tasks) for job in self._cluster_def.job}
        else:
            raise TypeError("`cluster` must be a dictionary mapping one or more job names to lists of network "
                            "addresses, or a `ClusterDef` protocol buffer")

    def _make_cluster_def(self):
        """The table as a :class:`ClusterDef`, jobs sorted by name (TF: "to produce deterministic protobufs")."""
        jobs = []
        for job_name, tasks in sorted(self._cluster_spec.items()):
            _as_bytes(job_name, "Job name")
            for address in (a for _, a in sorted(tasks.items())):
                _as_bytes(address, "Task address")
            jobs.append(JobDef(job_name, dict(sorted(tasks.items()))))
        return ClusterDef(jobs)

    # --- comparisons, as TF: the table against `other` ---------------------------------------
    def __bool__(self):
        return bool(self._cluster_spec)

    def __eq__(self, other):
        return self._cluster_spec == other   # another ClusterSpec answers with its own table (reflected ==)

    def __ne__(self, other):
        return self._cluster_spec != other

    __hash__ = None   # mutable-looking and compared by value: unhashable, as TF's

    def __repr__(self):
        key_values = self.as_dict()
        return "ClusterSpec({" + ", ".join(f"{k!r}: {key_values[k]!r}" for k in sorted(key_values)) + "})"

    # --- the table ------------------------------------------------------------------------------
    def as_dict(self):
        """``{job: [addresses]}``; a job whose task indices are not 0..n-1 stays a dict ``{index: address}``."""
        out = {}
        for job in self.jobs:
            indices = self.task_indices(job)
            if not indices:
                out[job] = {}
            elif max(indices) + 1 == len(indices):
                out[job] = self.job_tasks(job)
            else:
                out[job] = {i: self.task_address(job, i) for i in indices}
        return out

    def as_cluster_def(self):
        """The table as a :class:`ClusterDef` (TF: the ``tf.train.ClusterDef`` protocol buffer)."""
        return self._cluster_def

    @property
    def jobs(self):
        """The job names, in the order they were given."""
        return list(self._cluster_spec.keys())

    def _job(self, job_name):
        try:
            return self._cluster_spec[job_name]
        except KeyError:
            raise ValueError(f"No such job in cluster: {job_name!r}") from None

    def num_tasks(self, job_name):
        """How many tasks ``job_name`` has; ``ValueError`` if there is no such job."""
        return len(self._job(job_name))

    def task_indices(self, job_name):
        """The task indices of ``job_name``, sorted."""
        return sorted(self._job(job_name).keys())

    def task_address(self, job_name, task_index):
        """The address of task ``task_index`` of ``job_name``; ``ValueError`` if there is no such task."""
        job = self._job(job_name)
        try:
            return job[task_index]
        except KeyError:
            raise ValueError(f"No task with index {task_index!r} in job {job_name!r}") from None

    def job_tasks(self, job_name):
        """The addresses of ``job_name`` as a list indexed by task index (``None`` where a sparse job has a gap)."""
        job = self._job(job_name)
        out = [None] * (max(job.keys()) + 1)
        for i, address in job.items():
            out[i] = address
        return out
