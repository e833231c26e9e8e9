"""``tf.data``: input pipelines.

A pipeline is a graph of dataset objects, built lazily and pulled by an iterator::

    ds = (tf.data.Dataset.from_tensor_slices((x, y))   # a source: one element per row
          .shuffle(1000, seed=0)                        # transformations: each wraps the previous dataset
          .map(preprocess, num_parallel_calls=tf.data.AUTOTUNE)
          .batch(32)
          .prefetch(tf.data.AUTOTUNE))                  # a background thread produces batches ahead
    for xb, yb in ds:                                   # iter(ds): a fresh pass; next(): pull one batch
        train_step(xb, yb)

Read in this order: ``dataset_ops.py`` (the model and the public methods),
``structure.py`` (how elements are described and stored), ``sources.py``,
``functions.py`` (``map`` traces its function once), ``transforms.py``,
``padding.py`` (``padded_batch``), ``nested.py`` (``interleave``,
``group_by_window``, ``bucket_by_sequence_length``: functions returning datasets),
``prefetch.py`` (the thread), ``readers.py`` (``TextLineDataset``, ``TFRecordDataset``,
``CsvDataset``, ``list_files``, ``make_csv_dataset``), ``iterator_ops.py``, and ``graph_ops.py``
(datasets inside ``tf.function``: ``reduce``, AutoGraph's ``for`` loops,
``iter``/``next`` in graphs).

The modules import downward only: ``structure``, ``functions``,
``iterator_ops``, ``graph_ops`` and ``options`` know nothing of ``Dataset``;
``dataset_ops`` defines it on top of them; the node modules (``sources``,
``transforms``, ``padding``, ``nested``, ``prefetch``, ``extras``) subclass it
and register, with ``dataset_ops.implements``, the node each method builds.
Importing them here is what fills that table.
"""
from .dataset_ops import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset  # noqa: F401
from . import sources, transforms, padding, nested, prefetch, extras  # noqa: F401  (register Dataset's nodes)
from . import readers  # noqa: F401  (registers list_files)
from .readers import FixedLengthRecordDataset, TextLineDataset, TFRecordDataset  # noqa: F401
from . import experimental  # noqa: F401
from .iterator_ops import IteratorSpec, NumpyIterator, Optional, OwnedIterator  # noqa: F401
from .extras import DatasetSpec  # noqa: F401
from .options import Options  # noqa: F401
from . import graph_ops as _graph_ops  # noqa: F401  (registers ReduceDataset, AnonymousIteratorV3, IteratorGetNext)

Iterator = OwnedIterator

__all__ = ["Dataset", "AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "experimental", "Iterator", "Options",
           "DatasetSpec", "IteratorSpec", "TextLineDataset", "TFRecordDataset",
           "FixedLengthRecordDataset"]
