"""The ``autograph`` seam: ``tf.function`` traced through a converter written here, as a student writes it.

``TinyAutoGraph`` is the whole exercise: an ``ast.NodeTransformer`` that turns ``if`` and ``while`` statements
into the public operators ``ag__.if_stmt`` / ``ag__.while_stmt`` (the state of a statement: every name it
assigns), plus the helpers ``parse_function`` and ``compile_function``. Inside
``engine.seams.using(autograph=TinyAutoGraph)`` Python loops and branches on tensors become ``While``/``If``
ops and give the engine converter's (and TF's) values; a converter that changes nothing fails as TF fails
without AutoGraph; the engine's converter comes back on leaving the block.
"""
import ast
import logging

import numpy as np
import pytest

import engine as tf
from engine import seams
from engine.autograph.api import AUTOGRAPH_PROTOCOL, AutoGraph, ConversionError, compile_function, parse_function


# --------------------------------------------------------------------------------------
# The student's converter
# --------------------------------------------------------------------------------------
class TinyAutoGraph:
    """``if``/``while`` statements -> ``ag__.if_stmt``/``ag__.while_stmt`` calls."""

    calls = 0   # class-wide: `using(autograph=TinyAutoGraph)` builds one per conversion

    def convert(self, function):
        type(self).calls += 1
        return compile_function(function, _IfWhile().visit(parse_function(function)))


class _IfWhile(ast.NodeTransformer):
    def __init__(self):
        self.count = 0

    def visit_If(self, node):
        self.generic_visit(node)   # the statements inside first
        return self._staged(node, "if_stmt", node.body, node.orelse)

    def visit_While(self, node):
        self.generic_visit(node)
        return self._staged(node, "while_stmt", node.body, None)

    def _staged(self, node, operator, body, orelse):
        names = sorted({n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)})
        k, self.count = self.count, self.count + 1
        declare = f"nonlocal {', '.join(names)}" if names else "pass"
        state = "".join(f"{n}, " for n in names)
        code = "".join(f"try:\n    {n}\nexcept NameError:\n    {n} = ag__.Undefined('{n}')\n" for n in names)
        code += (f"def get_state_{k}():\n    return ({state})\n"
                 f"def set_state_{k}(vars_):\n    {declare}\n    ({state}) = vars_\n"
                 f"def body_{k}():\n    {declare}\n")
        if operator == "if_stmt":
            code += (f"def orelse_{k}():\n    {declare}\n"
                     f"ag__.if_stmt(None, body_{k}, orelse_{k}, get_state_{k}, set_state_{k}, {tuple(names)}, "
                     f"{len(names)})\n")
        else:
            code += (f"def test_{k}():\n    return None\n"
                     f"ag__.while_stmt(test_{k}, body_{k}, get_state_{k}, set_state_{k}, {tuple(names)}, {{}})\n")
        statements = ast.parse(code).body
        functions = {s.name: s for s in statements if isinstance(s, ast.FunctionDef)}
        functions[f"body_{k}"].body += body
        if operator == "if_stmt":
            functions[f"orelse_{k}"].body += orelse
            statements[-1].value.args[0] = node.test          # ag__.if_stmt(<the condition>, ...)
        else:
            functions[f"test_{k}"].body[0].value = node.test  # return <the condition>
        return statements


class Identity:
    """A converter that converts nothing: what tf.function does without AutoGraph."""

    calls = 0

    def convert(self, function):
        type(self).calls += 1
        return function


# --------------------------------------------------------------------------------------
# Programs
# --------------------------------------------------------------------------------------
def halvings(x):
    """How many times x can be halved before it is at most 1: a Python `while` on a tensor condition."""
    n = 0
    while x > 1.0:
        x = x / 2.0
        n = n + 1
    return n, x


def piecewise(x):
    if x > 0.0:
        y = x * x
    else:
        y = -x
    return y


def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps = steps + 1
    return steps


def scaled(x, double):
    if double:                 # a Python bool: decided while tracing, no tf.cond
        x = x * 2.0
    return x


def op_types(concrete):
    return sorted(op.type for op in concrete.graph.get_operations())


@pytest.fixture(autouse=True)
def _counts():
    TinyAutoGraph.calls = Identity.calls = 0
    yield
    assert seams.current("autograph") is AutoGraph   # no test leaves the seam replaced


