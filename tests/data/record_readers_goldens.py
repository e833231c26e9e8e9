"""Record the TF 2.21 goldens of ``test_readers*.py`` (file readers, CSV, TFRecord, tf.train.Example, parsing).

Run under a real TensorFlow (never imported by the engine or by pytest: the name has no ``test_`` prefix):

    /tmp/tfvenv/bin/python tests/data/record_readers_goldens.py

It rewrites ``tests/data/readers_golden.json`` and the files TF writes in ``tests/data/readers_testdata/``
(TFRecord files, plain and compressed, of ``readers_cases.RECORDS`` and of serialized Examples). The cases
are in ``readers_cases.py``. Bytes are stored as hex strings prefixed ``"b:"``; an error as
``{"error": [class name, message]}`` with TF's ``{{function_node ...}}`` prefix and `` [Op:...]`` suffix cut.
"""
import gzip
import json
import os
import re
import sys
import tempfile
import zlib

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import readers_cases as cases  # noqa: E402

DATA = os.path.join(HERE, "readers_testdata")


def enc(value):
    """JSON form of a value: bytes -> "b:<hex>", arrays -> lists, NaN kept (json writes NaN)."""
    if isinstance(value, (bytes, np.bytes_)):
        return "b:" + bytes(value).hex()
    if isinstance(value, np.ndarray):
        return [enc(v) for v in value.tolist()] if value.dtype != object else [enc(v) for v in value.tolist()]
    if isinstance(value, (list, tuple)):
        return [enc(v) for v in value]
    if isinstance(value, dict):
        return {k: enc(v) for k, v in value.items()}
    if isinstance(value, np.generic):
        return value.item() if not isinstance(value, np.bytes_) else enc(bytes(value))
    return value


def tensor_value(t):
    if isinstance(t, tf.SparseTensor):
        return {"indices": enc(t.indices.numpy()), "values": enc(t.values.numpy()),
                "dense_shape": enc(t.dense_shape.numpy())}
    return {"dtype": t.dtype.name, "shape": list(t.shape), "value": enc(t.numpy())}


def core(message):
    message = re.sub(r"^\{\{function_node [^}]*\}\} ", "", message)
    message = re.sub(r"\s*\[Op:[A-Za-z0-9_]+\]( name: .*)?$", "", message, flags=re.S)
    return message


TMP = tempfile.mkdtemp()


def error(e):
    """An error as ``[class name, message]``, the scratch folder's path written ``<tmp>``."""
    return {"error": [type(e).__name__, core(str(e)).replace(TMP, "<tmp>")]}


def default(d):
    if isinstance(d, str) and hasattr(tf, d) and isinstance(getattr(tf, d), tf.DType):
        return getattr(tf, d)
    if isinstance(d, tuple) and d[0] == "empty":
        return tf.constant([], dtype=getattr(tf, d[1]))
    if isinstance(d, tuple) and d[0] == "t":
        return tf.constant(d[1], dtype=getattr(tf, d[2]))
    return d


def elements(ds):
    out = []
    for e in ds:
        out.append([enc(v.numpy()) for v in e] if isinstance(e, tuple) else enc(e.numpy()))
    return out


