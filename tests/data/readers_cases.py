"""The cases of ``test_readers*.py``, shared with ``record_readers_goldens.py`` (which runs them under TF).

Plain Python data only (no TensorFlow, no engine): each side builds its own tensors from these
descriptions. A record default / feature default is described as

* ``"int32"``, ``"float64"``...: a dtype (a required CSV column);
* ``("empty", "int32")``: an empty tensor of that dtype (required);
* ``("t", value, "int64")``: ``tf.constant(value, dtype)``;
* any other value: itself (``999``, ``0.0``, ``""``, ``[5]``).
"""

# ---------------------------------------------------------------------------------------------
# Text files: name -> bytes (written into the test-data folder by the recorder, read by both sides)
# ---------------------------------------------------------------------------------------------
TEXT_FILES = {
    "a.txt": b"l1\nl2\r\nl3",
    "b.txt": b"m1\n\nm3\n",
    "c.txt": b"",
    "d.txt": b"n1\nn2\nn3\nn4\n",
}

TEXTLINE_CASES = [
    # (case id, files, kwargs)
    ("sequential", ["a.txt", "b.txt", "c.txt", "d.txt"], {}),
    ("parallel2", ["a.txt", "b.txt", "c.txt", "d.txt"], {"num_parallel_reads": 2}),
    ("parallel3", ["a.txt", "b.txt", "c.txt", "d.txt"], {"num_parallel_reads": 3}),
    ("one_file", "d.txt", {}),
    ("gzip", ["lines.txt.gz"], {"compression_type": "GZIP"}),
    ("zlib", ["lines.txt.z"], {"compression_type": "ZLIB"}),
    ("missing", ["nope.txt"], {}),
]

COMPRESSED_TEXT = b"x1\nx2\r\n\nx4"      # written as lines.txt.gz / lines.txt.z by the recorder (with TF's zlib)

# ---------------------------------------------------------------------------------------------
# TFRecord
# ---------------------------------------------------------------------------------------------
RECORDS = [b"hello", b"", b"\x00\x01binary\xff", b"ends in zero\x00", b"x" * 300]

# The mutations of the uncompressed file whose reading errors are recorded: (case id, how)
#   ("truncate", n): keep the first n bytes; ("flip", i): flip the lowest bit of byte i.
TFRECORD_DAMAGE = [
    ("truncated_body", ("truncate", -3)),
    ("partial_header", ("truncate", 25)),
    ("short_file", ("truncate", 10)),
    ("corrupt_data", ("flip", 13)),
    ("corrupt_header", ("flip", 9)),
    ("corrupt_second_header", ("flip", 30)),
]

# FixedLengthRecordDataset: (case id, file bytes, gzip it?, kwargs)
FIXED_LENGTH_CASES = [
    ("header_footer", b"HHabcdefghijFF", False, {"record_bytes": 5, "header_bytes": 2, "footer_bytes": 2}),
    ("no_header", b"HHabcdefghijFF", False, {"record_bytes": 7}),
    ("not_multiple", b"HHabcdefghijFF", False, {"record_bytes": 3, "header_bytes": 2, "footer_bytes": 2}),
    ("zero_record", b"HHabcdefghijFF", False, {"record_bytes": 0}),
    ("gzip", b"HHabcdefghijFF", True, {"record_bytes": 5, "header_bytes": 2, "footer_bytes": 2,
                                       "compression_type": "GZIP"}),
    ("gzip_not_multiple", b"HHabcdefghijFF", True, {"record_bytes": 3, "header_bytes": 2, "footer_bytes": 2,
                                                    "compression_type": "GZIP"}),
    ("binary_zeros", b"\x00\x01\x00\x00\x02\x00", False, {"record_bytes": 3}),
]

# ---------------------------------------------------------------------------------------------
# CsvDataset: (case id, file bytes, record_defaults, kwargs)
# ---------------------------------------------------------------------------------------------
MISSING_CSV = b"1,2,3,4\n,2,3,4\n1,,3,4\n1,2,,4\n1,2,3,\n,,,\n"
QUOTED_CSV = b'name,val,txt\n"a,b",1.5,"he said ""hi"""\n  c  , 2 ,plain\n"",-3e2,\nd,nan,x\n'

