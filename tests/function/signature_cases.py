"""Cases for ``test_signatures_and_saving.py``: functions of ``tf`` (real TF 2.21 or the engine).

Each case returns JSON values (strings, numbers, lists) that TF 2.21 and the engine must agree on.
``record_signature_goldens.py`` runs them under real TF (``/tmp/tfvenv``) into ``signature_goldens.json``;
the test runs them under the engine and compares. Not collected by pytest (no ``test_`` prefix).
Covers: ``pretty_printed_concrete_signatures``/``pretty_printed_signature``/``print(concrete)``
(guide/function.ipynb), the values ``Variable.assign*`` return (guide/variable.ipynb),
``tf.saved_model.save`` of a ``tf.custom_gradient`` function, and a ``tf.train.Checkpoint`` of an iterator.
"""
import os
import re
import tempfile

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def normalize(text):
    """Drop what differs between runs: addresses and object ids (captures are listed by id)."""
    text = re.sub(r"0x[0-9A-Fa-f]+", "0x?", text)
    return re.sub(r"(?m)^  \d+: ", "  ID: ", text)


# --- 1. printing signatures (guide/function.ipynb: "Obtaining concrete functions") -------------------
@case
def pretty_printed_concrete_signatures(tf):
    @tf.function
    def double(a):
        return a + a

    before = double.pretty_printed_concrete_signatures()
    double(tf.constant(1))
    double(tf.constant(1.1))
    double(tf.constant("a"))
    return {"before": before, "verbose": double.pretty_printed_concrete_signatures(),
            "short": double.pretty_printed_concrete_signatures(verbose=False)}


@case
def concrete_function_printing(tf):
    @tf.function
    def double(a):
        return a + a

    cf = double.get_concrete_function(tf.TensorSpec(shape=None, dtype=tf.string))
    return {"str": str(cf), "verbose": cf.pretty_printed_signature(),
            "short": cf.pretty_printed_signature(verbose=False), "repr": normalize(repr(cf))}


@case
def signature_with_literals_kwargs_and_captures(tf):
    v = tf.Variable(2.0)

    @tf.function
    def f(x, y=2, *, z=None):
        return {"a": x * v, "b": (x, y)}

    cf = f.get_concrete_function(tf.TensorSpec([None, 3], tf.float32, name="inp"), 3, z=tf.constant(1.0))
    return {"str": normalize(str(cf)), "short": cf.pretty_printed_signature(verbose=False)}


@case
def signature_of_nests_and_none(tf):
    @tf.function
    def g():
        return None

    @tf.function
    def h(xs):
        return xs[0]

    @tf.function(input_signature=[tf.TensorSpec([None], tf.int32), tf.TensorSpec([], tf.bool, name="flag")])
    def k(a, b):
        return a, b

    g()
    h([tf.constant(1), tf.constant(2)])
    k(tf.constant([1, 2]), tf.constant(True))
    return {"g": g.pretty_printed_concrete_signatures(), "h": h.pretty_printed_concrete_signatures(),
            "k": k.pretty_printed_concrete_signatures(),
            "k_short": k.pretty_printed_concrete_signatures(verbose=False)}


@case
def signature_parameter_kinds(tf):
    @tf.function
    def f(*args):
        return args[0]

    class M(tf.Module):
        @tf.function
        def g(self, x, /, y):
            return x + y

    v = tf.Variable(1.0)
    w = tf.Variable(2, trainable=False)

    @tf.function
    def h(var, other, d={"a": 1}):  # noqa: B006  (a dict default is part of the trace key)
        return var + 1.0

    f(tf.constant(1), tf.constant(2.0))
    m = M()
    m.g(tf.constant(1), tf.constant(2))
    h(v, w)
    return {"varargs": f.pretty_printed_concrete_signatures(), "method": m.g.pretty_printed_concrete_signatures(),
            "variables": h.pretty_printed_concrete_signatures()}


# --- 2. what assignments return (guide/variable.ipynb) -----------------------------------------
@case
def assign_returns_unread_variable(tf):
    v = tf.Variable(1.0)
    r = v.assign(2.0)
    out = {"assign": repr(r), "assign_add": repr(v.assign_add(1.0)), "assign_sub": repr(v.assign_sub(0.5)),
           "no_read": repr(v.assign(5.0, read_value=False)), "name": r.name, "later_numpy": float(r.numpy()),
           "plus_one": repr(r + 1), "variable": repr(v), "type": type(v).__name__,
           "isinstance": isinstance(v, tf.Variable), "isinstance_unread": isinstance(r, tf.Variable),
           "Variable_name": tf.Variable.__name__}
    w = tf.Variable([1, 2], name="w")
    out["vector"] = repr(w.assign([3, 4]))
    return out


# --- 4. saving: custom gradients, iterators ------------------------------------------------------
@case
def saved_model_with_custom_gradient(tf):
    @tf.custom_gradient
    def clip_grad(x):
        def grad(dy):
            return tf.clip_by_norm(dy, 0.5)
        return x * 1.0, grad

    class M(tf.Module):
        def __init__(self):
            self.v = tf.Variable(3.0)

        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def f(self, x):
            return clip_grad(x * self.v)

    def value_and_grad(fn):
        x = tf.constant(2.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        return [float(y.numpy()), float(tape.gradient(y, x).numpy())]

    m = M()
    d = tempfile.mkdtemp()
    original = value_and_grad(m.f)
    tf.saved_model.save(m, os.path.join(d, "m"))
    loaded = tf.saved_model.load(os.path.join(d, "m"))
    return {"default_option": tf.saved_model.SaveOptions().experimental_custom_gradients,
            "original": original, "loaded": value_and_grad(loaded.f)}


@case
def checkpoint_of_an_iterator(tf):
    d = tempfile.mkdtemp()
    it = iter(tf.data.Dataset.range(10))
    first = [int(next(it).numpy()) for _ in range(3)]
    ckpt = tf.train.Checkpoint(iterator=it)
    path = ckpt.save(os.path.join(d, "ckpt"))
    after_save = [int(next(it).numpy()) for _ in range(2)]
    ckpt.restore(path)
    after_restore = [int(next(it).numpy()) for _ in range(3)]
    fresh = iter(tf.data.Dataset.range(10))
    tf.train.Checkpoint(iterator=fresh).restore(path)
    batched = iter(tf.data.Dataset.range(10).map(lambda x: x * 2).batch(3))
    b0 = next(batched).numpy().tolist()
    ckpt2 = tf.train.Checkpoint(it=batched)
    path2 = ckpt2.save(os.path.join(d, "ckpt2"))
    b1 = next(batched).numpy().tolist()
    ckpt2.restore(path2)
    return {"first": first, "after_save": after_save, "after_restore": after_restore,
            "fresh_restored": int(next(fresh).numpy()), "batched": [b0, b1, next(batched).numpy().tolist()]}


def run(tf, name):
    return CASES[name](tf)


if __name__ == "__main__":
    import json
    import sys
    if sys.argv[1] == "tf":
        import tensorflow as tf_module
    else:
        import engine as tf_module
    print(json.dumps(run(tf_module, sys.argv[2]), indent=1, default=str))
