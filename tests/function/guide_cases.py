"""Cells of the official TensorFlow guides, as functions of ``tf`` (real TF 2.21 or the engine).

Each case is the guide's own code (``tensorflow/docs``, ``site/en/guide/function.ipynb`` unless noted;
the cell number is given), with two changes so that its output can be compared line by line:
``tf.print`` writes to ``sys.stdout`` (the notebook shows both streams), and an expected error is
printed by :func:`show_error` (class and message) instead of by the guide's ``assert_raises``.

``record_guide_goldens.py`` runs every case under real TF (``/tmp/tfvenv``) and stores what it printed
in ``guide_goldens.json``; ``test_guide_fidelity.py`` runs it under the engine and compares.
Not collected by pytest (no ``test_`` prefix). Run one case: ``python guide_cases.py tf|engine NAME``.
"""
import re
import sys

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def normalize(text):
    """Drop what differs between runs: addresses, object ids, function numbers, TF's op tracebacks."""
    text = re.sub(r"\n\n(<tf\.Tensor [^>]*>) was defined here:\n.*?\n\nThe tensor", "\n\nThe tensor", text,
                  flags=re.S)
    text = re.sub(r"0x[0-9A-Fa-f]+", "0x?", text)
    text = re.sub(r"id=\d+", "id=?", text)
    return re.sub(r"(__inference_\w+?)_\d+", r"\1_N", text)


