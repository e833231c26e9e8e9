"""Pipelines read from files, for FILE/AUTO auto-sharding across workers (``test_file_sharding.py``).

Shared by the engine's workers and by ``record_file_sharding.py``, which records what TF 2.21's workers
get (``data/tf_file_sharding.json``). ``make_files(folder)`` writes the files; each case builds its dataset
from ``tf`` (TF or the engine) and the folder.
"""
import os


def make_files(folder):
    """Text files ``t0.txt``..``t4.txt`` (3 lines each, ``f<i>-l<j>``) and TFRecord files ``r0``..``r2``."""
    for i in range(5):
        with open(os.path.join(folder, f"t{i}.txt"), "w") as f:
            f.write("".join(f"f{i}-l{j}\n" for j in range(3)))
    return folder


def _text(tf, folder, n):
    return [os.path.join(folder, f"t{i}.txt") for i in range(n)]


def _with_policy(dataset, tf, policy):
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = getattr(tf.data.experimental.AutoShardPolicy, policy)
    return dataset.with_options(options)


def cases(tf, folder):
    """``{name: dataset}``: every pipeline under FILE and AUTO (and DATA for comparison)."""
    out = {}
    for policy in ("FILE", "AUTO", "DATA"):
        out[f"text4_{policy}"] = _with_policy(tf.data.TextLineDataset(_text(tf, folder, 4)).batch(2), tf, policy)
        out[f"text3_{policy}"] = _with_policy(tf.data.TextLineDataset(_text(tf, folder, 3)).batch(2), tf, policy)
        out[f"text1_{policy}"] = _with_policy(tf.data.TextLineDataset(_text(tf, folder, 1)).batch(2), tf, policy)
        files = tf.data.Dataset.list_files(os.path.join(folder, "t*.txt"), shuffle=False)
        out[f"listfiles_{policy}"] = _with_policy(
            files.interleave(tf.data.TextLineDataset, cycle_length=2, block_length=1).batch(3), tf, policy)
        out[f"mapped_{policy}"] = _with_policy(
            tf.data.TextLineDataset(_text(tf, folder, 4)).map(tf.strings.upper).batch(4), tf, policy)
    return out


CASE_NAMES = [f"{pipeline}_{policy}" for policy in ("FILE", "AUTO", "DATA")
              for pipeline in ("text4", "text3", "text1", "listfiles", "mapped")]
