"""``tf.sparse``: ops on ``tf.SparseTensor`` (COO: ``indices``, ``values``, ``dense_shape``).

The class is in ``engine/framework/sparse_tensor.py``, the ops in ``engine/ops/sparse_ops.py``.
"""
from .framework.sparse_tensor import SparseTensor, SparseTensorSpec  # noqa: F401
from .ops.sparse_ops import (add, concat, from_dense, map_values, reduce_max, reduce_sum, reorder,  # noqa: F401,A004
                              slice, sparse_dense_matmul, to_dense, transpose)