def show_error(fn, contains=None):
    """Run ``fn``; print the class and message of what it raised (or that nothing was raised). With
    ``contains``: the class, and whether the message contains that text (for messages whose framing is
    TF's runtime's own, such as "Graph execution error: Detected at node ...")."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        message = normalize(str(e))
        if contains is not None:
            message = f"message contains {contains!r}: {contains in message}"
        print(f"{type(e).__name__}: {message}")
    else:
        print("no error")


# --------------------------------------------------------------------------------------
# 1. A tf.data iterator passed to a tf.function (cells 89, 91)
# --------------------------------------------------------------------------------------
@case
def iterator_next(tf):
    @tf.function
    def good_consume_next(iterator):
        # This is ok, iterator is a tf.data.Iterator
        tf.print("Value:", next(iterator), output_stream=sys.stdout)

    ds = tf.data.Dataset.from_tensor_slices([1, 2, 3])
    iterator = iter(ds)
    good_consume_next(iterator)
    good_consume_next(iterator)
    good_consume_next(iterator)
    print(good_consume_next.experimental_get_tracing_count())


@case
def iterator_state_and_retracing(tf):
    @tf.function
    def good_consume_next(iterator):
        tf.print("Value:", next(iterator), output_stream=sys.stdout)

    ds = tf.data.Dataset.from_tensor_slices([1, 2, 3])
    it = iter(ds)
    good_consume_next(it)
    good_consume_next(it)
    print("eager next", next(it))                       # the calls advanced the same iterator
    show_error(lambda: good_consume_next(it), contains="End of sequence")   # past the end
    good_consume_next(iter(ds))                          # another iterator of the same spec: no retrace
    print(good_consume_next.experimental_get_tracing_count())
    good_consume_next(iter(tf.data.Dataset.from_tensor_slices([1.0, 2.0])))      # another dtype: retrace
    good_consume_next(iter(tf.data.Dataset.from_tensor_slices([[1.0], [2.0]])))  # another shape: retrace
    print(good_consume_next.experimental_get_tracing_count())


@case
def iterator_structured(tf):
    @tf.function
    def ret(iterator):
        return next(iterator)

    it = iter(tf.data.Dataset.range(3).map(lambda x: (x, {"a": x * 2})))
    print(ret(it))
    print(ret(it))
    concrete = ret.get_concrete_function(it)
    print(concrete.structured_input_signature)
    print([(t.dtype, t.shape) for t in concrete.inputs])
    print(concrete(it))

    @tf.function
    def two(a, b):
        return next(a) + next(b)
    it = iter(tf.data.Dataset.range(10))
    print(two(it, it), two(it, it))


@case
def iterator_buggy(tf):
    @tf.function
    def buggy_consume_next(iterator):
        tf.print("Value:", next(iterator), output_stream=sys.stdout)

    iterator = iter([1, 2, 3])
    buggy_consume_next(iterator)
    # This reuses the first value from the iterator, rather than consuming the next value.
    buggy_consume_next(iterator)
    buggy_consume_next(iterator)


# --------------------------------------------------------------------------------------
# 2. Ops whose kernels run Python on every call (cells 73, 75-79)
# --------------------------------------------------------------------------------------
@case
def py_function_every_call(tf):
    @tf.py_function(Tout=tf.float32)
    def py_plus(x, y):
        print('Executing eagerly.')
        return x + y

    @tf.function
    def tf_wrapper(x, y):
        print('Tracing.')
        return py_plus(x, y)

    print(tf_wrapper(tf.constant(1.0), tf.constant(2.0)).numpy())
    print(tf_wrapper(tf.constant(1.0), tf.constant(2.0)).numpy())


@case
def numpy_function_every_call(tf):
    @tf.numpy_function(Tout=tf.float32)
    def np_plus(x, y):
        print('Executing eagerly.')
        return x + y

    @tf.function
    def tf_wrapper(x, y):
        print('Tracing.')
        return np_plus(x, y)

    print(tf_wrapper(tf.constant(1.0), tf.constant(2.0)))
    print(tf_wrapper(tf.constant(1.0), tf.constant(2.0)))

    def plain(x, y):
        print('plain numpy function.')
        return x * y

    @tf.function
    def w(x, y):
        return tf.numpy_function(plain, [x, y], tf.float32)
    print(w(tf.constant(2.0), tf.constant(3.0)))
    print(w(tf.constant(2.0), tf.constant(3.0)))


@case
def tf_print_every_call(tf):
    @tf.function
    def f(x):
        print("Traced with", x)
        tf.print("Executed with", x, output_stream=sys.stdout)

    f(1)
    f(1)
    f(2)


# --------------------------------------------------------------------------------------
# 3. Strings: `a + a` (cells 19, 21, 41, 42)
# --------------------------------------------------------------------------------------
@case
def double_strings(tf):
    @tf.function
    def double(a):
        print("Tracing with", a)
        return a + a

    print(double(tf.constant(1)))
    print()
    print(double(tf.constant(1.1)))
    print()
    print(double(tf.constant("a")))
    print()
    # This doesn't print 'Tracing with ...'
    print(double(tf.constant("b")))
    print("Obtaining concrete trace")
    double_strings = double.get_concrete_function(tf.constant("a"))
    print("Executing traced function")
    print(double_strings(tf.constant("a")))
    print(double_strings(a=tf.constant("b")))
    # You can also call get_concrete_function on an InputSpec
    double_strings_from_inputspec = double.get_concrete_function(tf.TensorSpec(shape=[], dtype=tf.string))
    print(double_strings_from_inputspec(tf.constant("c")))
    show_error(lambda: double_strings(tf.constant(1)))           # cell 48: InvalidArgumentError


@case
def string_add_eager(tf):
    s = tf.constant("ab")
    print(s + s)
    print(tf.add(s, tf.constant(["x", "y"])))
    print(s + "c")
    print("c" + s)
    print(tf.constant(["a", "b"]) + tf.constant("c"))


# --------------------------------------------------------------------------------------
# 4. Errors: ConcreteFunction binding (cells 50-51), leaked tensors (cells 93-95), Keras inputs
# --------------------------------------------------------------------------------------
@case
def concrete_function_binding(tf):
    @tf.function
    def pow(a, b):  # noqa: A001  (the guide's name)
        return a ** b

    square = pow.get_concrete_function(a=tf.TensorSpec(None, tf.float32), b=2)
    assert square(tf.constant(10.0)) == 100
    print(square(tf.constant(10.0)))
    print(square(tf.constant(10.0), b=2))
    print(square(a=tf.constant(10.0)))
    show_error(lambda: square(tf.constant(10.0), b=3))   # the guide: with assert_raises(TypeError)
    show_error(lambda: square(tf.constant(10.0), 3))
    show_error(lambda: square(tf.constant(10.0), c=1))
    show_error(lambda: square())

    @tf.function
    def double(a):
        return a + a
    double_strings = double.get_concrete_function(tf.constant("a"))
    show_error(lambda: double_strings(b=tf.constant("b")))
    show_error(lambda: double_strings(tf.constant("b"), tf.constant("c")))
    print(double_strings("x"))


@case
def leaked_tensor(tf):
    global x
    x = None

    @tf.function
    def leaky_function(a):
        global x
        x = a + 1  # Bad - leaks local tensor
        return x  # Good - uses local tensor

    correct_a = leaky_function(tf.constant(1))
    print(correct_a.numpy())  # Good - value obtained from function's returns
    try:
        x.numpy()  # Bad - tensor leaked from inside the function, cannot be used here
    except AttributeError:
        print("AttributeError")

    @tf.function
    def captures_leaked_tensor(b):
        b += x  # Bad - `x` is leaked from `leaky_function`
        return b

    show_error(lambda: captures_leaked_tensor(tf.constant(2)))   # the guide: with assert_raises(TypeError)
    show_error(lambda: x + 1)                                      # used eagerly


@case
def keras_layer_python_list(tf):
    # intro_to_modules' FlexibleDense (cell 57), called on a nested Python list (as cell 33 calls a tf.Module)
    class FlexibleDense(tf.keras.layers.Layer):
        def __init__(self, out_features, **kwargs):
            super().__init__(**kwargs)
            self.out_features = out_features

        def build(self, input_shape):
            self.w = tf.Variable(tf.random.normal([input_shape[-1], self.out_features]), name='w')
            self.b = tf.Variable(tf.zeros([self.out_features]), name='b')

        def call(self, inputs):
            return tf.matmul(inputs, self.w) + self.b

    flexible_dense = FlexibleDense(out_features=3)
    show_error(lambda: flexible_dense([[2.0, 2.0, 2.0]]))
    show_error(lambda: tf.keras.layers.Dense(3)([[[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]]))
    print(flexible_dense(tf.constant([[2.0, 2.0, 2.0], [3.0, 3.0, 3.0]])).shape)


def _import(which):
    if which == "tf":
        import os
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf
    else:
        import engine as tf
    return tf


if __name__ == "__main__":
    CASES[sys.argv[2]](_import(sys.argv[1]))
    sys.stdout.flush()
