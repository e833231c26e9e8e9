"""``tf.autograph``: convert Python control flow on tensors into graph control flow.

Inside ``tf.function``, tensors are symbolic: ``if x > 0:`` cannot choose a
branch while the graph is built, because ``x`` has no value yet. AutoGraph
rewrites the function's *source code* so that control flow becomes calls
that decide at trace time what to do::

    def collatz(n):              def tf__collatz(n):
        steps = 0                    with ag__.FunctionScope('collatz', 'fscope', ag__.ConversionOptions(...)) as fscope:
        while n != 1:                    do_return = False
            if n % 2 == 0:               retval_ = ag__.UndefinedReturnValue()
                n = n // 2               steps = 0
            else:            ==>         def get_state_1():
                n = 3 * n + 1                return (steps, n)
            steps += 1                   def set_state_1(vars_):
        return steps                         nonlocal steps, n
                                             steps, n = vars_
                                         def loop_body():
                                             nonlocal steps, n
                                             ...   # the if, converted the same way:
                                             ag__.if_stmt(ag__.ld(n) % 2 == 0, if_body, else_body,
                                                          get_state, set_state, ('n',), 1)
                                             steps = ag__.ld(steps)
                                             steps += 1
                                         def loop_test():
                                             return ag__.ld(n) != 1
                                         ag__.while_stmt(loop_test, loop_body, get_state_1, set_state_1,
                                                         ('steps', 'n'), {})
                                         try:
                                             do_return = True
                                             retval_ = ag__.ld(steps)
                                         except:
                                             do_return = False
                                             raise
                                         return fscope.ret(retval_, do_return)

At trace time ``ag__.while_stmt`` sees that ``n != 1`` is a symbolic tensor and
builds a ``tf.while_loop`` with loop variables ``steps`` and ``n``; with a
Python ``n`` it would simply run the Python loop (unrolling it into the graph).
``tf.autograph.to_code(collatz)`` prints the converted source: TF 2.21's text,
and the code the engine runs. (``ag__.ld`` reads a variable: one not assigned
yet raises ``UnboundLocalError``; ``fscope.ret`` gives the return value, None if
no ``return`` ran.)

Read in this order:

* ``converter.py``: the source transformation, pass by pass (break/continue,
  return, logical expressions and calls, control flow);
* ``static_analysis.py``: which variables a statement must carry (liveness);
* ``operators.py``: the ``ag__`` runtime (Python semantics or graph ops);
* ``api.py``: getting the source, compiling the result with the same closure
  (and a source map from the generated lines back to the user's);
* ``user_code_errors.py``: errors raised while converted code is traced, re-raised
  as TF's "in user code:" with the user's frames;
* ``engine/ops/control_flow_ops.py``: ``tf.cond`` and ``tf.while_loop``
  themselves, with their gradients.

Differences from TF: TF writes the names of a ``nonlocal`` statement, and
consecutive ``x = ag__.Undefined('x')`` lines, in a Python set's order (it
changes with ``PYTHONHASHSEED``): the engine builds the same set, so its order
is TF's under the same seed (``converter.tf_set_order``; TF's set of Undefined
names comes out of set differences, and may order two names whose hashes share
a slot the other way); a nested ``def`` that
is decorated or a generator is converted when it is called (TF converts it in
place, as the engine does the other nested ``def`` s); ``print`` stays Python's ``print``
(it runs while tracing); ``assert`` statements and list ``append`` in loops
are not converted; only plain names are loop variables (not ``self.x``); loops
may have an ``else:`` clause; ``if c: return a`` followed by code is rewritten
recursively, so ``if/elif`` chains that return everywhere work (TF 2.21 refuses
some).
"""
from .api import ConversionError, do_not_convert, to_code, to_graph

import enum

__all__ = ["to_graph", "to_code", "experimental", "ConversionError", "set_verbosity", "trace"]


class Feature(enum.Enum):
    """``tf.autograph.experimental.Feature``: optional conversions, named for compatibility.

    Accepted (``tf.function(experimental_autograph_options=...)``, ``to_graph(...,
    experimental_optional_features=...)``) but not acted on: this converter always does the same thing.
    """
    ALL = "ALL"
    AUTO_CONTROL_DEPS = "AUTO_CONTROL_DEPS"
    ASSERT_STATEMENTS = "ASSERT_STATEMENTS"
    BUILTIN_FUNCTIONS = "BUILTIN_FUNCTIONS"
    EQUALITY_OPERATORS = "EQUALITY_OPERATORS"
    LISTS = "LISTS"
    NAME_SCOPES = "NAME_SCOPES"


_verbosity = [0]


def set_verbosity(level, alsologtostdout=False):
    """``tf.autograph.set_verbosity``: recorded only; this converter logs nothing."""
    _verbosity[0] = int(level)


def trace(*args):
    """``tf.autograph.trace``: print ``args`` when the code runs in Python, i.e. while tracing a tf.function."""
    print(*args)


def set_loop_options(parallel_iterations=None, swap_memory=None, maximum_iterations=None, shape_invariants=None):
    """``tf.autograph.experimental.set_loop_options``: a directive read by the converter.

    Written in a loop body (at its top level), it is lifted out of the
    loop at conversion time: ``shape_invariants=[(x, tf.TensorShape([None]))]``
    lets ``x`` change shape across iterations, ``maximum_iterations`` bounds
    the loop. Called outside converted code it does nothing (as in TF).
    """


class experimental:  # noqa: N801  (a namespace, as in TF)
    do_not_convert = staticmethod(do_not_convert)
    set_loop_options = staticmethod(set_loop_options)
    Feature = Feature
