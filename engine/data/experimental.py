"""``tf.data.experimental``: the older spellings of a few ``tf.data`` names."""
from .dataset_ops import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from .extras import choose_from_datasets, sample_from_datasets  # noqa: F401
from .iterator_ops import Optional  # noqa: F401
from .options import AutoShardPolicy  # noqa: F401

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "cardinality", "choose_from_datasets",
           "sample_from_datasets", "Optional", "AutoShardPolicy"]


def cardinality(dataset):
    """``tf.data.experimental.cardinality(ds)``: the same as ``ds.cardinality()``."""
    return dataset.cardinality()
