"""``tf.function``: tracing Python functions into graphs, and calling them.

``function.py`` holds ``tf.function`` (the ``Function`` object and its trace cache),
``ConcreteFunction`` (one traced graph) and the reference tracer behind the
``tracer`` seam. It sits above the op library and variables: tracing runs the
user's Python function on symbolic tensors, so every op and variable it touches
must already exist.
"""
