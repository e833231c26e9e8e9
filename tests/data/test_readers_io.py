"""tf.io and tf.train pieces of the file readers against TF 2.21 (``record_readers_goldens.py``): TFRecordWriter's
bytes, tf_record_iterator, tf.train.Example's wire bytes and text, parse_example, decode_csv, serialize_tensor,
read_file/write_file and gfile."""
import os

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import engine as tf
import readers_cases as cases
from readers_testlib import DATA, G, check, dec, default, outcome, tensor_value, val


# ---------------------------------------------------------------------------------------------
# TFRecordWriter / tf_record_iterator / TFRecordOptions
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("compression,options", [("NONE", None), ("GZIP", "GZIP"), ("ZLIB", "ZLIB"),
                                                 ("GZIP_level1", ("GZIP", 1))])
def test_writer_bytes_equal_tf(tmp_path, compression, options):
    if isinstance(options, tuple):
        options = tf.io.TFRecordOptions(options[0], compression_level=options[1])
    path = str(tmp_path / "w.tfrecord")
    with tf.io.TFRecordWriter(path, options) as w:
        for r in cases.RECORDS:
            w.write(r)
    with open(path, "rb") as f:
        assert f.read() == dec(G["tfrecord"]["bytes_" + compression])


@pytest.mark.parametrize("compression", ["NONE", "GZIP", "ZLIB"])
def test_tf_record_iterator_reads_tf_files(compression):
    name = {"NONE": "records.tfrecord", "GZIP": "records.gzip.tfrecord", "ZLIB": "records.zlib.tfrecord"}[compression]
    options = None if compression == "NONE" else tf.io.TFRecordOptions(compression)
    got = list(tf.compat.v1.io.tf_record_iterator(os.path.join(DATA, name), options))
    assert got == dec(G["tfrecord"]["iterator_" + compression])
    if options is not None:   # a compression type string works too
        assert list(tf.compat.v1.io.tf_record_iterator(os.path.join(DATA, name), compression)) == got


@pytest.mark.parametrize("case_id,how", cases.TFRECORD_DAMAGE, ids=[c[0] for c in cases.TFRECORD_DAMAGE])
def test_tf_record_iterator_damaged(tmp_path, case_id, how):
    with open(os.path.join(DATA, "records.tfrecord"), "rb") as f:
        data = bytearray(f.read())
    kind, arg = how
    if kind == "truncate":
        data = data[:arg]
    else:
        data[arg] ^= 1
    path = tmp_path / "d.tfrecord"
    path.write_bytes(bytes(data))
    check(G["tfrecord"]["iterator_" + case_id], outcome(lambda: list(tf.compat.v1.io.tf_record_iterator(str(path)))))


def test_record_errors(tmp_path):
    g = G["tfrecord"]
    check(g["missing_iterator"], outcome(lambda: list(tf.compat.v1.io.tf_record_iterator(str(tmp_path / "nope.rec"))),
                                         tmp_path))
    check(g["options_bad"], outcome(lambda: tf.io.TFRecordOptions("BAD")))
    check(g["options_lowercase"], outcome(lambda: tf.io.TFRecordOptions("gzip")))
    check(g["writer_missing_dir"], outcome(lambda: tf.io.TFRecordWriter(str(tmp_path / "no" / "dir" / "w.rec")),
                                           tmp_path))
    w = tf.io.TFRecordWriter(str(tmp_path / "closed.rec"))
    w.close()
    check(g["write_closed"], outcome(lambda: w.write(b"x")))
    assert tf.io.TFRecordOptions.get_compression_type_string("GZIP") == "GZIP"
    assert tf.io.TFRecordOptions.get_compression_type_string(None) == ""


@settings(max_examples=25, deadline=None)
@given(st.lists(st.binary(max_size=40), max_size=6), st.sampled_from(["", "GZIP", "ZLIB"]))
def test_write_read_round_trip(tmp_path_factory, records, compression):
    path = str(tmp_path_factory.mktemp("rt") / "r.tfrecord")
    with tf.io.TFRecordWriter(path, compression) as w:
        for r in records:
            w.write(r)
    assert list(tf.compat.v1.io.tf_record_iterator(path, compression)) == records
    assert [val(r) for r in tf.data.TFRecordDataset(path, compression_type=compression)] == records


