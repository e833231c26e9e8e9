"""Cells of TF's ragged-tensor guide (``site/en/guide/ragged_tensor.ipynb``), as functions of ``tf``.

Each case is the guide's code (the cell number is in its name), run under real TF 2.21 by
``record_ragged_goldens.py`` (``/tmp/tfvenv/bin/python tests/ragged/record_ragged_goldens.py``) and
under the engine by ``test_ragged_guide.py``, which compares what they print line by line. Cells
that only display a value (``digits.to_list()``) print its ``repr``. Expected errors print their class
and message. Cells that need what the engine lacks (``tf.strings``, ``tf.io.parse_example``, Keras
LSTMs, ``tf.sparse``) are not here. Run one case: ``python ragged_cases.py tf|engine NAME``.
"""
import sys

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def show_error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        print(f"{type(e).__name__}: {e}")
    else:
        print("no error")


def _digits(tf):
    return tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])


@case
def cell08_overview_ops(tf):
    digits = _digits(tf)
    print(tf.add(digits, 3))
    print(tf.reduce_mean(digits, axis=1))
    print(tf.concat([digits, [[5, 3]]], axis=0))
    print(tf.tile(digits, [1, 2]))
    print(tf.map_fn(tf.math.square, digits))


@case
def cell12_14_indexing(tf):
    digits = _digits(tf)
    print(digits[0])
    print(digits[:, :2])
    print(digits[:, -2:])


@case
def cell16_17_operators(tf):
    digits = _digits(tf)
    print(digits + 3)
    print(digits + tf.ragged.constant([[1, 2, 3, 4], [], [5, 6, 7], [8], []]))


@case
def cell19_map_flat_values(tf):
    times_two_plus_one = lambda x: x * 2 + 1
    print(tf.ragged.map_flat_values(times_two_plus_one, _digits(tf)))


@case
def cell21_22_to_list_numpy(tf):
    digits = _digits(tf)
    print(repr(digits.to_list()))
    print(repr(digits.numpy()))


@case
def cell24_25_constant_strings(tf):
    sentences = tf.ragged.constant([
        ["Let's", "build", "some", "ragged", "tensors", "!"],
        ["We", "can", "use", "tf.ragged.constant", "."]])
    print(sentences)
    paragraphs = tf.ragged.constant([
        [['I', 'have', 'a', 'cat'], ['His', 'name', 'is', 'Mat']],
        [['Do', 'you', 'want', 'to', 'come', 'visit'], ["I'm", 'free', 'tomorrow']],
    ])
    print(paragraphs)


@case
def cell27_31_factories(tf):
    print(tf.RaggedTensor.from_value_rowids(values=[3, 1, 4, 1, 5, 9, 2], value_rowids=[0, 0, 0, 0, 2, 2, 3]))
    print(tf.RaggedTensor.from_row_lengths(values=[3, 1, 4, 1, 5, 9, 2], row_lengths=[4, 0, 2, 1]))
    print(tf.RaggedTensor.from_row_splits(values=[3, 1, 4, 1, 5, 9, 2], row_splits=[0, 4, 4, 6, 7]))


@case
def cell34_37_constant_rules(tf):
    print(tf.ragged.constant([["Hi"], ["How", "are", "you"]]))
    print(tf.ragged.constant([[[1, 2], [3]], [[4, 5]]]))
    try:
        tf.ragged.constant([["one", "two"], [3, 4]])
    except ValueError as exception:
        print(exception)
    try:
        tf.ragged.constant(["A", ["B", "C"]])
    except ValueError as exception:
        print(exception)


@case
def cell42_44_shape(tf):
    print(repr(tf.ragged.constant([["Hi"], ["How", "are", "you"]]).shape))
    print(tf.ragged.constant([["Hi"], ["How", "are", "you"]]).bounding_shape())


@case
def cell46_concat_axis1(tf):
    ragged_x = tf.ragged.constant([["John"], ["a", "big", "dog"], ["my", "cat"]])
    ragged_y = tf.ragged.constant([["fell", "asleep"], ["barked"], ["is", "fuzzy"]])
    print(tf.concat([ragged_x, ragged_y], axis=1))


@case
def cell73_dense_to_ragged_batch(tf):
    non_ragged_dataset = tf.data.Dataset.from_tensor_slices([1, 5, 3, 2, 8])
    non_ragged_dataset = non_ragged_dataset.map(tf.range)
    batched_non_ragged_dataset = non_ragged_dataset.apply(tf.data.experimental.dense_to_ragged_batch(2))
    for element in batched_non_ragged_dataset:
        print(element)


