"""What a traced function captures from outside, listed as TF 2.21 lists it.

Recorded from TF 2.21 with the same program: two captures (the variable and the constant, each
once however often used), ``captured_inputs`` / ``external_captures`` the outer values,
``internal_captures`` graph tensors of dtypes resource and float32. (The engine lists a captured
variable as the variable itself, its handle; TF as the variable's resource handle tensor.)
"""
import engine as tf


def test_captures_are_listed_once_each_in_the_order_used():
    v = tf.Variable(2.0, name="weight")
    c = tf.constant([1.0, 2.0])

    @tf.function
    def f(x):
        return x * v + c + c * v
    concrete = f.get_concrete_function(tf.constant(1.0))
    graph = concrete.graph
    assert (len(concrete.captured_inputs), len(graph.captures), len(graph.external_captures),
            len(graph.internal_captures)) == (2, 2, 2, 2)                   # TF: 2 2 2 2
    assert [t.dtype.name for t in graph.internal_captures] == ["resource", "float32"]
    assert graph.external_captures[0] is v and graph.external_captures[1] is c
    assert all(t.graph is graph for t in graph.internal_captures)
    assert float(f(tf.constant(1.0))[1]) == 2.0 + 2.0 + 4.0


def test_a_function_of_its_arguments_captures_nothing():
    @tf.function
    def g(x):
        return x + 1.0
    assert g.get_concrete_function(tf.constant(1.0)).captured_inputs == []   # TF: 0
