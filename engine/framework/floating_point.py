"""Quiet floating point: kernels compute ``0 * inf`` or ``exp(1000.)`` without a word, as TF's do.

TF's kernels never warn about overflow, division by zero or invalid values: they
return ``inf`` or ``nan``. NumPy warns ("overflow encountered in exp"), or raises
if the user set ``np.seterr(all="raise")``. So the registry runs the kernels of
arithmetic ops (rows registered with ``quiet_fp=True``) in NumPy's "ignore"
error state, whatever the user's NumPy settings.

``np.errstate(all="ignore")`` does exactly that, but costs more than a small op
itself; inside, it only sets a context variable to a prepared state, so this
module sets that variable directly (``FP_STATE.set(FP_IGNORE)``). On a NumPy
without that variable (NumPy 1.x), kernels fall back to ``np.errstate``.
"""
import contextvars

import numpy as np

__all__ = ["quiet", "quietly", "FP_STATE", "FP_IGNORE", "INLINE"]

try:
    from numpy._core._ufunc_config import _extobj_contextvar as FP_STATE
    from numpy._core.umath import _make_extobj
    FP_IGNORE = _make_extobj(all="ignore")
    INLINE = True        # setting FP_STATE really silences NumPy
except (ImportError, AttributeError):  # pragma: no cover  (other NumPy versions)
    FP_STATE, FP_IGNORE = contextvars.ContextVar("engine_unused_fp_state"), None
    INLINE = False


class quiet:
    """``with quiet():`` computes without NumPy floating-point warnings (a cheap ``np.errstate``)."""

    __slots__ = ("_token", "_fallback")

    def __enter__(self):
        if not INLINE:  # pragma: no cover
            self._fallback = np.errstate(all="ignore")
            self._fallback.__enter__()
        else:
            self._token = FP_STATE.set(FP_IGNORE)
        return self

    def __exit__(self, *exc):
        if not INLINE:  # pragma: no cover
            self._fallback.__exit__(*exc)
        else:
            FP_STATE.reset(self._token)
        return False


def quietly(fn):
    """``fn`` wrapped so that it runs without floating-point warnings."""
    if not INLINE:  # pragma: no cover
        def kernel(*args, **kwargs):
            with np.errstate(all="ignore"):
                return fn(*args, **kwargs)
        return kernel

    def kernel(*args, **kwargs):
        token = FP_STATE.set(FP_IGNORE)
        try:
            return fn(*args, **kwargs)
        finally:
            FP_STATE.reset(token)
    return kernel
