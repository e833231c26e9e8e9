"""Shared by the multi-process tests: run a worker script under ``python -m engine.distribute.launch``.

``launch_clusters(tmp_path_factory, script, sizes, timeout_s, prefix)`` starts one launcher per cluster
size at once (ports are chosen by the launcher at run time), waits for all of them, and returns
``{N: (exit status, stdout, stderr, out_dir)}``; the script gets its output folder as its argument
(then ``extra_args``).
A launcher that overruns is killed, and the launcher kills its tasks when it dies.
"""
import os
import pathlib
import subprocess
import sys

import engine as tf

HERE = pathlib.Path(__file__).resolve().parent
ROOT = pathlib.Path(tf.__file__).resolve().parent.parent


def launch_clusters(tmp_path_factory, script, sizes=(2, 3), timeout_s=60, prefix="run", extra_args=()):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    started = {}
    for n in sizes:
        out = tmp_path_factory.mktemp(f"{prefix}{n}")
        cmd = [sys.executable, "-m", "engine.distribute.launch", "--workers", str(n), "--timeout", str(timeout_s),
               str(HERE / script), str(out), *map(str, extra_args)]
        started[n] = (subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       text=True), out)
    results = {}
    for n, (process, out) in started.items():
        try:
            stdout, stderr = process.communicate(timeout=timeout_s + 30)
        except subprocess.TimeoutExpired:
            process.kill()
            stdout, stderr = process.communicate()
        results[n] = (process.returncode, stdout, stderr, out)
    return results