# --------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------
def test_the_protocol_is_declared_and_the_engine_converter_fills_it():
    slot = seams.seam("autograph")
    assert slot.protocol == AUTOGRAPH_PROTOCOL == ("convert",)
    assert slot.reference is AutoGraph and slot.check(AutoGraph) is AutoGraph and not slot.replaced
    converted = AutoGraph().convert(halvings)
    assert converted.__ag_converted__ and "ag__.while_stmt" in converted.__ag_source__
    assert [float(v) for v in tf.function(halvings)(tf.constant(10.0))] == [4.0, 0.625]


def test_a_python_while_on_a_tensor_becomes_a_while_op_on_the_student_converter():
    reference = tf.function(halvings)
    expected_ops = op_types(reference.get_concrete_function(tf.TensorSpec([], tf.float32)))
    with seams.using(autograph=TinyAutoGraph):
        f = tf.function(halvings)
        concrete = f.get_concrete_function(tf.TensorSpec([], tf.float32))
        assert TinyAutoGraph.calls == 1
        got = [f(tf.constant(v)) for v in (10.0, 1.0, 1000.0)]
    assert "StatelessWhile" in op_types(concrete) and op_types(concrete) == expected_ops
    expected = [reference(tf.constant(v)) for v in (10.0, 1.0, 1000.0)]
    for (n, x), (n_ref, x_ref) in zip(got, expected):   # TF 2.21: (4, 0.625), (0, 1.0), (10, 0.9765625)
        assert n.dtype == n_ref.dtype == tf.int32 and int(n) == int(n_ref)
        np.testing.assert_allclose(x.numpy(), x_ref.numpy(), rtol=1e-7)
    assert [int(n) for n, _ in got] == [4, 0, 10]


def test_if_and_nested_control_flow_give_the_reference_values():
    with seams.using(autograph=TinyAutoGraph):
        branchy, collatz = tf.function(piecewise), tf.function(collatz_steps)
        concrete = branchy.get_concrete_function(tf.TensorSpec([], tf.float32))
        got = [float(branchy(tf.constant(v))) for v in (3.0, -2.0, 0.0)]
        steps = [int(collatz(tf.constant(n))) for n in (6, 7, 1)]
    assert "StatelessIf" in op_types(concrete)
    assert op_types(concrete) == op_types(tf.function(piecewise).get_concrete_function(
        tf.TensorSpec([], tf.float32)))
    assert got == [float(tf.function(piecewise)(tf.constant(v))) for v in (3.0, -2.0, 0.0)] == [9.0, 2.0, 0.0]
    assert steps == [int(tf.function(collatz_steps)(tf.constant(n))) for n in (6, 7, 1)] == [8, 16, 0]
    assert TinyAutoGraph.calls == 2


def test_python_conditions_keep_python_meaning():
    with seams.using(autograph=TinyAutoGraph):
        f = tf.function(scaled)
        concrete = f.get_concrete_function(tf.TensorSpec([], tf.float32), True)
        assert float(f(tf.constant(3.0), True)) == 6.0 and float(f(tf.constant(3.0), False)) == 3.0
    assert not any(t in op_types(concrete) for t in ("If", "StatelessIf"))


def test_a_converter_that_converts_nothing_fails_as_tf_without_autograph():
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):   # TF 2.21: autograph=False fails alike
        tf.function(halvings, autograph=False)(tf.constant(10.0))
    with seams.using(autograph=Identity):
        with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="as a Python `bool` is not allowed"):
            tf.function(halvings)(tf.constant(10.0))
        assert float(tf.function(lambda x: x * 2.0)(tf.constant(1.5))) == 3.0   # straight-line code still traces
    assert Identity.calls == 2


def test_to_graph_and_to_code_use_the_student_converter():
    with seams.using(autograph=TinyAutoGraph):
        converted = tf.autograph.to_graph(halvings)
        code = tf.autograph.to_code(halvings)
        n, x = converted(10.0)          # plain Python values: the operators run the Python loop
    assert (n, x) == (4, 0.625) and converted.__name__ == "halvings" and converted.__doc__ == halvings.__doc__
    assert "ag__.while_stmt(test_0, body_0, get_state_0, set_state_0, ('n', 'x'), {})" in code
    assert "test_0" not in tf.autograph.to_code(halvings)   # the engine's converter again
    assert TinyAutoGraph.calls == 2


