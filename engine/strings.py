"""``tf.strings``: ops on string tensors (byte strings: ``tf.constant("语言")`` holds its UTF-8 bytes).

The ops live in ``engine/ops/string_ops.py`` (lengths, joins, formatting, numbers, substrings,
splitting), ``regex_ops.py``, ``string_hash_ops.py`` and ``unicode_ops.py`` (decoding and encoding
text). ``split``, ``bytes_split``, ``unicode_decode`` and ``unicode_split`` give
``tf.RaggedTensor`` results for inputs of rank >= 1, as in TF.
"""
from .ops.regex_ops import regex_full_match, regex_replace  # noqa: F401
from .ops.string_hash_ops import to_hash_bucket_fast  # noqa: F401
from .ops.string_ops import (as_string, bytes_split, format, join, length, lower, reduce_join,  # noqa: F401,A004
                             split, string_to_number, strip, substr, to_number, upper)
from .ops.unicode_ops import (unicode_decode, unicode_decode_with_offsets, unicode_encode, unicode_script,  # noqa: F401
                              unicode_split, unicode_split_with_offsets, unicode_transcode)
