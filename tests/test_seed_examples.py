"""The seed article's examples (../shared/seed_examples, beside the checkout) run unchanged on the engine.

Each example is run as its own program, ``python ../shared/seed_examples/NAME.py`` from the project
root, and must exit 0 (its own asserts pass) and print the expected text.
"""
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
SEED_EXAMPLES = pathlib.Path("..", "shared", "seed_examples")   # relative to ROOT, as in the README

# name -> text its output must contain. Add an example here once the engine has what it needs:
# Every seed example runs here.
EXAMPLES = {
    "tape_cubic.py": "12.0",
    "function_train_step.py": "traces per epoch",
    "mirrored_strategy.py": "replicas: 2",
}


@pytest.mark.parametrize("name, expected", sorted(EXAMPLES.items()))
def test_seed_example(name, expected):
    script = SEED_EXAMPLES / name
    assert (ROOT / script).is_file(), (
        f"{(ROOT / script).resolve()} is missing: the shared folder must be checked out beside the project "
        f"(../shared)")
    # PYTHONPATH: the example imports this checkout's engine, even if another one is installed.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, str(script)], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, f"{script} failed:\n{done.stdout}\n{done.stderr}"
    assert expected in done.stdout, f"{script} printed:\n{done.stdout}"