def _print_dictionary_dataset(dataset):
    for i, element in enumerate(dataset):
        print(f"Element {i}:")
        for (feature_name, feature_value) in element.items():
            print(f'{feature_name:>14} = {feature_value}')


def _features(tf):
    # (the guide builds these with tf.io.parse_example; the same values, directly)
    return {"colors": tf.ragged.constant([["red", "blue"], ["orange"], ["black", "yellow"], ["green"]]),
            "lengths": tf.ragged.constant([[7], [], [1, 3], [3, 5, 2]], dtype=tf.int64)}


@case
def cell66_71_datasets(tf):
    dataset = tf.data.Dataset.from_tensor_slices(_features(tf))
    _print_dictionary_dataset(dataset)
    batched_dataset = dataset.batch(2)
    _print_dictionary_dataset(batched_dataset)
    unbatched_dataset = batched_dataset.unbatch()
    _print_dictionary_dataset(unbatched_dataset)


@case
def cell75_map_ragged(tf):
    dataset = tf.data.Dataset.from_tensor_slices(_features(tf))

    def transform_lengths(features):
        return {
            'mean_length': tf.math.reduce_mean(features['lengths']),
            'length_ranges': tf.ragged.range(features['lengths'])}
    _print_dictionary_dataset(dataset.map(transform_lengths))


@case
def cell77_79_function_palindrome(tf):
    @tf.function
    def make_palindrome(x, axis):
        return tf.concat([x, tf.reverse(x, [axis])], axis)
    print(repr(make_palindrome(tf.constant([[1, 2], [3, 4], [5, 6]]), axis=1)))
    print(repr(make_palindrome(tf.ragged.constant([[1, 2], [3], [4, 5, 6]]), axis=1)))


@case
def cell81_input_signature(tf):
    @tf.function(input_signature=[tf.RaggedTensorSpec(shape=[None, None], dtype=tf.int32)])
    def max_and_min(rt):
        return (tf.math.reduce_max(rt, axis=-1), tf.math.reduce_min(rt, axis=-1))
    print(repr(max_and_min(tf.ragged.constant([[1, 2], [3], [4, 5, 6]]))))


@case
def cell83_concrete_function(tf):
    @tf.function
    def increment(x):
        return x + 1
    rt = tf.ragged.constant([[1, 2], [3], [4, 5, 6]])
    cf = increment.get_concrete_function(rt)
    print(cf(rt))


@case
def cell91_93_overloads(tf):
    x = tf.ragged.constant([[1, 2], [3], [4, 5, 6]])
    y = tf.ragged.constant([[1, 1], [2], [3, 3, 3]])
    print(x + y)
    print(x + 3)


@case
def cell97_102_string_indexing(tf):
    queries = tf.ragged.constant(
        [['Who', 'is', 'George', 'Washington'],
         ['What', 'is', 'the', 'weather', 'tomorrow'],
         ['Goodnight']])
    print(queries[1])
    print(queries[1, 2])
    print(queries[1:])
    print(queries[:, :3])
    print(queries[:, -2:])


@case
def cell104_108_3d_indexing(tf):
    rt = tf.ragged.constant([[[1, 2, 3], [4]],
                             [[5], [], [6]],
                             [[7]],
                             [[8, 9], [10]]])
    print(rt[1])
    print(rt[3, 0])
    print(rt[:, 1:3])
    print(rt[:, -1:])


@case
def cell111_113_conversions(tf):
    ragged_sentences = tf.ragged.constant([['Hi'], ['Welcome', 'to', 'the', 'fair'], ['Have', 'fun']])
    print(ragged_sentences.to_tensor(default_value='', shape=[None, 10]))
    x = [[1, 3, -1, -1], [2, -1, -1, -1], [4, 5, 8, 9]]
    print(tf.RaggedTensor.from_tensor(x, padding=-1))


@case
def cell117_evaluating(tf):
    rt = tf.ragged.constant([[1, 2], [3, 4, 5], [6], [], [7]])
    print("Python list:", rt.to_list())
    print("NumPy array:", rt.numpy())
    print("Values:", rt.values.numpy())
    print("Splits:", rt.row_splits.numpy())
    print("Indexed value:", rt[1].numpy())


