"""``tf.Module``: a container that finds its variables by walking its attributes.

``module.trainable_variables`` is not a list someone maintains: it is computed
by walking the module's attributes (sorted by name, as TF does), descending into
lists, tuples, dicts and other modules. Assign a Variable or a sub-module to an
attribute and it is found.
"""
import re

from .framework.name_scope import name_scope as _name_scope


__all__ = ["Module"]


def _camel_to_snake(name):
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()


def _is_variable(x):
    return hasattr(x, "_is_variable")


class Module:
    """Base class for objects that own variables and sub-modules."""

    _TF_MODULE_IGNORED_PROPERTIES = frozenset(["_self_unconditional_checkpoint_dependencies"])

    def __init__(self, name=None):
        if name is None:
            name = _camel_to_snake(type(self).__name__)
        elif not re.match(r"^[A-Za-z][\w.-]*$", name):
            raise ValueError(f"'{name}' is not a valid module name. Module names must be valid Python "
                             f"identifiers (e.g. a valid class name).")
        self._name = name
        # As TF: the scope is fixed at construction, nested in whatever scope was open then, and
        # re-entered later as an absolute scope ("outer/name/"), wherever the module is called from.
        with _name_scope(name) as scope_name:
            self._scope_name = scope_name

    @property
    def name(self):
        return self._name

    @property
    def name_scope(self):
        """A ``tf.name_scope`` for this module; ``.name`` is the full scope, e.g. ``"outer/my_module/"``."""
        return _name_scope(self._scope_name)

    @property
    def variables(self):
        """Every variable owned by this module and its sub-modules (deduplicated)."""
        return tuple(self._flatten(predicate=_is_variable))

    @property
    def trainable_variables(self):
        return tuple(self._flatten(predicate=lambda x: _is_variable(x) and x.trainable))

    @property
    def non_trainable_variables(self):
        return tuple(self._flatten(predicate=lambda x: _is_variable(x) and not x.trainable))

    @property
    def submodules(self):
        """Every sub-module, breadth first."""
        return tuple(self._flatten(predicate=lambda x: isinstance(x, Module)))

    def _flatten(self, recursive=True, predicate=None, attribute_traversal_key=None, with_path=False,
                 expand_composites=False):
        predicate = predicate or (lambda _: True)
        seen = set()
        out = []
        queue = [((), self)]
        visited_modules = {id(self)}
        while queue:
            path, module = queue.pop(0)
            children = []
            attrs = vars(module)
            for key in sorted(attrs, key=attribute_traversal_key):
                if key in module._TF_MODULE_IGNORED_PROPERTIES:
                    continue
                for leaf_path, leaf in _leaves_with_paths(attrs[key]):
                    full = path + (key,) + leaf_path
                    if predicate(leaf) and id(leaf) not in seen:
                        seen.add(id(leaf))
                        out.append((full, leaf) if with_path else leaf)
                    if recursive and isinstance(leaf, Module) and id(leaf) not in visited_modules:
                        visited_modules.add(id(leaf))
                        children.append((full, leaf))
            queue.extend(children)
        return out

    @classmethod
    def with_name_scope(cls, method):
        """Decorator: run ``method`` inside the module's name scope."""
        def wrapped(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)
        wrapped.__name__ = method.__name__
        wrapped.__doc__ = method.__doc__
        return wrapped

    def __repr__(self):
        return f"<{type(self).__module__}.{type(self).__name__} object at {hex(id(self))}>"


def _leaves_with_paths(value, path=()):
    if isinstance(value, Module) or _is_variable(value):
        yield path, value
        return
    if isinstance(value, dict):
        for k in sorted(value, key=str):
            yield from _leaves_with_paths(value[k], path + (k,))
    elif isinstance(value, (list, tuple)) and not isinstance(value, str):
        for i, v in enumerate(value):
            yield from _leaves_with_paths(v, path + (i,))
    else:
        yield path, value
