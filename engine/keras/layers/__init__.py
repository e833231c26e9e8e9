"""``tf.keras.layers``: the building blocks of models.

Every layer derives from :class:`Layer` (``layer.py``): read that first. Then
``core.py`` (Dense, Embedding), ``activation.py``, ``reshaping.py`` (Flatten),
``regularization.py`` (Dropout), ``convolutional.py`` (Conv2D), ``pooling.py``,
``normalization.py`` (BatchNormalization, LayerNormalization),
``recurrent.py`` (SimpleRNN, LSTM, GRU, Bidirectional), ``merging.py`` (Add) and
``input_layer.py`` (Input, the start of a functional model).
"""
from .activation import Activation, ReLU  # noqa: F401
from .convolutional import Conv2D  # noqa: F401
from .core import Dense, Embedding  # noqa: F401
from .input_layer import Input, InputLayer  # noqa: F401
from .layer import Layer  # noqa: F401
from .merging import Add  # noqa: F401
from .normalization import BatchNormalization, LayerNormalization  # noqa: F401
from .pooling import AveragePooling2D, MaxPooling2D  # noqa: F401
from .recurrent import GRU, LSTM, RNN, Bidirectional, GRUCell, LSTMCell, SimpleRNN, SimpleRNNCell  # noqa: F401
from .regularization import Dropout  # noqa: F401
from .reshaping import Flatten  # noqa: F401

__all__ = ["Layer", "Input", "InputLayer", "Dense", "Embedding", "Activation", "ReLU", "Flatten", "Dropout", "Conv2D",
           "MaxPooling2D", "AveragePooling2D", "BatchNormalization", "Add", "Convolution2D", "MaxPool2D",
           "AvgPool2D", "LayerNormalization", "SimpleRNN", "LSTM", "GRU", "RNN", "SimpleRNNCell", "LSTMCell",
           "GRUCell", "Bidirectional"]

Convolution2D = Conv2D
MaxPool2D = MaxPooling2D
AvgPool2D = AveragePooling2D