def run(fn):
    try:
        return {"value": fn()}
    except Exception as e:  # noqa: BLE001
        return error(e)


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def main():
    os.makedirs(DATA, exist_ok=True)
    golden = {}
    tmp = TMP

    # --- text lines --------------------------------------------------------------------------
    for name, data in cases.TEXT_FILES.items():
        write(os.path.join(tmp, name), data)
    write(os.path.join(tmp, "lines.txt.gz"), gzip.compress(cases.COMPRESSED_TEXT, mtime=0))
    write(os.path.join(tmp, "lines.txt.z"), zlib.compress(cases.COMPRESSED_TEXT))
    text = {}
    for case_id, files, kwargs in cases.TEXTLINE_CASES:
        paths = os.path.join(tmp, files) if isinstance(files, str) else [os.path.join(tmp, f) for f in files]
        text[case_id] = run(lambda: elements(tf.data.TextLineDataset(paths, **kwargs)))
    text["int_filenames"] = run(lambda: tf.data.TextLineDataset(3))
    text["list_files_sorted"] = run(lambda: [os.path.basename(p) for p in elements(
        tf.data.Dataset.list_files(os.path.join(tmp, "*.txt"), shuffle=False))])
    text["list_files_two_patterns"] = run(lambda: [os.path.basename(p) for p in elements(
        tf.data.Dataset.list_files([os.path.join(tmp, "d*.txt"), os.path.join(tmp, "a*.txt")], shuffle=False))])
    text["list_files_none"] = run(lambda: tf.data.Dataset.list_files(os.path.join(tmp, "zzz*")))
    text["list_files_none_message_tail"] = "No files matched pattern: "
    text["read_file_missing"] = run(lambda: tf.io.read_file(os.path.join(tmp, "nope")))
    text["list_files_spec"] = str(tf.data.Dataset.list_files(os.path.join(tmp, "*.txt")).element_spec)
    text["repr"] = repr(tf.data.TextLineDataset(os.path.join(tmp, "a.txt")))
    text["repr_tfrecord"] = repr(tf.data.TFRecordDataset(os.path.join(tmp, "a.txt")))
    golden["textline"] = text

    fixed = {}
    for case_id, data, compressed, kwargs in cases.FIXED_LENGTH_CASES:
        path = os.path.join(tmp, case_id + ".bin")
        write(path, gzip.compress(data, mtime=0) if compressed else data)
        fixed[case_id] = run(lambda: elements(tf.data.FixedLengthRecordDataset(path, **kwargs)))
    fixed["repr"] = repr(tf.data.FixedLengthRecordDataset(path, 3))
    fixed["parallel"] = elements(tf.data.FixedLengthRecordDataset([os.path.join(tmp, "no_header.bin")] * 2, 7,
                                                                  num_parallel_reads=2))
    golden["fixed_length"] = fixed
    golden["tmp_dir"] = "<tmp>"

    # --- TFRecord: TF's bytes, TF's reading of damaged files -----------------------------------
    rec = {}
    for compression in ("", "GZIP", "ZLIB"):
        path = os.path.join(DATA, f"records{'.' + compression.lower() if compression else ''}.tfrecord")
        with tf.io.TFRecordWriter(path, tf.io.TFRecordOptions(compression)) as w:
            for r in cases.RECORDS:
                w.write(r)
        with open(path, "rb") as f:
            rec["bytes_" + (compression or "NONE")] = enc(f.read())
        rec["read_" + (compression or "NONE")] = elements(tf.data.TFRecordDataset(path, compression_type=compression))
        rec["iterator_" + (compression or "NONE")] = enc(list(tf.compat.v1.io.tf_record_iterator(
            path, tf.io.TFRecordOptions(compression))))
    level1 = os.path.join(tmp, "level1.tfrecord")
    with tf.io.TFRecordWriter(level1, tf.io.TFRecordOptions("GZIP", compression_level=1)) as w:
        for r in cases.RECORDS:
            w.write(r)
    with open(level1, "rb") as f:
        rec["bytes_GZIP_level1"] = enc(f.read())
    with open(os.path.join(DATA, "records.tfrecord"), "rb") as f:
        plain = f.read()
    for case_id, (how, arg) in cases.TFRECORD_DAMAGE:
        data = bytearray(plain)
        if how == "truncate":
            data = data[:arg]
        else:
            data[arg] ^= 1
        path = os.path.join(tmp, case_id + ".tfrecord")
        write(path, bytes(data))
        rec["dataset_" + case_id] = run(lambda: elements(tf.data.TFRecordDataset(path)))
        rec["iterator_" + case_id] = run(lambda: enc(list(tf.compat.v1.io.tf_record_iterator(path))))
    rec["wrong_compression"] = run(lambda: elements(tf.data.TFRecordDataset(
        os.path.join(DATA, "records.tfrecord"), compression_type="GZIP")))
    rec["missing_iterator"] = run(lambda: list(tf.compat.v1.io.tf_record_iterator(os.path.join(tmp, "nope.rec"))))
    rec["options_bad"] = run(lambda: tf.io.TFRecordOptions("BAD"))
    rec["options_lowercase"] = run(lambda: tf.io.TFRecordOptions("gzip"))
    rec["writer_missing_dir"] = run(lambda: tf.io.TFRecordWriter(os.path.join(tmp, "no", "dir", "w.rec")))
    w = tf.io.TFRecordWriter(os.path.join(tmp, "closed.rec"))
    w.close()
    rec["write_closed"] = run(lambda: w.write(b"x"))
    rec["parallel_reads"] = elements(tf.data.TFRecordDataset(
        [os.path.join(DATA, "records.tfrecord"), os.path.join(DATA, "records.tfrecord")], num_parallel_reads=2))
    golden["tfrecord"] = rec

    # --- CsvDataset ------------------------------------------------------------------------------
    csv_g = {}
    for case_id, data, defaults, kwargs in cases.CSV_CASES:
        path = os.path.join(tmp, case_id + ".csv")
        write(path, data)
        ds_fn = lambda: tf.data.experimental.CsvDataset(path, [default(d) for d in defaults], **kwargs)  # noqa: E731
        csv_g[case_id] = run(lambda: elements(ds_fn()))
        spec = run(lambda: [s.dtype.name for s in ds_fn().element_spec])
        csv_g[case_id + "/spec"] = spec
    for case_id, data, defaults in cases.CSV_IGNORE_ERRORS_CASES:
        path = os.path.join(tmp, case_id + ".csv")
        write(path, data)
        csv_g[case_id] = run(lambda: elements(tf.data.experimental.CsvDataset(
            path, [default(d) for d in defaults]).ignore_errors()))
    path = os.path.join(tmp, "build.csv")
    write(path, cases.MISSING_CSV)
    for case_id, defaults, kwargs in cases.CSV_BUILD_ERRORS:
        csv_g["build_" + case_id] = run(lambda: tf.data.experimental.CsvDataset(
            path, [default(d) for d in defaults], **kwargs) and None)
    write(os.path.join(tmp, "c.csv.gz"), gzip.compress(b"1,2\n3,4\n", mtime=0))
    write(os.path.join(tmp, "c.csv.z"), zlib.compress(b"1,2\n3,4\n"))
    csv_g["gzip"] = elements(tf.data.experimental.CsvDataset(os.path.join(tmp, "c.csv.gz"), [0, 0],
                                                             compression_type="GZIP"))
    csv_g["zlib"] = elements(tf.data.experimental.CsvDataset(os.path.join(tmp, "c.csv.z"), [0, 0],
                                                             compression_type="ZLIB"))
    csv_g["two_files"] = elements(tf.data.experimental.CsvDataset([path, path], [99, 99, 99, 99]))
    csv_g["missing_file"] = run(lambda: elements(tf.data.experimental.CsvDataset(os.path.join(tmp, "nope.csv"),
                                                                                   [0])))
    csv_g["repr"] = repr(tf.data.experimental.CsvDataset(path, [1]))
    csv_g["cardinality"] = int(tf.data.experimental.CsvDataset(path, [1, 1, 1, 1]).cardinality())
    golden["csv"] = csv_g

    # --- decode_csv -------------------------------------------------------------------------------
    dec = {}
    for case_id, records, defaults, kwargs in cases.DECODE_CSV_CASES:
        dec[case_id] = run(lambda: [tensor_value(t) for t in tf.io.decode_csv(
            records, [default(d) for d in defaults], **kwargs)])
    for case_id, records, defaults, kwargs in cases.DECODE_CSV_VALUE_ERRORS:
        dec[case_id] = run(lambda: tf.io.decode_csv(records, [default(d) for d in defaults], **kwargs))

    @tf.function
    def traced(x):
        return tf.io.decode_csv(x, [[0], [0.0]])
    dec["traced_shapes"] = [[t.dtype.name, str(t.shape)] for t in
                            traced.get_concrete_function(tf.TensorSpec([None], tf.string)).structured_outputs]
    golden["decode_csv"] = dec

    # --- make_csv_dataset -----------------------------------------------------------------------------
    write(os.path.join(tmp, "titanic.csv"), cases.TITANIC_CSV)
    write(os.path.join(tmp, "types.csv"), cases.TYPES_CSV)
    write(os.path.join(tmp, "bad_rows.csv"), cases.BAD_ROWS_CSV)
    for name, data in cases.PART_CSV.items():
        write(os.path.join(tmp, name), data)
    mk = {}

    def batches(ds, take=None):
        out = []
        for element in (ds.take(take) if take else ds):
            if isinstance(element, tuple):
                features, label = element
                out.append({"features": [[k, enc(v.numpy())] for k, v in features.items()],
                            "label": enc(label.numpy())})
            else:
                out.append({"features": [[k, enc(v.numpy())] for k, v in element.items()]})
        return out

    def spec_of(ds):
        spec = ds.element_spec
        features = spec[0] if isinstance(spec, tuple) else spec
        out = {"features": [[k, s.dtype.name, str(s.shape)] for k, s in features.items()]}
        if isinstance(spec, tuple):
            out["label"] = [spec[1].dtype.name, str(spec[1].shape)]
        return out

    for case_id, pattern, kwargs in cases.MAKE_CSV_CASES:
        kwargs = dict(kwargs)
        take = kwargs.pop("take", None)
        if "column_defaults" in kwargs:
            kwargs["column_defaults"] = [default(d) for d in kwargs["column_defaults"]]
        ds = tf.data.experimental.make_csv_dataset(os.path.join(tmp, pattern), **kwargs)
        mk[case_id] = run(lambda: {"batches": batches(ds, take), "spec": spec_of(ds)})
    for case_id, pattern, kwargs in cases.MAKE_CSV_ERRORS:
        mk[case_id] = run(lambda: tf.data.experimental.make_csv_dataset(os.path.join(tmp, pattern), **kwargs)
                          and None)
    golden["make_csv"] = mk

    # --- the TF guide's cells (data.ipynb), on the small titanic file ----------------------------------------
    titanic = os.path.join(tmp, "titanic.csv")
    guide = {}
    types = [tf.int32, tf.string, tf.float32, tf.int32, tf.int32, tf.float32, tf.string, tf.string, tf.string,
             tf.string]
    guide["csv_rows"] = elements(tf.data.experimental.CsvDataset(titanic, types, header=True).take(3))
    counted = tf.data.Dataset.zip((tf.data.experimental.Counter(), tf.data.TextLineDataset(titanic))).batch(3)
    guide["counter_spec"] = str(counted.element_spec)
    guide["counter_first"] = [enc(t.numpy()) for t in next(iter(counted))]
    guide["survived_spec"] = str(tf.data.experimental.make_csv_dataset(titanic, batch_size=4,
                                                                       label_name="survived").element_spec)
    golden["guide"] = guide

    # --- tf.train.Example ------------------------------------------------------------------------------
    def example(features):
        return cases.build_example(tf, features)

    exg = {}
    for case_id, features in cases.EXAMPLES:
        ex = example(features)
        exg[case_id] = {"bytes": enc(ex.SerializeToString(deterministic=True)),
                        "default_bytes": enc(ex.SerializeToString()),
                        "text": str(ex) if len(features) <= 1 else None}
    exg["empty_message"] = enc(tf.train.Example().SerializeToString())
    exg["empty_features"] = enc(tf.train.Example(features=tf.train.Features()).SerializeToString())
    exg["feature_text"] = str(tf.train.Feature(float_list=tf.train.FloatList(value=[0.5, 2.0])))
    exg["bad_bytes"] = run(lambda: tf.train.BytesList(value=["str"]))
    exg["bad_int"] = run(lambda: tf.train.Int64List(value=[1.5]))
    golden["example"] = exg
    path = os.path.join(DATA, "examples.tfrecord")
    with tf.io.TFRecordWriter(path) as w:
        for _, features in cases.EXAMPLES:
            w.write(example(features).SerializeToString(deterministic=True))

    # --- parse_example ------------------------------------------------------------------------------------
    serialized = {case_id: example(f).SerializeToString() for case_id, f in cases.PARSE_EXAMPLES}

    def feature_spec(spec):
        return cases.feature_spec(tf, spec)

    pg = {"serialized": {k: enc(v) for k, v in serialized.items()}}
    for case_id, ids, spec, single in cases.PARSE_CASES:
        records = [serialized[i] for i in ids]
        if single:
            fn = lambda: tf.io.parse_single_example(records[0], feature_spec(spec))  # noqa: E731
        else:
            fn = lambda: tf.io.parse_example(records, feature_spec(spec))  # noqa: E731
        pg[case_id] = run(lambda: {k: tensor_value(v) for k, v in fn().items()})
    pg["empty_features"] = run(lambda: tf.io.parse_single_example(serialized["e1"], {}))

    @tf.function
    def parse_traced(x):
        return tf.io.parse_example(x, feature_spec(_spec()))
    pg["traced_shapes"] = {k: [v.dtype.name, str(v.shape)] for k, v in
                           parse_traced.get_concrete_function(tf.TensorSpec([None], tf.string))
                           .structured_outputs.items()}

    @tf.function
    def parse_seq(x):
        return tf.io.parse_example(x, {"a": tf.io.FixedLenSequenceFeature([2], tf.int64, allow_missing=True)})
    pg["traced_seq_shape"] = str(parse_seq.get_concrete_function(tf.TensorSpec([None], tf.string))
                                 .structured_outputs["a"].shape)
    golden["parse"] = pg

    # --- serialize_tensor ---------------------------------------------------------------------------------
    st = {}
    for case_id, value, dtype in cases.SERIALIZE_TENSOR_CASES:
        st[case_id] = enc(tf.io.serialize_tensor(tf.constant(value, dtype=getattr(tf, dtype))).numpy())
    st["parse_wrong_type"] = run(lambda: tf.io.parse_tensor(tf.io.serialize_tensor(tf.constant([1, 2])), tf.float32))
    golden["serialize_tensor"] = st

    with open(os.path.join(HERE, "readers_golden.json"), "w") as f:
        json.dump(golden, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote", os.path.join(HERE, "readers_golden.json"))


def _spec():
    return {"a": ("fixed", [2], "int64", None), "f": ("fixed", [], "float32", None),
            "s": ("fixed", [], "string", "dflt")}


if __name__ == "__main__":
    main()