CSV_CASES = [
    ("guide_missing", MISSING_CSV, [999, 999, 999, 999], {}),
    ("guide_select", MISSING_CSV, [999, 999], {"select_cols": [1, 3]}),
    ("exclude", MISSING_CSV, [999, 999], {"exclude_cols": [1, 3]}),
    ("required_missing", MISSING_CSV, ["int32", 999, 999, 999], {}),
    ("too_many_fields", MISSING_CSV, [999, 999, 999], {}),
    ("too_few_fields", MISSING_CSV, [999, 999, 999, 999, 999], {}),
    ("quoted_header", QUOTED_CSV, ["", 0.0, "D"], {"header": True}),
    ("no_quote_delim", QUOTED_CSV, ["", 0.0, "D"], {"header": True, "use_quote_delim": False}),
    ("na_value", QUOTED_CSV, ["", "float64", "D"], {"header": True, "na_value": "nan"}),
    ("int_for_float", QUOTED_CSV, ["", 0, "D"], {"header": True}),
    ("multiline_quoted", b'"a\nb",1\n"c\r\nd",2\n', ["", 0], {}),
    ("crlf", b"1,2\r\n3,4\r\n5,6", [0, 0], {}),
    ("cr", b"1,2\r3,4\r5,6", [0, 0], {}),
    ("empty_line_two_cols", b"1,2\n\n5,6\n", [0, 0], {}),
    ("empty_line_one_col", b"1\n\n5\n", [0], {}),
    ("empty_line_required", b"1\n\n5\n", ["int32"], {}),
    ("select_prefix", b"1,2,3,4\n", [0, 0], {"select_cols": [0, 1]}),
    ("select_past_end", b"1,2,3,4\n", [0, 0], {"select_cols": [2, 5]}),
    ("exclude_one", b"1,2,3,4\n", [0, 0, 0], {"exclude_cols": [0]}),
    ("exclude_beyond", b"1,2,3,4\n", [0, 0, 0], {"exclude_cols": [0, 9]}),
    ("bad_quote", b'"ab"c,2\n', ["", 0], {}),
    ("quote_in_unquoted", b'ab"c,2\n', ["", 0], {}),
    ("unclosed_quote", b'"abc,2\n', ["", 0], {}),
    ("float_overflow", b"1e40,1e400,-1e40\n", [0.0, 0.0, 0.0], {}),
    ("double", b"1e40,1e400\n", ["float64", "float64"], {}),
    ("int_forms", b"+5,-0,007, 8 \n", [0, 0, 0, 0], {}),
    ("hex_int", b"0x10\n", [0], {}),
    ("float_for_int64", b"1.0\n", ["int64"], {}),
    ("int32_overflow", b"99999999999,1\n", [0, 0], {}),
    ("int64_ok", b"99999999999,1\n", ["int64", 0], {}),
    ("special_floats", b"inf,-inf,nan,NaN,Infinity,1e-50\n", [0.0] * 6, {}),
    ("header_only", b"a,b\n", [0, 0], {"header": True}),
    ("header_empty_file", b"", [0, 0], {"header": True}),
    ("header_no_newline", b"a,b", [0, 0], {"header": True}),
    ("na_is_value", b"1,2\n", [0, 0], {"na_value": "2"}),
    ("quoted_empty", b'"",2\n', [0, 0], {}),
    ("quoted_number", b'"1",2\n', [0, 0], {}),
    ("space_before_quote", b' "1",2\n', [0, 0], {}),
    ("trailing_delim", b"1,2,\n", [0, 0, 0], {}),
    ("both_empty", b",\n", ["", ""], {}),
    ("delim", b"1;2\n", [0, 0], {"field_delim": ";"}),
    ("mixed_types", b"abc,4.28E10,5.55E6,12\nhij,-5.3E14,,2\n",
     ["float32", ("t", [0.0], "float32"), "int32"], {"select_cols": [1, 2, 3]}),
    ("int64_tensor_default", b"7,\n", [0, ("t", [5], "int64")], {}),
    # TF's quirk: a default equal to a CSV dtype's enum (1 float32, 2 float64, 3 int32, 7 string, 9 int64)
    # compares equal to that dtype, so it declares a *required* column of that dtype
    ("enum_quirk_9", MISSING_CSV, [9, 99, 99, 99], {}),
    ("enum_quirk_1", b"1.5,2\n", [1, 3], {}),
    ("enum_quirk_7", b"abc,x\n", [7, 8], {}),
]

