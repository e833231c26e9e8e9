"""Plausible wrong A5 answers: each must lose points on its own task, for every student seed."""


def _sub(old, new):
    def edit(source):
        assert old in source, f"the fixture no longer matches the solution: {old!r}"
        return source.replace(old, new)
    return edit


WHOLE_BUFFER_RS = '''
def reduce_scatter(buffers, devices):
    # sends each device's whole current buffer every step, then adds only the chunk of that step:
    # the right sums, N times the bytes
    n = len(devices)
    offsets, sizes = chunk_bounds(buffers[0].size, n)
    current = [b for b in buffers]
    for step in range(n - 1):
        begin_step("reduce-scatter")
        arrived = [send(current[i], devices[i], devices[(i + 1) % n]) for i in range(n)]
        new = list(current)
        for i in range(n):
            j, c = (i + 1) % n, (i - step) % n
            o, s = offsets[c], sizes[c]
            new[j] = np.concatenate([current[j][:o], current[j][o:o + s] + arrived[i][o:o + s], current[j][o + s:]])
        current = new
    return [[b[o:o + s] for o, s in zip(offsets, sizes)] for b in current]
'''

LAST_CHUNK_TAKES_REST = '''
def reduce_scatter(buffers, devices):
    n = len(devices)
    size = buffers[0].size
    base = size // n                                  # equal chunks, the last one takes the rest
    offsets = [c * base for c in range(n)]
    sizes = [base] * (n - 1) + [size - base * (n - 1)]
    work = [[b[o:o + s] for o, s in zip(offsets, sizes)] for b in buffers]
    for step in range(n - 1):
        begin_step("reduce-scatter")
        moves = [(i, (i + 1) % n, (i - step) % n) for i in range(n)]
        arrived = [send(work[i][c], devices[i], devices[j], chunk=c) for i, j, c in moves]
        for (_, j, c), part in zip(moves, arrived):
            work[j][c] = work[j][c] + part
    return work
'''

WHOLE_ROW_AG = '''
def all_gather(work, devices):
    # every step, every device sends all its chunks (one send per chunk): right sums, N times the bytes
    n = len(devices)
    for step in range(n - 1):
        begin_step("all-gather")
        owned = [(i + 1 - step) % n for i in range(n)]
        arrived = [[send(work[i][c], devices[i], devices[(i + 1) % n], chunk=c) for c in range(n)] for i in range(n)]
        for i in range(n):
            j, c = (i + 1) % n, owned[i]
            work[j][c] = arrived[i][c]
    return work
'''

ONE_ROOT = '''
class HierarchicalAllReduce:
    # everything to device 0 and back: ReductionToOneDevice, not the two-level algorithm
    def all_reduce_sum(self, buffers, devices):
        begin_step("reduce")
        total = buffers[0]
        for i in range(1, len(devices)):
            total = total + send(buffers[i], devices[i], devices[0])
        begin_step("broadcast")
        return [total] + [send(total, devices[0], d) for d in devices[1:]]
'''

WRONG = {
    # task 1: the reduce-scatter
    "sends whole buffers (right sums, N times the bytes)": ("reduce_scatter", {"reduce_scatter": WHOLE_BUFFER_RS}),
    "sends to the left neighbour": ("reduce_scatter", {"reduce_scatter": _sub(
        "moves = [(i, (i + 1) % n, (i - step) % n) for i in range(n)]",
        "moves = [(i, (i - 1) % n, (i + step) % n) for i in range(n)]")}),
    "starts with the chunk one further (i - step - 1)": ("reduce_scatter", {"reduce_scatter": _sub(
        "(i - step) % n)", "(i - step - 1) % n)")}),
    "one begin_step for the whole phase": ("reduce_scatter", {"reduce_scatter": _sub(
        '    for step in range(n - 1):\n        begin_step("reduce-scatter")\n',
        '    begin_step("reduce-scatter")\n    for step in range(n - 1):\n')}),
    "adds in place into the buffers (+=)": ("reduce_scatter", {"reduce_scatter": _sub(
        "            work[j][c] = work[j][c] + part", "            work[j][c] += part")}),
    "chunks of size // N, the last one takes the rest": ("reduce_scatter", {"reduce_scatter": LAST_CHUNK_TAKES_REST}),
    # task 2: the all-gather
    "adds instead of replacing": ("all_gather", {"all_gather": _sub(
        "            work[j][c] = part", "            work[j][c] = work[j][c] + part")}),
    "sends the reduce-scatter's chunk (i - step)": ("all_gather", {"all_gather": _sub(
        "(i + 1 - step) % n)", "(i - step) % n)")}),
    "one step short (N - 2 steps)": ("all_gather", {"all_gather": _sub(
        "for step in range(n - 1):", "for step in range(n - 2):")}),
    "sends every chunk every step (right sums, N times the bytes)": ("all_gather", {"all_gather": WHOLE_ROW_AG}),
    "no begin_step (every send its own step)": ("all_gather", {"all_gather": _sub(
        '        begin_step("all-gather")\n', "")}),
    # task 3: the hierarchical all-reduce
    "groups of floor(N/2) first": ("hierarchical", {"hierarchical": _sub(
        "half = (n + 1) // 2", "half = n // 2 if n > 2 else 1")}),
    "forgets the second group's partial sum": ("hierarchical", {"hierarchical": _sub(
        "total = partial[0] + send(partial[half], devices[half], devices[0])",
        "send(partial[half], devices[half], devices[0])\n        total = partial[0]")}),
    "exchange and broadcast to roots in one step": ("hierarchical", {"hierarchical": _sub(
        '        begin_step("broadcast to group roots")\n', "")}),
    "root 0 broadcasts to everyone (skips root h)": ("hierarchical", {"hierarchical": _sub(
        "                out[m] = send(at_root[root], devices[root], devices[m])",
        "                out[m] = send(total, devices[0], devices[m])")}),
    "reduces everything to one device": ("hierarchical", {"hierarchical": ONE_ROOT}),
    # task 4: the training loop
    "per-replica mean loss (tf.reduce_mean)": ("train", {"train": _sub(
        "loss = tf.nn.compute_average_loss(per_example_loss(model, x, y), global_batch_size=global_batch_size)",
        "loss = tf.reduce_mean(per_example_loss(model, x, y))")}),
    "compute_average_loss without global_batch_size": ("train", {"train": _sub(
        "tf.nn.compute_average_loss(per_example_loss(model, x, y), global_batch_size=global_batch_size)",
        "tf.nn.compute_average_loss(per_example_loss(model, x, y))")}),
    "dataset not distributed": ("train", {"train": _sub(
        "for x, y in strategy.experimental_distribute_dataset(dataset):", "for x, y in dataset:")}),
    "all-reduces the gradients, then apply_gradients all-reduces again": ("train", {"train": _sub(
        "    grads = tape.gradient(loss, model.trainable_variables)\n",
        "    grads = tape.gradient(loss, model.trainable_variables)\n"
        "    grads = tf.distribute.get_replica_context().all_reduce(\"SUM\", grads)\n")}),
    "reports the MEAN of the replicas' losses": ("train", {"train": _sub(
        'strategy.reduce("SUM", per_replica, axis=None)', 'strategy.reduce("MEAN", per_replica, axis=None)')}),
}
