"""Record what TF 2.21 gives each of 2 MultiWorkerMirroredStrategy workers for the file-read pipelines of
``file_sharding_cases.py``, into ``data/tf_file_sharding.json``. Run with a TF venv's python (it starts the
two worker processes itself, on free localhost ports)."""
import json
import os
import socket
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def worker(folder, out, name):
    import tensorflow as tf
    sys.path.insert(0, HERE)
    from file_sharding_cases import cases
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    results = {}
    for dataset in [cases(tf, folder)[name]]:
        try:
            steps = []
            for batch in strategy.experimental_distribute_dataset(dataset):
                local = strategy.experimental_local_results(batch)
                steps.append([[v.decode() for v in t.numpy().tolist()] for t in local])
            results[name] = steps
        except Exception as e:  # noqa: BLE001
            message = str(e).splitlines()[0]
            message = message.split("}} ", 1)[1] if message.startswith("{{function_node") else message
            results[name] = f"{type(e).__name__}: {message}"
    with open(out, "w") as f:
        json.dump(results, f)


def main():
    folder = tempfile.mkdtemp()
    sys.path.insert(0, HERE)
    from file_sharding_cases import CASE_NAMES, make_files
    make_files(folder)
    recorded = [{}, {}]
    for name in CASE_NAMES:    # each case in two fresh processes: a failed case leaves TF's collectives out of step
        for i, result in enumerate(run_case(folder, name)):
            recorded[i][name] = result
    with open(os.path.join(HERE, "data", "tf_file_sharding.json"), "w") as f:
        json.dump(recorded, f, indent=1)


def run_case(folder, name):
    ports = []
    for _ in range(2):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        ports.append(s.getsockname()[1])
        s.close()
    cluster = {"worker": [f"127.0.0.1:{p}" for p in ports]}
    procs = []
    for i in range(2):
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="",
                   TF_CONFIG=json.dumps({"cluster": cluster, "task": {"type": "worker", "index": i}}))
        procs.append(subprocess.Popen([sys.executable, __file__, "worker", folder, os.path.join(folder, f"w{i}.json"),
                                       name], env=env))
    for p in procs:
        p.wait(timeout=600)
    return [json.load(open(os.path.join(folder, f"w{i}.json")))[name] for i in range(2)]


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "worker":
        worker(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        main()
