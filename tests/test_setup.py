"""The setup files agree with each other: README, Makefile, .ci/run, pyproject.toml, environment.yml."""
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest
import yaml

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = pathlib.Path(__file__).resolve().parent.parent

# conda-forge name -> pip name, where they differ. Conda's `graphviz` is the Graphviz programs,
# which take the place of pip's pure renderer; its versions are unrelated, so they are not compared.
CONDA_TO_PIP = {"python-graphviz": "graphviz", "graphviz": "graphviz-pure"}
UNVERSIONED = {"graphviz-pure"}


def _read(name):
    return (ROOT / name).read_text(encoding="utf-8")


def _commands(shell_text):
    """The command lines of a shell snippet, without comments, blank lines, `set` and `cd`."""
    lines = [line.split("#", 1)[0].strip() for line in shell_text.splitlines()]
    return [line for line in lines if line and not line.startswith(("set ", "cd "))]


def readme_setup_commands():
    """The commands of the first ```sh block in README's "## Setup" section."""
    section = _read("README.md").split("\n## Setup", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block, "README's Setup section has no ```sh block"
    return _commands(block.group(1))


def _requirement(text):
    """'numpy>=1.24; marker' -> ('numpy', '>=1.24'). Names normalised as pip does."""
    text = text.split(";", 1)[0].replace(" ", "")
    name, spec = re.match(r"([A-Za-z0-9._-]+)(.*)", text).groups()
    return re.sub(r"[-_.]+", "-", name).lower(), spec


# --- README, .ci/run, Makefile -------------------------------------------------------------
def test_readme_has_two_setup_commands_lab_and_test():
    commands = readme_setup_commands()
    assert len(commands) == 2, commands
    assert any("lab" in c for c in commands) and any("test" in c for c in commands), commands


def test_ci_runs_the_readme_test_command():
    (test_command,) = [c for c in readme_setup_commands() if "test" in c]
    ci = _read(".ci/run")
    commands = _commands(ci)
    assert commands[-1:] == [test_command] and commands.count(test_command) == 1, \
        "`.ci/run` must run exactly the README's test command"
    # before it, only the browser for tests/e2e: Debian's chromium, as root, only if it is missing
    before = " ".join(commands[:-1])
    assert not before or (before.startswith("if ") and before.endswith("fi") and 'id -u)" = 0' in before
                          and "! command -v chromium" in before and "apt-get install -y -qq chromium" in before
                          and "noninteractive" in before), before
    assert ci.startswith("#!") and "set -e" in ci, ".ci/run must stop (non-zero) at the first failure"


def _make_rules():
    """Makefile target -> its recipe lines."""
    rules, current = {}, None
    for line in _read("Makefile").splitlines():
        if line.startswith("\t") and current:
            rules[current].append(line.strip())
        elif re.match(r"^[A-Za-z$(). /_-][^=]*:(?!=)", line):
            current = line.split(":", 1)[0].strip()
            rules[current] = [line]
        else:
            current = None
    return rules


def test_makefile_lab_and_test_targets():
    rules = _make_rules()
    for command in readme_setup_commands():
        target = command.split()[1]
        assert command.split()[0] == "make" and target in rules, f"Makefile has no target for `{command}`"
    assert any("pytest" in line for line in rules["test"])
    lab = " ".join(rules["lab"])
    # JupyterLab serves the root, where nbgrader_config.py configures nbgrader, and opens course/
    assert "root_dir=" in lab and "/lab/tree/course" in lab and "jupyter" in lab and " lab" in lab
    assert "-m bench" in " ".join(rules["bench"])


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_installs_once_then_only_runs(tmp_path):
    """`make -n` (print, don't run): first the venv and pip install, then, once stamped, only pytest."""
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)

    def plan(target):
        done = subprocess.run(["make", "-n", target], cwd=tmp_path, capture_output=True, text=True, check=True)
        return done.stdout

    fresh = plan("test")
    assert "-m venv .venv" in fresh and 'pip install' in fresh and ".[test]" in fresh and "pytest" in fresh
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "python").touch()
    checksum = subprocess.run(["cksum", "pyproject.toml"], cwd=tmp_path, capture_output=True, text=True,
                              check=True).stdout.split()[0]
    (tmp_path / ".venv" / f".installed-test-{checksum}").touch()
    (tmp_path / ".venv" / f".installed-{checksum}").touch()
    again = plan("test")
    assert "pip" not in again and "venv" not in again.replace(".venv/bin/python -m pytest", "")
    assert "pytest" in again
    assert "pip" not in plan("lab")
    with open(tmp_path / "pyproject.toml", "a") as f:   # a changed pyproject.toml installs again
        f.write("\n# changed\n")
    assert "pip install" in plan("test")


# --- pyproject.toml and environment.yml ---------------------------------------------------------
def _pyproject_requirements():
    project = tomllib.loads(_read("pyproject.toml"))["project"]
    return dict(_requirement(r) for r in project["dependencies"] + project["optional-dependencies"]["test"])


def _conda_environment():
    env = yaml.safe_load(_read("environment.yml"))
    conda, pip = {}, []
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            pip += dep["pip"]
        else:
            name, spec = _requirement(dep.replace("=", "==", 1) if re.match(r"^[\w.-]+=[^=]", dep) else dep)
            conda[name] = spec
    return env, conda, pip


def test_environment_yml_lists_the_same_packages_as_pyproject():
    wanted = _pyproject_requirements()
    env, conda, pip = _conda_environment()
    assert env["channels"] == ["conda-forge"]
    assert conda.pop("python") == "==3.11"
    conda.pop("pip", None)
    have = {CONDA_TO_PIP.get(name, name): spec for name, spec in conda.items()}
    assert sorted(have) == sorted(wanted), "environment.yml and pyproject.toml list different packages"
    for name, spec in wanted.items():
        if name not in UNVERSIONED:
            assert have[name] == spec, f"{name}: pyproject.toml says {spec!r}, environment.yml {have[name]!r}"
    assert pip == ["-e ."], "environment.yml must install the project itself with `pip install -e .`"


def test_pyproject_dependencies():
    wanted = _pyproject_requirements()
    for name in ("numpy", "matplotlib", "graphviz", "graphviz-pure", "jupyterlab", "nbgrader", "sqlalchemy",
                 "jupytext", "pytest", "hypothesis", "nbclient", "ipykernel"):
        assert name in wanted, name
    assert wanted["sqlalchemy"] == "<2.1"
    project = tomllib.loads(_read("pyproject.toml"))["project"]
    assert [_requirement(r)[0] for r in project["optional-dependencies"]["gpu"]] == ["cupy-cuda12x"]


def test_readme_python_examples_run(tmp_path):
    """The README's ```python blocks, run in order as one program, print what their comments say."""
    blocks = re.findall(r"```python\n(.*?)```", _read("README.md"), re.S)
    assert blocks
    script = tmp_path / "readme_examples.py"
    script.write_text("\n".join(blocks), encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert "tf.Tensor(12.0, shape=(), dtype=float32)" in done.stdout
    assert "Matrix size-incompatible" in done.stdout and "[Op:MatMul]" in done.stdout
