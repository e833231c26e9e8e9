"""``tf.strings.to_hash_bucket_fast``: strings to buckets by farmhash's ``Fingerprint64``, exactly TF's values.

``fingerprint64`` is a port of ``farmhashna::Hash64`` (what ``farmhash::Fingerprint64`` is), with
Python integers masked to 64 bits. The op is not differentiable; a RaggedTensor input runs on its
``flat_values``.
"""
import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.registry import register_op
from ..framework.tensor import string_list
from ._dispatch import execute
from .string_ops import _numbers_out, _on_flat_values, _same_shape, _shape, _string_input

__all__ = ["to_hash_bucket_fast", "fingerprint64"]

_STRING = frozenset([dtypes.string])


# --------------------------------------------------------------------------------------
# to_hash_bucket_fast: farmhash's Fingerprint64, as TF
# --------------------------------------------------------------------------------------
_M64 = (1 << 64) - 1
_K0, _K1, _K2 = 0xc3a5c85c97cb3127, 0xb492b66fbe98f273, 0x9ae16a3b2f90404f


def _fetch64(s, i):
    return int.from_bytes(s[i:i + 8], "little")


def _fetch32(s, i):
    return int.from_bytes(s[i:i + 4], "little")


def _rotate(v, shift):
    return v if shift == 0 else ((v >> shift) | (v << (64 - shift))) & _M64


def _shift_mix(v):
    return v ^ (v >> 47)


def _hash_len16(u, v, mul):
    a = ((u ^ v) * mul) & _M64
    a ^= a >> 47
    b = ((v ^ a) * mul) & _M64
    b ^= b >> 47
    return (b * mul) & _M64


def _hash_len0to16(s, n):
    if n >= 8:
        mul = _K2 + n * 2
        a = (_fetch64(s, 0) + _K2) & _M64
        b = _fetch64(s, n - 8)
        c = (_rotate(b, 37) * mul + a) & _M64
        d = ((_rotate(a, 25) + b) * mul) & _M64
        return _hash_len16(c, d, mul)
    if n >= 4:
        mul = _K2 + n * 2
        a = _fetch32(s, 0)
        return _hash_len16((n + (a << 3)) & _M64, _fetch32(s, n - 4), mul)
    if n > 0:
        a, b, c = s[0], s[n >> 1], s[n - 1]
        y = (a + (b << 8)) & 0xFFFFFFFF
        z = (n + (c << 2)) & 0xFFFFFFFF
        return (_shift_mix(((y * _K2) ^ (z * _K0)) & _M64) * _K2) & _M64
    return _K2


def _hash_len17to32(s, n):
    mul = _K2 + n * 2
    a = (_fetch64(s, 0) * _K1) & _M64
    b = _fetch64(s, 8)
    c = (_fetch64(s, n - 8) * mul) & _M64
    d = (_fetch64(s, n - 16) * _K2) & _M64
    return _hash_len16((_rotate((a + b) & _M64, 43) + _rotate(c, 30) + d) & _M64,
                       (a + _rotate((b + _K2) & _M64, 18) + c) & _M64, mul)


def _hash_len33to64(s, n):
    mul = _K2 + n * 2
    a = (_fetch64(s, 0) * _K2) & _M64
    b = _fetch64(s, 8)
    c = (_fetch64(s, n - 8) * mul) & _M64
    d = (_fetch64(s, n - 16) * _K2) & _M64
    y = (_rotate((a + b) & _M64, 43) + _rotate(c, 30) + d) & _M64
    z = _hash_len16(y, (a + _rotate((b + _K2) & _M64, 18) + c) & _M64, mul)
    e = (_fetch64(s, 16) * mul) & _M64
    f = _fetch64(s, 24)
    g = ((y + _fetch64(s, n - 32)) * mul) & _M64
    h = ((z + _fetch64(s, n - 24)) * mul) & _M64
    return _hash_len16((_rotate((e + f) & _M64, 43) + _rotate(g, 30) + h) & _M64,
                       (e + _rotate((f + a) & _M64, 18) + g) & _M64, mul)


