"""AutoGraph: Python control flow inside tf.function, converted to graph control flow.

Golden values, graph op types and error messages recorded from TensorFlow 2.21
(TF's op lists also contain Identity nodes for outputs, which the engine does not add).
"""
import pytest

import engine as tf



def op_types(f, *args):
    return sorted({op.type for op in f.get_concrete_function(*args).graph.get_operations()})


def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


# --------------------------------------------------------------------------------------
# Tensor conditions become graph control flow
# --------------------------------------------------------------------------------------
def test_collatz_with_a_tensor_while_traces_once():
    f = tf.function(collatz)
    assert [int(f(tf.constant(n))) for n in (27, 6, 1)] == [111, 8, 0]           # TF 2.21: 111, 8, 0
    assert f(tf.constant(27)).dtype == tf.int32
    assert f.experimental_get_tracing_count() == 1
    assert op_types(f, tf.constant(5)) == ["Const", "Identity", "Placeholder", "StatelessWhile"]
    assert collatz(27) == 111 and tf.autograph.to_graph(collatz)(27) == 111    # Python values: Python semantics


def test_if_on_a_tensor_becomes_a_cond_and_python_conditions_choose_at_trace_time():
    @tf.function
    def f(x, flag):
        if flag:                          # Python: decided while tracing
            x = x + 100.0
        if x > 0:                         # tensor: a StatelessIf
            y = x * 2.0
        else:
            y = -x
        return y

    assert float(f(tf.constant(3.0), False)) == 6.0 and float(f(tf.constant(-3.0), False)) == 3.0
    assert float(f(tf.constant(-3.0), True)) == 194.0
    assert op_types(f, tf.constant(1.0), False) == ["Const", "Greater", "Identity", "Placeholder", "StatelessIf"]


def test_break_and_continue_in_a_tensor_for_loop():
    def odd_sum_until(x):
        s = 0
        for i in tf.range(10):
            if i > x:
                break
            if i % 2 == 0:
                continue
            s += i
        return s

    f = tf.function(odd_sum_until)
    assert [int(f(tf.constant(n))) for n in (6, 3, 100)] == [9, 4, 25]          # TF 2.21: 9, 4, 25
    assert op_types(f, tf.constant(1)) == ["Const", "Identity", "Placeholder", "Range", "StatelessWhile"]


def test_returns_in_branches():
    def sign(x):
        if x > 0:
            return 1.0
        elif x < 0:
            return -1.0
        return 0.0

    def absolute(x):
        if x > 0:
            return x
        return -x

    assert float(tf.function(absolute)(tf.constant(-3.0))) == 3.0                  # TF 2.21: 3.0
    # TF 2.21 refuses `sign` ("the else branch must also have a return statement."); the engine moves the
    # final `return 0.0` into the inner else as well, so every branch returns.
    f = tf.function(sign)
    assert [float(f(tf.constant(v))) for v in (2.0, -2.0, 0.0)] == [1.0, -1.0, 0.0]


def test_return_inside_loops():
    def first_above(xs, t):
        for i in range(4):                # a Python loop: the early return is decided while tracing
            if i >= t:
                return xs[i]
        return xs[0]

    assert float(tf.function(first_above)(tf.constant([1.0, 5.0, 2.0, 7.0]), 2)) == 2.0

    def first_index_above(xs, t):
        for i in tf.range(tf.shape(xs)[0]):
            if xs[i] > t:
                return i
        return -1

    with pytest.raises(NotImplementedError, match="a return statement cannot be placed inside this TensorFlow "
                                                  "loop"):                          # TF 2.21's error too
        tf.function(first_index_above)(tf.constant([1.0, 5.0]), tf.constant(4.0))

    def first_index_above_with_break(xs, t):
        found = -1
        for i in tf.range(tf.shape(xs)[0]):
            if xs[i] > t:
                found = i
                break
        return found

    f = tf.function(first_index_above_with_break)
    assert int(f(tf.constant([1.0, 5.0, 2.0, 7.0]), tf.constant(4.0))) == 1
    assert int(f(tf.constant([1.0, 5.0, 2.0, 7.0]), tf.constant(9.0))) == -1


