"""``tf.recompute_grad``: trade compute for memory ("gradient checkpointing").

A tape keeps, for every recorded op, the values its gradient needs: for a deep
block that is every intermediate activation. ``recompute_grad(f)`` records the
whole call of ``f`` as *one* op whose saved values are only its inputs:

* **forward**: run ``f`` with recording paused, so no tape keeps its
  intermediates;
* **backward**: run ``f`` *again* on the saved inputs, this time under a fresh
  ``GradientTape``, and take the gradients of that recomputation (with respect
  to the inputs and to every variable ``f`` read), seeded with the incoming
  output gradients.

It is built, as in TF, on :func:`engine.custom_gradient`, which records the
single op and finds the variables ``f`` reads. The backward pass is written in
engine ops, so an outer tape can differentiate it again.

``f`` must be deterministic (the recomputation must reproduce the forward pass:
no unseeded randomness, no side effects that change its result). Keyword
arguments are passed to ``f`` and are not differentiated. Eager only.
"""
import functools

from ..util import nest
from .custom_gradient import custom_gradient
from .tape import GradientTape, UnconnectedGradients

__all__ = ["recompute_grad"]


def recompute_grad(f):
    """Wrap ``f`` so its intermediates are recomputed in the backward pass instead of stored.

    >>> block = tf.recompute_grad(lambda x: tf.tanh(tf.tanh(x)))
    >>> x = tf.constant(0.5)
    >>> with tf.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = block(x)
    >>> tape.gradient(y, x)           # the same value as without recompute_grad
    """

    def inner(*args, **kwargs):
        result = f(*args, **kwargs)   # custom_gradient runs this with every tape paused

        def grad_fn(*dresult, variables=None):
            dresult = nest.flatten(dresult)
            variables = list(variables or [])
            with GradientTape() as tape:
                tape.watch(list(args))
                if variables:
                    tape.watch(variables)
                recomputed = f(*args, **kwargs)
            grads = tape.gradient(nest.flatten(recomputed), list(args) + variables, output_gradients=dresult,
                                  unconnected_gradients=UnconnectedGradients.ZERO)
            input_grads, variable_grads = grads[:len(args)], grads[len(args):]
            if variables:
                return input_grads, variable_grads
            return input_grads[0] if len(args) == 1 else input_grads

        return result, grad_fn

    inner.__name__ = getattr(f, "__name__", "recompute_grad")   # the name the tape records
    return functools.wraps(f)(custom_gradient(inner))