# ---------------------------------------------------------------------------------------------
# tf.train.Example
# ---------------------------------------------------------------------------------------------
def build_example(features):
    return cases.build_example(tf, features)


@pytest.mark.parametrize("case_id,features", cases.EXAMPLES, ids=[c[0] for c in cases.EXAMPLES])
def test_example_bytes_and_text(case_id, features):
    golden = G["example"][case_id]
    ex = build_example(features)
    data = ex.SerializeToString()
    assert data == dec(golden["bytes"])            # TF's SerializeToString(deterministic=True)
    if len(features) <= 1:
        assert data == dec(golden["default_bytes"])
        assert str(ex) == golden["text"]
    back = tf.train.Example.FromString(dec(golden["default_bytes"]))     # TF's own (hash-ordered) bytes
    assert back == ex and back.SerializeToString() == data
    for key, (kind, values) in features.items():
        feature = back.features.feature[key]
        assert feature.WhichOneof("kind") == (None if kind == "none" else kind + "_list")
        if kind == "float":
            np.testing.assert_array_equal(feature.float_list.value, np.float32(values))
        elif kind != "none":
            assert list(getattr(feature, kind + "_list").value) == values


def test_example_api():
    g = G["example"]
    assert tf.train.Example().SerializeToString() == dec(g["empty_message"])
    assert tf.train.Example(features=tf.train.Features()).SerializeToString() == dec(g["empty_features"])
    assert str(tf.train.Feature(float_list=tf.train.FloatList(value=[0.5, 2.0]))) == g["feature_text"]
    check(g["bad_bytes"], outcome(lambda: tf.train.BytesList(value=["str"])))
    check(g["bad_int"], outcome(lambda: tf.train.Int64List(value=[1.5])))
    ex = tf.train.Example()
    ex.features.feature["x"].int64_list.value.append(4)       # filling an unset list selects it
    ex.features.feature["x"].int64_list.value.extend([5, 6])
    assert ex.features.feature["x"].WhichOneof("kind") == "int64_list"
    assert tf.train.Example.FromString(ex.SerializeToString()).features.feature["x"].int64_list.value == [4, 5, 6]
    copy = tf.train.Example()
    copy.CopyFrom(ex)
    assert copy == ex and copy is not ex


@settings(max_examples=30, deadline=None)
@given(st.dictionaries(st.text(max_size=6), st.one_of(
    st.tuples(st.just("int64"), st.lists(st.integers(-(2 ** 63), 2 ** 63 - 1), max_size=4)),
    st.tuples(st.just("float"), st.lists(st.floats(width=32, allow_nan=False), max_size=4)),
    st.tuples(st.just("bytes"), st.lists(st.binary(max_size=8), max_size=4))), max_size=4))
def test_example_round_trip_and_parse(features):
    ex = build_example(features)
    back = tf.train.Example.FromString(ex.SerializeToString())
    assert back == ex
    for key, (kind, values) in features.items():
        if kind == "int64":
            assert list(back.features.feature[key].int64_list.value) == values
    fixed = {k: v for k, v in features.items() if v[1]}
    if fixed:
        spec = {k: tf.io.FixedLenFeature([len(v)], {"int64": tf.int64, "float": tf.float32, "bytes": tf.string}[kind])
                for k, (kind, v) in fixed.items()}
        parsed = tf.io.parse_single_example(ex.SerializeToString(), spec)
        for k, (kind, v) in fixed.items():
            got = val(parsed[k])
            assert got == (list(np.float32(v).tolist()) if kind == "float" else v)


# ---------------------------------------------------------------------------------------------
# parse_example / parse_single_example
# ---------------------------------------------------------------------------------------------
def feature_spec(spec):
    return cases.feature_spec(tf, spec)


def _has_sparse():
    return getattr(tf, "SparseTensor", None) is not None and tf.io.parsing.SparseTensor is not None


