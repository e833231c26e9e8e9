"""The buckets of a TF 2 histogram summary: a ``[k, 3]`` float64 array of ``(left, right, count)`` rows.

TensorBoard's ``histogram`` summary (``tensorboard/plugins/histogram/summary_v2.py``, which
``tf.summary.histogram`` is) builds them from ~20 TF ops; this is the same arithmetic, in float64:

* the data is flattened and cast to float64; ``bucket_count`` (default 30) is clipped at 0;
* no data, or no buckets: ``bucket_count`` rows of zeros (``[0, 3]`` when ``bucket_count`` is 0);
* all values equal: every edge is that value, the last bucket holds every count;
* otherwise ``width = (max - min) / bucket_count``, value ``x`` goes to bucket
  ``min(floor((x - min) / width), bucket_count - 1)`` (so ``max`` lands in the last bucket), and the
  edges are ``min + i * width`` (``tf.linspace``), the last one exactly ``max``.
"""
import numpy as np

__all__ = ["DEFAULT_BUCKET_COUNT", "histogram_buckets"]

DEFAULT_BUCKET_COUNT = 30


def histogram_buckets(data, bucket_count=DEFAULT_BUCKET_COUNT):
    """The ``[k, 3]`` float64 ``(left_edge, right_edge, count)`` rows TF writes for ``data``."""
    bucket_count = max(0, int(bucket_count))
    data = np.asarray(data).reshape(-1).astype(np.float64)
    if data.size == 0 or bucket_count == 0:
        return np.zeros((bucket_count, 3), np.float64)
    min_, max_ = data.min(), data.max()
    range_ = max_ - min_
    if range_ == 0:
        edges = np.full(bucket_count, max_)
        counts = np.zeros(bucket_count, np.float64)
        counts[-1] = data.size
        return np.stack([edges, edges, counts]).T.copy()
    width = range_ / np.float64(bucket_count)
    with np.errstate(invalid="ignore"):
        indices = np.floor((data - min_) / width)
    indices = np.minimum(np.where(np.isfinite(indices), indices, -1).astype(np.int64), bucket_count - 1)
    counts = np.bincount(indices[indices >= 0], minlength=bucket_count).astype(np.float64)
    delta = range_ / np.float64(bucket_count)
    edges = min_ + delta * np.arange(bucket_count + 1, dtype=np.float64)
    edges[0], edges[-1] = min_, max_
    return np.stack([edges[:-1], edges[1:], counts]).T.copy()
