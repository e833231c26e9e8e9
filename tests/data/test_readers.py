"""tf.data file readers against TF 2.21 (goldens recorded by ``record_readers_goldens.py``): ``TextLineDataset``,
``TFRecordDataset``, ``list_files``, ``CsvDataset`` and ``make_csv_dataset``, alone and in pipelines."""
import collections
import gzip
import os
import zlib

import numpy as np
import pytest

import engine as tf
import readers_cases as cases
from readers_testlib import DATA, G, check, dec, default, elements, norm, outcome, val


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return str(path)


@pytest.fixture
def text_dir(tmp_path):
    for name, data in cases.TEXT_FILES.items():
        write(tmp_path / name, data)
    write(tmp_path / "lines.txt.gz", gzip.compress(cases.COMPRESSED_TEXT, mtime=0))
    write(tmp_path / "lines.txt.z", zlib.compress(cases.COMPRESSED_TEXT))
    return tmp_path


# ---------------------------------------------------------------------------------------------
# TextLineDataset and list_files
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("case_id,files,kwargs", cases.TEXTLINE_CASES, ids=[c[0] for c in cases.TEXTLINE_CASES])
def test_text_line_dataset(text_dir, case_id, files, kwargs):
    paths = str(text_dir / files) if isinstance(files, str) else [str(text_dir / f) for f in files]
    check(G["textline"][case_id], outcome(lambda: elements(tf.data.TextLineDataset(paths, **kwargs)), text_dir))


def test_text_line_dataset_type_spec_and_repr(text_dir):
    ds = tf.data.TextLineDataset(str(text_dir / "a.txt"))
    assert repr(ds) == G["textline"]["repr"]
    assert repr(tf.data.TFRecordDataset(str(text_dir / "a.txt"))) == G["textline"]["repr_tfrecord"]
    assert int(ds.cardinality()) == tf.data.UNKNOWN_CARDINALITY
    check(G["textline"]["int_filenames"], outcome(lambda: tf.data.TextLineDataset(3)))


def test_list_files(text_dir):
    names = lambda ds: [os.path.basename(p) for p in elements(ds)]  # noqa: E731
    golden = dec(G["textline"])
    assert names(tf.data.Dataset.list_files(str(text_dir / "*.txt"), shuffle=False)) == \
        [os.path.basename(p) for p in golden["list_files_sorted"]["value"]]
    assert names(tf.data.Dataset.list_files([str(text_dir / "d*.txt"), str(text_dir / "a*.txt")], shuffle=False)) == \
        [os.path.basename(p) for p in golden["list_files_two_patterns"]["value"]]
    check(G["textline"]["list_files_none"], outcome(lambda: tf.data.Dataset.list_files(str(text_dir / "zzz*")),
                                                     text_dir))
    shuffled = tf.data.Dataset.list_files(str(text_dir / "*.txt"), seed=7)
    assert str(shuffled.element_spec) == G["textline"]["list_files_spec"]
    assert sorted(names(shuffled)) == [b"a.txt", b"b.txt", b"c.txt", b"d.txt"]
    assert names(tf.data.Dataset.list_files(str(text_dir / "*.txt"), seed=7)) == names(
        tf.data.Dataset.list_files(str(text_dir / "*.txt"), seed=7))    # a seed makes the order repeatable


def test_guide_interleave_text_files(text_dir):
    """The guide's ``files_ds.interleave(tf.data.TextLineDataset, cycle_length=3)``: TF's parallel3 order."""
    files = tf.data.Dataset.from_tensor_slices([str(text_dir / f) for f in ["a.txt", "b.txt", "c.txt", "d.txt"]])
    lines = files.interleave(tf.data.TextLineDataset, cycle_length=3)
    assert elements(lines) == dec(G["textline"]["parallel3"]["value"])
    listed = tf.data.Dataset.list_files(str(text_dir / "*.txt"), shuffle=False)
    assert elements(listed.interleave(tf.data.TextLineDataset, cycle_length=3)) == dec(G["textline"]["parallel3"]["value"])
    assert elements(tf.data.TextLineDataset(listed)) == dec(G["textline"]["sequential"]["value"])


