"""``tf.train``: object-based checkpoints (``Checkpoint``, ``CheckpointManager``, ``latest_checkpoint``),
``tf.train.Example`` and its parts (the protos of training records, ``engine/io/example.py``),
and the description of a cluster (``ClusterSpec``, defined with the rest of the cluster plumbing in
``engine/distribute/cluster_spec.py``).

TF1's optimizers (``tf.compat.v1.train.GradientDescentOptimizer``...) stay in
``engine/compat/v1/train.py``; this is TF 2's ``tf.train``.
"""
from ..distribute.cluster_spec import ClusterDef, ClusterSpec, JobDef  # noqa: F401
from ..distribute.server_lib import ServerDef  # noqa: F401
from .checkpoint import (Checkpoint, CheckpointLoadStatus, InitializationOnlyStatus,  # noqa: F401
                         list_variables, load_variable)
from ..io.example import BytesList, Example, Feature, Features, FloatList, Int64List  # noqa: F401
from .checkpoint_management import (CheckpointManager, CheckpointState, checkpoint_exists,  # noqa: F401
                                    get_checkpoint_state, latest_checkpoint, update_checkpoint_state)

__all__ = ["Checkpoint", "CheckpointManager", "CheckpointState", "get_checkpoint_state", "latest_checkpoint",
           "list_variables", "load_variable", "update_checkpoint_state", "checkpoint_exists", "ClusterSpec",
           "ClusterDef", "JobDef", "ServerDef", "Example", "Features", "Feature", "BytesList", "FloatList", "Int64List"]