@case
def cell120_121_static_shape(tf):
    x = tf.constant([[1, 2], [3, 4], [5, 6]])
    print(repr(x.shape))
    rt = tf.ragged.constant([[1], [2, 3], [], [4]])
    print(repr(rt.shape))


@case
def cell142_145_broadcasting(tf):
    x = tf.ragged.constant([[1, 2], [3]])
    print(x + 3)
    x = tf.ragged.constant([[10, 87, 12], [19, 53], [12, 32]])
    print(x + [[1000], [2000], [3000]])
    x = tf.ragged.constant([[[1, 2], [3, 4], [5, 6]], [[7, 8]]], ragged_rank=1)
    print(x + tf.constant([[10]]))
    x = tf.ragged.constant([[[[1], [2]], [], [[3]], [[4]]], [[[5], [6]], [[7]]]], ragged_rank=2)
    print(x + tf.constant([10, 20, 30]))


@case
def cell147_149_broadcast_errors(tf):
    x = tf.ragged.constant([[1, 2], [3, 4, 5, 6], [7]])
    y = tf.constant([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]])
    try:
        x + y
    except tf.errors.InvalidArgumentError as exception:
        print(type(exception).__name__, exception)
    x = tf.ragged.constant([[1, 2, 3], [4], [5, 6]])
    y = tf.ragged.constant([[10, 20], [30, 40], [50]])
    try:
        x + y
    except tf.errors.InvalidArgumentError as exception:
        print(type(exception).__name__, exception)
    x = tf.ragged.constant([[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 10]]])
    y = tf.ragged.constant([[[1, 2, 0], [3, 4, 0], [5, 6, 0]], [[7, 8, 0], [9, 10, 0]]])
    try:
        x + y
    except tf.errors.InvalidArgumentError as exception:
        print(type(exception).__name__, exception)


@case
def cell151_164_encoding(tf):
    rt = tf.RaggedTensor.from_row_splits(values=[3, 1, 4, 1, 5, 9, 2], row_splits=[0, 4, 4, 6, 7])
    print(rt)
    rt = tf.RaggedTensor.from_row_splits(
        values=tf.RaggedTensor.from_row_splits(values=[10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
                                               row_splits=[0, 3, 3, 5, 9, 10]),
        row_splits=[0, 1, 1, 5])
    print(rt)
    print(f"Shape: {rt.shape}")
    print(f"Number of partitioned dimensions: {rt.ragged_rank}")
    rt = tf.RaggedTensor.from_nested_row_splits(
        flat_values=[10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
        nested_row_splits=([0, 1, 1, 5], [0, 3, 3, 5, 9, 10]))
    print(rt)
    rt = tf.RaggedTensor.from_row_splits(values=[[1, 3], [0, 0], [1, 3], [5, 3], [3, 3], [1, 2]],
                                         row_splits=[0, 3, 4, 6])
    print(rt)
    print(f"Shape: {rt.shape}")
    print(f"Number of partitioned dimensions: {rt.ragged_rank}")
    print(f"Flat values shape: {rt.flat_values.shape}")
    print(f"Flat values:\n{rt.flat_values}")
    rt = tf.RaggedTensor.from_uniform_row_length(
        values=tf.RaggedTensor.from_row_splits(values=[10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
                                               row_splits=[0, 3, 5, 9, 10]),
        uniform_row_length=2)
    print(rt)
    print(f"Shape: {rt.shape}")
    print(f"Number of partitioned dimensions: {rt.ragged_rank}")


@case
def cell158_160_conversations(tf):
    conversations = tf.ragged.constant(
        [[[["I", "like", "ragged", "tensors."]],
          [["Oh", "yeah?"], ["What", "can", "you", "use", "them", "for?"]],
          [["Processing", "variable", "length", "data!"]]],
         [[["I", "like", "cheese."], ["Do", "you?"]],
          [["Yes."], ["I", "do."]]]])
    print(repr(conversations.shape))
    assert conversations.ragged_rank == len(conversations.nested_row_splits)
    print(repr(conversations.ragged_rank))
    print(repr(conversations.flat_values.numpy()))


# --- beyond the guide's cells: the API it describes ------------------------------------------------
@case
def api_validation_errors(tf):
    show_error(lambda: tf.RaggedTensor.from_row_splits([1, 2, 3], [1, 2, 3]))
    show_error(lambda: tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 2, 1, 3]))
    show_error(lambda: tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 2]))
    show_error(lambda: tf.RaggedTensor.from_row_splits([1, 2, 3], []))
    show_error(lambda: tf.RaggedTensor.from_row_lengths([1, 2, 3], [1, -1, 3]))
    show_error(lambda: tf.RaggedTensor.from_row_splits([1, 2, 3], [0., 1., 3.]))
    show_error(lambda: tf.ragged.constant([[1, 2], [3]])[2])
    show_error(lambda: tf.ragged.constant([[1, 2], [3]])[:, 1])