CSV_IGNORE_ERRORS_CASES = [
    ("ignore_mixed", b"1,2\nx,3\n4,5\n,6\n7,8,9\n10\n11,12", [0, 0]),
    ("ignore_required", b"1,2\nx,3\n4,5\n,6\n7,8,9\n10\n11,12", ["int32", 0]),
    ("ignore_unclosed", b'1,"2\n3,4\n', [0, 0]),
]

CSV_BUILD_ERRORS = [
    # (case id, record_defaults, kwargs): errors raised when the dataset is built
    ("select_not_increasing", [999, 999], {"select_cols": [3, 1]}),
    ("select_and_exclude", [999, 999], {"select_cols": [1, 3], "exclude_cols": [0]}),
    ("two_defaults", [[1, 2]], {}),
    ("long_delim", [0, 0], {"field_delim": "||"}),
    ("negative_select", [0], {"select_cols": [-1]}),
    ("zero_buffer", [0], {"buffer_size": 0}),
    ("bad_compression", [0], {"compression_type": "BAD"}),
]

# ---------------------------------------------------------------------------------------------
# decode_csv: (case id, records, record_defaults, kwargs)
# ---------------------------------------------------------------------------------------------
DECODE_CSV_CASES = [
    ("basic", ["1,2.5,x", ",,", '"q,r",3,'], [[0], [0.0], ["d"]], {}),
    ("basic_ok", ["1,2.5,x", ",,", '"7",3,'], [[0], [0.0], ["d"]], {}),
    ("scalar", "1,2", [[0], [0]], {}),
    ("matrix", [["1,2"], ["3,4"]], [[0], [0]], {}),
    ("too_many", ["1,2,3"], [[0], [0]], {}),
    ("too_few", ["1"], [[0], [0]], {}),
    ("required", [","], [("empty", "int32"), [0]], {}),
    ("not_int", ["a,2"], [[0], [0]], {}),
    ("float_not_int", ["1.5,2"], [[0], [0]], {}),
    ("not_float", ["x,2"], [[0.0], [0]], {}),
    ("select", ["1,2,3,4"], [[0], [0]], {"select_cols": [1, 3]}),
    ("select_beyond", ["1,2,3,4"], [[0], [0]], {"select_cols": [1, 7]}),
    ("na_value", ["NA,2"], [[0], [0]], {"na_value": "NA"}),
    ("bad_quote", ['"a"b,2'], [[""], [0]], {}),
    ("no_quote_delim", ['"a"b,2'], [[""], [0]], {"use_quote_delim": False}),
    ("delim", ["a;b"], [[""], [""]], {"field_delim": ";"}),
    ("spaces", [" 7 , 8.5 "], [[0], [0.0]], {}),
    ("two_defaults", ["7,8"], [[0, 1], [0]], {}),
    ("hex", ["1e3,0x10,+5,-0"], [[0.0], [0], [0], [0.0]], {}),
    ("specials", ["inf,-inf,nan,1e400"], [[0.0], [0.0], [0.0], [0.0]], {}),
    ("int32_range", ["2147483648,9223372036854775807"], [[0], ("t", [0], "int64")], {}),
    ("int64_max", ["1,9223372036854775807"], [[0], ("t", [0], "int64")], {}),
    ("quoted_last", ['1,"x,y"'], [[0], [""]], {}),
    ("trailing_delim", ["1,"], [[0], [9]], {}),
    ("empty_record", [""], [[5]], {}),
    ("unclosed_quote", ['"ab,1'], [[""], [0]], {}),
    ("double_quote_escape", ['"a""b",1'], [[""], [0]], {}),
]

