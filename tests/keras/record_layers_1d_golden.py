"""Recorder (run with /work/tfref/bin/python, TF 2.21 / Keras 3.15; never imported by the tests): prints the
golden values pasted into the matching test / golden module."""
import numpy as np, tensorflow as tf
keras = tf.keras
def r(shape, seed): return np.round(np.random.default_rng(seed).normal(size=shape), 2).astype("float32")
X1 = r((2, 7, 3), 1)
out = {}
for pad in ("valid", "same", "causal"):
    for strides, dil in ((1, 1), (2, 1), (1, 2)):
        if strides > 1 and dil > 1: continue
        if pad == "causal" and strides > 1: pass
        l = keras.layers.Conv1D(2, 3, strides=strides, padding=pad, dilation_rate=dil, activation="relu")
        l.build((None, 7, 3)); l.set_weights([r((3, 3, 2), 2), r((2,), 3)])
        out[f"conv1d_{pad}_{strides}_{dil}"] = np.round(l(X1).numpy(), 5).tolist()
for pad in ("valid", "same"):
    out[f"max1d_{pad}"] = keras.layers.MaxPooling1D(3, strides=2, padding=pad)(X1).numpy().tolist()
    out[f"avg1d_{pad}"] = np.round(keras.layers.AveragePooling1D(3, strides=2, padding=pad)(X1).numpy(), 6).tolist()
out["max1d_default"] = keras.layers.MaxPooling1D()(X1).numpy().shape
X2 = r((1, 2, 3, 2), 4)
out["up_nearest"] = keras.layers.UpSampling2D((2, 3))(X2).numpy().tolist()
out["up_bilinear"] = np.round(keras.layers.UpSampling2D(2, interpolation="bilinear")(X2).numpy(), 5).tolist()
out["zp"] = keras.layers.ZeroPadding2D(((1, 0), (2, 1)))(X2).numpy().shape
out["zp1"] = keras.layers.ZeroPadding2D()(X2).numpy()[0, :, :, 0].tolist()
X3 = r((1, 5, 6, 1), 5)
out["crop"] = keras.layers.Cropping2D(((1, 2), (2, 1)))(X3).numpy()[0, :, :, 0].tolist()
out["crop1"] = keras.layers.Cropping2D(1)(X3).numpy().shape
i = keras.Input((None, 3))
out["sym"] = [keras.layers.Conv1D(2, 3, padding="causal")(i).shape, keras.layers.Conv1D(2, 3, strides=2)(keras.Input((7, 3))).shape,
              keras.layers.UpSampling2D(2)(keras.Input((None, 4, 2))).shape, keras.layers.Cropping2D(1)(keras.Input((5, 6, 1))).shape,
              keras.layers.MaxPooling1D(2)(keras.Input((7, 3))).shape]
try: keras.layers.Conv1D(2, 3, strides=2, dilation_rate=2)
except Exception as e: out["err"] = (type(e).__name__, str(e))
print("G =", out)