@pytest.mark.parametrize("case_id,ids,spec,single", cases.PARSE_CASES, ids=[c[0] for c in cases.PARSE_CASES])
def test_parse_example(case_id, ids, spec, single):
    if any(s[0] == "var" for s in spec.values()) and not _has_sparse():
        pytest.skip("VarLenFeature needs tf.SparseTensor, which the engine does not have yet")
    serialized = dec(G["parse"]["serialized"])      # the bytes TF wrote (its own map order)
    assert {k: tf.train.Example.FromString(v) for k, v in serialized.items()} == \
        {k: build_example(f) for k, f in cases.PARSE_EXAMPLES}
    records = [serialized[i] for i in ids]

    def run():
        if single:
            out = tf.io.parse_single_example(records[0], feature_spec(spec))
        else:
            out = tf.io.parse_example(records, feature_spec(spec))
        return {k: (tensor_value(v) if not hasattr(v, "indices") else
                    {"indices": val(v.indices), "values": val(v.values), "dense_shape": val(v.dense_shape)})
                for k, v in out.items()}
    golden = G["parse"][case_id]
    got = outcome(run)
    if case_id == "bad_dtype":       # TF's message goes on with the op's whole definition; the first line is TF's
        assert got["error"][0] == golden["error"][0]
        assert golden["error"][1].startswith(got["error"][1])
        return
    check(golden, got)


def test_parse_example_in_function_and_map():
    spec = feature_spec({"a": ("fixed", [2], "int64", None), "f": ("fixed", [], "float32", None),
                         "s": ("fixed", [], "string", "dflt")})

    @tf.function
    def parse(x):
        return tf.io.parse_example(x, spec)
    concrete = parse.get_concrete_function(tf.TensorSpec([None], tf.string))
    assert {k: [v.dtype.name, str(v.shape)] for k, v in concrete.structured_outputs.items()} == \
        G["parse"]["traced_shapes"]
    serialized = [build_example(f).SerializeToString() for _, f in cases.PARSE_EXAMPLES[:2]]
    out = parse(tf.constant(serialized))
    assert val(out["a"]) == [[1, 2], [3, 4]] and val(out["s"]) == [b"x", b"dflt"]
    ds = tf.data.Dataset.from_tensor_slices(serialized).map(lambda r: tf.io.parse_single_example(r, spec))
    assert [val(e["f"]) for e in ds] == [0.5, 1.5]
    check(G["parse"]["empty_features"], outcome(lambda: tf.io.parse_single_example(serialized[0], {})))

    @tf.function
    def parse_seq(x):
        return tf.io.parse_example(x, {"a": tf.io.FixedLenSequenceFeature([2], tf.int64, allow_missing=True)})
    assert str(parse_seq.get_concrete_function(tf.TensorSpec([None], tf.string)).structured_outputs["a"].shape) == \
        G["parse"]["traced_seq_shape"]


def test_var_len_feature_in_function_and_map():
    if not _has_sparse():
        pytest.skip("VarLenFeature needs tf.SparseTensor, which the engine does not have yet")
    serialized = dec(G["parse"]["serialized"])
    golden = dec(G["parse"]["var_batch"]["value"])["a"]
    spec = {"a": tf.io.VarLenFeature(tf.int64)}

    @tf.function
    def parse(x):
        return tf.io.parse_example(x, spec)["a"]
    sparse = parse(tf.constant([serialized["e1"], serialized["e2"]]))
    assert [val(sparse.indices), val(sparse.values), val(sparse.dense_shape)] == \
        [golden["indices"], golden["values"], golden["dense_shape"]]
    ds = tf.data.Dataset.from_tensor_slices([serialized["e1"], serialized["e2"]]).map(
        lambda r: tf.io.parse_single_example(r, spec)["a"])
    assert [val(s.values) for s in ds] == [[1, 2], [3, 4]]


# ---------------------------------------------------------------------------------------------
# decode_csv
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("case_id,records,defaults,kwargs", cases.DECODE_CSV_CASES + cases.DECODE_CSV_VALUE_ERRORS,
                         ids=[c[0] for c in cases.DECODE_CSV_CASES + cases.DECODE_CSV_VALUE_ERRORS])
