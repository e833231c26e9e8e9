"""``tf.test``: testing helpers, notably the numerical gradient checker.

``compute_gradient(f, x)`` returns the *theoretical* Jacobians (from the tape)
and the *numerical* ones (central finite differences) so you can compare them,
exactly as ``tf.test.compute_gradient`` does. Every differentiable op in the
engine is checked this way in ``tests/``.
"""
import numpy as np

from .eager.tape import GradientTape
from .framework.backend import gpu_count
from .framework.tensor import constant, convert_to_tensor
from .ops import array_ops

__all__ = ["compute_gradient", "is_gpu_available", "is_built_with_cuda", "gpu_device_name"]


def _jacobian_rows(f, xs):
    y = f(*xs)
    y = convert_to_tensor(y)
    n_y = max(y.shape.num_elements(), 0)
    rows = [np.zeros((n_y, max(x.shape.num_elements(), 0)), dtype=np.float64) for x in xs]
    for i in range(n_y):
        with GradientTape() as tape:
            for x in xs:
                tape.watch(x)
            y = convert_to_tensor(f(*xs))
        seed = np.zeros(n_y, dtype=y.dtype.as_numpy_dtype)
        seed[i] = 1
        grads = tape.gradient(y, list(xs), output_gradients=array_ops.reshape(constant(seed), y.shape.as_list()))
        for k, g in enumerate(grads):
            if g is not None:   # (a sparse gradient, tf.IndexedSlices, is densified, as TF's checker does)
                rows[k][i] = np.asarray(convert_to_tensor(g), dtype=np.float64).ravel()
    return rows, y


def compute_gradient(f, x, delta=None):
    """``(theoretical, numerical)``: tuples of Jacobians, one per argument, each ``(y_size, x_size)``.

    As TF's: ``x`` must be a list or tuple (``ValueError`` otherwise); the default step is
    ``1/1024``, for every dtype (a power of two, so ``x ± delta`` adds no rounding error of its
    own); the Jacobians have the real dtype of ``y`` (float32 for a float32 function). The
    theoretical rows are computed in float64 and cast, so they equal the tape's gradients."""
    if not isinstance(x, (list, tuple)):
        raise ValueError("`x` must be a list or tuple of values convertible to a Tensor (arguments to `f`), "
                         f"not a {type(x)}")
    xs = [convert_to_tensor(v) for v in x]
    theoretical, y = _jacobian_rows(f, xs)
    if delta is None:
        delta = 1.0 / 1024
    numerical = []
    n_y = max(y.shape.num_elements(), 0)
    for k, xk in enumerate(xs):
        base = np.array(xk.numpy(), dtype=xk.dtype.as_numpy_dtype)
        jac = np.zeros((n_y, base.size), dtype=np.float64)
        for j in range(base.size):
            plus, minus = base.copy(), base.copy()
            plus.flat[j] += delta
            minus.flat[j] -= delta
            args_p = list(xs)
            args_m = list(xs)
            args_p[k] = constant(plus)
            args_m[k] = constant(minus)
            yp = np.asarray(convert_to_tensor(f(*args_p)), dtype=np.float64).ravel()
            ym = np.asarray(convert_to_tensor(f(*args_m)), dtype=np.float64).ravel()
            jac[:, j] = (yp - ym) / (2 * delta)
        numerical.append(jac)
    out_dtype = y.dtype.as_numpy_dtype if y.dtype.is_floating else np.float64
    return tuple(t.astype(out_dtype) for t in theoretical), tuple(n.astype(out_dtype) for n in numerical)


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    return gpu_count() > 0


def is_built_with_cuda():
    return True


def gpu_device_name():
    return "/device:GPU:0" if gpu_count() else ""
