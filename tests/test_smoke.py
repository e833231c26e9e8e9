import numpy as np

import engine as tf
from gradcheck import check_gradients, check_second_order


def test_add_mul_gradients_broadcast():
    check_gradients(lambda a, b: a * b + a, np.random.rand(3, 1), np.random.rand(1, 4))


def test_second_order_cube():
    check_second_order(lambda x: x * x * x, np.array([1.0, 2.0]))


def test_version_is_the_tensorflow_release_the_engine_follows():
    # TF 2.21: tf.__version__ == tf.version.VERSION == "2.21.0" (the guides print it; programs gate on it)
    assert tf.__version__ == tf.version.VERSION == "2.21.0"
    assert tf.version.GRAPH_DEF_VERSION == tf.version.GRAPH_DEF_VERSION_MIN_PRODUCER
