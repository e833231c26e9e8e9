"""Conformance with the guide "Introduction to modules, layers, and models" (tensorflow.org/guide/intro_to_modules)
and the tf.Module API page. Golden values recorded from TF 2.21."""
import engine as tf


class Dense(tf.Module):
    def __init__(self, in_features, out_features, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(tf.random.normal([in_features, out_features]), name="w")
        self.b = tf.Variable(tf.zeros([out_features]), name="b")

    def __call__(self, x):
        return tf.nn.relu(tf.matmul(x, self.w) + self.b)


class SequentialModule(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.dense_1 = Dense(in_features=3, out_features=3)
        self.dense_2 = Dense(in_features=3, out_features=2)

    def __call__(self, x):
        return self.dense_2(self.dense_1(x))


def test_name_scope_has_a_name():
    my_model = SequentialModule(name="the_model")
    assert my_model.name == "the_model"
    assert my_model.name_scope.name == "the_model/"
    assert my_model.dense_1.name == "dense"
    assert [m.name for m in my_model.submodules] == ["dense", "dense"]
    # variables created in __init__ are not in the module's scope
    assert [v.name for v in my_model.variables] == ["b:0", "w:0", "b:0", "w:0"]


def test_module_scope_is_fixed_at_construction_inside_outer_scopes():
    with tf.name_scope("outer"):
        mm = tf.Module(name="inner")
    assert mm.name == "inner"
    assert mm.name_scope.name == "outer/inner/"
    with mm.name_scope as scope:
        assert scope == "outer/inner/"
        assert tf.Variable(1.0).name == "outer/inner/Variable:0"


def test_with_name_scope_names_the_variables():
    class MyModule(tf.Module):
        @tf.Module.with_name_scope
        def __call__(self, x):
            if not hasattr(self, "w"):
                self.w = tf.Variable(tf.random.normal([x.shape[1], 3]))
            return tf.matmul(x, self.w)

    mod = MyModule()
    y = mod(tf.ones([1, 2]))
    assert y.shape == (1, 3)
    assert mod.w.name == "my_module/Variable:0"
    named = MyModule(name="m2")
    named(tf.ones([1, 2]))
    assert named.w.name == "m2/Variable:0"


def test_variables_created_in_a_plain_call_are_not_scoped():
    class MultiplyModule(tf.Module):
        def __call__(self, x):
            if not hasattr(self, "w"):
                self.w = tf.Variable(tf.ones([]), name="w")
            return self.w * x

    mod = MultiplyModule(name="mult")
    assert float(mod(1.0)) == 1.0
    assert mod.w.name == "w:0"


def test_variables_created_while_tracing_keep_the_name_scope():
    class Dense(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = None

        @tf.function
        def __call__(self, x):
            if self.w is None:
                with tf.name_scope("inner"):
                    self.w = tf.Variable(tf.ones([2, 2]))
            return tf.matmul(x, self.w)

    d = Dense()
    assert d(tf.ones([1, 2])).numpy().tolist() == [[2.0, 2.0]]
    assert d.w.name == "inner/Variable:0"

    class Scoped(tf.Module):
        @tf.function
        @tf.Module.with_name_scope
        def __call__(self, x):
            if not hasattr(self, "w"):
                self.w = tf.Variable(1.0, name="w")
            return x * self.w

    s = Scoped(name="d2")
    assert float(s(tf.constant(3.0))) == 3.0
    assert s.w.name == "d2/w:0"