def test_nested_loops():
    def triangle(n):
        total = 0
        for i in tf.range(n):
            j = 0
            while j < i:
                total += i * j
                j += 1
        return total

    def nested_break(n):
        count = 0
        for i in tf.range(n):
            for j in tf.range(n):
                if j > i:
                    break
                count += 1
        return count

    assert [int(tf.function(triangle)(tf.constant(n))) for n in (5, 0)] == [35, 0]   # TF 2.21: 35, 0
    assert int(tf.function(nested_break)(tf.constant(4))) == 10                        # TF 2.21: 10


def test_for_over_a_tensor_iterates_its_first_dimension():
    def row_sums(x):
        s = tf.zeros([], x.dtype)
        for row in x:
            s = s * 2.0 + tf.reduce_sum(row)
        return s

    def sum_until_negative(xs):
        s = 0.0
        for x in xs:
            if x < 0:
                break
            s += x
        return s

    f = tf.function(row_sums)
    assert float(f(tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))) == 37.0             # TF 2.21: 37.0
    assert float(tf.function(sum_until_negative)(tf.constant([1.0, 2.0, -1.0, 4.0]))) == 3.0
    assert "StatelessWhile" in op_types(f, tf.constant([[1.0, 2.0]]))
    assert float(row_sums(tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))) == 37.0      # eager: Python loop


def test_python_loops_unroll_and_leave_no_while_op():
    def python_unroll(x):
        for i in range(3):
            x = x * 2.0 + i
        return x

    f = tf.function(python_unroll)
    assert float(f(tf.constant(1.0))) == 12.0                                               # TF 2.21: 12.0
    assert op_types(f, tf.constant(1.0)) == ["AddV2", "Const", "Identity", "Mul", "Placeholder"]   # as TF


def test_logical_operators_on_tensors():
    def logic(a, b):
        return (a > 0 and b > 0) or not a < -1

    f = tf.function(logic)
    cases = [((1.0, 2.0), True), ((1.0, -2.0), True), ((-0.5, 1.0), True), ((-3.0, 1.0), False)]  # TF 2.21
    for (a, b), expected in cases:
        out = f(tf.constant(a), tf.constant(b))
        assert out.dtype == tf.bool and bool(out) is expected
    assert op_types(f, tf.constant(1.0), tf.constant(1.0)) == ["Const", "Greater", "Identity", "Placeholder",
                                                                "StatelessIf"]
    assert tf.autograph.to_graph(logic)(1, 2) is True                   # Python values: Python's and/or/not
    both, either = tf.function(lambda x: x > 0 and x < 5), tf.function(lambda x: x > 0 or x < -5)  # one line
    assert [bool(both(tf.constant(3.0))), bool(either(tf.constant(-9.0)))] == [True, True]
    assert tf.autograph.to_graph(lambda a: a and [])(0) == 0


def test_conditional_expressions():
    f = tf.function(lambda x: x * 2.0 if x > 0 else -x)
    assert float(f(tf.constant(3.0))) == 6.0 and float(f(tf.constant(-3.0))) == 3.0         # TF 2.21
    assert "StatelessIf" in op_types(f, tf.constant(1.0))


def test_a_variable_first_defined_in_a_tensor_loop():
    def defined_in_loop(n):
        for i in tf.range(n):
            z = i * 2
        return z

    f = tf.function(defined_in_loop)
    assert int(f(tf.constant(3))) == 4                                                       # TF 2.21: 4
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"assertion failed: \[loop must iterate at least once to initialize z\]"):
        f(tf.constant(0))


def test_loop_else_and_set_loop_options():
    def while_else(n):
        i = 0
        found = -1
        while i < n:
            if i * i > 10:
                found = i
                break
            i += 1
        else:
            found = -2
        return found

    # TF 2.21 does not convert while/else; the engine does, with Python's meaning.
    assert [int(tf.function(while_else)(tf.constant(n))) for n in (10, 3)] == [while_else(10), while_else(3)]

    def grow(n):
        x = tf.ones([1])
        for i in tf.range(n):
            tf.autograph.experimental.set_loop_options(shape_invariants=[(x, tf.TensorShape([None]))])
            x = tf.concat([x, x * 2.0], 0)
        return x

    assert tf.function(grow)(tf.constant(3)).numpy().tolist() == [1.0, 2.0, 2.0, 4.0, 2.0, 4.0, 4.0, 8.0]  # TF


def test_a_loop_with_only_side_effects():
    v = tf.Variable(0)

    @tf.function
    def count_to(n):
        while v < n:
            v.assign_add(1)
        return v.read_value()

    assert int(count_to(tf.constant(5))) == 5                                                   # TF 2.21: 5
    assert "While" in op_types(count_to, tf.constant(5))


