"""Plausible wrong A2 submissions: each must lose points on its own task, for every student seed, and only there."""

# --- task 1: needed_ops ---------------------------------------------------------------------------------
NO_CONTROL = '''
def needed_ops(fetches, targets, feeds):
    fed, needed = set(feeds), set()
    todo = [t.op for t in fetches if t not in fed] + list(targets)
    while todo:
        op = todo.pop()
        if op not in needed:
            needed.add(op)
            todo.extend(t.op for t in op.inputs if t not in fed)     # control inputs forgotten
    return needed
'''

NO_FEED_CUT = '''
def needed_ops(fetches, targets, feeds):
    needed = set()
    todo = [t.op for t in fetches] + list(targets)        # feeds ignored: every producer runs
    while todo:
        op = todo.pop()
        if op not in needed:
            needed.add(op)
            todo.extend(t.op for t in op.inputs)
            todo.extend(op.control_inputs)
    return needed
'''

NO_TARGETS = '''
def needed_ops(fetches, targets, feeds):
    fed, needed = set(feeds), set()
    todo = [t.op for t in fetches if t not in fed]         # targets forgotten
    while todo:
        op = todo.pop()
        if op not in needed:
            needed.add(op)
            todo.extend(t.op for t in op.inputs if t not in fed)
            todo.extend(c for c in op.control_inputs if not (c.outputs and all(t in fed for t in c.outputs)))
    return needed
'''

FED_FETCH_RUNS = '''
def needed_ops(fetches, targets, feeds):
    fed, needed = set(feeds), set()
    todo = [t.op for t in fetches] + list(targets)         # a fed fetch's producer still added
    while todo:
        op = todo.pop()
        if op not in needed:
            needed.add(op)
            todo.extend(t.op for t in op.inputs if t not in fed)
            todo.extend(c for c in op.control_inputs if not (c.outputs and all(t in fed for t in c.outputs)))
    return needed
'''

SKIPS_PLACEHOLDERS = '''
def needed_ops(fetches, targets, feeds):
    fed, needed = set(feeds), set()
    todo = [t.op for t in fetches if t not in fed] + list(targets)
    while todo:
        op = todo.pop()
        if op in needed or op.type == "Placeholder":        # "placeholders are inputs, not ops"
            continue
        needed.add(op)
        todo.extend(t.op for t in op.inputs if t not in fed)
        todo.extend(c for c in op.control_inputs if not (c.outputs and all(t in fed for t in c.outputs)))
    return needed
'''

DUPLICATES = '''
def needed_ops(fetches, targets, feeds):
    fed = set(feeds)
    found = []

    def visit(op):                                         # no visited set: a shared op is listed twice
        for t in op.inputs:
            if t not in fed:
                visit(t.op)
        for c in op.control_inputs:
            if not (c.outputs and all(t in fed for t in c.outputs)):
                visit(c)
        found.append(op)
    for t in fetches:
        if t not in fed:
            visit(t.op)
    for op in targets:
        visit(op)
    return found
'''

# --- task 2: topological_order --------------------------------------------------------------------------
AS_GIVEN = '''
def topological_order(ops):
    return list(ops)
'''

BY_NAME = '''
def topological_order(ops):
    return sorted(ops, key=lambda op: op.name)
'''

ORDER_NO_CONTROL = '''
def topological_order(ops):
    ops = list(ops)
    members, order, done = set(ops), [], set()

    def visit(op):
        if op in done:
            return
        done.add(op)
        for t in op.inputs:                    # control inputs forgotten
            if t.op in members:
                visit(t.op)
        order.append(op)
    for op in ops:
        visit(op)
    return order
'''

PRE_ORDER = '''
def topological_order(ops):
    ops = list(ops)
    members, order, done = set(ops), [], set()

    def visit(op):
        if op in done:
            return
        done.add(op)
        order.append(op)                       # appended before its dependencies: pre-order
        for t in op.inputs:
            if t.op in members:
                visit(t.op)
        for c in op.control_inputs:
            if c in members:
                visit(c)
    for op in ops:
        visit(op)
    return order
'''