DECODE_CSV_VALUE_ERRORS = [
    ("select_not_increasing", ["1,2,3,4"], [[0], [0]], {"select_cols": [3, 1]}),
    ("select_length", ["1,2,3,4"], [[0], [0], [0]], {"select_cols": [1, 2]}),
]

# ---------------------------------------------------------------------------------------------
# make_csv_dataset: the files, and (case id, pattern (under the test-data folder), kwargs)
# ---------------------------------------------------------------------------------------------
TITANIC_CSV = (
    b"survived,sex,age,n_siblings_spouses,parch,fare,class,deck,embark_town,alone\n"
    b"0,male,22.0,1,0,7.25,Third,unknown,Southampton,n\n"
    b"1,female,38.0,1,0,71.2833,First,C,Cherbourg,n\n"
    b"1,female,26.0,0,0,7.925,Third,unknown,Southampton,y\n"
    b"1,female,35.0,1,0,53.1,First,C,Southampton,n\n"
    b"0,male,28.0,0,0,8.4583,Third,unknown,Queenstown,y\n"
    b"0,male,2.0,3,1,21.075,Third,unknown,Southampton,n\n"
    b"1,female,27.0,0,2,11.1333,Third,unknown,Southampton,n\n"
)
TYPES_CSV = (
    b"i32,i64,f32,f64,s,blank,late_float,late_string\n"
    b"1,3000000000,1.5,1e300,a,,1,2\n"
    b"2,4,2,2,b,,2.5,x\n"
    b"-3,5,3,3,\"c,d\",,3,3\n"
)
PART_CSV = {"part-0.csv": b"k,v\n1,10\n2,20\n3,30\n", "part-1.csv": b"k,v\n4,40\n5,50\n"}
BAD_ROWS_CSV = b"a,b\n1,2\n3,x\n4,5\n6\n"

MAKE_CSV_CASES = [
    ("titanic_label", "titanic.csv", {"batch_size": 4, "label_name": "survived", "num_epochs": 1, "shuffle": False}),
    ("titanic_select", "titanic.csv", {"batch_size": 3, "label_name": "survived", "num_epochs": 1, "shuffle": False,
                                       "select_columns": ["class", "fare", "survived"]}),
    ("titanic_select_index", "titanic.csv", {"batch_size": 3, "num_epochs": 1, "shuffle": False,
                                             "select_columns": [5, 1]}),
    ("titanic_defaults", "titanic.csv", {"batch_size": 7, "label_name": "survived", "num_epochs": 1, "shuffle": False,
                                         "column_defaults": ["int64", "", 0.0, 0, 0, 0.0, "", "", "", ""]}),
    ("type_inference", "types.csv", {"batch_size": 3, "num_epochs": 1, "shuffle": False}),
    ("inference_rows", "types.csv", {"batch_size": 3, "num_epochs": 1, "shuffle": False,
                                     "num_rows_for_inference": 1}),
    ("parts_sequential", "part-*.csv", {"batch_size": 2, "label_name": "v", "num_epochs": 1, "shuffle": False}),
    ("parts_parallel", "part-*.csv", {"batch_size": 2, "label_name": "v", "num_epochs": 1, "shuffle": False,
                                      "num_parallel_reads": 2}),
    ("parts_two_epochs", "part-*.csv", {"batch_size": 4, "num_epochs": 2, "shuffle": False}),
    ("repeat_forever_takes", "part-*.csv", {"batch_size": 3, "shuffle": False, "take": 4}),
    ("column_names", "part-*.csv", {"batch_size": 5, "num_epochs": 1, "shuffle": False,
                                    "column_names": ["key", "value"], "header": True}),
    ("ignore_errors", "bad_rows.csv", {"batch_size": 5, "num_epochs": 1, "shuffle": False,
                                       "column_defaults": [0, 0], "ignore_errors": True}),
]

