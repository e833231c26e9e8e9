"""``tf.keras.layers``: the building blocks of models.

Every layer derives from :class:`Layer` (``layer.py``): read that first. Then
``core.py`` (Dense, Embedding), ``activation.py``, ``reshaping.py`` (Flatten),
``regularization.py`` (Dropout), ``convolutional.py`` (Conv2D), ``pooling.py``,
``normalization.py`` (BatchNormalization, LayerNormalization),
``recurrent.py`` (SimpleRNN, LSTM, GRU, Bidirectional), ``merging.py`` (Add) and
``input_layer.py`` (Input, the start of a functional model).
"""
from .activation import Activation, LeakyReLU, ReLU, Softmax  # noqa: F401
from .convolutional import Conv1D, Conv2D, Conv2DTranspose  # noqa: F401
from .core import Dense, Embedding, Masking  # noqa: F401
from .input_layer import Input, InputLayer  # noqa: F401
from .lambda_layer import Lambda  # noqa: F401
from .layer import Layer  # noqa: F401
from .merging import (Add, Average, Concatenate, Multiply, Subtract, add, average, concatenate,  # noqa: F401
                      multiply, subtract)
from .normalization import BatchNormalization, LayerNormalization  # noqa: F401
from .pooling import (AveragePooling1D, AveragePooling2D, MaxPooling1D, GlobalAveragePooling1D, GlobalAveragePooling2D,  # noqa: F401
                      GlobalMaxPooling1D, GlobalMaxPooling2D, MaxPooling2D)
from .recurrent import GRU, LSTM, RNN, Bidirectional, GRUCell, LSTMCell, SimpleRNN, SimpleRNNCell  # noqa: F401
from .regularization import Dropout  # noqa: F401
from .reshaping import Cropping2D, Flatten, Reshape, UpSampling2D, ZeroPadding2D  # noqa: F401

__all__ = ["Layer", "Lambda", "Input", "InputLayer", "Dense", "Embedding", "Masking", "Activation", "ReLU", "LeakyReLU", "Softmax", "Flatten", "Reshape", "Dropout", "Conv2D", "Conv2DTranspose", "Convolution2DTranspose",
           "MaxPooling2D", "AveragePooling2D", "BatchNormalization", "Add", "Subtract", "Multiply", "Average", "Concatenate", "add", "subtract", "multiply",
           "average", "concatenate", "GlobalMaxPooling2D", "GlobalAveragePooling2D", "GlobalMaxPooling1D",
           "GlobalAveragePooling1D", "GlobalMaxPool2D", "GlobalAvgPool2D", "GlobalMaxPool1D", "GlobalAvgPool1D", "Convolution2D", "MaxPool2D",
           "AvgPool2D", "LayerNormalization", "SimpleRNN", "LSTM", "GRU", "RNN", "SimpleRNNCell", "LSTMCell",
           "GRUCell", "Bidirectional", "Conv1D", "Convolution1D", "MaxPooling1D", "AveragePooling1D", "MaxPool1D",
           "AvgPool1D", "UpSampling2D", "ZeroPadding2D", "Cropping2D"]

Convolution1D = Conv1D
MaxPool1D = MaxPooling1D
AvgPool1D = AveragePooling1D
Convolution2D = Conv2D
Convolution2DTranspose = Conv2DTranspose
MaxPool2D = MaxPooling2D
AvgPool2D = AveragePooling2D
GlobalMaxPool2D = GlobalMaxPooling2D
GlobalAvgPool2D = GlobalAveragePooling2D
GlobalMaxPool1D = GlobalMaxPooling1D
GlobalAvgPool1D = GlobalAveragePooling1D
