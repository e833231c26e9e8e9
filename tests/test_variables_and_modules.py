"""tf.Variable and tf.Module semantics (golden values from TensorFlow 2.21)."""
import numpy as np
import pytest

import engine as tf


def test_variable_basics():
    v = tf.Variable([1, 2])
    assert repr(v) == "<tf.Variable 'Variable:0' shape=(2,) dtype=int32, numpy=array([1, 2], dtype=int32)>"
    assert repr(tf.Variable(0.1)) == "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=0.10000000149011612>"
    assert tf.Variable(1.0, name="w").name == "w:0"
    assert tf.Variable(1).trainable is True
    assert tf.Variable(1, dtype=tf.float32).dtype == tf.float32
    assert tf.Variable(1.0).device == "/job:localhost/replica:0/task:0/device:CPU:0"
    assert tf.Variable(lambda: tf.ones([2])).shape == (2,)


def test_variable_requires_initial_value():
    with pytest.raises(ValueError, match="The `initial_value` arg to `tf.Variable` must be specified"):
        tf.Variable(None)


def test_variable_reads_are_snapshots():
    v = tf.Variable([1.0, 2.0])
    before = v.read_value()
    v.assign([5.0, 6.0])
    assert before.numpy().tolist() == [1.0, 2.0]
    assert v.numpy().tolist() == [5.0, 6.0]
    n = v.numpy()
    n[0] = 100.0  # numpy() is a copy: mutating it does not touch the variable
    assert v.numpy()[0] == 5.0


def test_assign_family():
    v = tf.Variable(1.0)
    r = v.assign(2.0)   # TF: an _UnreadVariable, a view of v (not v itself)
    assert isinstance(r, tf.Variable) and r.name == "UnreadVariable" and float(r) == float(v) == 2.0
    v.assign_add(3.0)
    assert float(v) == 5.0
    v.assign_sub(1.5)
    assert float(v) == 3.5
    v.assign(1)  # a Python int is converted to the variable's dtype
    assert float(v) == 1.0 and v.dtype == tf.float32


def test_assign_wrong_shape_names_both_shapes():
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(ValueError, match=r"Shape mismatch.*\(2,\).*\(3,\)"):
        v.assign([1.0, 2.0, 3.0])


def test_assign_wrong_dtype_tensor():
    v = tf.Variable(1.0)
    with pytest.raises(ValueError, match="Tensor conversion requested dtype float32 for Tensor with dtype int32"):
        v.assign(tf.constant(1))


def test_unknown_shape_variable_accepts_any_shape():
    v = tf.Variable([1.0], shape=tf.TensorShape(None))
    v.assign([1.0, 2.0])
    assert v.numpy().tolist() == [1.0, 2.0] and v.shape == tf.TensorShape(None)


def test_variables_take_part_in_operators():
    v = tf.Variable([1.0, 2.0])
    assert (v + 1).numpy().tolist() == [2.0, 3.0]
    assert (2 * v).numpy().tolist() == [2.0, 4.0]
    assert (tf.reshape(v, [1, 2]) @ tf.constant([[1.0], [1.0]])).numpy().tolist() == [[3.0]]
    assert isinstance(v * v, tf.Tensor)
    assert (v == tf.Variable([1.0, 3.0])).numpy().tolist() == [True, False]
    assert float(tf.Variable(2.0) ** 2) == 4.0
    assert bool(tf.Variable(0.0)) is False
    np.testing.assert_array_equal(np.asarray(v), [1.0, 2.0])
    assert tf.convert_to_tensor(v).dtype == tf.float32


def test_variables_are_unhashable():
    v = tf.Variable(1.0)
    with pytest.raises(TypeError, match="Variable is unhashable"):
        hash(v)
    assert {v.ref(): 1}[v.ref()] == 1


class Dense(tf.Module):
    def __init__(self, n_in, n_out, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(tf.ones([n_in, n_out]), name="w")
        self.b = tf.Variable(tf.zeros([n_out]), name="b")

    def __call__(self, x):
        return tf.matmul(x, self.w) + self.b


class MLP(tf.Module):
    def __init__(self):
        super().__init__()
        self.layers = [Dense(3, 4), Dense(4, 2)]
        self.step = tf.Variable(0, trainable=False, name="step")


def test_module_finds_variables_by_walking_attributes():
    m = MLP()
    assert m.name == "mlp"
    assert len(m.variables) == 5
    assert len(m.trainable_variables) == 4
    assert [v.name for v in m.non_trainable_variables] == ["step:0"]
    assert len(m.submodules) == 2
    # attributes are walked in sorted order: b before w within each Dense
    assert [v.name for v in m.layers[0].trainable_variables] == ["b:0", "w:0"]


def test_module_gradient_through_variables():
    m = Dense(3, 1)
    x = tf.ones([2, 3])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(m(x))
    grads = tape.gradient(y, m.trainable_variables)
    assert grads[0].numpy().tolist() == [2.0]  # b
    assert grads[1].numpy().tolist() == [[2.0], [2.0], [2.0]]  # w


def test_module_name_validation():
    with pytest.raises(ValueError, match="not a valid module name"):
        tf.Module(name="bad name!")
    assert tf.Module().name == "module"


def test_module_deduplicates_shared_variables():
    m = tf.Module()
    v = tf.Variable(1.0)
    m.a = v
    m.b = [v, {"k": v}]
    assert len(m.variables) == 1


def _data_pointer(v):
    return v._value.__array_interface__["data"][0]


def test_assign_sub_updates_in_place_only_when_nobody_else_sees_the_buffer():
    v = tf.Variable(np.ones(4, np.float32))
    v.assign_sub(tf.ones(4))          # the buffer is now one the variable owns alone
    owned = _data_pointer(v)
    v.assign_sub(tf.ones(4))
    assert _data_pointer(v) == owned  # updated in place: no new allocation
    snapshot = v.read_value()
    v.assign_add(tf.fill([4], 5.0))
    assert snapshot.numpy().tolist() == [-1.0] * 4  # the snapshot kept its value (copy on write)
    assert v.numpy().tolist() == [4.0] * 4
    assert _data_pointer(v) != owned


def test_tape_values_survive_later_updates():
    v = tf.Variable(np.full(3, 2.0, np.float32))
    v.assign_add(tf.zeros(3))
    with tf.GradientTape(persistent=True) as tape:
        y = tf.reduce_sum(v * v)
    v.assign_sub(tf.ones(3))  # must not change the value the tape saved for Mul's gradient
    assert tape.gradient(y, v).numpy().tolist() == [4.0, 4.0, 4.0]
