"""A SavedModel whose function takes and returns RaggedTensors (guide/ragged_tensor, "Saved models"): the
signature keeps the RaggedTensorSpec, the output is rebuilt from its components. TF 2.21 prints
``<tf.RaggedTensor [[100.0, 400.0, 300.0], [200.0]]>`` for the call below."""
import pytest

import engine as tf


class CustomModule(tf.Module):
    def __init__(self, variable_value):
        super().__init__()
        self.v = tf.Variable(variable_value)

    @tf.function
    def grow(self, x):
        return x * self.v


def test_ragged_signature_saves_and_loads(tmp_path):
    module = CustomModule(100.0)
    module.grow.get_concrete_function(tf.RaggedTensorSpec(shape=[None, None], dtype=tf.float32))
    tf.saved_model.save(module, str(tmp_path / "custom_module"))
    imported = tf.saved_model.load(str(tmp_path / "custom_module"))
    out = imported.grow(tf.ragged.constant([[1.0, 4.0, 3.0], [2.0]]))
    assert isinstance(out, tf.RaggedTensor)
    assert str(out) == "<tf.RaggedTensor [[100.0, 400.0, 300.0], [200.0]]>"
    with pytest.raises(ValueError, match="Could not find matching concrete function"):
        imported.grow(tf.ragged.constant([[1, 2]]))          # int32 values: no matching trace
