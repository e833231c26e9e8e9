"""Graph-vs-eager catalog entries for TensorArray (TensorList ops), map_fn & co, and py_function.

Their values cannot be compared case by case: TensorList ops take and return ``variant`` tensors (a
Python list value, not an array), and the script ops hold a Python function in their attrs. They are
tested eagerly and inside ``tf.function`` (values, static shapes, errors, gradients) in the files named.
"""
_TA = "variant TensorList values; tested in tests/function/test_tensor_array.py and test_functional_ops.py"
_PY = "attrs hold a Python function; tested in tests/function/test_py_function.py"

EXCLUDED = {
    "TensorListReserve": _TA,
    "TensorListFromTensor": _TA,
    "TensorListSetItem": _TA,
    "TensorListGetItem": _TA,
    "TensorListStack": _TA,
    "TensorListGather": _TA,
    "TensorListScatterIntoExistingList": _TA,
    "TensorListConcatV2": _TA,
    "TensorListSplit": _TA,
    "TensorListLength": _TA,
    "TensorListResize": _TA + " (the gradient of a resizing write)",
    "EagerPyFunc": _PY,
    "PyFunc": _PY,
    "PyFuncStateless": _PY,
}