def test_text_lines_in_a_pipeline(text_dir):
    ds = tf.data.TextLineDataset(str(text_dir / "d.txt")).map(lambda line: tf.io.decode_csv(line, [[""]])[0]).batch(3)
    assert [val(v) for v in ds] == [[b"n1", b"n2", b"n3"], [b"n4"]]
    lines = tf.data.TextLineDataset([str(text_dir / "a.txt"), str(text_dir / "d.txt")])

    @tf.function
    def count(ds):
        n = tf.constant(0)
        for _ in ds:
            n += 1
        return n
    assert int(count(lines)) == 7
    assert int(lines.reduce(0, lambda n, _: n + 1)) == 7
    assert elements(lines.take(2).repeat(2)) == [b"l1", b"l2", b"l1", b"l2"]


# ---------------------------------------------------------------------------------------------
# TFRecordDataset
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("compression", ["NONE", "GZIP", "ZLIB"])
def test_tfrecord_dataset_reads_tf_files(compression):
    name = {"NONE": "records.tfrecord", "GZIP": "records.gzip.tfrecord", "ZLIB": "records.zlib.tfrecord"}[compression]
    got = elements(tf.data.TFRecordDataset(os.path.join(DATA, name),
                                           compression_type="" if compression == "NONE" else compression))
    assert got == dec(G["tfrecord"]["read_" + compression]) == cases.RECORDS   # trailing b"\x00" kept


@pytest.mark.parametrize("case_id,how", cases.TFRECORD_DAMAGE, ids=[c[0] for c in cases.TFRECORD_DAMAGE])
def test_tfrecord_damaged_files(tmp_path, case_id, how):
    with open(os.path.join(DATA, "records.tfrecord"), "rb") as f:
        data = bytearray(f.read())
    kind, arg = how
    if kind == "truncate":
        data = data[:arg]
    else:
        data[arg] ^= 1
    path = write(tmp_path / "d.tfrecord", bytes(data))
    check(G["tfrecord"]["dataset_" + case_id], outcome(lambda: elements(tf.data.TFRecordDataset(path))))


