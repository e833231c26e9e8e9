"""prefetch: a real producer thread with a bounded queue, clean shutdown, errors delivered in order."""
import gc
import threading
import time

import numpy as np
import pytest

import engine as tf
import engine.data  # noqa: F401
from engine.data.prefetch import THREAD_NAME_PREFIX

R = tf.data.Dataset.range


def producer_threads():
    return [t for t in threading.enumerate() if t.name.startswith(THREAD_NAME_PREFIX)]


def wait_until(condition, timeout=3.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return condition()


@pytest.fixture(autouse=True)
def no_threads_before_or_after():
    assert wait_until(lambda: not producer_threads()), "a previous test leaked a prefetch thread"
    yield
    gc.collect()
    assert wait_until(lambda: not producer_threads()), f"leaked: {producer_threads()}"


def test_values_are_unchanged():
    x = np.arange(20, dtype=np.float32).reshape(10, 2)
    plain = tf.data.Dataset.from_tensor_slices(x).map(lambda r: r * 2).batch(3)
    fetched = plain.prefetch(2)
    for a, b in zip(plain.as_numpy_iterator(), fetched.as_numpy_iterator(), strict=True):
        np.testing.assert_array_equal(a, b)
    assert [int(v) for v in R(7).prefetch(tf.data.AUTOTUNE)] == list(range(7))
    assert repr(fetched.element_spec) == "TensorSpec(shape=(None, 2), dtype=tf.float32, name=None)"


def test_the_thread_starts_on_first_next_and_exits_at_the_end():
    it = iter(R(5).prefetch(2))
    assert producer_threads() == []                  # nothing runs until the first next()
    assert int(next(it)) == 0
    assert len(producer_threads()) == 1
    assert [int(v) for v in it] == [1, 2, 3, 4]
    assert wait_until(lambda: not producer_threads())
    with pytest.raises(StopIteration):
        next(it)


def test_the_producer_works_ahead_but_only_buffer_size_elements():
    v = tf.Variable(0, dtype=tf.int64)

    def produce(x):
        v.assign_add(1)
        return x
    it = iter(R(100).map(produce).prefetch(3))
    next(it)
    # in the background: 1 consumed + 3 queued + 1 waiting in put() = 5 elements made, no more
    assert wait_until(lambda: int(v.numpy()) == 5)
    time.sleep(0.1)
    assert int(v.numpy()) == 5
    next(it)
    assert wait_until(lambda: int(v.numpy()) == 6)
    it.close()
    assert producer_threads() == []                  # close() joins the thread


def test_abandoned_iterators_stop_their_threads():
    it = iter(R(1000).prefetch(2))
    next(it)
    assert len(producer_threads()) == 1
    del it                                             # the producer is blocked on a full queue: it must wake up
    assert wait_until(lambda: not producer_threads())
    for x in R(1000).prefetch(4):                      # breaking out of a for loop drops the iterator
        if int(x) == 3:
            break
    assert wait_until(lambda: not producer_threads())


def test_errors_reach_the_consumer_in_order_and_iteration_continues():
    table = tf.constant([10, 20, 30], tf.int64)
    ds = R(5).map(lambda i: tf.gather(table, i)).prefetch(2)   # indices 3 and 4 are out of range
    it = iter(ds)
    assert [int(next(it)) for _ in range(3)] == [10, 20, 30]
    with pytest.raises(tf.errors.InvalidArgumentError):
        next(it)
    with pytest.raises(tf.errors.InvalidArgumentError):
        next(it)
    with pytest.raises(StopIteration):
        next(it)


def test_error_in_a_batch_then_following_batches():
    parts = [tf.data.Dataset.from_tensors(v) for v in ([1, 2], [1, 2, 3], [4, 5], [6, 7])]
    ds = parts[0].concatenate(parts[1]).concatenate(parts[2]).concatenate(parts[3]).batch(2).prefetch(1)
    it = iter(ds)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot batch tensors with different shapes"):
        next(it)
    assert next(it).numpy().tolist() == [[4, 5], [6, 7]]


def test_an_error_ends_a_for_loop_and_the_thread():
    table = tf.constant([1, 2], tf.int64)
    with pytest.raises(tf.errors.InvalidArgumentError):
        for _ in R(10).map(lambda i: tf.gather(table, i)).prefetch(2):
            pass


def test_nested_and_repeated_prefetch():
    ds = R(4).prefetch(1).map(lambda x: x + 1).prefetch(2).repeat(3)
    assert [int(v) for v in ds] == [1, 2, 3, 4] * 3
    it = iter(R(50).prefetch(1).prefetch(1))
    next(it)
    assert len(producer_threads()) == 2
    it.close()


def test_prefetch_zero_has_no_thread():
    it = iter(R(3).prefetch(0))
    next(it)
    assert producer_threads() == []


class SlowSource(tf.data.Dataset):
    """A source whose every element takes 40 ms to make (a stand-in for reading and decoding files)."""

    _element_spec = tf.TensorSpec([], tf.int64)

    def _cardinality(self):
        return 10

    def _make_iterator(self):
        def produce():
            for i in range(10):
                time.sleep(0.04)
                yield (np.int64(i),)
        return produce()


def test_prefetch_overlaps_production_with_consumption():
    start = time.perf_counter()
    got = []
    for x in SlowSource().prefetch(10):
        time.sleep(0.04)           # the consumer's work (a training step)
        got.append(int(x))
    elapsed = time.perf_counter() - start
    assert got == list(range(10))
    assert elapsed < 0.7           # one after the other would take >= 0.8 s; overlapped, about 0.44 s
