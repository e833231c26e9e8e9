"""``tf.Module``: a container that finds its variables by walking its attributes.

``module.trainable_variables`` is not a list someone maintains: it is computed
by walking the module's attributes (sorted by name, as TF does), descending into
lists, tuples, dicts and other modules. Assign a Variable or a sub-module to an
attribute and it is found.

Two classes, as in TF:

* :class:`AutoTrackable` (TF's ``tensorflow.python.trackable.autotrackable.AutoTrackable``):
  an object whose attributes are its dependencies. Checkpoints (``tf.train.Checkpoint``)
  and SavedModels (``tf.saved_model.save``) walk every ``AutoTrackable``'s attributes.
  It has no public API of its own.
* :class:`Module` (``tf.Module``), an ``AutoTrackable`` with a name, a name scope and the
  ``variables`` / ``trainable_variables`` / ``submodules`` walks.

Keras 3 layers and models (TF 2.21) are ``AutoTrackable`` s but **not** ``tf.Module`` s:
``isinstance(layer, tf.Module)`` is ``False`` and ``layer.submodules`` raises
``AttributeError``. So a ``tf.Module`` walk stops at a Keras layer, as TF's does
(``module.trainable_variables`` does not list the variables of a Keras layer held
as an attribute, and ``module.submodules`` does not list the layer), while a
checkpoint or a SavedModel of that module still saves the layer's variables
(:func:`flatten_trackables` walks through it).
"""
import re

from .framework.name_scope import name_scope as _name_scope


__all__ = ["AutoTrackable", "Module", "flatten_trackables"]


def _camel_to_snake(name):
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()


def _is_variable(x):
    return hasattr(x, "_is_variable")


class AutoTrackable:
    """The base of ``tf.Module`` and of Keras layers: an object whose attributes are its dependencies.

    Internal, as TF's ``AutoTrackable`` is: it adds no public attribute, so a Keras layer shows
    only Keras 3's API. ``_TF_MODULE_IGNORED_PROPERTIES`` names attributes that checkpoints and
    SavedModels do not follow.
    """

    _TF_MODULE_IGNORED_PROPERTIES = frozenset(["_self_unconditional_checkpoint_dependencies"])


def flatten_trackables(obj, predicate=None, with_path=False):
    """What ``obj`` (an :class:`AutoTrackable`) holds, breadth first, attributes sorted by name, descending into
    every ``AutoTrackable`` (Keras layers included): the walk of checkpoints and SavedModels. Same arguments and
    order as ``tf.Module._flatten``."""
    return _flatten(obj, AutoTrackable, predicate=predicate, with_path=with_path)


class Module(AutoTrackable):
    """Base class for objects that own variables and sub-modules."""

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
        """The leaves of this module's attributes (sorted by name), breadth first, descending into sub-modules
        (``tf.Module`` s only, as TF: a Keras layer is a leaf, not walked)."""
        return _flatten(self, Module, recursive=recursive, predicate=predicate,
                        attribute_traversal_key=attribute_traversal_key, with_path=with_path)

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


def _flatten(root, descend_into, recursive=True, predicate=None, attribute_traversal_key=None, with_path=False):
    """Breadth first over ``root``'s attributes; the objects of type ``descend_into`` found are walked in turn."""
    predicate = predicate or (lambda _: True)
    seen = set()
    out = []
    queue = [((), root)]
    visited_modules = {id(root)}
    while queue:
        path, module = queue.pop(0)
        children = []
        attrs = vars(module)
        ignored = getattr(module, "_TF_MODULE_IGNORED_PROPERTIES", ())
        for key in sorted(attrs, key=attribute_traversal_key):
            if key in ignored:
                continue
            for leaf_path, leaf in _leaves_with_paths(attrs[key]):
                full = path + (key,) + leaf_path
                if predicate(leaf) and id(leaf) not in seen:
                    seen.add(id(leaf))
                    out.append((full, leaf) if with_path else leaf)
                if recursive and isinstance(leaf, descend_into) and id(leaf) not in visited_modules:
                    visited_modules.add(id(leaf))
                    children.append((full, leaf))
        queue.extend(children)
    return out


def _leaves_with_paths(value, path=()):
    if isinstance(value, AutoTrackable) or _is_variable(value):
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
