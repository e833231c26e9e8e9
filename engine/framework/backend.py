"""Array backends: where a kernel's arrays live and which module computes on them.

Every kernel in the op registry is written once against an *array module* ``xp``
that is either ``numpy`` (CPU) or ``cupy`` (GPU). CuPy is optional: this module
imports it lazily and reports cleanly when it or a GPU is missing, so the whole
engine, and every test that is not marked ``gpu``, runs on a CPU-only laptop.
"""
import numpy as np

__all__ = ["NUMPY", "cupy_module", "gpu_count", "to_numpy"]

NUMPY = "numpy"
CUPY = "cupy"

_cupy = None
_cupy_checked = False


def cupy_module():
    """Return the ``cupy`` module if it imports and sees a GPU, else ``None``."""
    global _cupy, _cupy_checked
    if not _cupy_checked:
        _cupy_checked = True
        try:
            import cupy  # noqa: WPS433  (optional dependency)
            if cupy.cuda.runtime.getDeviceCount() > 0:
                _cupy = cupy
        except Exception:  # no cupy, no driver, no device: all mean "CPU only"
            _cupy = None
    return _cupy


def gpu_count():
    cp = cupy_module()
    return 0 if cp is None else cp.cuda.runtime.getDeviceCount()


def array_module(backend):
    """The ``xp`` module for a backend name."""
    if backend == NUMPY:
        return np
    cp = cupy_module()
    if cp is None:
        raise RuntimeError("The GPU backend needs CuPy and a CUDA GPU; neither is available here.")
    return cp


def to_numpy(array):
    """Bring an array from any backend to host memory as a NumPy value."""
    if isinstance(array, (np.ndarray, np.generic)):
        return array
    cp = cupy_module()
    if cp is not None and isinstance(array, cp.ndarray):
        host = cp.asnumpy(array)
        return host[()] if host.ndim == 0 else host
    return np.asarray(array)
