"""Seams: the mechanisms a student rebuilds, each behind a small public protocol.

TensorFlow is a handful of mechanisms wired together: the tape that records
ops for autodiff, the executor behind ``Session.run``, the tracer behind
``tf.function``, the AutoGraph converter, the all-reduce of ``tf.distribute``
and the graph optimizer's passes. The engine implements each one itself (the
*reference*), and declares it here as a *seam*: a named slot, a protocol (the
public methods an implementation must have) and the reference implementation.

``using`` runs the whole engine on other implementations for the duration of
a block::

    with engine.seams.using(tape=MyTape):
        with tf.GradientTape() as tape:     # a MyTape: every op in the block is offered to it
            y = x * x
        tape.gradient(y, x)

Everything inside the block, the engine's own code included (Keras' ``fit``,
optimizers, ``tf.function``'s gradients), goes through the replacement.
Blocks nest; leaving a block, also by an exception, restores what was there.
The slots are process-wide (not per thread), because ``tf.distribute`` runs
its replicas on threads and they must all see the same mechanism.

Two kinds of seam:

* *replace* seams hold one implementation: the innermost ``using`` wins.
* *add* seams hold a list: ``graph_pass`` adds a pass to the optimizer's
  pipeline (a pass with the name of a reference pass takes its place).

Each mechanism declares its own seam when its module is imported
(:func:`declare`), so this module imports nothing from the engine: it sits at
the bottom of the package and every layer may use it.
"""
import contextlib

__all__ = ["Seam", "declare", "using", "current", "reference", "seam", "seams"]


class Seam:
    """One declared slot: ``name``, ``protocol`` (required public method names), ``reference``, ``doc``.

    ``on_change``: called (no arguments) each time ``using`` puts an implementation in
    the slot or takes it out, for a mechanism that bakes the current implementation
    into something it caches (the graph optimizer's passes into compiled plans).
    """

    def __init__(self, name, reference, protocol, doc="", kind="replace", on_change=None):
        if kind not in ("replace", "add"):
            raise ValueError(f"Seam kind must be 'replace' or 'add', not {kind!r}")
        self.name = name
        self.reference = reference
        self.protocol = tuple(protocol)
        self.doc = doc
        self.kind = kind
        self.on_change = on_change
        self._active = []           # what ``using`` installed, innermost last
        self.replaced = False       # True while a ``using`` block has put another implementation in this slot

    @property
    def current(self):
        """The implementation in use now: the innermost ``using``'s, else the reference.

        For an *add* seam, the tuple of every added implementation, outermost first.
        """
        if self.kind == "add":
            return tuple(self._active)
        return self._active[-1] if self._active else self.reference


    def check(self, implementation):
        """Refuse an implementation that lacks part of the protocol, naming what is missing."""
        missing = [m for m in self.protocol if not callable(getattr(implementation, m, None))]
        if missing:
            label = getattr(implementation, "__name__", type(implementation).__name__)
            raise TypeError(f"{label} cannot fill the '{self.name}' seam: it has no "
                            f"{', '.join(missing)} (the protocol is: {', '.join(self.protocol)}). "
                            f"See engine.seams.seam({self.name!r}).doc.")
        return implementation

    def __repr__(self):
        now = "reference" if not self._active else f"replaced by {self._active[-1]!r}"
        return f"<Seam {self.name!r}: {now}>"


_SEAMS = {}


def declare(name, reference, protocol, doc="", kind="replace", on_change=None):
    """Declare a seam (called once, by the module that holds the reference implementation)."""
    if name in _SEAMS:
        raise KeyError(f"Seam '{name}' is already declared")
    _SEAMS[name] = Seam(name, reference, protocol, doc, kind, on_change)
    return _SEAMS[name]


def seam(name):
    """The :class:`Seam` called ``name``; an unknown name raises ``KeyError`` listing the known ones."""
    try:
        return _SEAMS[name]
    except KeyError:
        raise KeyError(f"No seam named {name!r}; the seams are: {', '.join(sorted(_SEAMS))}") from None


def seams():
    """``{name: Seam}`` of every declared seam."""
    return dict(_SEAMS)


def current(name):
    """The implementation in use now for seam ``name``."""
    return seam(name).current


def reference(name):
    """The engine's own implementation for seam ``name``."""
    return seam(name).reference


@contextlib.contextmanager
def using(**implementations):
    """Run the engine on other implementations inside the block: ``using(tape=MyTape, executor=...)``.

    Every implementation is checked against its seam's protocol before anything is
    installed, so a bad one leaves the engine untouched. ``None`` leaves a slot as it is.
    """
    chosen = []
    for name, implementation in implementations.items():
        if implementation is not None:
            slot = seam(name)
            chosen.append((slot, slot.check(implementation)))
    for slot, implementation in chosen:
        slot._active.append(implementation)
        slot.replaced = True
        if slot.on_change is not None:
            slot.on_change()
    try:
        yield
    finally:
        for slot, implementation in reversed(chosen):
            # (remove this block's entry even if an inner block forgot to leave: identity, from the end)
            for i in range(len(slot._active) - 1, -1, -1):
                if slot._active[i] is implementation:
                    del slot._active[i]
                    break
            slot.replaced = bool(slot._active)
            if slot.on_change is not None:
                slot.on_change()