PENDING_PER_INPUT = '''
def topological_order(ops):
    ops = list(ops)
    pending = {op: len(op.inputs) + len(op.control_inputs) for op in ops}   # counts outside producers too
    consumers = {op: [] for op in ops}
    for op in ops:
        for t in op.inputs:
            if t.op in consumers:
                consumers[t.op].append(op)
        for c in op.control_inputs:
            if c in consumers:
                consumers[c].append(op)
    ready = [op for op in ops if pending[op] == 0]
    order = []
    while ready:
        op = ready.pop()
        order.append(op)
        for c in consumers[op]:
            pending[c] -= 1
            if pending[c] == 0:
                ready.append(c)
    return order
'''

FOLLOWS_OUTSIDE = '''
def topological_order(ops):
    order, done = [], set()

    def visit(op):                             # walks into producers that were not handed over
        if op in done:
            return
        done.add(op)
        for t in op.inputs:
            visit(t.op)
        for c in op.control_inputs:
            visit(c)
        order.append(op)
    for op in list(ops):
        visit(op)
    return order
'''

# --- task 3: execute ------------------------------------------------------------------------------------
FIRST_OUTPUT_ONLY = '''
def execute(order, values, runtime):
    for op in order:
        outputs = run_kernel(op, [values[t] for t in op.inputs], runtime)
        if op.outputs and op.outputs[0] not in values:
            values[op.outputs[0]] = outputs[0]             # only the first output is kept
    return values
'''

SKIPS_EFFECT_OPS = '''
def execute(order, values, runtime):
    for op in order:
        if not op.outputs:                                 # "nothing to compute"
            continue
        outputs = run_kernel(op, [values[t] for t in op.inputs], runtime)
        for t, value in zip(op.outputs, outputs):
            if t not in values:
                values[t] = value
    return values
'''

NO_RUNTIME = '''
def execute(order, values, runtime):
    for op in order:
        outputs = run_kernel(op, [values[t] for t in op.inputs])     # the session's state not passed
        for t, value in zip(op.outputs, outputs):
            if t not in values:
                values[t] = value
    return values
'''

OVERWRITES_FEEDS = '''
def execute(order, values, runtime):
    for op in order:
        outputs = run_kernel(op, [values[t] for t in op.inputs], runtime)
        values.update(zip(op.outputs, outputs))            # a fed tensor's value is overwritten
    return values
'''

KERNEL_PER_OUTPUT = '''
def execute(order, values, runtime):
    for op in order:
        inputs = [values[t] for t in op.inputs]
        for t in op.outputs:                               # one kernel call per output
            if t not in values:
                values[t] = run_kernel(op, inputs, runtime)[t.value_index]
    return values
'''

FRESH_DICT = '''
def execute(order, values, runtime):
    computed = {}
    for op in order:
        inputs = [computed[t] if t in computed else values[t] for t in op.inputs]
        for t, value in zip(op.outputs, run_kernel(op, inputs, runtime)):
            if t not in values:
                computed[t] = value
    return computed                                        # the fed values are not in it
'''

# --- task 4: Executor -----------------------------------------------------------------------------------
RECURSIVE = '''
class Executor:
    """Evaluates each fetch recursively: no memo, no control inputs, targets only by their inputs."""

    def __init__(self, fetches, targets, feeds):
        self.fetches, self.targets, self.feeds = list(fetches), list(targets), list(feeds)

    def run(self, feed_values, runtime):
        fed = dict(zip(self.feeds, feed_values))

        def value(t):
            if t in fed:
                return fed[t]
            return run_kernel(t.op, [value(i) for i in t.op.inputs], runtime)[t.value_index]
        for op in self.targets:
            run_kernel(op, [value(i) for i in op.inputs], runtime)
        return [value(t) for t in self.fetches]
'''

EXECUTOR_NO_TARGETS = '''
class Executor:
    def __init__(self, fetches, targets, feeds):
        self.fetches, self.feeds = list(fetches), list(feeds)
        self.order = topological_order(needed_ops(self.fetches, [], self.feeds))    # targets dropped

    def run(self, feed_values, runtime):
        values = execute(self.order, dict(zip(self.feeds, feed_values)), runtime)
        return [values[t] for t in self.fetches]
'''

