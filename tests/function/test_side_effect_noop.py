"""A tf.function's graph says which ops must run on every call as TF 2.21's does: one ``NoOp`` whose
control inputs are the side effects, and each output's ``Identity`` waits for it.

The expected lists were recorded from TF 2.21 (``as_graph_def()`` of the same functions, names aside:
TF names a captured variable's placeholder ``AssignAddVariableOp/resource``, the engine after the variable).
"""
import engine as tf

v = tf.Variable(1.0, name="v")
w = tf.Variable(2.0, name="w")


def _nodes(fn):
    graph_def = fn.get_concrete_function(tf.constant(1.0)).graph.as_graph_def()
    return [(n.op, [i for i in n.input if i.startswith("^")]) for n in graph_def.node]


def _control_names(fn, op_type):
    graph = fn.get_concrete_function(tf.constant(1.0)).graph
    (op,) = [op for op in graph.get_operations() if op.type == op_type]
    return [c.type for c in op.control_inputs]


def test_every_write_is_a_control_input_of_the_noop():
    @tf.function
    def three_writes(x):
        v.assign_add(x)
        v.assign_add(x)
        v.assign_add(x)
        return x
    nodes = _nodes(three_writes)
    assert [op for op, _ in nodes] == ["Placeholder", "Placeholder", "AssignAddVariableOp", "AssignAddVariableOp",
                                       "AssignAddVariableOp", "Identity", "NoOp"]
    assert nodes[-2][1] == ["^NoOp"]                      # Identity(x, ^NoOp)
    assert _control_names(three_writes, "NoOp") == ["AssignAddVariableOp"] * 3
    assert float(three_writes(tf.constant(1.0))) == 1.0 and float(v.numpy()) == 4.0


def test_prints_and_writes_of_two_variables():
    @tf.function
    def mixed(x):
        v.assign_add(x)
        w.assign_add(x)
        tf.print(x)
        tf.print(x)
        return x * 2
    assert _control_names(mixed, "NoOp") == ["AssignAddVariableOp", "AssignAddVariableOp", "PrintV2", "PrintV2"]
    assert _nodes(mixed)[-2:] == [("Identity", ["^NoOp"]), ("NoOp", ["^AssignAdd", "^AssignAdd_1", "^PrintV2",
                                                                      "^PrintV2_1"])]


def test_a_variable_read_is_a_side_effect():
    @tf.function
    def read(x):
        return x + v
    assert [op for op, _ in _nodes(read)] == ["Placeholder", "Placeholder", "ReadVariableOp", "AddV2", "Identity",
                                              "NoOp"]
    assert _control_names(read, "NoOp") == ["ReadVariableOp"]


def test_no_side_effects_no_noop():
    @tf.function
    def pure(x):
        return x + 1

    @tf.function
    def legacy_random(x):   # TF leaves the legacy random ops out of the ops that must run
        return x + tf.random.uniform([])
    assert [op for op, _ in _nodes(pure)] == ["Placeholder", "Const", "AddV2", "Identity"]
    assert [op for op, _ in _nodes(legacy_random)] == ["Placeholder", "Const", "RandomUniform", "AddV2", "Identity"]


def test_a_function_without_outputs_has_no_noop():
    @tf.function
    def write_only(x):
        v.assign_add(x)
    assert [op for op, _ in _nodes(write_only)] == ["Placeholder", "Placeholder", "AssignAddVariableOp"]
    before = float(v.numpy())
    write_only(tf.constant(2.0))
    assert float(v.numpy()) == before + 2.0