@case
def api_methods(tf):
    rt = tf.ragged.constant([[1, 2], [3]])
    print(repr(rt))
    print(rt._type_spec)
    print(rt.row_lengths(), rt.value_rowids(), rt.nrows())
    print(rt.merge_dims(0, 1))
    print(tf.ragged.constant([[[1, 2], [3]], [[4]]]).merge_dims(1, 2))
    print(rt.with_values(rt.values * 2), rt.with_flat_values(rt.flat_values * 3))
    print(tf.RaggedTensor.from_row_starts([1, 2, 3], [0, 2]), tf.RaggedTensor.from_row_limits([1, 2, 3], [2, 3]))
    print(tf.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0]], lengths=[2, 1]))
    print(repr(tf.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0]])))
    print(rt.to_tensor())
    print(rt.to_tensor(default_value=9, shape=[3, 1]))
    print(tf.ragged.constant([[[1, 2], [3]], [[4]]]).to_tensor())
    print(tf.ragged.constant([[[1, 2], [3]], [[4]]]).bounding_shape())
    print(tf.RaggedTensor.from_uniform_row_length([1, 2, 3, 4, 5, 6], 2)._type_spec)
    print(repr(tf.ragged.constant([[1, 2], [3, 4]])))
    print(repr(tf.ragged.constant([[1.5, 2], [3]])))
    print(tf.RaggedTensorSpec([None, None], tf.int32))
    print(tf.RaggedTensorSpec([None, None], tf.int32)._component_specs)
    print(tf.nest.flatten(rt, expand_composites=True))


@case
def api_ops(tf):
    rt = tf.ragged.constant([[1, 2], [3]])
    print(tf.ragged.range([3, 0, 2]), tf.ragged.range([1, 2], [4, 6], [1, 2]))
    print(tf.ragged.boolean_mask(tf.constant([[1, 2, 3], [4, 5, 6]]),
                                 tf.constant([[True, False, True], [False, False, True]])))
    print(tf.ragged.boolean_mask(rt, tf.ragged.constant([[True, False], [True]])))
    print(tf.ragged.stack([rt, tf.ragged.constant([[5]])]))
    print(tf.size(rt), tf.reduce_sum(rt, axis=0), tf.reduce_sum(rt, axis=1), tf.reduce_sum(rt))
    print(tf.reduce_max(_digits(tf), axis=1), tf.reduce_min(_digits(tf), axis=0))
    print(tf.gather(rt, [1, 0, 1]))
    print(tf.where(tf.ragged.constant([[True, False], [True]]), rt, rt * 10))
    print(rt == tf.ragged.constant([[1, 3], [3]]))
    print(rt < 2, -rt, abs(-rt), tf.math.square(rt), tf.cast(rt, tf.float32))
    print(tf.stack([rt, rt * 2], axis=0))
    print(tf.concat([rt, rt], axis=0))


@case
def api_data_specs(tf):
    ds = tf.data.Dataset.from_tensor_slices(tf.ragged.constant([[1, 2], [3], [4, 5, 6]]))
    print(ds.element_spec)
    print(ds.batch(2).element_spec)
    print(ds.batch(2).unbatch().element_spec)
    for e in ds.batch(2):
        print(e)
    for e in ds.batch(2).unbatch():
        print(e)
    lengths = tf.data.Dataset.from_tensor_slices([1, 5, 3]).map(tf.range)
    print(lengths.ragged_batch(2).element_spec)
    try:   # (batch right after map: TF fuses them; its message, without the runtime's node prefix and the
        list(lengths.batch(2))   # shapes, whose order depends on which of TF's parallel copies ran first)
    except tf.errors.InvalidArgumentError as e:
        print(type(e).__name__, str(e).split("}} ")[-1].split(" Shapes are")[0])
    base = tf.data.Dataset.from_tensors([1, 2]).concatenate(tf.data.Dataset.from_tensors([1, 2, 3]))
    try:
        list(base.batch(2))
    except tf.errors.InvalidArgumentError as e:
        print(type(e).__name__, str(e).split("}} ")[-1].split(" [Op:")[0])
    for e in tf.data.Dataset.from_tensor_slices(tf.ragged.constant([[[1], [2, 3]], [[4]]])):
        print(e)
    doubled = tf.data.Dataset.from_tensor_slices(tf.ragged.constant([[1, 2], [3]])).batch(2).map(lambda x: x * 2)
    print(doubled.element_spec)
    for e in doubled:
        print(e)


