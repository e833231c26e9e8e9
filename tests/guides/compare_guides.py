"""Run TensorFlow's own guide notebooks cell by cell under real TF 2.21 and under the engine; compare.

    python tests/guides/compare_guides.py --docs DOCS --tf-python /tmp/tfvenv/bin/python [NOTEBOOK ...]

``DOCS`` is a checkout of ``tensorflow/docs`` (or its bare git folder: the notebooks are read with
``git show``). NOTEBOOK names are paths inside it (default: the guides and tutorials of
:data:`NOTEBOOKS`). TF is needed only here, in a scratch venv: never by the engine or its tests.

How a notebook is run: its code cells in order, in one Python process, as Jupyter runs them: each
cell's printed output, then the repr of its last expression if that is not None; ``!shell`` and
``%magic`` lines are skipped; a cell that raises prints the error's class and message and the next
cell runs. Each cell is written to a file first (``cell_<i>.py``), so ``inspect.getsource`` (AutoGraph)
finds the functions it defines, as it does in Jupyter. The same cells run under TF three times
(``--tf-runs``) and once under the engine (where ``import tensorflow as tf`` imports ``engine``:
``sys.modules["tensorflow"]`` is the engine, and ``keras`` is ``engine.keras``).

A cell is **reproducible** when TF's runs all print the same thing (after :func:`normalize`: object
addresses, timings, random draws that are not seeded differ from run to run, and such cells do not
count; with two runs, an unseeded draw that ``relu`` maps to zero both times would still pass for
reproducible now and then). Every run has ``PYTHONHASHSEED=0`` (``--hash-seed``): TF itself prints
some names in a set's order (AutoGraph's ``nonlocal`` lines), which otherwise changes from run to run. The score of a notebook is the share of its reproducible cells whose
engine output is TF's. The report (``--out``, JSON) lists each notebook's score and every cell that differs, with both outputs.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

NOTEBOOKS = [f"site/en/guide/{name}.ipynb" for name in (
    "tensor", "variable", "autodiff", "advanced_autodiff", "intro_to_graphs", "function", "intro_to_modules",
    "basic_training_loops", "basics", "ragged_tensor", "data", "distributed_training")] + [
    "site/en/tutorials/distribute/custom_training.ipynb",
    "site/en/tutorials/customization/custom_training_walkthrough.ipynb",
    "site/en/tutorials/customization/basics.ipynb"]

CELL_TIMEOUT_S = 60

# The runner: executes the cells of a JSON file one by one, printing a marker line before each cell's
# output, so that one process's stdout can be cut back into cells.
RUNNER = r'''
import ast, io, json, signal, sys, traceback
cells = json.load(open(sys.argv[1]))
if sys.argv[2] == "engine":
    import engine
    sys.modules["tensorflow"] = engine
    sys.modules["keras"] = engine.keras          # TF 2.21's tf.keras is Keras 3, also imported as `keras`
namespace = {"__name__": "__main__"}

def alarm(*_):
    raise TimeoutError("cell timed out")

signal.signal(signal.SIGALRM, alarm)
for i, source in enumerate(cells):
    print(f"\n@@CELL {i}@@", flush=True)
    print(f"cell {i}", file=sys.stderr, flush=True)
    filename = f"cell_{i}.py"          # a real file: AutoGraph reads a function's source, as in Jupyter
    with open(filename, "w") as f:
        f.write(source)
    signal.alarm(int(sys.argv[3]))
    try:
        tree = ast.parse(source)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        exec(compile(tree, filename, "exec"), namespace)
        if last is not None:
            value = eval(compile(ast.Expression(last.value), filename, "eval"), namespace)
            if value is not None:
                print(repr(value))
    except BaseException as e:  # noqa: BLE001  (a failing cell is an output like any other)
        if isinstance(e, KeyboardInterrupt):
            raise
        print(f"{type(e).__name__}: {getattr(e, 'message', e)}")
    finally:
        signal.alarm(0)
    sys.stdout.flush()
'''


def read_notebook(docs, path):
    """The notebook JSON at ``path`` in ``docs`` (a work tree, or a git folder read with ``git show``)."""
    full = os.path.join(docs, path)
    if os.path.exists(full):
        with open(full) as f:
            return json.load(f)
    shown = subprocess.run(["git", f"--git-dir={docs}", "show", f"HEAD:{path}"], capture_output=True, text=True,
                           check=True)
    return json.loads(shown.stdout)


def code_cells(notebook):
    """The code cells' sources, without shell (``!``) and magic (``%``) lines; ``%%`` cells are dropped."""
    cells = []
    for cell in notebook["cells"]:
        if cell.get("cell_type") != "code":
            continue
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if source.lstrip().startswith("%%"):
            continue
        lines = [line for line in source.splitlines() if not line.lstrip().startswith(("!", "%"))]
        cells.append("\n".join(lines))
    return cells


