"""tf.train.Checkpoint / CheckpointManager: round trips into fresh objects; naming and errors as TF 2.21."""
import os

import numpy as np
import pytest

import engine as tf
from engine.framework.errors import InvalidArgumentError, NotFoundError


class Net(tf.Module):
    def __init__(self, w=((1.0, 2.0),)):
        super().__init__()
        self.w = tf.Variable(list(w))
        self.layers = [tf.Variable(1.0), tf.Variable(2.0)]
        self.d = {"a": tf.Variable(5.0)}


def scramble(net):
    net.w.assign(tf.zeros_like(net.w))
    for v in net.layers + [net.d["a"]]:
        v.assign(-1.0)


def test_save_names_files_and_state_like_tf(tmp_path):
    ckpt = tf.train.Checkpoint(model=Net(), v=tf.Variable(3.0))
    prefix = str(tmp_path / "ckpt")
    assert ckpt.save(prefix) == prefix + "-1"
    assert ckpt.save(prefix) == prefix + "-2"
    # TF 2.21 makes exactly these files, and this "checkpoint" file.
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-1.data-00000-of-00001", "ckpt-1.index",
                                            "ckpt-2.data-00000-of-00001", "ckpt-2.index"]
    assert (tmp_path / "checkpoint").read_text() == \
        'model_checkpoint_path: "ckpt-2"\nall_model_checkpoint_paths: "ckpt-2"\n'
    assert tf.train.latest_checkpoint(str(tmp_path)) == prefix + "-2"
    assert int(ckpt.save_counter.numpy()) == 2 and ckpt.save_counter.dtype == tf.int64
    # TF's checkpoint keys (tf.train.list_variables), its _CHECKPOINTABLE_OBJECT_GRAPH entry first.
    assert tf.train.list_variables(prefix + "-2") == [
        ("_CHECKPOINTABLE_OBJECT_GRAPH", []), ("model/d/a/.ATTRIBUTES/VARIABLE_VALUE", []), ("model/layers/0/.ATTRIBUTES/VARIABLE_VALUE", []),
        ("model/layers/1/.ATTRIBUTES/VARIABLE_VALUE", []), ("model/w/.ATTRIBUTES/VARIABLE_VALUE", [1, 2]),
        ("save_counter/.ATTRIBUTES/VARIABLE_VALUE", []), ("v/.ATTRIBUTES/VARIABLE_VALUE", [])]
    assert tf.train.load_variable(str(tmp_path), "model/w/.ATTRIBUTES/VARIABLE_VALUE").tolist() == [[1.0, 2.0]]
    # write(): exactly the given prefix, no counter, no state update
    assert ckpt.write(str(tmp_path / "w")) == str(tmp_path / "w")
    assert int(ckpt.save_counter.numpy()) == 2
    assert tf.train.latest_checkpoint(str(tmp_path)) == prefix + "-2"
    assert tf.train.latest_checkpoint(str(tmp_path / "empty")) is None


def test_round_trip_into_fresh_objects(tmp_path):
    net, v = Net(), tf.Variable(3.0)
    path = tf.train.Checkpoint(model=net, v=v).save(str(tmp_path / "ckpt"))
    net2, v2 = Net(), tf.Variable(0.0)
    scramble(net2)
    ckpt2 = tf.train.Checkpoint(model=net2, v=v2)
    status = ckpt2.restore(path)
    assert status.assert_consumed() is status
    assert status.assert_existing_objects_matched() is status and status.expect_partial() is status
    assert net2.w.numpy().tolist() == [[1.0, 2.0]] and float(v2.numpy()) == 3.0
    assert [float(x.numpy()) for x in net2.layers] == [1.0, 2.0] and float(net2.d["a"].numpy()) == 5.0
    assert int(ckpt2.save_counter.numpy()) == 1        # restored too


def test_attributes_set_after_creation_and_shared_objects(tmp_path):
    shared = tf.Variable([1.0, 2.0])
    ckpt = tf.train.Checkpoint(a=[shared, tf.Variable(4.0)])
    ckpt.b = {"x": shared}                       # a second path to the same variable: saved once
    path = ckpt.write(str(tmp_path / "attr"))
    assert [k for k, _ in tf.train.list_variables(path)] == ["_CHECKPOINTABLE_OBJECT_GRAPH",
                                                              "a/0/.ATTRIBUTES/VARIABLE_VALUE",
                                                              "a/1/.ATTRIBUTES/VARIABLE_VALUE"]
    fresh = tf.Variable([0.0, 0.0])
    other = tf.train.Checkpoint(b={"x": fresh})   # reached through the other path
    other.read(path).assert_existing_objects_matched()
    assert fresh.numpy().tolist() == [1.0, 2.0]


