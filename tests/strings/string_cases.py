"""The tf.strings cases both the TF recorder (``record_string_goldens.py``) and the tests evaluate.

Each case is a Python expression over ``tf`` and ``np``; :func:`describe` turns its result (a
tensor, a RaggedTensor, a list of them) or the error it raises into plain JSON. The recorder
stores TF 2.21's description in ``string_goldens.json``; ``test_string_goldens.py`` checks the
engine gives the same one. No TensorFlow is imported here.
"""

CASES = {
    # --- string tensors themselves ---
    "const_scalar": 'tf.constant("a")',
    "const_vector": 'tf.constant(["ab", "c"])',
    "const_matrix": 'tf.constant([["a", "b"], ["c", "d"]])',
    "const_empty": 'tf.constant([], tf.string)',
    "const_unicode": 'tf.constant("语言")',
    "const_object_array": 'tf.constant(np.array([b"a", "bcd"], dtype=object))',
    "const_mixed_error": 'tf.constant(["a", 1])',
    "const_nonrect_error": 'tf.constant([["a"], ["b", "c"]])',
    "const_nonrect_numbers_error": 'tf.constant([[1], [2, 3]])',
    "pickle_keeps_nul": '__import__("pickle").loads(__import__("pickle").dumps(tf.constant([b"a\\x00", b"b"])))',
    "zeros_like_strings": 'tf.zeros_like(tf.constant([b"a\\x00", b"b"]))',
    "const_numbers_as_string_error": 'tf.constant([1, 2], tf.string)',
    "const_number_as_string_error": 'tf.constant(1, tf.string)',
    "const_numpy_as_string_error": 'tf.constant(np.array([1, 2]), tf.string)',
    "const_string_as_int_error": 'tf.constant("a", tf.int32)',
    "equal_strings": 'tf.constant(["a", "b"]) == tf.constant(["a", "c"])',
    "equal_python": 'tf.constant(["a", "b"]) == "a"',
    "not_equal_strings": 'tf.not_equal(tf.constant(["a", "b"]), tf.constant(["a", "c"]))',
    "str_vector": 'str(tf.constant(["Gray wolf", "Lazy dog"]))',
    "str_scalar": 'str(tf.constant("Gray wolf"))',
    "numpy_scalar_type": 'type(tf.constant("a").numpy()).__name__',
    "as_dtype_object": 'repr(tf.as_dtype(np.object_))',
    "add_strings": 'tf.constant("a") + tf.constant("b")',
    "add_strings_vector": 'tf.add(tf.constant(["a", "b"]), "c")',
    "reshape_strings": 'tf.reshape(tf.constant(["a", "b", "c", "d"]), [2, 2])',
    "concat_strings": 'tf.concat([tf.constant(["a"]), tf.constant(["b", "c"])], 0)',
    "gather_strings": 'tf.gather(tf.constant(["a", "b", "c"]), [2, 0])',
    "slice_strings": 'tf.constant(["a", "b", "c"])[1:]',
    "index_strings": 'tf.constant(["a", "b", "c"])[1]',
    "stack_strings": 'tf.stack([tf.constant("a"), tf.constant("bb")])',
    "fill_strings": 'tf.fill([2], "x")',
    # --- length ---
    "length_bytes": 'tf.strings.length(tf.constant(["hello", "", "语言"]))',
    "length_utf8": 'tf.strings.length(tf.constant(["hello", "", "语言"]), unit="UTF8_CHAR")',
    "length_scalar": 'tf.strings.length("abc")',
    "length_bad_unit": 'tf.strings.length("abc", unit="CHAR")',
    # --- join / reduce_join ---
    "join_two": 'tf.strings.join([tf.constant(["a", "b"]), tf.constant(["c", "d"])])',
    "join_sep": 'tf.strings.join(["a", "b", "c"], separator="-")',
    "join_scalar_broadcast": 'tf.strings.join([tf.constant(["a", "b"]), "x"], separator="+")',
    "join_shape_error": 'tf.strings.join([tf.constant(["a", "b"]), tf.constant(["a", "b", "c"])])',
    "join_matrix": 'tf.strings.join([tf.constant([["a"], ["b"]]), tf.constant([["c"], ["d"]])], separator=" ")',
    "reduce_join_all": 'tf.strings.reduce_join(tf.constant([["a", "b"], ["c", "d"]]))',
    "reduce_join_axis0": 'tf.strings.reduce_join(tf.constant([["a", "b"], ["c", "d"]]), axis=0)',
    "reduce_join_axis1_sep": 'tf.strings.reduce_join(tf.constant([["a", "b"], ["c", "d"]]), axis=1, separator=", ")',
    "reduce_join_neg_keepdims": 'tf.strings.reduce_join(tf.constant([["a", "b"], ["c", "d"]]), axis=-1, keepdims=True)',
    "reduce_join_1d": 'tf.strings.reduce_join(["x", "y", "z"], separator=".")',
    "reduce_join_empty": 'tf.strings.reduce_join(tf.constant([], tf.string))',
    "reduce_join_bad_axis": 'tf.strings.reduce_join(tf.constant(["a"]), axis=2)',
    # --- format ---
    "format_scalar": 'tf.strings.format("x = {}", tf.constant(3))',
    "format_vector": 'tf.strings.format("{} and {}", [tf.constant([1, 2, 3]), tf.constant(2.5)])',
    "format_summarize": 'tf.strings.format("{}", tf.range(10))',
    "format_summarize_2": 'tf.strings.format("v: {}", tf.range(10), summarize=2)',
    "format_summarize_all": 'tf.strings.format("{}", tf.range(10), summarize=-1)',
    "format_matrix": 'tf.strings.format("{}", tf.reshape(tf.range(6), [2, 3]))',
    "format_float": 'tf.strings.format("{}", tf.constant([0.5, 1.0, 1e-7, 123456789.0]))',
    "format_strings": 'tf.strings.format("{}", tf.constant(["a", "b"]))',
    "format_string_scalar": 'tf.strings.format("hi {}!", tf.constant("bob"))',
    "format_bool": 'tf.strings.format("{}", tf.constant([True, False]))',
    "format_placeholder": 'tf.strings.format("<> + <>", [1, 2], placeholder="<>")',
    "format_count_error": 'tf.strings.format("{} {}", [tf.constant(1)])',
    "format_no_inputs": 'tf.strings.format("plain", [])',
    "format_3d": 'tf.strings.format("{}", tf.reshape(tf.range(8), [2, 2, 2]))',
    # --- to_number ---
    "to_number_float": 'tf.strings.to_number(tf.constant(["1.5", "-2", "1e3", " 7 ", "inf", "-Infinity", "nan"]))',
    "to_number_split": 'tf.strings.to_number(tf.strings.split(tf.constant("1 10 100"), " "))',
    "to_number_int32": 'tf.strings.to_number(tf.constant(["12", "-7", "+5", " 3 "]), out_type=tf.int32)',
    "to_number_int64": 'tf.strings.to_number(tf.constant(["9223372036854775807"]), out_type=tf.int64)',
    "to_number_float64": 'tf.strings.to_number(tf.constant(["0.1", "2.5e-300"]), out_type=tf.float64)',
    "to_number_error": 'tf.strings.to_number(tf.constant(["1.5", "abc"]))',
    "to_number_int_error": 'tf.strings.to_number(tf.constant(["1.5"]), out_type=tf.int32)',
    "to_number_int_overflow": 'tf.strings.to_number(tf.constant(["3000000000"]), out_type=tf.int32)',
    "to_number_empty_error": 'tf.strings.to_number(tf.constant([""]))',
    "to_number_hex_error": 'tf.strings.to_number(tf.constant(["0x10"]), out_type=tf.int32)',
    "to_number_float32_overflow": 'tf.strings.to_number(tf.constant(["3.5e39"]))',
    "to_number_bad_type": 'tf.strings.to_number(tf.constant(["1"]), out_type=tf.int8)',
    # --- as_string ---
    "as_string_float": 'tf.strings.as_string(tf.constant([3.5, -0.25, 1e10]))',
    "as_string_int": 'tf.strings.as_string(tf.constant([1, -20, 300]))',
    "as_string_precision": 'tf.strings.as_string(tf.constant([3.14159, 2.0]), precision=2)',
    "as_string_scientific": 'tf.strings.as_string(tf.constant([31415.9]), scientific=True)',
    "as_string_shortest": 'tf.strings.as_string(tf.constant([0.1, 100.0, 1e-5]), shortest=True)',
    "as_string_width": 'tf.strings.as_string(tf.constant([7, 42]), width=5)',
    "as_string_fill": 'tf.strings.as_string(tf.constant([7, 42]), width=5, fill="0")',
    "as_string_bool": 'tf.strings.as_string(tf.constant([True, False]))',
    "as_string_int64": 'tf.strings.as_string(tf.constant([2**40], tf.int64))',
    "as_string_float64": 'tf.strings.as_string(tf.constant([0.1], tf.float64))',
    "as_string_scalar": 'tf.strings.as_string(5)',
    "as_string_nan_inf": 'tf.strings.as_string(tf.constant([float("nan"), float("inf"), -float("inf")]))',
    "as_string_sci_short_error": 'tf.strings.as_string(tf.constant([1.0]), scientific=True, shortest=True)',
    "as_string_int_precision_error": 'tf.strings.as_string(tf.constant([1]), precision=2)',
    # --- upper / lower / strip ---
    "upper": 'tf.strings.upper(tf.constant(["hello World", "àb"]))',
    "upper_utf8": 'tf.strings.upper(tf.constant(["àb ß"]), encoding="utf-8")',
    "lower": 'tf.strings.lower(tf.constant(["HeLLo", "ÀB"]))',
    "lower_utf8": 'tf.strings.lower(tf.constant(["ÀB"]), encoding="utf-8")',
    "strip": 'tf.strings.strip(tf.constant(["  a b \\t\\n", "\\x0bx\\x0c", "  "]))',
    # --- regex ---
    "regex_full_match": 'tf.strings.regex_full_match(tf.constant(["abc", "abcd", "xabc"]), "ab.")',
    "regex_full_match_tensor_pattern": 'tf.strings.regex_full_match(tf.constant(["a1", "b2"]), tf.constant("[a-z][0-9]"))',
    "regex_full_match_bad": 'tf.strings.regex_full_match(tf.constant(["a"]), "(")',
    "regex_replace": 'tf.strings.regex_replace(tf.constant(["hello world", "aaa"]), "[aeiou]", "_")',
    "regex_replace_first": 'tf.strings.regex_replace(tf.constant(["aaa"]), "a", "b", replace_global=False)',
    "regex_replace_groups": r'tf.strings.regex_replace(tf.constant(["john smith"]), r"(\w+) (\w+)", r"\2, \1")',
    "regex_replace_whole": r'tf.strings.regex_replace(tf.constant(["abc"]), "b", r"[\0]")',
    "regex_replace_empty_match": 'tf.strings.regex_replace(tf.constant(["abc"]), "x*", "-")',
    "regex_replace_bad": 'tf.strings.regex_replace(tf.constant(["a"]), "[", "x")',
    # --- substr ---
    "substr": 'tf.strings.substr(tf.constant(["Hello", "World"]), 1, 3)',
    "substr_neg_pos": 'tf.strings.substr(tf.constant(["Hello"]), -3, 2)',
    "substr_len_past_end": 'tf.strings.substr(tf.constant(["Hello"]), 3, 10)',
    "substr_vector_args": 'tf.strings.substr(tf.constant(["Hello", "World"]), [0, 2], [2, 3])',
    "substr_utf8": 'tf.strings.substr(tf.constant(["语言abc"]), 1, 2, unit="UTF8_CHAR")',
    "substr_pos_error": 'tf.strings.substr(tf.constant(["abc"]), 5, 1)',
    "substr_scalar": 'tf.strings.substr("abcdef", 2, 2)',
    "substr_at_end": 'tf.strings.substr(tf.constant(["abc"]), 3, 1)',
    "substr_words": 'tf.strings.substr(tf.constant(["Hi", "there", "a"]), 0, 2)',
    # --- split / bytes_split (RaggedTensor for rank >= 1) ---
    "split_scalar_sep": 'tf.strings.split(tf.constant("Gray wolf"), sep=" ")',
    "split_vector": 'tf.strings.split(tf.constant(["Gray wolf", "Quick brown fox", "Lazy dog"]))',
    "split_whitespace": 'tf.strings.split(tf.constant("  a  b\\tc\\n "))',
    "split_sep_empties": 'tf.strings.split(tf.constant(["a,,b,", ""]), sep=",")',
    "split_maxsplit": 'tf.strings.split(tf.constant(["a b c d"]), sep=" ", maxsplit=2)',
    "split_multichar": 'tf.strings.split(tf.constant("a<>b<>c"), sep="<>")',
    "split_matrix": 'tf.strings.split(tf.constant([["a b", "c"], ["d e f", ""]]))',
    "split_to_number": 'tf.strings.to_number(tf.strings.split(tf.constant(["1 2", "3"])))',
    "bytes_split_scalar": 'tf.strings.bytes_split(tf.constant("Duck"))',
    "bytes_split_vector": 'tf.strings.bytes_split(tf.constant(["ab", "", "c"]))',
    # --- unicode ---
    "unicode_decode_scalar": 'tf.strings.unicode_decode(tf.constant("アヒル 🦆"), "UTF-8")',
    "unicode_decode_vector": 'tf.strings.unicode_decode(tf.constant(["语言", "ab", ""]), "UTF-8")',
    "unicode_decode_replace": 'tf.strings.unicode_decode(tf.constant([b"a\\xffb"]), "UTF-8")',
    "unicode_decode_replace_char": 'tf.strings.unicode_decode(tf.constant([b"a\\xffb"]), "UTF-8", replacement_char=63)',
    "unicode_decode_ignore": 'tf.strings.unicode_decode(tf.constant([b"a\\xffb"]), "UTF-8", errors="ignore")',
    "unicode_decode_strict": 'tf.strings.unicode_decode(tf.constant([b"a\\xffb"]), "UTF-8", errors="strict")',
    "unicode_decode_control": 'tf.strings.unicode_decode(tf.constant(["a\\x01b"]), "UTF-8", replace_control_characters=True)',
    "unicode_decode_utf16": 'tf.strings.unicode_decode(tf.constant([b"\\x00a\\x8b\\xed"]), "UTF-16-BE")',
    "unicode_decode_offsets_scalar": 'tf.strings.unicode_decode_with_offsets(tf.constant("a语b"), "UTF-8")',
    "unicode_decode_offsets": 'tf.strings.unicode_decode_with_offsets(tf.constant(["a语b", "🦆"]), "UTF-8")',
    "unicode_decode_bad_encoding": 'tf.strings.unicode_decode(tf.constant(["a"]), "NOPE-8")',
    "unicode_split_scalar": 'tf.strings.unicode_split(tf.constant("アヒル 🦆"), "UTF-8")',
    "unicode_split_vector": 'tf.strings.unicode_split(tf.constant(["语言", "ab"]), "UTF-8")',
    "unicode_encode_vector": 'tf.strings.unicode_encode(tf.constant([35821, 35328]), "UTF-8")',
    "unicode_encode_matrix": 'tf.strings.unicode_encode(tf.constant([[97, 98], [99, 100]]), "UTF-8")',
    "unicode_encode_utf16": 'tf.strings.unicode_encode(tf.constant([97, 35821]), "UTF-16-BE")',
    "unicode_encode_utf32": 'tf.strings.unicode_encode(tf.constant([97]), "UTF-32-BE")',
    "unicode_encode_invalid": 'tf.strings.unicode_encode(tf.constant([97, -1, 0x110000]), "UTF-8")',
    "unicode_encode_invalid_strict": 'tf.strings.unicode_encode(tf.constant([97, -1]), "UTF-8", errors="strict")',
    "unicode_encode_ragged_roundtrip": 'tf.strings.unicode_encode(tf.strings.unicode_decode(tf.constant(["语言", "ab"]), "UTF-8"), "UTF-8")',
    "unicode_transcode": 'tf.strings.unicode_transcode(tf.constant(["语言", "ab"]), "UTF-8", "UTF-16-BE")',
    "unicode_transcode_back": 'tf.strings.unicode_transcode(tf.constant([b"\\x8b\\xed"]), "UTF-16-BE", "UTF-8")',
    "unicode_transcode_replace": 'tf.strings.unicode_transcode(tf.constant([b"a\\xffb"]), "UTF-8", "UTF-8")',
    "unicode_script": 'tf.strings.unicode_script(tf.constant([97, 1041, 35821, 48, 0x05D0, 0x0627]))',
    "unicode_script_table": 'tf.strings.unicode_script(tf.constant([0x391, 0x531, 0x985, 0xE01, 0x10D0, 0xAC00, 0x3042, 0x30A2, 0x905, 0x2014, 0x301, 0x1F600, 0x4E00, 0x1E00, 0xFF21, 0x3001]))',
    "unicode_script_invalid": 'tf.strings.unicode_script(tf.constant([-1, 0x110000]))',
    # --- hashing ---
    "hash_fast": 'tf.strings.to_hash_bucket_fast(tf.constant(["Hello", "TensorFlow", "2.x", ""]), 3)',
    "hash_fast_big": 'tf.strings.to_hash_bucket_fast(tf.constant(["a", "ab", "abc", "abcdefgh", "abcdefghijklmnopq", "x" * 40, "y" * 70]), 2**62)',
    "hash_fast_unicode": 'tf.strings.to_hash_bucket_fast(tf.constant(["语言", "🦆" * 9]), 1000003)',
    # --- tf.io ---
    "decode_raw_uint8": 'tf.io.decode_raw(tf.constant("Duck"), tf.uint8)',
    "decode_raw_int16": 'tf.io.decode_raw(tf.constant(["abcd", "efgh"]), tf.int16)',
    "decode_raw_big_endian": 'tf.io.decode_raw(tf.constant(["abcd"]), tf.int16, little_endian=False)',
    "decode_raw_float32": 'tf.io.decode_raw(tf.constant([b"\\x00\\x00\\x80\\x3f"]), tf.float32)',
    "decode_raw_size_error": 'tf.io.decode_raw(tf.constant(["abc", "defg"]), tf.int16)',
    "decode_raw_fixed_length": 'tf.io.decode_raw(tf.constant(["ab", "cdef"]), tf.uint8, fixed_length=3)',
    "encode_base64": 'tf.io.encode_base64(tf.constant(["hello", "a", "ab?>"]))',
    "encode_base64_pad": 'tf.io.encode_base64(tf.constant(["hello", "a"]), pad=True)',
    "decode_base64": 'tf.io.decode_base64(tf.constant(["aGVsbG8", "YQ", "YWI_Pg"]))',
    "decode_base64_padded": 'tf.io.decode_base64(tf.constant(["aGVsbG8=", "YQ=="]))',
    "decode_base64_error": 'tf.io.decode_base64(tf.constant(["a"]))',
    # --- more rows, and RaggedTensor inputs ---
    "regex_replace_tensor_pattern": 'tf.strings.regex_replace(tf.constant(["a1b22"]), tf.constant("[0-9]+"), tf.constant("#"))',
    "unicode_decode_offsets_only": 'tf.strings.unicode_decode_with_offsets(tf.constant(["a语b", "🦆"]), "UTF-8")[1]',
    "unicode_split_offsets": 'tf.strings.unicode_split_with_offsets(tf.constant(["a语b"]), "UTF-8")[1]',
    "unicode_decode_matrix": 'tf.strings.unicode_decode(tf.constant([["ab", "c"], ["", "语"]]), "UTF-8")',
    "unicode_encode_ragged_3d": 'tf.strings.unicode_encode(tf.ragged.constant([[[97], [98, 99]], [[100]]]), "UTF-8")',
    "ragged_length": 'tf.strings.length(tf.ragged.constant([["Hi", "there"], ["a"]]))',
    "ragged_substr": 'tf.strings.substr(tf.ragged.constant([["Hi", "there"], ["a"]]), 0, 2)',
    "ragged_hash": 'tf.strings.to_hash_bucket_fast(tf.ragged.constant([["Hi", "there"], ["a"]]), 10)',
    "ragged_upper": 'tf.strings.upper(tf.ragged.constant([["Hi", "there"], ["a"]]))',
    "ragged_split": 'tf.strings.split(tf.ragged.constant([["a b", "c"], ["d e f"]]))',
    "ragged_join": 'tf.strings.join([tf.ragged.constant([["a", "b"], ["c"]]), tf.ragged.constant([["x", "y"], ["z"]])], separator="+")',
    "ragged_to_number": 'tf.strings.to_number(tf.ragged.constant([["1", "2.5"], []]))',
    "ragged_unicode_decode": 'tf.strings.unicode_decode(tf.ragged.constant([["ab", "语"], []]), "UTF-8")',
    "ragged_regex_full_match": 'tf.strings.regex_full_match(tf.ragged.constant([["ab", "b"], ["a"]]), "a.*")',
    "split_guide_words": 'tf.strings.split(tf.constant(["What is the weather tomorrow", "What is the weather today"]), " ")',
    "nul_bytes_kept": 'tf.constant([b"a\x00", b"b"])',
    "nul_bytes_scalar": 'tf.constant(b"\x00\x00")',
    "nul_bytes_length": 'tf.strings.length(tf.constant([b"a\x00", b"\x00"]))',
    "nul_bytes_decode_raw": 'tf.io.decode_raw(tf.constant([b"\x01\x00\x00\x00", b"\x02\x00\x00\x00"]), tf.int32)',
    "string_index_of_nul": 'tf.constant([b"a\x00", b"b"])[0]',
    "as_string_string": 'tf.strings.as_string(tf.constant(["ab"]), width=4)',
    "as_string_fill_bad": 'tf.strings.as_string(tf.constant([1]), width=3, fill="x")',
    "as_string_complex": 'tf.strings.as_string(tf.constant([1 + 2j], tf.complex64))',
    "to_number_uint32": 'tf.strings.to_number(tf.constant(["4000000000"]), out_type=tf.uint32)',
    "substr_neg_error": 'tf.strings.substr(tf.constant(["abc"]), -4, 1)',
    "substr_neg_len": 'tf.strings.substr(tf.constant(["abc"]), 1, -1)',
    "reduce_join_axes_order": 'tf.strings.reduce_join(tf.constant([["a", "b"], ["c", "d"]]), axis=[0, 1])',
    "reduce_join_3d": 'tf.strings.reduce_join(tf.reshape(tf.strings.as_string(tf.range(8)), [2, 2, 2]), axis=1, separator=",")',
    "join_int_error": 'tf.strings.join([tf.constant([1])])',
    "length_int_error": 'tf.strings.length(tf.constant([1]))',
    "format_summarize_matrix": 'tf.strings.format("{}", tf.reshape(tf.range(36), [6, 6]), summarize=2)',
    "encode_base64_binary": 'tf.io.encode_base64(tf.constant([b"\xff\xfe\x00"]))',
    "decode_base64_binary": 'tf.io.decode_base64(tf.constant(["__4A"]))',
    "decode_base64_bad_char": 'tf.io.decode_base64(tf.constant(["ab$d"]))',
    "strings_in_dataset": 'list(tf.data.Dataset.from_tensor_slices(["# c", "a", "b"]).filter(lambda line: tf.not_equal(tf.strings.substr(line, 0, 1), "#")).map(tf.strings.upper))',
    "split_path_in_dataset": 'list(tf.data.Dataset.from_tensor_slices(["/d/cats/1.jpg", "/d/dogs/2.jpg"]).map(lambda p: tf.strings.split(p, "/")[-2]))',
    "ragged_reduce_join": 'tf.strings.reduce_join(tf.strings.split(tf.constant(["a b", "", "c d e"])), axis=-1, separator="-")',
    "ragged_reduce_join_2": 'tf.strings.reduce_join(tf.ragged.constant([[["a", "b"], []], [["c"]]]), axis=-1)',
    # --- in tf.function ---
    "function_join_length": 'tf.function(lambda s: tf.strings.length(tf.strings.join([s, s], separator="-")))(tf.constant(["ab", "c"]))',
    "function_upper_substr": 'tf.function(lambda s: tf.strings.upper(tf.strings.substr(s, 0, 2)))(tf.constant(["hello", "x"]))',
    "function_to_number": 'tf.function(lambda s: tf.strings.to_number(s) * 2.0)(tf.constant(["1.5", "2"]))',
    "function_format": 'tf.function(lambda x: tf.strings.format("x={}", x))(tf.constant([1, 2]))',
}

