"""User functions in a pipeline (``map``, ``filter``): traced once, then run as a compiled plan.

TF never calls a ``map`` function per element in Python. When ``ds.map(f)`` is
*built*, ``f`` is traced once with ``tf.function`` on symbolic placeholders
shaped like ``ds.element_spec``; the resulting graph is what runs for every
element. Consequences you can observe (and the tests check):

* Python side effects in ``f`` (``print``, appending to a list) happen once, at
  ``map`` time, not per element. Use ``tf.print`` to print per element.
* Inside ``f``, ``tf.executing_eagerly()`` is False and ``x.numpy()`` fails.
* The output structure and static shapes are known without running anything:
  that is ``element_spec`` of the mapped dataset.
* Stateful ops (``v.assign_add``, random ops, ``tf.print``) run per element.

Here the traced graph is compiled with the same executor as ``tf.function``
(``engine/framework/executor.py``) and called on the components' NumPy values
directly: no eager tensors are built per element. Functions run on the host
CPU and outside any ``GradientTape`` (dataset ops are never differentiated).

Argument convention (TF's): a *tuple* element is unpacked into positional
arguments, ``map(lambda x, y: ...)``; any other element (a tensor, a dict, a
namedtuple) is passed as one argument.
"""
from ..tracing.function import Function
from ..framework.executor import compile_plan
from ..util import nest
from . import structure
from .structure import host_scope

__all__ = ["StructuredFunction", "host_scope"]


def _lists_to_tuples(value):
    if isinstance(value, list):
        return tuple(_lists_to_tuples(v) for v in value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*[_lists_to_tuples(v) for v in value])
    if isinstance(value, tuple):
        return tuple(_lists_to_tuples(v) for v in value)
    if isinstance(value, dict):
        return type(value)((k, _lists_to_tuples(v)) for k, v in value.items())
    return value


class StructuredFunction:
    """``func`` traced once for elements described by ``input_spec``.

    ``output_spec``: the nest of ``TensorSpec`` the function returns (lists
    become tuples, as TF does). ``__call__(components) -> components``.
    ``function``: the ``tf.function`` it was traced with (its
    ``experimental_get_tracing_count()`` is 1); ``graph``: the traced graph.
    """

    def __init__(self, func, input_spec, transformation):
        if isinstance(func, Function):       # an already-decorated function: trace its Python function
            func = func.python_function
        if not callable(func):
            raise TypeError(f"`{transformation}` expects a callable, got {func!r}.")
        self.transformation = transformation
        self.input_spec = input_spec
        self.function = Function(func, name=getattr(func, "__name__", "fn").replace("<lambda>", "lambda"))
        args = input_spec if type(input_spec) is tuple else (input_spec,)
        with host_scope():
            concrete = self.function.get_concrete_function(*args)
        self.graph = concrete.graph
        outputs = concrete.structured_outputs
        if outputs is None or any(leaf is None for leaf in nest.flatten(outputs)):
            raise TypeError(f"Unsupported return value from function passed to {transformation}(): {outputs!r}. "
                            f"The function must return a tensor or a (nested) tuple or dict of tensors.")
        outputs = _lists_to_tuples(outputs)
        self.output_spec = structure.spec_of(outputs)   # (a RaggedTensor output: its RaggedTensorSpec)
        self._plan = compile_plan(self.graph.outputs, self.graph.stateful_ops, self.graph.inputs)

    def __call__(self, components):
        return tuple(structure.host_value(v) for v in self._plan(list(components)))

    def __repr__(self):
        return f"<StructuredFunction for {self.transformation}: {self.function._name}>"
