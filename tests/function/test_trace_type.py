"""``tf.types.experimental.TraceType`` and ``__tf_tracing_type__``: a class chooses how tf.function keys its
traces (the guide's Fruit example, guide/function "Custom TraceType"). Expected values recorded from TF 2.21
(``/tmp/tt_case.py``-style run: values and trace counts after each call)."""
import engine as tf

# TF 2.21: (result, traces so far) after each of the four calls below
TF_2_21 = [([4, 6], 1), ([4, 6], 1), ([6, 8], 2), ([4, 6], 2)]


class FruitTraceType(tf.types.experimental.TraceType):
    def __init__(self, fruit):
        self.fruit_type = type(fruit)
        self.fruit_value = fruit

    def is_subtype_of(self, other):
        return type(other) is FruitTraceType and self.fruit_type is other.fruit_type

    def most_specific_common_supertype(self, others):
        return self if all(self == other for other in others) else None

    def placeholder_value(self, placeholder_context=None):
        return self.fruit_value

    def __eq__(self, other):
        return type(other) is FruitTraceType and self.fruit_type == other.fruit_type

    def __hash__(self):
        return hash(self.fruit_type)


class FruitWithTraceType:
    def __tf_tracing_type__(self, context):
        return FruitTraceType(self)


class Apple(FruitWithTraceType):
    flavor = tf.constant([1, 2])


class Mango(FruitWithTraceType):
    flavor = tf.constant([3, 4])


def test_a_user_trace_type_keys_the_traces():
    traces = []

    @tf.function
    def get_mixed_flavor(fruit_a, fruit_b):
        traces.append(1)
        return fruit_a.flavor + fruit_b.flavor

    got = []
    for a, b in ((Apple(), Mango()), (Apple(), Mango()), (Mango(), Mango()), (Apple(), Mango())):
        got.append((get_mixed_flavor(a, b).numpy().tolist(), len(traces)))
    assert got == TF_2_21
    assert isinstance(FruitTraceType(Apple()), tf.types.experimental.TraceType)


def test_plain_objects_are_still_keyed_by_identity():
    traces = []

    class Plain:
        flavor = tf.constant([1, 1])

    @tf.function
    def f(x):
        traces.append(1)
        return x.flavor * 2

    one = Plain()
    f(one), f(one), f(Plain())
    assert len(traces) == 2


def test_experimental_ragged_shapes():
    # TF 2.21: repr(tf.experimental.DynamicRaggedShape.from_lengths([4, (2, 1, 0, 8), 12]))
    assert repr(tf.experimental.DynamicRaggedShape.from_lengths([4, (2, 1, 0, 8), 12])) == \
        "<DynamicRaggedShape lengths=[4, (2, 1, 0, 8), 12] num_row_partitions=1>"
    assert tf.experimental.RowPartition is not None
