"""Recorder (run with /work/tfref/bin/python, TF 2.21 / Keras 3.15; never imported by the tests): prints the
golden values pasted into the matching test / golden module."""
import os, io, contextlib, numpy as np, tensorflow as tf
keras = tf.keras
x = np.round(np.random.default_rng(0).normal(size=(8, 3)), 2).astype("float32")
y = np.round(np.random.default_rng(1).normal(size=(8, 1)), 2).astype("float32")
def model():
    m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1, kernel_initializer="ones")])
    m.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    return m
# LearningRateScheduler verbose
m = model()
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    h = m.fit(x, y, epochs=3, batch_size=4, verbose=0, shuffle=False, callbacks=[keras.callbacks.LearningRateScheduler(lambda e, lr: lr * 0.5, verbose=1)])
print("LRS", repr(buf.getvalue()), h.history)
# ReduceLROnPlateau
m = model()
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    h = m.fit(x, y, epochs=6, batch_size=4, verbose=0, shuffle=False, validation_data=(x, -y),
          callbacks=[keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=1, verbose=1, min_lr=0.02)])
print("RLR", repr(buf.getvalue()), h.history)
# TerminateOnNaN
m = model()
buf = io.StringIO()
yn = y.copy(); yn[5] = np.nan
with contextlib.redirect_stdout(buf):
    h = m.fit(x, yn, epochs=3, batch_size=4, verbose=0, shuffle=False, callbacks=[keras.callbacks.TerminateOnNaN()])
print("NAN", repr(buf.getvalue()), h.history)
# CSVLogger
m = model()
h = m.fit(x, y, epochs=2, batch_size=4, verbose=0, shuffle=False, validation_data=(x, y), callbacks=[keras.callbacks.CSVLogger("/tmp/rec/log.csv")])
print("CSV", repr(open("/tmp/rec/log.csv").read()))
h = m.fit(x, y, epochs=1, batch_size=4, verbose=0, shuffle=False, callbacks=[keras.callbacks.CSVLogger("/tmp/rec/log.csv", append=True, separator=";")])
print("CSV2", repr(open("/tmp/rec/log.csv").read()))
# ModelCheckpoint
import shutil; shutil.rmtree("/tmp/rec/ck", ignore_errors=True); os.makedirs("/tmp/rec/ck")
m = model()
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    h = m.fit(x, y, epochs=4, batch_size=4, verbose=0, shuffle=False, validation_data=(x, -y),
          callbacks=[keras.callbacks.ModelCheckpoint("/tmp/rec/ck/w-{epoch:02d}-{val_loss:.2f}.weights.h5", save_weights_only=True, save_best_only=True, verbose=1)])
print("MC", repr(buf.getvalue()), sorted(os.listdir("/tmp/rec/ck")), h.history)
shutil.rmtree("/tmp/rec/ck"); os.makedirs("/tmp/rec/ck")
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    h = m.fit(x, y, epochs=2, batch_size=4, verbose=0, shuffle=False,
          callbacks=[keras.callbacks.ModelCheckpoint("/tmp/rec/ck/m-{epoch}.weights.h5", save_weights_only=True, monitor="loss", mode="max", save_best_only=True, verbose=1)])
print("MC2", repr(buf.getvalue()), sorted(os.listdir("/tmp/rec/ck")))
try:
    keras.callbacks.ModelCheckpoint("/tmp/rec/ck/x.h5", save_weights_only=True)
except Exception as e: print("ERR1", type(e).__name__, e)
try:
    keras.callbacks.ModelCheckpoint("/tmp/rec/ck/x.h5")
except Exception as e: print("ERR2", type(e).__name__, e)
buf = io.StringIO()
with contextlib.redirect_stdout(buf), __import__("warnings").catch_warnings(record=True) as w:
    __import__("warnings").simplefilter("always")
    pass
print("WARN", [str(i.message) for i in w], repr(buf.getvalue()))
shutil.rmtree("/tmp/rec/ck"); os.makedirs("/tmp/rec/ck")
model().fit(x, y, epochs=2, batch_size=2, verbose=0, shuffle=False, callbacks=[keras.callbacks.ModelCheckpoint("/tmp/rec/ck/e{epoch}-b{batch}.weights.h5", save_weights_only=True, save_freq=3)])
print("FREQ", sorted(os.listdir("/tmp/rec/ck")))
m = model(); m.fit(x, y, epochs=2, batch_size=4, verbose=0, shuffle=False)
m.fit(x, y, epochs=2, batch_size=4, verbose=0, shuffle=False, callbacks=[keras.callbacks.ModelCheckpoint("/tmp/rec/ck/m-{epoch}.weights.h5", save_weights_only=True, monitor="loss", mode="max", save_best_only=True, verbose=1)])
