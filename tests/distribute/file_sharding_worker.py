"""One worker of ``test_file_sharding.py``, started by the launcher: ``file_sharding_worker.py OUT FILES``.

Runs every case of ``file_sharding_cases.py`` (the files are in ``FILES``) through
``MultiWorkerMirroredStrategy.experimental_distribute_dataset`` and writes what this worker got, step by
step, to ``OUT/worker<k>.json``, in the format of ``record_file_sharding.py``.
"""
import json
import os
import sys

import engine as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from file_sharding_cases import CASE_NAMES, cases  # noqa: E402

out_dir, folder = sys.argv[1], sys.argv[2]
strategy = tf.distribute.MultiWorkerMirroredStrategy()
results = {}
datasets = cases(tf, folder)
for name in CASE_NAMES:
    try:
        steps = []
        for batch in strategy.experimental_distribute_dataset(datasets[name]):
            local = strategy.experimental_local_results(batch)
            steps.append([[v.decode() for v in t.numpy().tolist()] for t in local])
        results[name] = steps
    except Exception as e:  # noqa: BLE001  (the outcome is what is compared)
        results[name] = f"{type(e).__name__}: {str(getattr(e, 'message', e)).splitlines()[0]}"
with open(os.path.join(out_dir, f"worker{strategy.extended._task_id}.json"), "w") as f:
    json.dump(results, f)