def test_decode_csv(case_id, records, defaults, kwargs):
    got = outcome(lambda: [tensor_value(t) for t in tf.io.decode_csv(records, [default(d) for d in defaults],
                                                                     **kwargs)])
    check(G["decode_csv"][case_id], got)


def test_decode_csv_traced_shapes_and_map():
    @tf.function
    def f(x):
        return tf.io.decode_csv(x, [[0], [0.0]])
    outs = f.get_concrete_function(tf.TensorSpec([None], tf.string)).structured_outputs
    assert [[t.dtype.name, str(t.shape)] for t in outs] == G["decode_csv"]["traced_shapes"]
    assert [val(t) for t in f(tf.constant(["1,2", "3,4.5"]))] == [[1, 3], [2.0, 4.5]]
    ds = tf.data.Dataset.from_tensor_slices(["1,a", "2,b"]).map(lambda line: tf.io.decode_csv(line, [[0], [""]]))
    assert [[val(c) for c in e] for e in ds] == [[1, b"a"], [2, b"b"]]
    assert [[val(c) for c in e] for e in tf.data.Dataset.from_tensor_slices(["1,a", "2,b"]).batch(2).map(
        lambda lines: tf.io.decode_csv(lines, [[0], [""]]))] == [[[1, 2], [b"a", b"b"]]]


# ---------------------------------------------------------------------------------------------
# serialize_tensor / parse_tensor, read_file / write_file, gfile
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("case_id,value,dtype", cases.SERIALIZE_TENSOR_CASES,
                         ids=[c[0] for c in cases.SERIALIZE_TENSOR_CASES])
def test_serialize_tensor(case_id, value, dtype):
    t = tf.constant(value, dtype=getattr(tf, dtype))
    data = tf.io.serialize_tensor(t)
    assert val(data) == dec(G["serialize_tensor"][case_id])
    back = tf.io.parse_tensor(data, getattr(tf, dtype))
    assert back.dtype == t.dtype and back.shape == t.shape and val(back) == val(t)


def test_parse_tensor_wrong_type():
    check(G["serialize_tensor"]["parse_wrong_type"],
          outcome(lambda: tf.io.parse_tensor(tf.io.serialize_tensor(tf.constant([1, 2])), tf.float32)))


def test_read_write_file_and_gfile(tmp_path):
    path = str(tmp_path / "sub" / "f.bin")
    tf.io.write_file(path, b"abc\x00")
    assert val(tf.io.read_file(path)) == b"abc\x00"
    check(G["textline"]["read_file_missing"], outcome(lambda: tf.io.read_file(str(tmp_path / "nope")), tmp_path))

    @tf.function
    def reread(p):
        return tf.io.read_file(p)
    assert val(reread(tf.constant(path))) == b"abc\x00"
    assert tf.io.gfile.exists(path) and tf.io.gfile.isdir(str(tmp_path / "sub"))
    tf.io.gfile.makedirs(str(tmp_path / "a" / "b"))
    with tf.io.gfile.GFile(str(tmp_path / "a" / "t.txt"), "w") as f:
        f.write("one\ntwo\n")
    with tf.io.gfile.GFile(str(tmp_path / "a" / "t.txt")) as f:
        assert f.read() == "one\ntwo\n"
    assert tf.io.gfile.listdir(str(tmp_path / "a")) == ["b", "t.txt"]
    assert tf.io.gfile.glob(str(tmp_path / "a" / "*.txt")) == [str(tmp_path / "a" / "t.txt")]
    assert val(tf.io.matching_files(str(tmp_path / "*" / "*.txt"))) == [os.fsencode(tmp_path / "a" / "t.txt")]
    with pytest.raises(tf.errors.NotFoundError):
        tf.io.gfile.GFile(str(tmp_path / "missing")).read()
    with pytest.raises(tf.errors.NotFoundError):
        tf.io.gfile.listdir(str(tmp_path / "missing"))
