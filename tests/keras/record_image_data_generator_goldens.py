"""Record image_data_generator_goldens.json from TF 2.21 / Keras 3 (not run by pytest).

    PYTHONPATH=<a directory holding scipy> /tmp/tfvenv/bin/python tests/keras/record_image_data_generator_goldens.py

Keras' ``ImageDataGenerator`` resamples with ``scipy.ndimage``; SciPy only has to be importable.
"""
import json
import os
import sys
import tempfile

import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import image_data_generator_cases as cases  # noqa: E402

root = os.path.join(tempfile.mkdtemp(), "images")
cases.make_image_tree(root)
goldens = {"tf_version": tf.__version__, "keras_version": tf.keras.__version__,
           "cases": {name: cases.run(fn, tf.keras.preprocessing.image, root) for name, fn in cases.CASES.items()}}
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "image_data_generator_goldens.json")
with open(path, "w") as f:
    json.dump(goldens, f, indent=0, sort_keys=True)
    f.write("\n")
print("wrote", path, len(goldens["cases"]), "cases")
