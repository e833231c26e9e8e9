"""Keras 3 as TF 2.21 ships it (``tf.keras``), on the points the guides touch.

The cases are ``keras3_fidelity_cases.py``; ``keras3_fidelity_goldens.json`` holds what real TF 2.21
(Keras 3.15.1) returned, recorded by ``record_keras3_fidelity_goldens.py``
(``/tmp/tfvenv/bin/python tests/keras/record_keras3_fidelity_goldens.py``).
"""
import json
import os
import sys

import numpy as np
import pytest

import engine as tf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import keras3_fidelity_cases  # noqa: E402

with open(os.path.join(HERE, "keras3_fidelity_goldens.json")) as _f:
    GOLDENS = json.load(_f)


def test_goldens_cover_every_case():
    assert GOLDENS["tensorflow"] == "2.21.0"
    assert set(GOLDENS["cases"]) == set(keras3_fidelity_cases.CASES)


@pytest.mark.parametrize("name", sorted(keras3_fidelity_cases.CASES))
def test_case_matches_tf(name):
    got = json.loads(json.dumps(keras3_fidelity_cases.run(tf, name), default=str))
    want = GOLDENS["cases"][name]
    for key in want:
        if isinstance(want[key], list) and want[key] and isinstance(want[key][0], float):
            np.testing.assert_allclose(got[key], want[key], rtol=1e-5, err_msg=f"{name}[{key!r}]")
        else:
            assert got[key] == want[key], f"{name}[{key!r}]:\n{got[key]}\n!=\n{want[key]}"


def test_registration_is_also_in_keras_saving():
    assert tf.keras.saving.register_keras_serializable is tf.keras.utils.register_keras_serializable
    assert tf.keras.saving.get_registered_object is tf.keras.utils.get_registered_object


def test_unknown_class_error_is_type_error_and_value_error():
    with pytest.raises(TypeError, match="Could not locate class 'NoSuchLayer'") as info:
        tf.keras.utils.deserialize_keras_object({"class_name": "NoSuchLayer", "config": {}})
    assert isinstance(info.value, ValueError)   # the engine's earlier class, kept for callers catching it


def test_lambda_with_a_registered_function_round_trips(tmp_path):
    @tf.keras.utils.register_keras_serializable(package="FidelityTest")
    def triple(x):
        return x * 3.0

    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Lambda(triple)])
    model.save(str(tmp_path / "t.keras"))
    loaded = tf.keras.models.load_model(str(tmp_path / "t.keras"))   # no lambda: safe mode loads it
    assert loaded.layers[0].function is triple
    np.testing.assert_allclose(loaded(np.ones((1, 2), "float32")).numpy(), [[3.0, 3.0]])


def test_op_errors_inside_call_keep_their_class():
    class Bad(tf.keras.layers.Layer):
        def call(self, x):
            return tf.reshape(x, [5])

    with pytest.raises(tf.errors.InvalidArgumentError, match=r"(?s)Exception encountered when calling Bad\.call\(\)"
                                                             r".*Arguments received by Bad\.call\(\):\n  • x=tf\.Tensor"
                                                             r"\(shape=\(2, 3\), dtype=float32\)"):
        Bad()(tf.ones((2, 3)))


def test_raw_variable_is_checkpointed_though_not_a_weight(tmp_path):
    class Holder(tf.keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.raw = tf.Variable(5.0)

    layer = Holder()
    assert layer.weights == []
    path = tf.train.Checkpoint(layer=layer).save(str(tmp_path / "c"))
    layer.raw.assign(0.0)
    tf.train.Checkpoint(layer=layer).restore(path)
    assert float(layer.raw.numpy()) == 5.0
