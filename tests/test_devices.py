"""Devices: physical/logical listing, logical splitting and placement.

Splitting devices must happen before the runtime initializes, once per process,
so those tests run in a fresh interpreter.
"""
import subprocess
import sys
import textwrap

import pytest

import engine as tf

CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"


def run_fresh(code):
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_physical_and_logical_devices():
    cpus = tf.config.list_physical_devices("CPU")
    assert cpus[0] == tf.config.PhysicalDevice(name="/physical_device:CPU:0", device_type="CPU")
    assert tf.config.list_logical_devices("CPU")[0].name == "/device:CPU:0"


def test_default_placement_and_soft_placement():
    assert tf.constant(1.0).device == CPU0
    with tf.device("/CPU:0"):
        assert (tf.constant(1.0) + 1).device == CPU0
    if not tf.config.list_physical_devices("GPU"):
        with tf.device("/GPU:0"):  # soft placement: falls back to the CPU
            assert tf.constant(1.0).device == CPU0


def test_malformed_device_string():
    with pytest.raises(ValueError):
        with tf.device("/TPU:0:extra"):
            pass


def test_logical_split_and_placement():
    out = run_fresh("""
        import engine as tf
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(
            cpu, [tf.config.LogicalDeviceConfiguration(), tf.config.LogicalDeviceConfiguration()])
        print([d.name for d in tf.config.list_logical_devices("CPU")])
        a = tf.constant([1.0, 2.0])
        with tf.device("/CPU:1"):
            b = a * 2
            v = tf.Variable(1.0)
        print(a.device)
        print(b.device)
        print(v.device)
        print((b + 1).device)  # follows its input
        print(b.numpy().tolist())
        try:
            tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()])
        except RuntimeError as e:
            print("RuntimeError:", e)
    """).splitlines()
    assert out[0] == "['/device:CPU:0', '/device:CPU:1']"
    assert out[1] == CPU0
    assert out[2] == "/job:localhost/replica:0/task:0/device:CPU:1"
    assert out[3] == "/job:localhost/replica:0/task:0/device:CPU:1"
    assert out[4] == "/job:localhost/replica:0/task:0/device:CPU:1"
    assert out[5] == "[2.0, 4.0]"
    assert out[6] == "RuntimeError: Virtual devices cannot be modified after being initialized"


def test_device_scopes_are_per_thread():
    out = run_fresh("""
        import threading
        import engine as tf
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
        seen = {}
        def worker():
            seen["t"] = tf.constant(1.0).device
        with tf.device("/CPU:1"):
            t = threading.Thread(target=worker); t.start(); t.join()
            print(tf.constant(1.0).device)
        print(seen["t"])
    """).splitlines()
    assert out == ["/job:localhost/replica:0/task:0/device:CPU:1", CPU0]


@pytest.mark.gpu
def test_gpu_tensors_compute_with_cupy():
    import cupy
    with tf.device("/GPU:0"):
        a = tf.constant([1.0, 2.0])
        b = a * a + 1
    assert isinstance(b._value, cupy.ndarray)
    assert b.device.endswith("GPU:0")
    assert b.numpy().tolist() == [2.0, 5.0]
    x = tf.Variable(2.0)
    with tf.device("/GPU:0"):
        with tf.GradientTape() as tape:
            y = x ** 3
    assert float(tape.gradient(y, x)) == 12.0