MAKE_CSV_ERRORS = [
    ("bad_label", "titanic.csv", {"batch_size": 2, "label_name": "nope"}),
    ("no_files", "nothing-*.csv", {"batch_size": 2}),
    ("duplicate_select", "titanic.csv", {"batch_size": 2, "select_columns": ["fare", "fare"]}),
    ("select_bad_name", "titanic.csv", {"batch_size": 2, "select_columns": ["nope"]}),
    ("defaults_length", "titanic.csv", {"batch_size": 2, "select_columns": ["fare"], "column_defaults": [0.0, 0.0]}),
    ("no_header_no_names", "titanic.csv", {"batch_size": 2, "header": False}),
]

# ---------------------------------------------------------------------------------------------
# tf.train.Example: (case id, {key: (kind, values)}), kind in "bytes", "float", "int64", "none"
# ---------------------------------------------------------------------------------------------
EXAMPLES = [
    ("int64_one", {"label": ("int64", [3])}),
    ("int64_negative_big", {"x": ("int64", [1, -2, 2 ** 40, -(2 ** 63), 2 ** 63 - 1, 0])}),
    ("floats", {"f": ("float", [0.1, 1.0, -2.5, 1e10, 1.5e-7, 3.14159, 123456789.0, float("inf")])}),
    ("bytes", {"b": ("bytes", [b"hi", b"\x00\xff\"\n'\\", "é".encode(), b"", b"tab\there\r"])}),
    ("empty_lists", {"e": ("float", [])}),
    ("no_kind", {"n": ("none", [])}),
    ("several", {"zeta": ("int64", [1, 2]), "alpha": ("float", [0.5]), "mid": ("bytes", [b"m"]),
                 "empty": ("int64", [])}),
    ("unicode_key", {"ключ": ("int64", [7])}),
    ("empty_example", {}),
]

# parse_example: (case id, example ids (from EXAMPLES or PARSE_EXAMPLES), spec, single)
# spec entries: key -> ("fixed", shape, dtype, default) | ("var", dtype) | ("seq"/"seq_strict", shape, dtype, default)
PARSE_EXAMPLES = [
    ("e1", {"a": ("int64", [1, 2]), "f": ("float", [0.5]), "s": ("bytes", [b"x"])}),
    ("e2", {"a": ("int64", [3, 4]), "f": ("float", [1.5])}),
    ("nokind", {"n": ("none", [])}),
    ("emptyint", {"n": ("int64", [])}),
    ("q1", {"a": ("int64", [1, 2, 3, 4]), "s": ("bytes", [b"x"])}),
    ("q2", {"a": ("int64", [5, 6])}),
    ("q3", {}),
]
_SPEC = {"a": ("fixed", [2], "int64", None), "f": ("fixed", [], "float32", None),
         "s": ("fixed", [], "string", "dflt")}
