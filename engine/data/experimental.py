"""``tf.data.experimental``: the older spellings of a few ``tf.data`` names."""
from .dataset_ops import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "cardinality"]


def cardinality(dataset):
    """``tf.data.experimental.cardinality(ds)``: the same as ``ds.cardinality()``."""
    return dataset.cardinality()