def test_tfrecord_dataset_options():
    path = os.path.join(DATA, "records.tfrecord")
    check(G["tfrecord"]["wrong_compression"], outcome(lambda: elements(tf.data.TFRecordDataset(
        path, compression_type="GZIP"))))
    assert elements(tf.data.TFRecordDataset([path, path], num_parallel_reads=2)) == dec(G["tfrecord"]["parallel_reads"])
    assert elements(tf.data.TFRecordDataset(tf.constant([path]))) == cases.RECORDS
    with pytest.raises(tf.errors.InvalidArgumentError, match="cycle_length"):
        tf.data.TFRecordDataset(path, num_parallel_reads=0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Unsupported compression_type"):
        tf.data.TFRecordDataset(path, compression_type="BAD")


def test_tfrecord_of_examples_parsed_in_map():
    """The usual pipeline: records of serialized Examples, parsed by ``map`` (traced once) and batched."""
    spec = {"label": tf.io.FixedLenFeature([], tf.int64, default_value=-1)}
    ds = tf.data.TFRecordDataset(os.path.join(DATA, "examples.tfrecord"))
    raw = elements(ds)
    assert raw == [dec(G["example"][case_id]["bytes"]) for case_id, _ in cases.EXAMPLES]
    labels = ds.map(lambda r: tf.io.parse_single_example(r, spec)["label"]).batch(4)
    assert [val(b) for b in labels] == [[3, -1, -1, -1], [-1, -1, -1, -1], [-1]]
    parsed = tf.train.Example.FromString(next(iter(ds)).numpy())
    assert list(parsed.features.feature["label"].int64_list.value) == [3]


# ---------------------------------------------------------------------------------------------
# CsvDataset
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("case_id,data,defaults,kwargs", cases.CSV_CASES, ids=[c[0] for c in cases.CSV_CASES])
def test_csv_dataset(tmp_path, case_id, data, defaults, kwargs):
    path = write(tmp_path / "x.csv", data)
    make = lambda: tf.data.experimental.CsvDataset(path, [default(d) for d in defaults], **kwargs)  # noqa: E731
    check(G["csv"][case_id], outcome(lambda: elements(make())))
    check(G["csv"][case_id + "/spec"], outcome(lambda: [s.dtype.name for s in make().element_spec]))


@pytest.mark.parametrize("case_id,data,defaults", cases.CSV_IGNORE_ERRORS_CASES,
                         ids=[c[0] for c in cases.CSV_IGNORE_ERRORS_CASES])
def test_csv_dataset_ignore_errors(tmp_path, case_id, data, defaults):
    path = write(tmp_path / "x.csv", data)
    got = outcome(lambda: elements(tf.data.experimental.CsvDataset(path, [default(d) for d in defaults])
                                   .ignore_errors()))
    check(G["csv"][case_id], got)


@pytest.mark.parametrize("case_id,defaults,kwargs", cases.CSV_BUILD_ERRORS, ids=[c[0] for c in cases.CSV_BUILD_ERRORS])
def test_csv_dataset_argument_errors(tmp_path, case_id, defaults, kwargs):
    path = write(tmp_path / "x.csv", cases.MISSING_CSV)
    check(G["csv"]["build_" + case_id], outcome(lambda: tf.data.experimental.CsvDataset(
        path, [default(d) for d in defaults], **kwargs) and None))


def test_csv_dataset_files_compression_and_repr(tmp_path):
    path = write(tmp_path / "m.csv", cases.MISSING_CSV)
    assert norm(elements(tf.data.experimental.CsvDataset([path, path], [99, 99, 99, 99]))) == \
        norm(dec(G["csv"]["two_files"]))
    gz = write(tmp_path / "c.csv.gz", gzip.compress(b"1,2\n3,4\n", mtime=0))
    z = write(tmp_path / "c.csv.z", zlib.compress(b"1,2\n3,4\n"))
    assert elements(tf.data.experimental.CsvDataset(gz, [0, 0], compression_type="GZIP")) == G["csv"]["gzip"]
    assert elements(tf.data.experimental.CsvDataset(z, [0, 0], compression_type="ZLIB")) == G["csv"]["zlib"]
    check(G["csv"]["missing_file"], outcome(lambda: elements(tf.data.experimental.CsvDataset(
        str(tmp_path / "nope.csv"), [0])), tmp_path))
    assert repr(tf.data.experimental.CsvDataset(path, [1])) == G["csv"]["repr"]
    assert int(tf.data.experimental.CsvDataset(path, [1, 1, 1, 1]).cardinality()) == G["csv"]["cardinality"]


def test_guide_csv_stack_pipeline(tmp_path):
    """The guide: ``CsvDataset("missing.csv", [999] * 4).map(lambda *items: tf.stack(items))``."""
    path = write(tmp_path / "missing.csv", cases.MISSING_CSV)
    ds = tf.data.experimental.CsvDataset(path, [999, 999, 999, 999]).map(lambda *items: tf.stack(items))
    assert ds.element_spec == tf.TensorSpec([4], tf.int32)
    assert [val(x) for x in ds] == G["csv"]["guide_missing"]["value"]
    batches = [val(b) for b in ds.batch(4)]
    assert batches == [G["csv"]["guide_missing"]["value"][:4], G["csv"]["guide_missing"]["value"][4:]]


# ---------------------------------------------------------------------------------------------
# make_csv_dataset
# ---------------------------------------------------------------------------------------------
@pytest.fixture
def csv_dir(tmp_path):
    write(tmp_path / "titanic.csv", cases.TITANIC_CSV)
    write(tmp_path / "types.csv", cases.TYPES_CSV)
    write(tmp_path / "bad_rows.csv", cases.BAD_ROWS_CSV)
    for name, data in cases.PART_CSV.items():
        write(tmp_path / name, data)
    return tmp_path


def _batches(ds, take=None):
    out = []
    for element in (ds.take(take) if take else ds):
        if isinstance(element, tuple):
            features, label = element
            assert isinstance(features, collections.OrderedDict)
            out.append({"features": [[k, val(v)] for k, v in features.items()], "label": val(label)})
        else:
            assert isinstance(element, collections.OrderedDict)
            out.append({"features": [[k, val(v)] for k, v in element.items()]})
    return out


def _spec(ds):
    spec = ds.element_spec
    features = spec[0] if isinstance(spec, tuple) else spec
    out = {"features": [[k, s.dtype.name, str(s.shape)] for k, s in features.items()]}
    if isinstance(spec, tuple):
        out["label"] = [spec[1].dtype.name, str(spec[1].shape)]
    return out


@pytest.mark.parametrize("case_id,pattern,kwargs", cases.MAKE_CSV_CASES, ids=[c[0] for c in cases.MAKE_CSV_CASES])
def test_make_csv_dataset(csv_dir, case_id, pattern, kwargs):
    kwargs = dict(kwargs)
    take = kwargs.pop("take", None)
    if "column_defaults" in kwargs:
        kwargs["column_defaults"] = [default(d) for d in kwargs["column_defaults"]]

    def run():
        ds = tf.data.experimental.make_csv_dataset(str(csv_dir / pattern), **kwargs)
        return {"batches": _batches(ds, take), "spec": _spec(ds)}
    check(G["make_csv"][case_id], outcome(run, csv_dir))


@pytest.mark.parametrize("case_id,pattern,kwargs", cases.MAKE_CSV_ERRORS, ids=[c[0] for c in cases.MAKE_CSV_ERRORS])
def test_make_csv_dataset_errors(csv_dir, case_id, pattern, kwargs):
    check(G["make_csv"][case_id], outcome(lambda: tf.data.experimental.make_csv_dataset(
        str(csv_dir / pattern), **kwargs) and None, csv_dir))


def test_make_csv_dataset_shuffled_epoch_is_a_permutation(csv_dir):
    ds = tf.data.experimental.make_csv_dataset(str(csv_dir / "part-*.csv"), batch_size=5, num_epochs=1,
                                               shuffle_seed=3, label_name="v")
    (features, label), = list(ds)
    assert sorted(val(features["k"])) == [1, 2, 3, 4, 5]
    assert sorted(zip(val(features["k"]), val(label))) == [(1, 10), (2, 20), (3, 30), (4, 40), (5, 50)]


def test_make_csv_dataset_feeds_a_tf_function(csv_dir):
    ds = tf.data.experimental.make_csv_dataset(str(csv_dir / "titanic.csv"), batch_size=4, label_name="survived",
                                               select_columns=["fare", "age", "survived"], num_epochs=1,
                                               shuffle=False)

    @tf.function
    def total(ds):
        s = tf.constant(0.0)
        for features, label in ds:
            s += tf.reduce_sum(features["fare"] * tf.cast(label, tf.float32))
        return s
    expected = sum(f * s for f, s in [(71.2833, 1), (7.925, 1), (53.1, 1), (11.1333, 1)])
    np.testing.assert_allclose(float(total(ds)), expected, rtol=1e-5)


# ---------------------------------------------------------------------------------------------
# The TF guide's cells (site/en/guide/data.ipynb), on a small local titanic file
# ---------------------------------------------------------------------------------------------
def test_guide_titanic_cells(csv_dir):
    titanic = str(csv_dir / "titanic.csv")
    g = G["guide"]
    types = [tf.int32, tf.string, tf.float32, tf.int32, tf.int32, tf.float32, tf.string, tf.string, tf.string,
             tf.string]
    assert elements(tf.data.experimental.CsvDataset(titanic, types, header=True).take(3)) == dec(g["csv_rows"])
    counted = tf.data.Dataset.zip((tf.data.experimental.Counter(), tf.data.TextLineDataset(titanic))).batch(3)
    assert str(counted.element_spec) == g["counter_spec"]
    assert [val(t) for t in next(iter(counted))] == dec(g["counter_first"])
    batches = tf.data.experimental.make_csv_dataset(titanic, batch_size=4, label_name="survived")
    assert str(batches.element_spec) == g["survived_spec"]
    features, label = next(iter(batches))          # shuffled and repeated forever: full batches of 4
    assert list(features) == ["sex", "age", "n_siblings_spouses", "parch", "fare", "class", "deck", "embark_town",
                              "alone"] and label.shape == [4]


# ---------------------------------------------------------------------------------------------
# FixedLengthRecordDataset
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("case_id,data,compressed,kwargs", cases.FIXED_LENGTH_CASES,
                         ids=[c[0] for c in cases.FIXED_LENGTH_CASES])
def test_fixed_length_record_dataset(tmp_path, case_id, data, compressed, kwargs):
    path = write(tmp_path / (case_id + ".bin"), gzip.compress(data, mtime=0) if compressed else data)
    got = outcome(lambda: elements(tf.data.FixedLengthRecordDataset(path, **kwargs)), tmp_path)
    golden = G["fixed_length"][case_id]
    if case_id == "zero_record":     # TF names its FlatMap iterator in the message; the error itself is TF's
        assert got["error"][0] == golden["error"][0] and got["error"][1] in golden["error"][1]
        return
    check(golden, got)


def test_fixed_length_record_dataset_parallel_and_repr(tmp_path):
    path = write(tmp_path / "no_header.bin", b"HHabcdefghijFF")
    assert elements(tf.data.FixedLengthRecordDataset([path, path], 7, num_parallel_reads=2)) == \
        dec(G["fixed_length"]["parallel"])
    assert repr(tf.data.FixedLengthRecordDataset(path, 3)) == G["fixed_length"]["repr"]