def _weak_hash32(s, i, a, b):
    w, x, y, z = _fetch64(s, i), _fetch64(s, i + 8), _fetch64(s, i + 16), _fetch64(s, i + 24)
    a = (a + w) & _M64
    b = _rotate((b + a + z) & _M64, 21)
    c = a
    a = (a + x + y) & _M64
    b = (b + _rotate(a, 44)) & _M64
    return (a + z) & _M64, (b + c) & _M64


def fingerprint64(s):
    """farmhash's ``Fingerprint64`` of bytes (``farmhashna::Hash64``): TF's string fingerprint."""
    n = len(s)
    if n <= 16:
        return _hash_len0to16(s, n)
    if n <= 32:
        return _hash_len17to32(s, n)
    if n <= 64:
        return _hash_len33to64(s, n)
    seed = 81
    x = seed
    y = (seed * _K1 + 113) & _M64
    z = (_shift_mix((y * _K2 + 113) & _M64) * _K2) & _M64
    v = (0, 0)
    w = (0, 0)
    x = (x * _K2 + _fetch64(s, 0)) & _M64
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    i = 0
    while True:
        x = (_rotate((x + y + v[0] + _fetch64(s, i + 8)) & _M64, 37) * _K1) & _M64
        y = (_rotate((y + v[1] + _fetch64(s, i + 48)) & _M64, 42) * _K1) & _M64
        x ^= w[1]
        y = (y + v[0] + _fetch64(s, i + 40)) & _M64
        z = (_rotate((z + w[0]) & _M64, 33) * _K1) & _M64
        v = _weak_hash32(s, i, (v[1] * _K1) & _M64, (x + w[0]) & _M64)
        w = _weak_hash32(s, i + 32, (z + w[1]) & _M64, (y + _fetch64(s, i + 16)) & _M64)
        z, x = x, z
        i += 64
        if i == end:
            break
    mul = _K1 + ((z & 0xff) << 1)
    i = last64
    w = ((w[0] + ((n - 1) & 63)) & _M64, w[1])
    v = ((v[0] + w[0]) & _M64, v[1])
    w = ((w[0] + v[0]) & _M64, w[1])
    x = (_rotate((x + y + v[0] + _fetch64(s, i + 8)) & _M64, 37) * mul) & _M64
    y = (_rotate((y + v[1] + _fetch64(s, i + 48)) & _M64, 42) * mul) & _M64
    x ^= (w[1] * 9) & _M64
    y = (y + v[0] * 9 + _fetch64(s, i + 40)) & _M64
    z = (_rotate((z + w[0]) & _M64, 33) * mul) & _M64
    v = _weak_hash32(s, i, (v[1] * mul) & _M64, (x + w[0]) & _M64)
    w = _weak_hash32(s, i + 32, (z + w[1]) & _M64, (y + _fetch64(s, i + 16)) & _M64)
    z, x = x, z
    return _hash_len16((_hash_len16(v[0], w[0], mul) + _shift_mix(y) * _K0 + z) & _M64,
                       (_hash_len16(v[1], w[1], mul) + x) & _M64, mul)


def _hash_kernel(xp):
    def k(input, num_buckets=1):  # noqa: A002
        flat = [fingerprint64(s) % num_buckets for s in string_list(input)]
        return _numbers_out(flat, _shape(input), np.int64)
    return k


_TO_HASH_BUCKET_FAST = register_op("StringToHashBucketFast", kernel=_hash_kernel, infer=_same_shape(dtypes.int64),
                                   grad=None, dtypes=_STRING, inputs="input: string",
                                   doc="Each string's Fingerprint64 modulo num_buckets.")


def to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002
    """``tf.strings.to_hash_bucket_fast``: each string's bucket in ``[0, num_buckets)`` (int64): farmhash's
    ``Fingerprint64`` of its bytes modulo ``num_buckets``, exactly TF's values."""
    if int(num_buckets) < 1:
        raise InvalidArgumentError(None, None, "Value for attr 'num_buckets' of 0 must be at least minimum 1")
    return _on_flat_values(lambda x: execute(_TO_HASH_BUCKET_FAST, (_string_input(x, "StringToHashBucketFast"),),
                                             {"num_buckets": int(num_buckets)}, name=name), input)