# --------------------------------------------------------------------------------------
# Errors, with TF's messages
# --------------------------------------------------------------------------------------
def test_variable_defined_in_only_one_branch():
    def one_branch(x):
        if x > 0:
            y = x
        return y

    def else_only(x):
        if x > 0:
            pass
        else:
            y = x
        return y

    with pytest.raises(ValueError, match="^'y' must also be initialized in the else branch$"):
        tf.function(one_branch)(tf.constant(1.0))
    with pytest.raises(ValueError, match="^'y' must also be initialized in the main branch$"):
        tf.function(else_only)(tf.constant(1.0))
    assert float(tf.autograph.to_graph(one_branch)(tf.constant(1.0))) == 1.0   # eager: Python semantics


def test_return_in_only_one_branch():
    def ret_one(x):
        if x > 0:
            return x

    with pytest.raises(ValueError, match=r"^the else branch must also have a return statement\.$"):
        tf.function(ret_one)(tf.constant(1.0))


def test_loop_variables_must_keep_dtype_and_shape():
    def dtype_change(n):
        x = 0
        i = 0
        while i < n:
            x = tf.cast(x, tf.float32) + 1.0
            i += 1
        return x

    def shape_change(n):
        x = tf.zeros([1])
        i = 0
        while i < n:
            x = tf.concat([x, x], 0)
            i += 1
        return x

    with pytest.raises(TypeError, match="^'x' has dtype int32 before the loop, but dtype float32 after one "
                                        "iteration$"):
        tf.function(dtype_change)(tf.constant(3))
    with pytest.raises(ValueError, match=r"^'x' has shape \(1,\) before the loop, but shape \(2,\) after one "
                                         r"iteration. Use tf.autograph.experimental.set_loop_options to set shape "
                                         r"invariants.$"):
        tf.function(shape_change)(tf.constant(3))


def test_branches_must_agree_on_dtypes_and_conditions_must_be_bool():
    def dtype_branch(x):
        if x > 0:
            y = 1
        else:
            y = 2.0
        return y

    def float_condition(x):
        if x:
            y = 1
        else:
            y = 2
        return y

    with pytest.raises(TypeError, match="^'y' has dtype int32 in the main branch, but dtype float32 in the else "
                                        "branch$"):
        tf.function(dtype_branch)(tf.constant(1.0))
    with pytest.raises(ValueError, match=r"condition of if statement expected to be `tf.bool` scalar, got "
                                         r"Tensor\(\"x:0\", shape=\(\), dtype=float32\); to use as boolean Tensor, "
                                         r"use `tf.cast`; to check for None, use `is not None`"):
        tf.function(float_condition)(tf.constant(1.0))


def test_a_tensor_break_in_a_python_loop():
    def py_for_tensor_break(x):
        for i in range(5):
            if x > i:
                break
        return x

    with pytest.raises(NotImplementedError, match="break and return statements which depend on a TF condition are "
                                                  "not supported in Python for loops"):
        tf.function(py_for_tensor_break)(tf.constant(1.0))


def test_autograph_false_leaves_python_control_flow_alone():
    def absolute(x):
        if x > 0:
            return x
        return -x

    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        tf.function(absolute, autograph=False)(tf.constant(1.0))
    assert float(tf.function(absolute)(tf.constant(-1.0))) == 1.0


# --------------------------------------------------------------------------------------
# Gradients through converted control flow
# --------------------------------------------------------------------------------------
def test_gradients_through_converted_if_and_loops():
    def smooth(x):
        if x > 1.0:
            y = x * x
        else:
            y = 2.0 * x - 1.0
        return y * 3.0

    def piecewise_loop(x):
        for i in tf.range(4):
            if x > 2.0:
                x = x * 0.5
            else:
                x = x * x + 1.0
        return x

    def power(x, n):
        y = tf.ones_like(x)
        i = 0
        while i < n:
            y = y * x
            i += 1
        return y

    golden = [(smooth, 3.0, 27.0, 18.0), (smooth, 0.5, 0.0, 6.0),                      # TF 2.21 golden values
              (piecewise_loop, 0.3, 2.1969456672668457, 1.431017518043518), (piecewise_loop, 1.5, 1.8203125, 2.4375),
              (piecewise_loop, 5.0, 1.28125, 0.3125), (lambda x: power(x, tf.constant(4)), 1.5, 5.0625, 13.5)]
    for fn, x0, value, slope in golden:
        for f in (tf.function(fn), tf.autograph.to_graph(fn)):                          # graph and eager
            x = tf.constant(x0)
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            assert float(y) == pytest.approx(value, rel=1e-6)
            assert float(tape.gradient(y, x)) == pytest.approx(slope, rel=1e-6)


