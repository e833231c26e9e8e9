"""Graph-vs-eager cases for ``tf.math.reduce_euclidean_norm``, ``rint``, ``reciprocal_no_nan``, ``log_sigmoid``
and ``tf.nn.softsign`` (``tf.nn.selu``'s case is in ``op_catalog.py``).

Loaded by ``op_catalog.py`` (see its bottom). Only the public ``tf`` API is used, because
``record_tf_static_shapes.py`` runs these cases under real TensorFlow too.
"""
import numpy as np

import engine as tf
from op_catalog import Case

C = Case
_rng = np.random.default_rng(11)       # this file's own values: the shared generator's sequence is left alone


def _normal(*shape):
    return _rng.standard_normal(shape)


CASES = [
    C("Softsign", tf.nn.softsign, _normal(2, 3)),
    C("Rint", tf.math.rint, _normal(2, 3) * 3),
    C("EuclideanNorm", lambda x: tf.math.reduce_euclidean_norm(x, axis=1), _normal(2, 3, 4)),
    C("EuclideanNorm", tf.math.reduce_euclidean_norm, _normal(2, 3, 4), name="all"),
    C("EuclideanNorm", lambda x: tf.math.reduce_euclidean_norm(x, axis=[0, 2], keepdims=True), _normal(2, 3, 4),
      name="keepdims"),
    C("EuclideanNorm", lambda x: tf.math.reduce_euclidean_norm(x, axis=-1),
      _rng.integers(-5, 5, (2, 3)).astype(np.int32), name="int32"),
    C("DivNoNan", tf.math.reciprocal_no_nan, np.array([[0.5, -2.0, 0.0], [1.5, 3.0, -0.25]]),
      name="reciprocal_no_nan"),
    C("Softplus", tf.math.log_sigmoid, _normal(2, 3), name="log_sigmoid"),
]

INDIRECT = {
    "SeluGrad": ("Selu", "grad"),
    "SoftsignGrad": ("Softsign", "grad"),
}