EXECUTOR_NO_FEEDS = '''
class Executor:
    def __init__(self, fetches, targets, feeds):
        self.fetches, self.feeds = list(fetches), list(feeds)
        self.order = topological_order(needed_ops(self.fetches, list(targets), []))   # feeds not cut

    def run(self, feed_values, runtime):
        values = execute(self.order, dict(zip(self.feeds, feed_values)), runtime)
        return [values[t] for t in self.fetches]
'''

WHOLE_GRAPH = '''
class Executor:
    def __init__(self, fetches, targets, feeds):
        self.fetches, self.feeds = list(fetches), list(feeds)
        fed = set(self.feeds)
        graph = (self.fetches or list(targets))[0].graph
        # every op of the graph, in creation order (no pruning), except fed placeholders
        self.order = [op for op in graph.get_operations()
                      if not (op.type == "Placeholder" and op.outputs[0] in fed)]

    def run(self, feed_values, runtime):
        values = execute(self.order, dict(zip(self.feeds, feed_values)), runtime)
        return [values[t] for t in self.fetches]
'''

UNIQUE_FETCHES = '''
class Executor:
    def __init__(self, fetches, targets, feeds):
        self.fetches, self.feeds = list(dict.fromkeys(fetches)), list(feeds)   # duplicates dropped
        self.order = topological_order(needed_ops(self.fetches, list(targets), self.feeds))

    def run(self, feed_values, runtime):
        values = execute(self.order, dict(zip(self.feeds, feed_values)), runtime)
        return [values[t] for t in self.fetches]
'''

NOT_SEEDED = '''
class Executor:
    def __init__(self, fetches, targets, feeds):
        self.fetches, self.feeds = list(fetches), list(feeds)
        self.order = topological_order(needed_ops(self.fetches, list(targets), self.feeds))

    def run(self, feed_values, runtime):
        values = execute(self.order, {}, runtime)         # the fed values never go in
        return [values[t] for t in self.fetches]
'''

WRONG = {
    "needed_ops ignores control inputs": ("needed", {"needed_ops": NO_CONTROL}),
    "needed_ops does not stop at fed tensors": ("needed", {"needed_ops": NO_FEED_CUT}),
    "needed_ops ignores the targets": ("needed", {"needed_ops": NO_TARGETS}),
    "needed_ops keeps the producer of a fed fetch": ("needed", {"needed_ops": FED_FETCH_RUNS}),
    "needed_ops leaves out unfed placeholders": ("needed", {"needed_ops": SKIPS_PLACEHOLDERS}),
    "needed_ops lists a shared op twice": ("needed", {"needed_ops": DUPLICATES}),
    "topological_order returns the ops as given": ("order", {"topological_order": AS_GIVEN}),
    "topological_order sorts by name": ("order", {"topological_order": BY_NAME}),
    "topological_order ignores control inputs": ("order", {"topological_order": ORDER_NO_CONTROL}),
    "topological_order is a pre-order": ("order", {"topological_order": PRE_ORDER}),
    "topological_order counts inputs from outside the list": ("order", {"topological_order": PENDING_PER_INPUT}),
    "topological_order walks into ops it was not given": ("order", {"topological_order": FOLLOWS_OUTSIDE}),
    "execute keeps only the first output": ("execute", {"execute": FIRST_OUTPUT_ONLY}),
    "execute skips ops without outputs": ("execute", {"execute": SKIPS_EFFECT_OPS}),
    "execute does not pass the runtime": ("execute", {"execute": NO_RUNTIME}),
    "execute overwrites fed values": ("execute", {"execute": OVERWRITES_FEEDS}),
    "execute calls a kernel once per output": ("execute", {"execute": KERNEL_PER_OUTPUT}),
    "execute returns a dict without the feeds": ("execute", {"execute": FRESH_DICT}),
    "Executor evaluates fetches recursively": ("executor", {"executor": RECURSIVE}),
    "Executor forgets the targets": ("executor", {"executor": EXECUTOR_NO_TARGETS}),
    "Executor prunes without the feeds": ("executor", {"executor": EXECUTOR_NO_FEEDS}),
    "Executor runs the whole graph": ("executor", {"executor": WHOLE_GRAPH}),
    "Executor drops duplicate fetches": ("executor", {"executor": UNIQUE_FETCHES}),
    "Executor does not put the feeds in": ("executor", {"executor": NOT_SEEDED}),
}
