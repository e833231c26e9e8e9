"""``tf.graph_util``: GraphDef utilities (see ``engine/framework/graph_io.py``)."""
from .framework.graph_io import import_graph_def  # noqa: F401

__all__ = ["import_graph_def"]