def normalize(text):
    """What legitimately differs between two runs of the same cell, made equal; and TF's runtime framing of
    an eager op's error (``{{function_node __wrapped__Reshape_device_/job:localhost/...}} ``), which names
    TF's own wrapper function rather than anything of the program."""
    text = re.sub(r"\{\{function_node __wrapped__\w+_device_[^}]*\}\} ", "", text)
    text = re.sub(r"0x[0-9A-Fa-f]+", "0x?", text)
    # the module an error class lives in (``<class '...errors_impl.InvalidArgumentError'>``) is TF's own layout
    text = re.sub(r"<class '(tensorflow\.python\.framework\.errors_impl|engine\.framework\.errors)\.", "<class 'errors.",
                  text)
    text = re.sub(r"module '(keras\._tf_keras\.keras|engine\.keras)\.", "module 'keras.", text)   # tf.keras's module
    text = re.sub(r"\b\d+(\.\d+)?\s*(ms|us|µs|s)(/step| per step)?\b", "<time>", text)
    text = re.sub(r"(__inference_\w+?)_\d+", r"\1_N", text)
    text = re.sub(r"/tmp/[\w./-]+", "/tmp/?", text)
    return text.strip()


def run_cells(python, cells, mode, env=None):
    """``[output of each cell]`` from one process running every cell (``mode``: "tf" or "engine")."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(cells, f)
        cells_path = f.name
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(RUNNER)
        runner = f.name
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="", PYTHONPATH=ROOT,
               MPLBACKEND="Agg", **(env or {}))
    try:
        done = subprocess.run([python, "-u", runner, cells_path, mode, str(CELL_TIMEOUT_S)], capture_output=True,
                              text=True, env=env, cwd=tempfile.mkdtemp(prefix=f"guide_{mode}_"),
                              timeout=CELL_TIMEOUT_S * (len(cells) + 1))
        stdout = done.stdout
    except subprocess.TimeoutExpired as e:
        stdout = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
    finally:
        os.unlink(cells_path)
        os.unlink(runner)
    outputs = [""] * len(cells)
    pieces = re.split(r"\n@@CELL (\d+)@@\n", "\n" + stdout)
    for index, text in zip(pieces[1::2], pieces[2::2]):
        outputs[int(index)] = normalize(text)
    for missing in range(len(pieces[1::2]), len(cells)):
        outputs[missing] = "<not run: the process ended>"
    return outputs


def compare(docs, notebook, tf_python, engine_python, tf_runs=3, hash_seed="0"):
    cells = code_cells(read_notebook(docs, notebook))
    env = None if hash_seed is None else {"PYTHONHASHSEED": hash_seed}
    first, *others = [run_cells(tf_python, cells, "tf", env) for _ in range(tf_runs)]
    engine = run_cells(engine_python, cells, "engine", env)
    reproducible = [i for i in range(len(cells)) if all(run[i] == first[i] for run in others)]
    matched = [i for i in reproducible if engine[i] == first[i]]
    return {"notebook": notebook, "cells": len(cells), "reproducible": len(reproducible), "matched": len(matched),
            "score": len(matched) / len(reproducible) if reproducible else 1.0,
            "differences": [{"cell": i, "source": cells[i], "tf": first[i], "engine": engine[i]}
                            for i in reproducible if i not in matched]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", default=NOTEBOOKS)
    parser.add_argument("--docs", required=True, help="a tensorflow/docs checkout or its git folder")
    parser.add_argument("--tf-python", required=True, help="a Python with tensorflow 2.21 installed")
    parser.add_argument("--engine-python", default=sys.executable)
    parser.add_argument("--out", default=None, help="write the full report (JSON) here")
    parser.add_argument("--tf-runs", type=int, default=3,
                        help="runs under TF (at least 2): a cell counts if all of them print the same (default 3)")
    parser.add_argument("--hash-seed", default="0",
                        help="PYTHONHASHSEED of every run, TF's and the engine's (default 0; 'random': none). TF "
                             "prints some names in a Python set's order (AutoGraph's nonlocal lines): with "
                             "random seeds that order changes from run to run, in TF too")
    args = parser.parse_args(argv)
    if args.tf_runs < 2:
        parser.error("--tf-runs must be at least 2: a cell is reproducible when TF's runs agree")
    report = []
    for notebook in args.notebooks:
        result = compare(args.docs, notebook, args.tf_python, args.engine_python, args.tf_runs,
                         None if args.hash_seed == "random" else args.hash_seed)
        report.append(result)
        print(f"{result['score']:6.1%}  {result['matched']:3d}/{result['reproducible']:3d} reproducible cells "
              f"({result['cells']} in all)  {notebook}", flush=True)
    total_matched = sum(r["matched"] for r in report)
    total = sum(r["reproducible"] for r in report)
    print(f"{total_matched / max(total, 1):6.1%}  {total_matched}/{total} in all")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
