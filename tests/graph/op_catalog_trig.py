"""Graph-vs-eager cases for the trigonometric and hyperbolic ops of ``engine/ops/trig_ops.py``.

Loaded by ``op_catalog.py`` (see its bottom). Only the public ``tf`` API is used, because
``record_tf_static_shapes.py`` runs these cases under real TensorFlow too.
"""
import numpy as np

import engine as tf
from op_catalog import Case, normal

C = Case
_rng = np.random.default_rng(7)       # this file's own values: the shared generator's sequence is left alone
_unit = _rng.uniform(-0.9, 0.9, (2, 3))    # inside (-1, 1): asin, acos, atanh
_above_one = _rng.uniform(1.2, 3.0, (2, 3))  # acosh

CASES = [
    C("Tan", tf.math.tan, _unit),
    C("Asin", tf.math.asin, _unit),
    C("Acos", tf.math.acos, _unit),
    C("Atan", tf.math.atan, normal(2, 3)),
    C("Atan2", tf.math.atan2, normal(2, 3), normal(3)),
    C("Sinh", tf.math.sinh, normal(2, 3)),
    C("Cosh", tf.math.cosh, normal(2, 3)),
    C("Asinh", tf.math.asinh, normal(2, 3)),
    C("Acosh", tf.math.acosh, _above_one),
    C("Atanh", tf.math.atanh, _unit),
    C("Expm1", tf.math.expm1, normal(2, 3)),
]
