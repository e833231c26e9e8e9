"""Properties of the string ops on random text (hypothesis), and the string tensors' representation."""
import base64

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import engine as tf
from engine.ops.string_hash_ops import fingerprint64

TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)
BYTES = st.binary(max_size=40)
SETTINGS = settings(max_examples=40, deadline=None)


@SETTINGS
@given(st.lists(TEXT, min_size=1, max_size=5))
def test_lengths_count_bytes_and_characters(words):
    t = tf.constant(words)
    assert tf.strings.length(t).numpy().tolist() == [len(w.encode("utf-8")) for w in words]
    assert tf.strings.length(t, unit="UTF8_CHAR").numpy().tolist() == [len(w) for w in words]


@SETTINGS
@given(st.lists(BYTES, min_size=1, max_size=5))
def test_any_bytes_survive_a_tensor(values):
    """Every byte is kept, trailing NULs too (TF's strings are arbitrary bytes)."""
    t = tf.constant(values)
    assert t.numpy().tolist() == values
    assert [t[i].numpy() for i in range(len(values))] == values
    assert tf.strings.length(t).numpy().tolist() == [len(v) for v in values]
    assert tf.io.decode_base64(tf.io.encode_base64(t)).numpy().tolist() == values
    assert tf.io.encode_base64(t, pad=True).numpy().tolist() == [base64.urlsafe_b64encode(v) for v in values]


@SETTINGS
@given(st.lists(st.text(alphabet="ab, ", max_size=10), min_size=1, max_size=4))
def test_split_then_join_gives_back_the_strings(words):
    parts = tf.strings.split(tf.constant(words), sep=",")
    joined = tf.strings.reduce_join(parts, axis=-1, separator=",")
    assert joined.numpy().tolist() == [w.encode() for w in words]
    assert parts.to_list() == [[p.encode() for p in w.split(",")] for w in words]


@SETTINGS
@given(st.lists(TEXT, min_size=1, max_size=4))
def test_unicode_decode_encode_round_trip(words):
    t = tf.constant(words)
    codes = tf.strings.unicode_decode(t, "UTF-8")
    assert codes.to_list() == [[ord(c) for c in w] for w in words]
    assert tf.strings.unicode_encode(codes, "UTF-8").numpy().tolist() == [w.encode("utf-8") for w in words]
    utf16 = tf.strings.unicode_transcode(t, "UTF-8", "UTF-16-BE")
    assert utf16.numpy().tolist() == [w.encode("utf-16-be") for w in words]
    assert tf.strings.unicode_split(t, "UTF-8").to_list() == [[c.encode("utf-8") for c in w] for w in words]


@SETTINGS
@given(st.lists(st.integers(-2**31, 2**31 - 1), min_size=1, max_size=5))
def test_as_string_and_to_number_round_trip_integers(values):
    t = tf.constant(values, tf.int32)
    text = tf.strings.as_string(t)
    assert text.numpy().tolist() == [str(v).encode() for v in values]
    assert tf.strings.to_number(text, out_type=tf.int32).numpy().tolist() == values


@SETTINGS
@given(st.lists(TEXT, min_size=1, max_size=4), st.integers(-3, 3), st.integers(-1, 4))
def test_substr_is_python_slicing(words, pos, n):
    data = [w.encode("utf-8") for w in words]
    if any(pos > len(d) or pos < -len(d) for d in data):
        return
    got = tf.strings.substr(tf.constant(data), pos, n).numpy().tolist()
    want = []
    for d in data:
        start = pos + len(d) if pos < 0 else pos
        want.append(d[start:] if n < 0 else d[start:start + n])
    assert got == want


def test_fingerprint64_of_lengths_around_every_branch():
    """farmhash's branches (0-16, 17-32, 33-64, longer) all give fixed 64-bit values (no overflow)."""
    for n in (0, 1, 3, 4, 8, 16, 17, 32, 33, 64, 65, 128, 129):
        v = fingerprint64(b"x" * n)
        assert 0 <= v < 2 ** 64


def test_string_numpy_values_are_tf_s_view():
    t = tf.constant(["ab", "c"])
    value = t.numpy()
    assert value.dtype == object and all(isinstance(x, bytes) for x in value)
    assert type(tf.constant("a").numpy()) is bytes
    assert np.asarray(t).dtype == object
    assert tf.constant(value).numpy().tolist() == [b"ab", b"c"]   # an object array converts back
    assert tf.as_dtype(np.object_) == tf.string
