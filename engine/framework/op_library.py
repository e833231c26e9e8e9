"""The op library, as the layers below it reach it (TensorFlow's ``VSpace`` idea).

A few pieces below the op library build their results out of ops: the backward
walk seeds gradients with ``ones_like`` and sums them with ``add_n``, an
``IndexedSlices`` densifies itself with ``unsorted_segment_sum``, the tape's
``jacobian`` stacks rows. They cannot import ``engine.ops``: the op library is
built on them (every op offers itself to the tapes, and gradients may be
``IndexedSlices``). So the library hands itself over when it is imported
(``engine/ops/__init__.py`` calls :func:`install`), and they call it through
:data:`OPS` at run time, as TF's ``imperative_grad`` calls the functions of its
``VSpace``.
"""

__all__ = ["OPS", "install"]


class _OpLibrary:
    """The op modules the lower layers use: ``array_ops``, ``math_ops``, ``segment_ops``."""

    array_ops = math_ops = segment_ops = None

    def __repr__(self):
        ready = self.array_ops is not None
        return f"<the op library, as seen from below: {'installed' if ready else 'not installed yet'}>"


OPS = _OpLibrary()


def install(**modules):
    """Called once by ``engine/ops/__init__.py`` with the op modules the lower layers use."""
    for name, module in modules.items():
        if not hasattr(_OpLibrary, name):
            raise AttributeError(f"the op library has no module slot {name!r}")
        setattr(OPS, name, module)
