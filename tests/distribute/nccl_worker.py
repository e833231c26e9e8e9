"""One GPU worker of ``test_collective_nccl.py``: MWMS with ``implementation=NCCL``, each worker on its own GPU.

On one machine each worker must see a different GPU (NCCL cannot put two ranks on one GPU), so the
script sets ``CUDA_VISIBLE_DEVICES`` from its task index before the engine starts, as one does for TF.
"""
import json
import os
import sys

os.environ["CUDA_VISIBLE_DEVICES"] = str(json.loads(os.environ["TF_CONFIG"])["task"]["index"])

import numpy as np  # noqa: E402

import engine as tf  # noqa: E402

options = tf.distribute.experimental.CommunicationOptions(implementation="NCCL")
strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=options)
rank = strategy.extended._task_id
value = tf.constant(np.arange(1000, dtype=np.float32) * (rank + 1))
total = strategy.run(lambda: tf.distribute.get_replica_context().all_reduce("SUM", value))
cross_ops = strategy.extended._cross_device_ops
with open(os.path.join(sys.argv[1], f"worker{rank}.json"), "w") as f:
    json.dump({"sum": np.asarray(strategy.experimental_local_results(total)[0].numpy()).tolist(),
               "nccl": cross_ops._nccl is not None}, f)