# --------------------------------------------------------------------------------------
# The converter itself
# --------------------------------------------------------------------------------------
def test_to_code_shows_the_converted_source():
    code = tf.autograph.to_code(collatz)
    assert code.startswith("def tf__collatz(n):")
    for fragment in ["ag__.while_stmt(loop_test, loop_body", "ag__.if_stmt(n % 2 == 0, if_body, else_body",
                     "('n', 'steps')", "nonlocal n, steps"]:
        assert fragment in code
    assert "ag__.for_stmt" in tf.autograph.to_code(lambda_free_for)
    assert "ag__.and_(lambda: a, lambda: b)" in tf.autograph.to_code(both)
    assert "ag__.not_(a)" in tf.autograph.to_code(negate)


def lambda_free_for(xs):
    s = 0.0
    for x in xs:
        s += x
    return s


def both(a, b):
    return a and b


def negate(a):
    return not a


def test_converted_functions_keep_python_semantics():
    """Conversion must not change what a function does with Python values."""
    counter = [0]

    def many_features(n, *args, scale=2, **kwargs):
        global _GLOBAL_COUNT
        total, seen = 0, []
        for i, x in enumerate(range(n)):
            if x % 3 == 0:
                continue
            try:
                if x > 7:
                    raise KeyError(x)
                total += x * scale
            except KeyError:
                total -= 1
            finally:
                counter[0] += 1
            seen.append(x)
            while total > 20 and not kwargs.get("no_cap"):
                total -= 5
                if total < 18:
                    break
        else:
            seen.append("done")
        _GLOBAL_COUNT = total
        squares = [v * v for v in seen if isinstance(v, int) and v % 2 == 0]
        helper = (lambda v: v + 1) if n > 3 else None
        return total, seen, squares, helper(1) if helper else None, len(args)

    def early_returns(x):
        try:
            return 10 // x            # raises for x == 0: the function has not returned
        except ZeroDivisionError:
            pass
        for i in range(3):
            for j in range(3):
                if i * j == 2:
                    return i, j
        return None

    converted = tf.autograph.to_graph(many_features)
    for n in (0, 4, 12):
        expected = many_features(n, 1, 2, scale=3)
        g1 = _GLOBAL_COUNT
        assert converted(n, 1, 2, scale=3) == expected and _GLOBAL_COUNT == g1
    assert counter[0] == 2 * (0 + 2 + 8)
    assert [tf.autograph.to_graph(early_returns)(x) for x in (0, 5)] == [(1, 2), 2]


_GLOBAL_COUNT = 0


def test_closures_methods_and_private_names():
    scale = [2.0]

    def scaled(x):
        if x > 0:
            x = x * scale[0]
        return x

    f = tf.function(scaled)
    assert float(f(tf.constant(3.0))) == 6.0

    class Model(tf.Module):
        def __init__(self):
            super().__init__()
            self.__w = tf.Variable(3.0)

        @tf.function
        def __call__(self, x):
            if x > 0:
                return x * self.__w
            return x

    m = Model()
    assert float(m(tf.constant(2.0))) == 6.0 and float(m(tf.constant(-2.0))) == -2.0


def test_called_functions_are_converted_too():
    def step(n):
        if n % 2 == 0:
            return n // 2
        return 3 * n + 1

    @tf.function
    def steps(n):
        count = 0
        while n != 1:
            n = step(n)                     # converted on the fly (recursive=True)
            count += 1
        return count

    assert int(steps(tf.constant(27))) == 111


def test_print_runs_while_tracing_and_do_not_convert(capsys):
    @tf.function
    def f(x):
        if x > 0:
            print("positive branch traced")
            y = x
        else:
            print("negative branch traced")
            y = -x
        return y

    f(tf.constant(1.0))
    f(tf.constant(-1.0))
    assert capsys.readouterr().out.splitlines() == ["positive branch traced", "negative branch traced"]

    @tf.function
    def g(n):
        def report(i):                    # a nested function: converted when it is called
            if i > 1:
                tf.print("big", i)
        for i in tf.range(n):
            tf.print("step", i)           # an op in the loop body: runs on every iteration of every call
            report(i)
        return n

    g(tf.constant(3))
    g(tf.constant(1))
    assert capsys.readouterr().err.splitlines() == ["step 0", "step 1", "step 2", "big 2", "step 0"]

    @tf.autograph.experimental.do_not_convert
    def unconverted(x):
        if x > 0:
            return x
        return -x

    assert tf.autograph.to_graph(unconverted) is unconverted
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        tf.function(unconverted)(tf.constant(1.0))