# Built inside ``tf.Graph().as_default()``: the errors TF's op definitions give at node creation.
GRAPH_CASES = {
    "graph_length_int_error": 'tf.strings.length(tf.constant([1]))',
    "graph_upper_int_error": 'tf.strings.upper(tf.constant([1]))',
    "graph_substr_int_error": 'tf.strings.substr(tf.constant([1]), 0, 1)',
    "graph_to_number_int_error": 'tf.strings.to_number(tf.constant([1]))',
    "graph_shape_of_split": 'repr(tf.strings.split(tf.constant(["a b"])).shape)',
    "graph_shape_of_join": 'repr(tf.strings.join([tf.constant([["a"]]), "b"]).shape)',
    "graph_shape_of_reduce_join": 'repr(tf.strings.reduce_join(tf.constant([["a", "b"]]), axis=1).shape)',
    "graph_shape_of_format": 'repr(tf.strings.format("{}", tf.constant([1, 2])).shape)',
    "graph_shape_of_decode_raw": 'repr(tf.io.decode_raw(tf.constant(["abcd"]), tf.int16).shape)',
}


def _plain(value):
    """A nested list of bytes/numbers as JSON-able text (bytes keep their repr)."""
    return repr(value)


def describe(thunk):
    """Run ``thunk`` and describe what came out, or the error it raised."""
    try:
        result = thunk()
    except Exception as error:  # noqa: BLE001
        return {"error": type(error).__name__, "message": str(error)}
    return describe_value(result)


def describe_value(result):
    if isinstance(result, (list, tuple)):
        return {"list": [describe_value(r) for r in result]}
    if isinstance(result, (str, bool, int, float)):
        return {"python": repr(result)}
    if hasattr(result, "to_list") and hasattr(result, "row_splits"):
        return {"ragged": True, "dtype": result.dtype.name, "value": _plain(result.to_list()),
                "ragged_rank": int(result.ragged_rank)}
    value = result.numpy()
    out = {"dtype": result.dtype.name, "shape": list(result.shape), "value": _plain(value.tolist()
                                                                                  if hasattr(value, "tolist")
                                                                                  else value)}
    if result.dtype.name in ("string", "bool") or result.dtype.is_integer:
        out["repr"] = repr(result)
        out["str"] = str(result)
    return out
