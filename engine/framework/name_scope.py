"""``tf.name_scope``: prefix the names of ops created inside (graph mode uses it).

In eager mode names do not matter to execution, but the scope is still tracked
so code that builds names (Keras layers, tf.Module) behaves the same in both modes.
"""
from .context import ctx

__all__ = ["name_scope", "current_name_scope", "get_current_name_scope"]


class name_scope:  # noqa: N801 (TF spells it tf.name_scope)
    """``with tf.name_scope("layer1") as scope:`` -> ``scope == "layer1/"``."""

    def __init__(self, name, default_name=None, values=None):
        if name is None:
            name = default_name
        if name is not None and not isinstance(name, str):
            raise ValueError(f"name for name_scope must be a string, got {name!r}.")
        self._name = name
        self._saved = None

    @property
    def name(self):
        """The name given to the constructor (``tf.Module(name="m").name_scope.name == "m/"``)."""
        return self._name

    def __enter__(self):
        self._saved = ctx.name_scope
        if not self._name:
            ctx.name_scope = ""
        elif self._name.endswith("/"):
            ctx.name_scope = self._name  # an absolute scope re-enters as is
        else:
            graph = ctx.graph
            base = self._saved + self._name
            if graph is not None and hasattr(graph, "unique_name"):
                base = graph.unique_name(base, mark_as_used=True)
            ctx.name_scope = base + "/"
        return ctx.name_scope

    def __exit__(self, *exc):
        ctx.name_scope = self._saved
        return False


def current_name_scope():
    return ctx.name_scope


def get_current_name_scope():
    """``tf.get_current_name_scope()``: the open scope without its trailing slash ("a/b"; "" at top level)."""
    return ctx.name_scope[:-1] if ctx.name_scope.endswith("/") else ctx.name_scope