@case
def api_function_traces(tf):
    @tf.function
    def double(rt):
        return rt * 2
    rt = tf.ragged.constant([[1, 2], [3]])
    concrete = double.get_concrete_function(rt)
    print([(t.dtype.name, t.shape.as_list()) for t in concrete.inputs])
    print(double(rt))
    print(double.experimental_get_tracing_count())
    print(double(tf.ragged.constant([[5], [6, 7]])))
    print(double.experimental_get_tracing_count())
    print(double(tf.ragged.constant([[1.0], [2.0]])))
    print(double.experimental_get_tracing_count())

    @tf.function(input_signature=[tf.RaggedTensorSpec(shape=[None, None], dtype=tf.int32)])
    def row_sums(rt):
        return tf.reduce_sum(rt, axis=1)
    print(row_sums(rt), row_sums(tf.ragged.constant([[1], [2], [3, 4]])))
    print(row_sums.experimental_get_tracing_count())
    show_error(lambda: row_sums(tf.ragged.constant([[1.0]])))


@case
def api_nest(tf):
    rt = tf.ragged.constant([[1, 2], [3]])
    print(tf.nest.flatten({"a": rt, "b": 1}, expand_composites=True))
    print(tf.nest.flatten({"a": rt, "b": 1}))
    print(tf.nest.map_structure(lambda t: t * 2, rt, expand_composites=True))
    spec = rt._type_spec
    print(spec == tf.RaggedTensorSpec([2, None], tf.int32, 1), spec.is_compatible_with(rt))
    print(tf.RaggedTensorSpec([None, None], tf.int32).is_compatible_with(rt))
    print(tf.RaggedTensorSpec([None, None], tf.float32).is_compatible_with(rt))
    print(spec.most_specific_common_supertype([tf.ragged.constant([[1], [2], [3]])._type_spec]))
    print(tf.nest.pack_sequence_as(spec, [tf.constant([7, 8, 9]), tf.constant([0, 1, 3], tf.int64)],
                                   expand_composites=True))


@case
def cell124_134_dynamic_shape(tf):
    x = tf.constant([['a', 'b'], ['c', 'd'], ['e', 'f']])
    print(repr(tf.shape(x)))
    rt = tf.ragged.constant([[1], [2, 3, 4], [], [5, 6]])
    rt_shape = tf.shape(rt)
    print(rt_shape)
    print(f"tf.reshape(x, rt_shape) = {tf.reshape(x, rt_shape)}")
    print(f"tf.zeros(rt_shape) = {tf.zeros(rt_shape)}")
    print(f"tf.ones(rt_shape) = {tf.ones(rt_shape)}")
    print(f"tf.fill(rt_shape, 9) = {tf.fill(rt_shape, 'x')}")
    print(repr(rt_shape[0]))
    try:
        rt_shape[1]
    except ValueError as e:
        print("Got expected ValueError:", e)
    print(repr(rt_shape[:1]))


