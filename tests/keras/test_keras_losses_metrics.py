"""tf.keras losses (every loss x every reduction) and metrics, against TF 2.21 goldens."""
import numpy as np
import pytest

import keras_golden as G
from kerastest import assert_close, f32, keras, tf

L = {k: f32(v) for k, v in G.LOSS_INPUTS.items()}
YT, YP, SW = L["yt"], L["yp"], L["sw"]
ONE_HOT, PROBS, LOGITS = L["yt_oh"], L["yp_prob"], L["logits"]
SPARSE = L["ysparse"].astype(np.int32)
REDUCTIONS = ["sum_over_batch_size", "sum", "none", "mean_with_sample_weight"]
losses = keras.losses

CASES = {
    "mse": lambda r: losses.MeanSquaredError(reduction=r)(YT, YP),
    "mse_sw": lambda r: losses.MeanSquaredError(reduction=r)(YT, YP, sample_weight=SW),
    "mae": lambda r: losses.MeanAbsoluteError(reduction=r)(YT, YP),
    "bce": lambda r: losses.BinaryCrossentropy(reduction=r)(YT, YP),
    "bce_logits": lambda r: losses.BinaryCrossentropy(from_logits=True, reduction=r)(YT, YP * 4 - 2),
    "bce_sw": lambda r: losses.BinaryCrossentropy(reduction=r)(YT, YP, sample_weight=SW),
    "cce": lambda r: losses.CategoricalCrossentropy(reduction=r)(ONE_HOT, PROBS),
    "cce_logits": lambda r: losses.CategoricalCrossentropy(from_logits=True, reduction=r)(ONE_HOT, LOGITS),
    "cce_sw": lambda r: losses.CategoricalCrossentropy(reduction=r)(ONE_HOT, PROBS, sample_weight=SW),
    "scce": lambda r: losses.SparseCategoricalCrossentropy(reduction=r)(SPARSE, PROBS),
    "scce_logits": lambda r: losses.SparseCategoricalCrossentropy(from_logits=True, reduction=r)(SPARSE, LOGITS),
    "scce_col": lambda r: losses.SparseCategoricalCrossentropy(from_logits=True, reduction=r)(SPARSE[:, None], LOGITS),
    "scce_sw": lambda r: losses.SparseCategoricalCrossentropy(from_logits=True, reduction=r)(SPARSE, LOGITS,
                                                                                           sample_weight=SW),
}


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_loss_matches_tf(case, reduction):
    got = CASES[case](reduction)
    assert got.dtype == tf.float32
    assert_close(got, G.LOSSES[f"{case}|{reduction}"])


def test_loss_options_and_rank_matching():
    assert_close(losses.BinaryCrossentropy(label_smoothing=0.2)(YT, YP), G.LOSSES["bce_smooth|sum_over_batch_size"])
    assert_close(losses.CategoricalCrossentropy(label_smoothing=0.1)(ONE_HOT, PROBS),
                 G.LOSSES["cce_smooth|sum_over_batch_size"])
    assert_close(losses.MeanSquaredError()(f32([1, 2, 3]), f32([[1.5], [1.0], [3.5]])),
                 G.LOSSES["mse_rank_mismatch|sum_over_batch_size"])
    assert losses.MeanSquaredError(reduction=None)(YT, YP).shape.as_list() == [3]


def test_loss_functions_and_names():
    assert_close(losses.mse(YT, YP), G.LOSS_FUNCTIONS["mse"])
    assert_close(losses.sparse_categorical_crossentropy(SPARSE, LOGITS, from_logits=True), G.LOSS_FUNCTIONS["scce"])
    assert_close(losses.categorical_crossentropy(ONE_HOT, PROBS), G.LOSS_FUNCTIONS["cce"])
    assert_close(losses.binary_crossentropy(YT, YP), G.LOSS_FUNCTIONS["bce"])
    for name, want in G.LOSS_NAMES.items():
        categorical = "categorical" in name
        assert_close(losses.get(name)(ONE_HOT if categorical else YT, PROBS if categorical else YP), want)
    assert isinstance(losses.get("SparseCategoricalCrossentropy"), losses.SparseCategoricalCrossentropy)
    assert losses.get("mae") is losses.mae and losses.get("mean_absolute_error") is losses.mae
    assert not hasattr(losses, "mean_absolute_error")      # Keras 3 exports only the short names