def test_the_for_loop_protocol_for_other_iterables():
    class Countdown:
        """Iterates 3, 2, 1 by calling ``body`` itself (what tf.data.Dataset does, with a graph op)."""

        def _autograph_for_stmt(self, extra_test, body, get_state, set_state, symbol_names, opts):
            self.names = symbol_names
            for k in (3, 2, 1):
                if extra_test is not None and not extra_test():
                    break
                body(k)

    def total(xs):
        s = 0
        for k in xs:
            if k < 2:
                break
            s += k
        return s

    xs = Countdown()
    assert tf.autograph.to_graph(total)(xs) == 5 and xs.names == ("break_", "s")


def test_tf_range_and_len_of_tensors():
    def count(x):
        n = 0
        for i in range(len(x)):          # len of a tensor with a known first dimension: a Python int
            n += 1
        return n

    f = tf.function(count)
    assert int(f(tf.constant([1.0, 2.0, 3.0]))) == 3
    g = tf.function(count, input_signature=[tf.TensorSpec([None], tf.float32)])
    assert int(g(tf.constant([1.0, 2.0]))) == 2 and "StatelessWhile" in op_types(g)


def test_a_training_loop_inside_a_function():
    w = tf.Variable(0.0)
    x, y = tf.constant(2.0), tf.constant(6.0)

    @tf.function
    def train(steps):
        for _ in tf.range(steps):          # one While op; each iteration: a tape, a gradient, an update
            with tf.GradientTape() as tape:
                loss = (w * x - y) ** 2
            w.assign_sub(0.05 * tape.gradient(loss, w))
        return loss

    assert float(train(tf.constant(50))) < 1e-9 and float(w) == pytest.approx(3.0)
    assert train.experimental_get_tracing_count() == 1


def test_a_converted_while_names_its_loop_variables_after_the_python_ones():
    """The body graph of an AutoGraph ``while`` reads ``n``, ``steps`` (a deliberate difference: TF names
    them Placeholder, Placeholder_1); a plain ``tf.while_loop`` keeps ``loop_var``; nested loops each
    get their own names."""
    @tf.function
    def collatz(n):
        steps = tf.constant(0)
        while n != 1:
            n = tf.where(n % 2 == 0, n // 2, 3 * n + 1)
            steps += 1
        return steps

    def placeholders(graph):
        return [op.name for op in graph.get_operations() if op.type == "Placeholder"]

    graph = collatz.get_concrete_function(tf.TensorSpec([], tf.int32)).graph
    (loop,) = [op for op in graph.get_operations() if op.type.endswith("While")]
    assert placeholders(loop.attrs["body"].graph) == ["n", "steps"]
    assert placeholders(loop.attrs["cond"].graph) == ["n", "steps"]
    assert int(collatz(tf.constant(27))) == 111

    @tf.function
    def nested(x):
        i = tf.constant(0)
        while i < 2:
            j = tf.constant(0)
            while j < 3:
                x = x + 1.0
                j += 1
            i += 1
        return x

    graph = nested.get_concrete_function(tf.TensorSpec([], tf.float32)).graph
    (outer,) = [op for op in graph.get_operations() if op.type.endswith("While")]
    (inner,) = [op for op in outer.attrs["body"].graph.get_operations() if op.type.endswith("While")]
    assert sorted(placeholders(outer.attrs["body"].graph)) == ["i", "x"]
    assert sorted(placeholders(inner.attrs["body"].graph)) == ["j", "x"]
    assert float(nested(tf.constant(0.0))) == 6.0

    @tf.function
    def plain(x):
        return tf.while_loop(lambda v: v < 10.0, lambda v: v * 2.0, [x])

    graph = plain.get_concrete_function(tf.TensorSpec([], tf.float32)).graph
    (loop,) = [op for op in graph.get_operations() if op.type.endswith("While")]
    assert placeholders(loop.attrs["body"].graph) == ["loop_var"]