def test_restore_status_assertions(tmp_path):
    path = tf.train.Checkpoint(model=Net(), v=tf.Variable(3.0)).save(str(tmp_path / "ckpt"))
    partial = tf.train.Checkpoint(model=Net()).restore(path)
    with pytest.raises(AssertionError, match=r"Unresolved object in checkpoint \(root\)\.v: "):
        partial.assert_consumed()
    partial.assert_existing_objects_matched()
    extra = tf.train.Checkpoint(model=Net(), v=tf.Variable(1.0), other=tf.Variable(2.0)).restore(path)
    message = (r"Found 1 Python objects that were not bound to checkpointed values, likely due to changes in the "
               r"Python program. Showing 1 of 1 unmatched objects: \[<tf.Variable 'Variable:0' shape=\(\) "
               r"dtype=float32, numpy=2.0>\]")
    with pytest.raises(AssertionError, match=message):
        extra.assert_existing_objects_matched()
    with pytest.raises(AssertionError, match=message):
        extra.assert_consumed()
    with pytest.raises(AssertionError, match="Nothing except the root object matched"):
        tf.train.Checkpoint(w=tf.Variable(2.0)).restore(path).assert_nontrivial_match()
    none = tf.train.Checkpoint(v=tf.Variable(1.0)).restore(None)
    with pytest.raises(AssertionError, match=r"No checkpoint specified \(save_path=None\); nothing is being restored"):
        none.assert_consumed()
    # read() does not create save_counter, so the saved counter stays unresolved (TF 2.21)
    with pytest.raises(AssertionError, match=r"\(root\)\.save_counter"):
        tf.train.Checkpoint(model=Net(), v=tf.Variable(1.0)).read(path).assert_consumed()
    # restore() of a write() made without a counter: the new counter has no value (TF 2.21)
    written = tf.train.Checkpoint(v=tf.Variable(1.0)).write(str(tmp_path / "fresh"))
    with pytest.raises(AssertionError, match="save_counter:0"):
        tf.train.Checkpoint(v=tf.Variable(2.0)).restore(written).assert_consumed()


def test_restore_errors(tmp_path):
    path = tf.train.Checkpoint(model=Net(), v=tf.Variable(3.0)).save(str(tmp_path / "ckpt"))
    with pytest.raises(ValueError, match=r"Received incompatible tensor with shape \(1, 2\) when attempting to "
                                         r"restore variable with shape \(1, 3\) and name Variable:0\."):
        tf.train.Checkpoint(model=Net(w=((1.0, 2.0, 3.0),))).restore(path)
    with pytest.raises(InvalidArgumentError, match="tensor_name = v/.ATTRIBUTES/VARIABLE_VALUE; expected dtype "
                                                   "int32 does not equal original dtype float"):
        tf.train.Checkpoint(v=tf.Variable(1, dtype=tf.int32)).restore(path)
    with pytest.raises(NotFoundError, match=r"Failed to find any matching files for .*nope-3\nPlease double-check "
                                            r"that the path is correct. You may be missing the checkpoint suffix"):
        tf.train.Checkpoint(v=tf.Variable(1.0)).restore(str(tmp_path / "nope-3"))
    with pytest.raises(ValueError, match="`Checkpoint` was expecting root to be a trackable object"):
        tf.train.Checkpoint(5)
    with pytest.raises(ValueError, match="`Checkpoint` was expecting a to be a trackable object"):
        tf.train.Checkpoint(a=5)
    with pytest.raises(AttributeError, match="save_counter"):
        tf.train.Checkpoint(save_counter=tf.Variable(1))
    (tmp_path / "bad.index").write_text("not json")
    (tmp_path / "bad.data-00000-of-00001").write_bytes(b"")
    with pytest.raises(InvalidArgumentError, match="not an engine checkpoint"):
        tf.train.Checkpoint(v=tf.Variable(1.0)).restore(str(tmp_path / "bad"))


