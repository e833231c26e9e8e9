"""Conformance with the guide "Introduction to graphs and tf.function" (tensorflow.org/guide/intro_to_graphs)
and the tf.print API page: what tf.print writes. Golden text recorded from TF 2.21."""
import sys

import numpy as np
import pytest

import engine as tf


def _printed(capsys, *args, **kwargs):
    tf.print(*args, output_stream=sys.stdout, **kwargs)
    return capsys.readouterr().out


@pytest.mark.parametrize("make,expected", [
    (lambda: [tf.range(10)], "[0 1 2 ... 7 8 9]\n"),
    (lambda: [tf.constant([[1.5, 2.], [3., 4.]])], "[[1.5 2]\n [3 4]]\n"),
    (lambda: [tf.range(100)], "[0 1 2 ... 97 98 99]\n"),
    (lambda: [tf.reshape(tf.range(24), [2, 3, 4])],
     "[[[0 1 2 3]\n  [4 5 6 7]\n  [8 9 10 11]]\n\n [[12 13 14 15]\n  [16 17 18 19]\n  [20 21 22 23]]]\n"),
    (lambda: [tf.reshape(tf.range(1000), [10, 100])],
     "[[0 1 2 ... 97 98 99]\n [100 101 102 ... 197 198 199]\n [200 201 202 ... 297 298 299]\n ...\n"
     " [700 701 702 ... 797 798 799]\n [800 801 802 ... 897 898 899]\n [900 901 902 ... 997 998 999]]\n"),
    (lambda: [tf.reshape(tf.range(16), [2, 2, 2, 2])],
     "[[[[0 1]\n   [2 3]]\n\n  [[4 5]\n   [6 7]]]\n\n\n [[[8 9]\n   [10 11]]\n\n  [[12 13]\n   [14 15]]]]\n"),
    (lambda: [tf.constant(3.0), tf.constant(True), tf.constant(2.5, tf.float64), 7, 1.5, [1, 2]],
     "3 1 2.5 7 1.5 [1, 2]\n"),
    (lambda: [tf.constant([True, False]), tf.constant(1e-8), tf.constant(123456789.0), tf.constant([0.1, 1e10])],
     "[1 0] 1e-08 123456792 [0.1 1e+10]\n"),
    (lambda: [tf.constant(1.0 / 3), tf.constant([1.0 / 3, 2.0]), tf.constant(-0.0)],
     "0.333333343 [0.333333343 2] -0\n"),
    (lambda: [tf.constant(0.1, tf.float64), tf.constant(1 / 3, tf.float64), tf.constant([1e100, 1e-5], tf.float64),
              tf.constant(100000.0), tf.constant(1234567.0)],
     "0.1 0.33333333333333331 [1e+100 1e-05] 100000 1234567\n"),
    (lambda: [tf.constant(np.nan), tf.constant(-np.nan), tf.constant(np.inf), tf.constant([-np.inf])],
     "nan -nan inf [-inf]\n"),
    (lambda: [tf.constant(np.uint8(200)), tf.constant(np.int64(2 ** 40)), tf.constant(np.float16(1.5)),
              tf.constant(np.float16(0.1)), tf.constant(np.int8(-3))],
     "200 1099511627776 1.5 0.0999755859 -3\n"),
    (lambda: [tf.Variable([1, 2])], "[1 2]\n"),
    (lambda: [tf.zeros([0]), tf.zeros([2, 0]), tf.zeros([0, 2])], "[] [\n ...] []\n"),
    (lambda: [], "\n"),
    (lambda: [[], {}, None, "{}", "{a}"], "[] {} None {} {a}\n"),
])
def test_tensor_text(capsys, make, expected):
    assert _printed(capsys, *make()) == expected


def test_summarize(capsys):
    assert _printed(capsys, tf.range(100), summarize=-1) == "[" + " ".join(str(i) for i in range(100)) + "]\n"
    assert _printed(capsys, tf.range(100), summarize=2) == "[0 1 ... 98 99]\n"
    assert _printed(capsys, tf.constant([[1, 2], [3, 4]]), summarize=1) == "[[1 2]\n [3 4]]\n"
    assert _printed(capsys, tf.constant([[1, 2], [3, 4]]), summarize=0) == "[\n ...]\n"


def test_structures_holding_tensors(capsys):
    tensor = tf.range(10)
    assert _printed(capsys, "tensors:", tensor, {2: tensor * 2}) == \
        "tensors: [0 1 2 ... 7 8 9] {2: [0 2 4 ... 14 16 18]}\n"
    assert _printed(capsys, [tf.constant(1), tf.constant(2)], (tf.constant(3),)) == "[1, 2] (3,)\n"
    assert _printed(capsys, {"a": [tf.constant(1), 2.5, "str"], "b": (tf.constant([1., 2.]),)}) == \
        "{'a': [1, 2.5, 'str'], 'b': ([1 2],)}\n"
    # dict keys print sorted, each tensor next to its own key
    assert _printed(capsys, {"x": tf.constant(1), "double": [tf.constant(2)]}) == "{'double': [2], 'x': 1}\n"
    assert _printed(capsys, {"b": 1, "a": 2}, [{"d": 1, "c": tf.constant([1., 2.5])}]) == \
        "{'a': 2, 'b': 1} [{'c': [1 2.5], 'd': 1}]\n"
    # long structures wrap as pprint.pformat wraps them
    assert _printed(capsys, list(range(40))) == \
        "[" + ",\n ".join(str(i) for i in range(40)) + "]\n"
    assert _printed(capsys, [tf.constant(i) for i in range(30)]) == \
        "[" + ",\n ".join(str(i) for i in range(30)) + "]\n"
    # a string tensor is quoted, except when it is the only input and a scalar
    assert _printed(capsys, tf.constant("lone")) == "lone\n"
    assert _printed(capsys, [tf.constant("in list")], tf.constant(["a"])) == '["in list"] ["a"]\n'
    assert _printed(capsys, "{}", [tf.constant(1)], "{}1") == "{} [1] {}1\n"
    assert _printed(capsys, 1.5, 7, None, True) == "1.5 7 None True\n"


def test_sep_end_and_default_stream(capsys):
    assert _printed(capsys, "a", "b", sep="-", end="!\n") == "a-b!\n"
    assert _printed(capsys, "a\tb", tf.constant(1), sep="") == "a\tb1\n"
    tf.print("to stderr", tf.constant([1, 2]))
    captured = capsys.readouterr()
    assert captured.err == "to stderr [1 2]\n" and captured.out == ""


def test_output_stream_file(tmp_path):
    path = tmp_path / "printed.txt"
    tf.print("x", tf.constant([1, 2]), output_stream=f"file://{path}")
    tf.print("y", output_stream=f"file://{path}")
    assert path.read_text() == "x [1 2]\ny\n"


def test_in_a_function_prints_on_every_call_with_structures(capsys):
    @tf.function
    def f(x):
        print("Tracing!")
        tf.print("Executing", {"x": x, "double": [x * 2]}, output_stream=sys.stdout)
        return x

    f(tf.constant(1))
    f(tf.constant(2))
    assert capsys.readouterr().out == ("Tracing!\nExecuting {'double': [2], 'x': 1}\n"
                                       "Executing {'double': [4], 'x': 2}\n")
