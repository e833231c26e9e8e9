"""``tf.data.experimental``: the older spellings of a few ``tf.data`` names."""
import numpy as np

from ..framework import dtypes
from ..ops import math_ops
from .dataset_ops import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset, _renamed
from .extras import choose_from_datasets, sample_from_datasets  # noqa: F401
from .iterator_ops import Optional  # noqa: F401
from .options import AutoShardPolicy  # noqa: F401
from .readers import CsvDataset, make_csv_dataset  # noqa: F401

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "cardinality", "choose_from_datasets",
           "sample_from_datasets", "Optional", "AutoShardPolicy", "CsvDataset", "make_csv_dataset",
           "dense_to_ragged_batch", "Counter"]


def dense_to_ragged_batch(batch_size, drop_remainder=False, row_splits_dtype=dtypes.int64):
    """``dataset.apply(dense_to_ragged_batch(n))``: the same as ``dataset.ragged_batch(n)``."""
    return lambda dataset: dataset.ragged_batch(batch_size, drop_remainder, row_splits_dtype)


def cardinality(dataset):
    """``tf.data.experimental.cardinality(ds)``: the same as ``ds.cardinality()``."""
    return dataset.cardinality()


def Counter(start=0, step=1, dtype=dtypes.int64):  # noqa: N802  (TF's name)
    """``tf.data.experimental.Counter(start=0, step=1, dtype=tf.int64)``: ``start, start + step, ...`` forever.

    Built as ``Dataset.range(start, max int64, step)``, cast to ``dtype`` when it is not int64 (TF
    builds it with ``scan``, so its ``repr`` says ``_ScanDataset``, as here).
    """
    dtype = dtypes.as_dtype(dtype)
    dataset = Dataset.range(start, np.iinfo(np.int64).max, step)
    dataset = dataset if dtype == dtypes.int64 else dataset.map(lambda x: math_ops.cast(x, dtype))
    return _renamed(dataset, "_ScanDataset")
