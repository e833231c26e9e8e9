"""``tf.train``: object-based checkpoints (``Checkpoint``, ``CheckpointManager``, ``latest_checkpoint``).

TF1's optimizers (``tf.compat.v1.train.GradientDescentOptimizer``...) stay in
``engine/compat/v1/train.py``; this is TF 2's ``tf.train``.
"""
from .checkpoint import (Checkpoint, CheckpointLoadStatus, InitializationOnlyStatus,  # noqa: F401
                         list_variables, load_variable)
from .checkpoint_management import (CheckpointManager, CheckpointState, checkpoint_exists,  # noqa: F401
                                    get_checkpoint_state, latest_checkpoint, update_checkpoint_state)

__all__ = ["Checkpoint", "CheckpointManager", "CheckpointState", "get_checkpoint_state", "latest_checkpoint",
           "list_variables", "load_variable", "update_checkpoint_state", "checkpoint_exists"]
