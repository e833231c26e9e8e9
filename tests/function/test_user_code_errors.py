"""Errors raised while a converted function is traced say where, in the user's code, as TF 2.21's do.

TF re-raises them, of the same class, as "in user code:" with the user's frames (``*``: converted),
then the original class and message. The expected texts below are TF 2.21's for the same programs
(recorded in a scratch venv), with this file's paths and lines.
"""
import inspect

import pytest

import engine as tf

HERE = __file__


def _line(function, statement):
    lines, first = inspect.getsourcelines(function)
    return first + next(i for i, line in enumerate(lines) if line.strip() == statement)


def _frame(function, statement, name=None, shown=None):
    return (f'    File "{HERE}", line {_line(function, statement)}, in {name or function.__name__}  *\n'
            f'        {shown or statement}\n')


def _text(frames, error):
    return "in user code:\n\n" + "".join(frames) + f"\n    {error}\n"


def _raised(call):
    with pytest.raises(Exception) as info:
        call()
    return info.value


def add_float(x):
    return x + tf.constant(1.0)


def helper(x):
    return tf.matmul(x, x)


def calls_helper(x):
    y = x * 2
    return helper(y)


def raises(x):
    raise ValueError("bad value")


def missing_key(x):
    d = {}
    return d["missing"]


@tf.function
def inner(x):
    return tf.reshape(x, [3])


def outer(x):
    return inner(x) + 1


def test_the_error_names_the_users_line_and_keeps_its_class():
    error = _raised(lambda: tf.function(add_float)(tf.constant(1)))
    assert type(error) is TypeError
    assert str(error) == _text([_frame(add_float, "return x + tf.constant(1.0)")],
                               "TypeError: Input 'y' of 'AddV2' Op has type float32 that does not match type int32 of "
                               "argument 'x'.")


def test_every_converted_function_on_the_way_is_listed_outermost_first():
    error = _raised(lambda: tf.function(calls_helper)(tf.constant([1.0, 2.0])))
    assert type(error) is ValueError
    assert str(error).startswith(_text([_frame(calls_helper, "return helper(y)"),
                                        _frame(helper, "return tf.matmul(x, x)")], "")[:-2])
    assert "ValueError: Shape must be rank 2 but is rank 1" in str(error)
    nested = _raised(lambda: tf.function(outer)(tf.constant([1.0, 2.0])))   # a tf.function inside another
    assert str(nested).startswith(_text([_frame(outer, "return inner(x) + 1"),
                                         _frame(inner.python_function, "return tf.reshape(x, [3])")], "")[:-2])
    assert str(nested).count("in user code:") == 1


def test_the_users_own_raise_a_key_error_and_a_lambda():
    assert str(_raised(lambda: tf.function(raises)(tf.constant(1)))) == _text(
        [_frame(raises, 'raise ValueError("bad value")')], "ValueError: bad value")
    key_error = _raised(lambda: tf.function(missing_key)(tf.constant(1)))
    assert type(key_error).__name__ == "KeyError" and isinstance(key_error, KeyError)
    assert str(key_error) == _text([_frame(missing_key, 'return d["missing"]')], "KeyError: 'missing'")
    f = tf.function(lambda x: x + "a")
    error = _raised(lambda: f(tf.constant(1)))
    line = inspect.currentframe().f_lineno - 2
    assert str(error) == ("in user code:\n\n" f'    File "{HERE}", line {line}, in None  *\n'
                          '        lambda x: x + "a"\n\n'
                          "    TypeError: Input 'y' of 'AddV2' Op has type string that does not match type int32 "
                          "of argument 'x'.\n")                                     # TF names a lambda None


def test_without_autograph_the_error_is_as_raised():
    error = _raised(lambda: tf.function(add_float, autograph=False)(tf.constant(1)))
    assert str(error) == "Input 'y' of 'AddV2' Op has type float32 that does not match type int32 of argument 'x'."


def sums_a_dataset(ds):
    s = tf.constant(0)
    for x in ds:
        s += tf.constant(1.0)
    return s


def branches(x):
    if x > 0:
        return x + tf.constant(1.0)
    return x


def test_a_loop_body_or_a_branch_is_its_functions_frame():
    error = _raised(lambda: tf.function(sums_a_dataset)(tf.data.Dataset.range(2)))
    assert str(error) == _text([_frame(sums_a_dataset, "s += tf.constant(1.0)")],     # TF: exactly this
                               "TypeError: Input 'y' of 'AddV2' Op has type float32 that does not match type int32 "
                               "of argument 'x'.")
    # (TF lists the ``if`` line and then its generated file's ``raise``; the engine, the branch's statement)
    error = _raised(lambda: tf.function(branches)(tf.constant(1)))
    assert str(error).startswith(_text([_frame(branches, "return x + tf.constant(1.0)")], "")[:-6])


def test_a_function_called_as_it_is_is_marked_with_two_stars():
    call = eval("lambda: tf.debugging.assert_equal(tf.constant([1, 2, 3]), tf.constant([1, 5, 3]))",  # noqa: S307
                {"tf": tf})
    traced = tf.function(lambda: (call(), None)[1])
    error = _raised(traced)
    line = inspect.currentframe().f_lineno - 2
    assert error.message == ("in user code:\n\n" f'    File "{HERE}", line {line}, in None  *\n'
                             "        lambda: (call(), None)[1]\n"
                             '    File "<string>", line 1, in <lambda>  **\n        \n\n'
                             "    InvalidArgumentError: Condition x == y did not hold element-wise:\n"
                             "    x (Const:0) = \n    [1 2 3]\n    y (Const_1:0) = \n    [1 5 3]\n")   # TF: exactly this
    assert isinstance(error, tf.errors.InvalidArgumentError)
