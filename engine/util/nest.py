"""``tf.nest``: work with nested structures of lists, tuples, namedtuples and dicts.

``flatten`` lists the leaves in a fixed order (dict keys sorted, as TF does);
``pack_sequence_as`` rebuilds a structure from leaves; ``map_structure`` maps a
function over the leaves of one or more structures with the same shape.
``None`` is a leaf.

Composite tensors (``tf.RaggedTensor``; later ``tf.SparseTensor``) are leaves unless
``expand_composites=True``: then a composite stands for its component tensors, as its
``_type_spec`` lists them (``[flat_values, row_splits]`` for a 2-D RaggedTensor), and a
``tf.TypeSpec`` other than ``TensorSpec`` for its component specs. ``pack_sequence_as``
rebuilds the composite from those components (``spec._from_components``): given
tensors where the template holds a ``TypeSpec``, it builds the value (``tf.function``
uses that to rebuild a RaggedTensor argument from its graph placeholders).
"""
import collections.abc

__all__ = ["flatten", "pack_sequence_as", "map_structure", "is_nested", "assert_same_structure"]


_PLAIN = (list, tuple, dict)
_LEAF_TYPES = frozenset([int, float, bool, str, bytes, type(None)])


def is_nested(x):
    t = type(x)
    if t in _PLAIN:
        return True
    if t in _LEAF_TYPES:
        return False  # the common leaves: no slow ABC checks
    if hasattr(t, "__tf_flatten__"):
        return True   # TF's composite protocol (e.g. tf.distribute's PerReplica)
    if getattr(t, "__module__", "").startswith("engine."):
        return isinstance(x, tuple)  # the engine's namedtuples (TopKV2, Unique ...) are structures; tensors are not
    return isinstance(x, (list, tuple, dict, collections.abc.Mapping))


def _expands(x):
    """With ``expand_composites``: is ``x`` a composite tensor or a non-leaf TypeSpec?"""
    t = type(x)
    if getattr(t, "_is_composite_tensor", False):
        return True
    return getattr(t, "_is_type_spec", False) and x._component_specs is not x


def _composite_children(x):
    if getattr(type(x), "_is_composite_tensor", False):
        return x._type_spec._to_components(x)
    return x._component_specs


def _is_nested_ec(x):
    return is_nested(x) or _expands(x)


def _children_ec(x):
    return [_composite_children(x)] if _expands(x) else _children(x)


def _sorted_keys(d):
    try:
        return sorted(d)
    except TypeError:
        return list(d)


def _children(x):
    t = type(x)
    if t is list or t is tuple:
        return list(x)
    if hasattr(t, "__tf_flatten__"):
        return list(x.__tf_flatten__()[1])
    if isinstance(x, collections.abc.Mapping):
        return [x[k] for k in _sorted_keys(x)]
    return list(x)


def flatten(structure, expand_composites=False):
    """The leaves of ``structure`` in depth-first order."""
    nested, children = (_is_nested_ec, _children_ec) if expand_composites else (is_nested, _children)
    if not nested(structure):
        return [structure]
    out = []

    def walk(node):
        if nested(node):
            for child in children(node):
                walk(child)
        else:
            out.append(node)
    walk(structure)
    return out


def _rebuild(template, leaves_iter, expand=False):
    if expand and _expands(template):
        spec = template._type_spec if getattr(type(template), "_is_composite_tensor", False) else template
        return spec._from_components(_rebuild(_composite_children(template), leaves_iter, expand))
    if not is_nested(template):
        return next(leaves_iter)
    if hasattr(type(template), "__tf_flatten__"):
        metadata, components = template.__tf_flatten__()
        return type(template).__tf_unflatten__(metadata, tuple(_rebuild(c, leaves_iter, expand) for c in components))
    if isinstance(template, collections.abc.Mapping):
        keys = _sorted_keys(template)
        values = {k: _rebuild(template[k], leaves_iter, expand) for k in keys}
        return type(template)((k, values[k]) for k in template) if not isinstance(
            template, collections.defaultdict) else _copy_defaultdict(template, values)
    items = [_rebuild(child, leaves_iter, expand) for child in template]
    if isinstance(template, tuple) and hasattr(template, "_fields"):
        return type(template)(*items)
    return type(template)(items)


def _copy_defaultdict(template, values):
    d = collections.defaultdict(template.default_factory)
    for k in template:
        d[k] = values[k]
    return d


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """Rebuild ``structure`` with its leaves replaced, in order, by ``flat_sequence``."""
    flat_sequence = list(flat_sequence)
    n = len(flatten(structure, expand_composites))
    if n != len(flat_sequence):
        raise ValueError(f"Could not pack sequence. Structure had {n} atoms, but flat_sequence had "
                         f"{len(flat_sequence)} items.")
    return _rebuild(structure, iter(flat_sequence), expand_composites)


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    def sig(x):
        if expand_composites and _expands(x):
            spec = x._type_spec if getattr(type(x), "_is_composite_tensor", False) else x
            return (type(spec).__name__, sig(_composite_children(x)))
        if not is_nested(x):
            return None
        if isinstance(x, collections.abc.Mapping):
            return (type(x) if check_types else dict, tuple(_sorted_keys(x)), tuple(sig(v) for v in _children(x)))
        if hasattr(type(x), "__tf_flatten__"):
            return (type(x), x.__tf_flatten__()[0], tuple(sig(v) for v in _children(x)))
        kind = type(x) if check_types else (tuple if isinstance(x, tuple) else list)
        return (kind, len(x), tuple(sig(v) for v in x))
    if sig(nest1) != sig(nest2):
        raise ValueError(f"The two structures don't have the same nested structure.\n\n"
                         f"First structure: {nest1!r}\n\nSecond structure: {nest2!r}")


def map_structure(func, *structures, **kwargs):
    """Apply ``func`` leaf-wise across structures of the same shape."""
    if not structures:
        raise ValueError("Must provide at least one structure")
    expand = kwargs.get("expand_composites", False)
    for other in structures[1:]:
        assert_same_structure(structures[0], other, check_types=kwargs.get("check_types", True),
                              expand_composites=expand)
    flat = [flatten(s, expand) for s in structures]
    return pack_sequence_as(structures[0], [func(*leaves) for leaves in zip(*flat)], expand_composites=expand)
