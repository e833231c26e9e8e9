"""``tf.autograph``: convert Python control flow on tensors into graph control flow.

(Stub: the conversion is being written. ``to_graph`` returns the function unchanged.)
"""

__all__ = ["to_graph", "to_code", "experimental"]


def to_graph(entity, recursive=True, experimental_optional_features=None):
    return entity


def to_code(entity, recursive=True, experimental_optional_features=None):
    import inspect
    return inspect.getsource(entity)


class experimental:  # noqa: N801
    @staticmethod
    def do_not_convert(func=None):
        return func if func is not None else (lambda f: f)