def test_checkpoint_manager(tmp_path):
    ckpt = tf.train.Checkpoint(model=Net(), v=tf.Variable(3.0))
    ckpt.save(str(tmp_path / "first"))                  # save_counter = 1, as in the TF recording
    directory = str(tmp_path / "mgr")
    manager = tf.train.CheckpointManager(ckpt, directory, max_to_keep=2)
    assert manager.latest_checkpoint is None and manager.checkpoints == [] and manager.directory == directory
    saved = [manager.save() for _ in range(3)]
    assert saved == [os.path.join(directory, f"ckpt-{n}") for n in (2, 3, 4)]
    assert manager.checkpoints == saved[1:] and manager.latest_checkpoint == saved[-1]
    assert sorted(os.listdir(directory)) == ["checkpoint", "ckpt-3.data-00000-of-00001", "ckpt-3.index",
                                             "ckpt-4.data-00000-of-00001", "ckpt-4.index"]
    lines = (tmp_path / "mgr" / "checkpoint").read_text().splitlines()
    assert lines[:3] == ['model_checkpoint_path: "ckpt-4"', 'all_model_checkpoint_paths: "ckpt-3"',
                         'all_model_checkpoint_paths: "ckpt-4"']
    assert [line.split(":")[0] for line in lines[3:]] == ["all_model_checkpoint_timestamps"] * 2 + \
        ["last_preserved_timestamp"]
    assert manager.save(checkpoint_number=10) == os.path.join(directory, "ckpt-10")
    # a new manager on the same directory finds them again and restores the latest
    net2, v2 = Net(), tf.Variable(0.0)
    scramble(net2)
    again = tf.train.CheckpointManager(tf.train.Checkpoint(model=net2, v=v2), directory, max_to_keep=2)
    assert again.checkpoints == [os.path.join(directory, "ckpt-4"), os.path.join(directory, "ckpt-10")]
    assert again.restore_or_initialize() == os.path.join(directory, "ckpt-10")
    assert float(v2.numpy()) == 3.0 and net2.w.numpy().tolist() == [[1.0, 2.0]]
    assert tf.train.latest_checkpoint(directory) == os.path.join(directory, "ckpt-10")
    with pytest.raises(ValueError, match="Expected a positive integer or `None` for `max_to_keep`, got 0."):
        tf.train.CheckpointManager(ckpt, directory, max_to_keep=0)
    called = []
    empty = tf.train.CheckpointManager(ckpt, str(tmp_path / "none"), max_to_keep=None, checkpoint_name="model",
                                       init_fn=lambda: called.append(1))
    assert empty.restore_or_initialize() is None and called == [1]


def _train_step(model, optimizer, x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(x) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))


def _make():
    return tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)]), tf.keras.optimizers.Adam(0.1)


def test_keras_model_and_optimizer_with_deferred_slot_restoration(tmp_path):
    x = tf.ones((4, 3))
    model, opt = _make()
    _train_step(model, opt, x)
    path = tf.train.Checkpoint(model=model, optimizer=opt).save(str(tmp_path / "k"))
    model2, opt2 = _make()
    status = tf.train.Checkpoint(model=model2, optimizer=opt2).restore(path)
    assert int(opt2.iterations.numpy()) == 1                      # restored at once
    for a, b in zip(model.variables, model2.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    with pytest.raises(AssertionError, match=r"Unresolved object in checkpoint \(root\)\.optimizer\."):
        status.assert_consumed()                                  # the slots do not exist yet (as TF)
    status.assert_existing_objects_matched()
    _train_step(model, opt, x)
    _train_step(model2, opt2, x)                                  # builds opt2: its slots get the saved values
    status.assert_consumed()
    for a, b in zip(model.variables + opt.variables, model2.variables + opt2.variables):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
    assert int(opt2.iterations.numpy()) == 2
    assert "build" not in vars(opt2)                              # the deferred hook removed itself


def test_optimizer_restored_after_its_slots_exist(tmp_path):
    x = tf.ones((4, 3))
    model, opt = _make()
    _train_step(model, opt, x)
    path = tf.train.Checkpoint(model=model, optimizer=opt).save(str(tmp_path / "k"))
    model2, opt2 = _make()
    _train_step(model2, opt2, tf.zeros((4, 3)))                   # slots exist, with other values
    tf.train.Checkpoint(model=model2, optimizer=opt2).restore(path).assert_consumed()
    for a, b in zip(model.variables + opt.variables, model2.variables + opt2.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_subclassed_keras_model_built_after_restore(tmp_path):
    class Small(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(2)

        def call(self, inputs):
            return self.dense(inputs)

    x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    model = Small()
    expected = model(x).numpy()
    path = tf.train.Checkpoint(model=model).write(str(tmp_path / "sub"))
    fresh = Small()
    status = tf.train.Checkpoint(model=fresh).read(path)
    np.testing.assert_allclose(fresh(x).numpy(), expected, rtol=1e-6)     # weights restored when built
    status.assert_consumed()