PARSE_CASES = [
    ("batch", ["e1", "e2"], _SPEC, False),
    ("single", ["e1"], _SPEC, True),
    ("single_required", ["e2"], {"s": ("fixed", [], "string", None)}, True),
    ("batch_required", ["e1", "e2"], {"s": ("fixed", [], "string", None)}, False),
    ("single_count", ["e1"], {"a": ("fixed", [3], "int64", None)}, True),
    ("batch_count", ["e1", "e2"], {"a": ("fixed", [3], "int64", None)}, False),
    ("batch_shape_2d", ["e1", "e2"], {"a": ("fixed", [1, 2], "int64", None)}, False),
    ("single_type", ["e1"], {"a": ("fixed", [], "float32", None)}, True),
    ("batch_type", ["e1", "e2"], {"a": ("fixed", [2], "float32", None)}, False),
    ("single_type_string", ["e1"], {"s": ("fixed", [], "int64", None)}, True),
    ("nokind_required", ["nokind"], {"n": ("fixed", [], "int64", None)}, True),
    ("nokind_default", ["nokind"], {"n": ("fixed", [], "int64", 7)}, True),
    ("empty_list_default", ["emptyint"], {"n": ("fixed", [], "int64", 7)}, True),
    ("batch_empty_list_default", ["emptyint", "e1"], {"n": ("fixed", [], "int64", 7)}, False),
    ("default_matrix", ["e1"], {"z": ("fixed", [2, 2], "float32", [1.0, 2.0, 3.0, 4.0])}, True),
    ("default_wrong_size", ["e1"], {"z": ("fixed", [2], "float32", 9.0)}, True),
    ("bad_dtype", ["e1"], {"z": ("fixed", [2], "int32", None)}, True),
    ("batch_of_one", ["e1"], {"a": ("fixed", [2], "int64", None)}, False),
    ("batch_missing_default_string", ["e2", "e1"], {"s": ("fixed", [2], "string", ["p", "q"])}, False),
    # FixedLenSequenceFeature: ("seq", shape, dtype, default) with allow_missing=True; "seq_strict": without
    ("seq_scalar", ["q1", "q2", "q3"], {"a": ("seq", [], "int64", None)}, False),
    ("seq_rows_default", ["q1", "q2", "q3"], {"a": ("seq", [2], "int64", -1)}, False),
    ("seq_single", ["q1"], {"a": ("seq", [2], "int64", None)}, True),
    ("seq_single_missing", ["q3"], {"a": ("seq", [2], "int64", None)}, True),
    ("seq_not_multiple", ["q1", "q2"], {"a": ("seq", [3], "int64", None)}, False),
    ("seq_single_not_multiple", ["q1"], {"a": ("seq", [3], "int64", None)}, True),
    ("seq_strings", ["q1", "q2"], {"s": ("seq", [], "string", None)}, False),
    ("seq_type", ["q1", "q2"], {"a": ("seq", [], "float32", None)}, False),
    ("seq_not_allow_missing", ["q1"], {"a": ("seq_strict", [], "int64", None)}, False),
    ("var_single", ["e1"], {"a": ("var", "int64")}, True),
    ("var_batch", ["e1", "e2"], {"s": ("var", "string"), "a": ("var", "int64")}, False),
]

# serialize_tensor: (case id, value, dtype)
SERIALIZE_TENSOR_CASES = [
    ("int32_vector", [1, 2], "int32"),
    ("float_matrix", [[1.5], [2.0]], "float32"),
    ("strings", ["a", "bc"], "string"),
    ("scalar_int64", 7, "int64"),
    ("empty", [[], []], "float32"),
    ("bool", [True, False, True], "bool"),
    ("double_scalar", -0.25, "float64"),
    ("uint8", [0, 255], "uint8"),
]


# --------------------------------------------------------------------------------------------
# Builders shared by the test (``tf`` = the engine) and the recorder (``tf`` = TensorFlow)
# --------------------------------------------------------------------------------------------
def build_example(tf, features):
    """A ``tf.train.Example`` of ``{key: (kind, values)}`` (kind ``bytes``/``float``/``int64``, else empty)."""
    feature = {}
    for key, (kind, values) in features.items():
        if kind == "bytes":
            feature[key] = tf.train.Feature(bytes_list=tf.train.BytesList(value=values))
        elif kind == "float":
            feature[key] = tf.train.Feature(float_list=tf.train.FloatList(value=values))
        elif kind == "int64":
            feature[key] = tf.train.Feature(int64_list=tf.train.Int64List(value=values))
        else:
            feature[key] = tf.train.Feature()
    return tf.train.Example(features=tf.train.Features(feature=feature))


def feature_spec(tf, spec):
    """The ``parse_example`` features of a case's spec (``fixed``, ``seq``/``seq_strict`` or ``var``)."""
    out = {}
    for key, s in spec.items():
        if s[0] == "fixed":
            out[key] = tf.io.FixedLenFeature(s[1], getattr(tf, s[2]), default_value=s[3])
        elif s[0].startswith("seq"):
            out[key] = tf.io.FixedLenSequenceFeature(s[1], getattr(tf, s[2]), allow_missing=s[0] == "seq",
                                                     default_value=s[3])
        else:
            out[key] = tf.io.VarLenFeature(getattr(tf, s[1]))
    return out