def test_methods_lambdas_and_closures_are_unwrapped_and_compiled_with_their_scope():
    limit = tf.constant(1.0)

    class Halver:
        def __init__(self):
            self.__factor = 2.0    # a private name: parse_function mangles it as the class would

        def count(self, x):
            n = 0
            while x > limit:   # a closure variable
                x = x / self.__factor
                n = n + 1
            return n
    with seams.using(autograph=TinyAutoGraph):
        method = tf.autograph.to_graph(Halver().count)
        assert int(tf.function(method)(tf.constant(100.0))) == 7
        assert float(tf.function(lambda x: x + 1.0)(tf.constant(1.0))) == 2.0
    assert TinyAutoGraph.calls == 2   # the method's function, and the lambda (as a `def`)
    assert int(tf.function(Halver().count)(tf.constant(100.0))) == 7   # the engine's converter agrees


def test_a_converter_that_cannot_convert_runs_the_function_as_it_is(caplog):
    class NoSource:
        def convert(self, function):
            raise ConversionError("no source for you")
    with seams.using(autograph=NoSource), caplog.at_level(logging.WARNING, logger="tensorflow"):
        assert float(tf.function(piecewise, autograph=True)(3.0)) == 9.0   # a Python float: Python's `if`
    assert "AutoGraph could not transform" in caplog.text and "no source for you" in caplog.text


def test_the_block_restores_the_reference_on_exit_and_on_exceptions():
    class Buggy:
        def convert(self, function):
            raise RuntimeError("my converter has a bug")
    with pytest.raises(RuntimeError, match="my converter has a bug"):
        with seams.using(autograph=Buggy):
            tf.function(halvings)(tf.constant(10.0))
    assert seams.current("autograph") is AutoGraph
    with pytest.raises(ValueError, match="the user's code failed"):
        with seams.using(autograph=TinyAutoGraph):
            raise ValueError("the user's code failed")
    assert seams.current("autograph") is AutoGraph
    assert "test_0" not in tf.autograph.to_code(halvings)
    assert int(tf.function(halvings)(tf.constant(10.0))[0]) == 4 and TinyAutoGraph.calls == 0


def test_nested_blocks_the_innermost_wins():
    with seams.using(autograph=TinyAutoGraph):
        with seams.using(autograph=Identity):
            assert seams.current("autograph") is Identity
            with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
                tf.function(halvings)(tf.constant(10.0))
        assert seams.current("autograph") is TinyAutoGraph
        assert int(tf.function(halvings)(tf.constant(10.0))[0]) == 4
    assert (TinyAutoGraph.calls, Identity.calls) == (1, 1)


def test_an_implementation_missing_the_protocol_method_is_refused_by_name():
    class Transformer(ast.NodeTransformer):   # forgot to wrap it in a `convert`
        pass
    with pytest.raises(TypeError, match=r"Transformer cannot fill the 'autograph' seam: it has no convert"):
        with seams.using(autograph=Transformer):
            pass
    assert seams.current("autograph") is AutoGraph


def test_convert_must_return_a_function():
    class ReturnsSource:
        def convert(self, function):
            return ast.unparse(parse_function(function))
    with seams.using(autograph=ReturnsSource), pytest.raises(TypeError,
                                                            match="ReturnsSource.convert must return a function"):
        tf.function(halvings)(tf.constant(10.0))


def test_a_function_traced_outside_the_block_is_converted_again_inside_and_not_after():
    f = tf.function(halvings)
    assert [float(v) for v in f(tf.constant(10.0))] == [4.0, 0.625]   # the engine's conversion, traced
    with seams.using(autograph=Identity):
        # the student's converter, not the cached engine trace: a Python `while` on a tensor fails
        with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
            f(tf.constant(10.0))
    assert Identity.calls == 1
    assert [float(v) for v in f(tf.constant(10.0))] == [4.0, 0.625]   # after the block: the engine's again
    with seams.using(autograph=TinyAutoGraph):
        assert [float(v) for v in f(tf.constant(10.0))] == [4.0, 0.625]
        assert [float(v) for v in f(tf.constant(10.0))] == [4.0, 0.625]   # its own trace, reused
    assert TinyAutoGraph.calls == 1
