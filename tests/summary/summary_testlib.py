"""Shared helpers of the tf.summary tests: TF's goldens and reading event files back (a module, not a
conftest: test folders each have a conftest, and only one can be imported under that name)."""
import glob
import json
import os

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))

with open(os.path.join(HERE, "summary_goldens.json")) as _f:
    GOLDEN = json.load(_f)


def event_files(logdir):
    return sorted(glob.glob(os.path.join(logdir, "events.out.tfevents.*")))


def read_events(logdir):
    """The Events (TensorBoard's protos) of the one event file in ``logdir``, read by TensorBoard's loader."""
    loader = pytest.importorskip("tensorboard.backend.event_processing.event_file_loader")
    (path,) = event_files(logdir)
    return list(loader.LegacyEventFileLoader(path).Load())


def values_by_tag(logdir):
    """tag -> [(step, value as a NumPy array)] of the tensor summaries in ``logdir``."""
    tensor_util = pytest.importorskip("tensorboard.util.tensor_util")
    out = {}
    for ev in read_events(logdir):
        for v in ev.summary.value:
            out.setdefault(v.tag, []).append((ev.step, tensor_util.make_ndarray(v.tensor)))
    return out