def test_loss_under_tf_function_uses_the_logits_of_a_softmax():
    """Inside a traced function Keras looks through a final softmax: the result equals the logits formula."""
    extreme = f32([[30.0, -30.0, 0.0]])

    @tf.function
    def loss_of_softmax(x):
        return losses.SparseCategoricalCrossentropy()(np.array([1]), tf.nn.softmax(x))
    assert_close(loss_of_softmax(extreme),
                 losses.SparseCategoricalCrossentropy(from_logits=True)(np.array([1]), extreme), 1e-4)
    # eagerly the probabilities are clipped to [1e-7, 1 - 1e-7], as in TF
    assert_close(losses.SparseCategoricalCrossentropy()(np.array([1]), tf.nn.softmax(extreme)), -np.log(1e-7), 1e-4)


def test_loss_errors():
    with pytest.raises(ValueError, match="Invalid value for argument `reduction`"):
        losses.MeanSquaredError(reduction="avg")
    with pytest.raises(ValueError, match="must have the same shape"):
        losses.CategoricalCrossentropy()(ONE_HOT[:, :2], PROBS)
    with pytest.raises(ValueError, match="must have rank"):
        losses.SparseCategoricalCrossentropy()(ONE_HOT, PROBS[0])
    with pytest.raises(ValueError, match="Could not interpret loss identifier: nope"):
        losses.get("nope")


def test_losses_are_differentiable():
    logits = tf.Variable(LOGITS)
    with tf.GradientTape() as tape:
        loss = losses.SparseCategoricalCrossentropy(from_logits=True)(SPARSE, logits)
    grad = tape.gradient(loss, logits).numpy()
    softmax = np.exp(LOGITS) / np.exp(LOGITS).sum(-1, keepdims=True)
    assert_close(grad, (softmax - np.eye(3)[SPARSE]) / 3)


# --- metrics --------------------------------------------------------------------------------------
def test_metrics_match_tf():
    M, metrics = G.METRICS, keras.metrics
    m = metrics.Mean()
    m.update_state([1.0, 2.0, 3.0])
    m.update_state(5.0)
    assert_close(m.result(), M["mean"])
    m.update_state([1.0, 3.0], sample_weight=[0.5, 2.0])
    assert_close(m.result(), M["mean_weighted"])
    m.reset_state()
    assert_close(m.result(), M["mean_reset"])
    a = metrics.Accuracy()
    a.update_state([1, 2, 3, 4], [1, 2, 0, 4])
    assert_close(a.result(), M["accuracy"])
    a.update_state([[1], [2]], [[0], [2]])
    assert_close(a.result(), M["accuracy2"])
    s = metrics.SparseCategoricalAccuracy()
    s.update_state(SPARSE, LOGITS)
    assert_close(s.result(), M["sparse_cat_acc"])
    s.update_state(np.array([[2], [1]]), np.array([[0.1, 0.2, 0.7], [0.9, 0.05, 0.05]]))
    assert_close(s.result(), M["sparse_cat_acc2"])
    s.update_state(SPARSE, LOGITS, sample_weight=[0.0, 1.0, 3.0])
    assert_close(s.result(), M["sparse_cat_acc_w"])
    c = metrics.CategoricalAccuracy()
    c.update_state(ONE_HOT, PROBS)
    assert_close(c.result(), M["cat_acc"])
    c.update_state(ONE_HOT, LOGITS)
    assert_close(c.result(), M["cat_acc2"])
    b = metrics.BinaryAccuracy()
    b.update_state(YT, YP)
    assert_close(b.result(), M["bin_acc"])
    assert_close(metrics.Mean()(np.array([[1.0, 2.0], [3.0, 5.0]])), M["mean_call"])
    mse = metrics.MeanSquaredError()
    mse.update_state(YT, YP)
    assert_close(mse.result(), M["mse"])
    mae = metrics.get("mae")
    mae.update_state(YT, YP)
    assert_close(mae.result(), M["mae"])


def test_metric_state_is_variables_updated_inside_tf_function():
    acc = keras.metrics.SparseCategoricalAccuracy()
    assert [v.name for v in acc.variables] == ["sparse_categorical_accuracy/total:0",
                                               "sparse_categorical_accuracy/count:0"]

    @tf.function
    def update(y, logits):
        acc.update_state(y, logits)
        return acc.result()
    update(SPARSE, LOGITS)
    assert_close(update(SPARSE, LOGITS), G.METRICS["sparse_cat_acc"])
    assert_close(acc.count, 6.0)
    acc.reset_state()
    assert_close(acc.result(), 0.0)
    assert update.experimental_get_tracing_count() == 1
