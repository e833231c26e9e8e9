"""The engine's packages import only downward, in the order pyproject.toml declares (and engine/__init__ teaches).

Two checks, both read from the source: import-linter's layers contract (every import, function-local ones
included), and the shared import tool's figures (no cycle between subpackages; function-local imports of
engine modules only where a heavy dependency is loaded lazily, at most 25 in all).
"""
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
TOOL = ROOT.parent / "shared" / "tools" / "import_layers.py"


def _lint_imports():
    exe = shutil.which("lint-imports", path=str(pathlib.Path(sys.executable).parent))
    if exe is None:
        pytest.skip("import-linter is not installed (it comes with the test extra: make test installs it)")
    return exe


def test_the_layers_contract_holds():
    done = subprocess.run([_lint_imports(), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "1 kept, 0 broken" in done.stdout, done.stdout[-3000:]


def test_the_contract_is_the_reading_order_of_the_package():
    """engine/__init__.py lists the same layers, bottom-up, as pyproject.toml's contract (top-down)."""
    contract = re.search(r"layers = \[(.*?)\]", (ROOT / "pyproject.toml").read_text(), re.S).group(1)
    layers = [re.split(r"\s*[|:]\s*", line.strip().strip('",')) for line in contract.strip().splitlines()]
    doc = (ROOT / "engine" / "__init__.py").read_text().split('"""')[1]
    positions = []
    for layer in reversed(layers):   # bottom-up, as a reader meets them
        found = [m.start() for name in layer for m in [re.search(rf"``{name}(``|/)", doc)] if m]
        assert found, f"engine/__init__.py does not mention the layer {layer}"
        positions.append(min(found))
    assert positions == sorted(positions), (layers, positions)


def test_no_cycles_and_few_function_local_imports():
    if not TOOL.exists():
        pytest.skip(f"the shared import tool is not beside this checkout ({TOOL})")
    done = subprocess.run([sys.executable, str(TOOL), str(ROOT / "engine")], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    figures = dict(part.split("=") for part in last.split())
    assert figures["largest_cycle"] == "0", done.stdout
    assert figures["largest_cycle_counting_local"] == "0", done.stdout
    assert int(figures["function_local_engine_imports"]) <= 25, done.stdout
