"""``tf.types.experimental.TraceType``: how ``tf.function`` decides whether a trace can be reused.

Every argument of a ``tf.function`` call gets a *trace type*: a tensor its dtype and shape (a
``TensorSpec``), a Python value the value itself, a nest its structure... Two calls whose arguments
have equal trace types reuse one concrete function. A class of one's own can choose its trace type by
defining ``__tf_tracing_type__(self, context)`` and returning a ``TraceType``, an object that must be
hashable and comparable (``__eq__``, ``__hash__``: the cache key) and that says what the traced
function receives in place of the argument (``placeholder_value``). ``is_subtype_of`` and
``most_specific_common_supertype`` are TF's rules for relaxing a trace; the engine's tracer keys on
equality only (deliberate difference: it does not look for a supertype trace of user types).
"""
import abc

__all__ = ["TraceType", "user_trace_type"]


class TraceType(abc.ABC):
    """The base of trace types (TF's ``tf.types.experimental.TraceType``)."""

    @abc.abstractmethod
    def is_subtype_of(self, other):
        """True if every value of this type is also of type ``other``."""

    @abc.abstractmethod
    def most_specific_common_supertype(self, others):
        """The most specific type that all of ``self`` and ``others`` are subtypes of, or None."""

    def placeholder_value(self, placeholder_context=None):
        """What the traced Python function receives for an argument of this type."""
        raise NotImplementedError(f"{type(self).__name__} does not define placeholder_value.")

    @abc.abstractmethod
    def __eq__(self, other):
        ...

    @abc.abstractmethod
    def __hash__(self):
        ...


def user_trace_type(value):
    """The trace type an object chose with ``__tf_tracing_type__``, or None."""
    make = getattr(type(value), "__tf_tracing_type__", None)
    return make(value, None) if make is not None else None