@case
def api_more_dispatch(tf):
    rt = tf.ragged.constant([[1, 2], [3], []])
    print(tf.size(rt), tf.rank(rt), tf.rank(tf.ragged.constant([[[1]], [[2], [3]]])))
    table = tf.constant([[0.0, 0.5], [1.0, 1.5], [2.0, 2.5], [3.0, 3.5]])
    print(tf.nn.embedding_lookup(table, rt))
    print(tf.reduce_mean(tf.nn.embedding_lookup(table, rt), axis=1))
    print(tf.reduce_any(tf.ragged.constant([[True, False], [False], []]), axis=1))
    print(tf.reduce_all(tf.ragged.constant([[True, False], [True], []]), axis=1))
    print(tf.reduce_prod(rt, axis=1), tf.reduce_sum(rt, axis=[0, 1]))
    print(tf.ragged.constant([[1.0, 2.0], [3.0]]) / 2.0, 10 - rt, rt // 2, rt % 2, rt ** 2)
    print(tf.math.maximum(rt, 2), tf.math.exp(tf.ragged.constant([[0.0], []])))
    print(tf.reverse(rt, [0]), tf.reverse(rt, [1]))
    print(tf.tile(tf.ragged.constant([[1, 2], [3]]), [2, 1]))


@case
def api_data_more(tf):
    batched = tf.data.Dataset.from_tensor_slices(tf.ragged.constant([[1], [2, 3]])).batch(2)
    print(list(batched.as_numpy_iterator()))
    print(list(tf.data.Dataset.from_tensor_slices(tf.ragged.constant([[1], [2, 3]])).as_numpy_iterator()))
    once = tf.data.Dataset.from_tensors(tf.ragged.constant([[1], [2, 3]]))
    print(once.element_spec)
    print(list(once))
    mixed = tf.data.Dataset.from_tensor_slices({"a": tf.ragged.constant([[1], [2, 3]]), "b": tf.constant([1, 2])})
    print(mixed.element_spec)
    for e in mixed.batch(2):
        print(e)
    nested = tf.data.Dataset.from_tensor_slices(tf.ragged.constant([[[1], [2, 3]], [[4]], [[5, 6], [], [7]]]))
    print(nested.batch(3).element_spec)
    for e in nested.batch(3):
        print(e)


@case
def cell114_115_sparse(tf):
    ragged_sentences = tf.ragged.constant([['Hi'], ['Welcome', 'to', 'the', 'fair'], ['Have', 'fun']])
    print(ragged_sentences.to_sparse())
    st = tf.SparseTensor(indices=[[0, 0], [2, 0], [2, 1]], values=['a', 'b', 'c'], dense_shape=[3, 3])
    print(tf.RaggedTensor.from_sparse(st))
    print(tf.ragged.constant([[[1, 2], [3]], [[4]], []]).to_sparse())


# --- cells that combine ragged tensors with tf.strings (the strings module's ragged dispatch) ---------
@case
def cell08_strings_substr(tf):
    words = tf.ragged.constant([["So", "long"], ["thanks", "for", "all", "the", "fish"]])
    print(tf.strings.substr(words, 0, 2))


@case
def cell39_embeddings(tf):
    queries = tf.ragged.constant([['Who', 'is', 'Dan', 'Smith'], ['Pause'], ['Will', 'it', 'rain', 'later', 'today']])
    num_buckets = 1024
    embedding_table = tf.Variable(tf.ones([num_buckets, 4]) * tf.range(num_buckets, dtype=tf.float32)[:, None])
    word_buckets = tf.strings.to_hash_bucket_fast(queries, num_buckets)
    print(word_buckets)
    word_embeddings = tf.nn.embedding_lookup(embedding_table, word_buckets)
    marker = tf.fill([queries.nrows(), 1], '#')
    padded = tf.concat([marker, queries, marker], axis=1)
    print(padded)
    bigrams = tf.strings.join([padded[:, :-1], padded[:, 1:]], separator='+')
    print(bigrams)
    bigram_buckets = tf.strings.to_hash_bucket_fast(bigrams, num_buckets)
    bigram_embeddings = tf.nn.embedding_lookup(embedding_table, bigram_buckets)
    all_embeddings = tf.concat([word_embeddings, bigram_embeddings], axis=1)
    print(all_embeddings.shape)
    avg_embedding = tf.reduce_mean(all_embeddings, axis=1)
    print(avg_embedding)


@case
def cell52_54_hashed_words(tf):
    sentences = tf.constant(['What makes you think she is a witch?', 'She turned me into a newt.', 'A newt?',
                             'Well, I got better.'])
    words = tf.strings.split(sentences, ' ')
    hashed_words = tf.strings.to_hash_bucket_fast(words, 1000)
    print(repr(hashed_words.to_list()))
    print(repr(hashed_words.to_tensor()))


@case
def api_reduce_3d(tf):
    rt = tf.ragged.constant([[[1, 2], [3]], [[4, 5, 6]], []])
    print(tf.reduce_sum(rt, axis=1))
    print(tf.reduce_max(rt, axis=1))
    print(tf.reduce_sum(rt, axis=0))
    print(tf.reduce_mean(rt, axis=1))
    print(tf.reduce_sum(rt, axis=2))
    print(tf.ragged.constant([[1, 2], [3]]) == None, tf.ragged.constant([[1, 2], [3]]) != None)  # noqa: E711


@case
def api_function_signature(tf):
    @tf.function
    def scale(x, y=2):
        return x * y
    concrete = scale.get_concrete_function(tf.ragged.constant([[1], [2, 3]]))
    print(concrete.pretty_printed_signature())
    show_error(lambda: concrete(tf.ragged.constant([[5], [6, 7]])))
    print(concrete(tf.ragged.constant([[5], [6, 7]]), 2))


@case
def api_function_reduce_retracing(tf):
    @tf.function(reduce_retracing=True)
    def f(rt):
        return rt + 1
    for n in [2, 3, 4, 2]:
        f(tf.ragged.constant([[1]] * n))
        print(f.experimental_get_tracing_count())
    print(f.pretty_printed_concrete_signatures())


@case
def api_broadcast_uniform_rows(tf):
    x = tf.ragged.constant([[1, 2], [3, 4]])
    print(x + tf.constant([[10, 20], [30, 40]]))
    show_error(lambda: tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]]) + tf.constant([[10], [20]]))
    print(tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1) + tf.constant([[[10]], [[20]]]))


@case
def api_ragged_batch_inner_dims(tf):
    ds = tf.data.Dataset.from_tensor_slices([1, 2, 3]).map(lambda n: tf.fill([n, 2], n))
    batched = ds.ragged_batch(2)
    print(batched.element_spec)
    for e in batched:
        print(e)
    print(batched.unbatch().element_spec)
    for e in batched.unbatch():
        print(e)
    print(tf.ragged.stack([tf.constant([1, 2]), tf.constant([3])]))
    print(tf.ragged.stack([tf.constant([[1, 2]]), tf.constant([[3, 4], [5, 6]])]))


@case
def api_constant_edges(tf):
    show_error(lambda: print(repr(tf.ragged.constant([[1, 2], [3]], ragged_rank=0))))
    show_error(lambda: print(repr(tf.ragged.constant([[[1, 2], [3]]], ragged_rank=1))))
    for value in ([[], []], [], 5, [1, 2, 3]):
        rt = tf.ragged.constant(value)
        print(repr(rt), rt.dtype)
    show_error(lambda: print(repr(tf.ragged.constant([[1, 2], [3]], inner_shape=(2,)))))
    print(repr(tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], inner_shape=(2,))))
    print(repr(tf.ragged.constant([[1, 2], [3]], dtype=tf.float64)))
    print(repr(tf.ragged.constant([[1, 2], [3]], row_splits_dtype=tf.int32).row_splits))
    print(tf.ragged.constant([[[1, 2], [3, 4], [5, 6]], [[7, 8]]], ragged_rank=1).shape)
    print(tf.ragged.constant([[True], [False, True]]).dtype, tf.ragged.constant([[1.5], []]).dtype)


@case
def api_map_fn(tf):
    digits = _digits(tf)
    print(tf.map_fn(tf.math.square, digits))
    print(tf.map_fn(tf.reduce_sum, digits, fn_output_signature=tf.int32))
    spec = [tf.RaggedTensorSpec([None, None], tf.int32)]
    squares = tf.function(lambda r: tf.map_fn(tf.math.square, r), input_signature=spec)
    sums = tf.function(lambda r: tf.map_fn(tf.reduce_sum, r, fn_output_signature=tf.int32), input_signature=spec)
    print(squares(digits))
    print(sums(digits))


@case
def api_segment_ids(tf):
    print(tf.ragged.segment_ids_to_row_splits([0, 0, 2, 2, 3]), tf.ragged.segment_ids_to_row_splits([0, 1], num_segments=4))
    print(tf.ragged.row_splits_to_segment_ids([0, 2, 2, 5]),
          tf.ragged.row_splits_to_segment_ids(tf.constant([0, 1, 3], tf.int32)))


@case
def api_unbatch_rows(tf):
    rows = tf.data.Dataset.from_tensor_slices(tf.ragged.constant([[1, 2], [3]]))
    print(rows.unbatch().element_spec)
    print([int(v) for v in rows.unbatch()])


if __name__ == "__main__":
    if sys.argv[1] == "tf":
        import tensorflow as module
    else:
        sys.path.insert(0, __file__.rsplit("/tests/", 1)[0])
        import engine as module
    CASES[sys.argv[2]](module)
