"""Grades two A1 submissions whose extra cells attack the sandbox, and prints what each attack saw.

Run by ``test_isolation.py`` as ``python isolation_driver.py CONFIG.json``, as root and as a
throwaway ordinary user. Each attacking cell ends by raising ``RuntimeError("name=verdict")``,
which the grader's notes carry back; around the attacks the submission is an honest, complete
solution, so it must still get full marks; the second submission is also written in ways a name
check used to penalise. A third, blank, submission cheats: it executes any A1 solution it finds on the
disk and hands its unbroadcast to the engine's own tape (found through ``operator.attrgetter``); it
must get nothing.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from autograder import grading, samples  # noqa: E402

WALK = """
import os, time
wanted = {"A1.py", "A1.ipynb", "gradebook.db", "secret-of-the-host.txt"}
found, seen, began = [], 0, time.monotonic()
for top, dirs, files in os.walk("/"):
    if top in ("/proc", "/sys", "/dev"):
        dirs[:] = []
        continue
    seen += len(files)
    found += [os.path.join(top, f) for f in files if f in wanted and "/nbgrader/tests/" not in top]  # (its fixtures)
raise RuntimeError("walk=" + ("FOUND " + " ".join(found[:5]) if found
                             else f"NONE {seen} files in {time.monotonic() - began:.1f} s"))
"""

WRITE = """
import os, sys
wrote = []
for d in sorted(set(p for p in sys.path if p) | {"/sandbox", "/sandbox/engine", "/io", "/usr/lib", "/", "/etc"}):
    try:
        with open(os.path.join(d, "zz-attack.pth"), "w") as f:
            f.write("import os")
        wrote.append(d)
    except OSError:
        pass
raise RuntimeError("write=" + ("WROTE " + " ".join(wrote) if wrote else "NONE"))
"""

FILL = """
def fill(where, limit_mb=300):
    n = 0
    try:
        with open(where + "/fill.bin", "wb") as f:
            for n in range(1, limit_mb + 1):
                f.write(b"x" * (1 << 20))
                f.flush()
    except OSError:
        return f"CAPPED {n - 1}"
    return f"FILLED {n}"
raise RuntimeError("tmp=" + fill("/tmp") + " shm=" + fill("/dev/shm"))
"""

LEAVE = """
import os
for d in ("/tmp", "/dev/shm", "."):
    open(os.path.join(d, "left-by-a-submission"), "w").write("hello, next one")
raise RuntimeError("leave=LEFT")
"""

FIND_LEFT = """
import os
seen = [d for d in ("/tmp", "/dev/shm", ".") if os.path.exists(os.path.join(d, "left-by-a-submission"))]
raise RuntimeError("left=" + ("SEEN " + " ".join(seen) if seen else "CLEAN"))
"""

PROCS = """
import os
pids = [p for p in os.listdir("/proc") if p.isdigit()]
host = []
for p in pids:
    try:
        cmd = open(f"/proc/{p}/cmdline", "rb").read()
    except OSError:
        continue
    if b"isolation_driver" in cmd or b"pytest" in cmd or (b"--serve" in cmd and int(p) != os.getpid()):
        host.append(p)
raise RuntimeError("procs=" + (f"HOST {host}" if host else f"OWN {len(pids)}"))
"""

UNMOUNT = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
# a namespace of its own, where it is root: can it peel off the mounts it was given?
got = libc.unshare(0x10000000 | 0x00020000)   # CLONE_NEWUSER | CLONE_NEWNS
peeled = [p for p in ("/proc", "/tmp", "/io", "/dev/shm", "/sandbox", "/") if libc.umount2(p.encode(), 2) == 0]
host = [p for p in os.listdir("/proc") if p.isdigit()] if os.path.isdir("/proc") else []
raise RuntimeError("unmount=" + (f"PEELED {peeled} {len(host)}" if peeled else f"LOCKED {got}"))
"""

NET = """
import socket
def attempt(family, address):
    s = socket.socket(family, socket.SOCK_STREAM)
    s.settimeout(2)
    try:
        s.connect(address)
        return "CONNECTED"
    except OSError as e:
        return "REFUSED"
    finally:
        s.close()
raise RuntimeError("net=tcp:" + attempt(socket.AF_INET, ("127.0.0.1", {port})) +
                   " unix:" + attempt(socket.AF_UNIX, {unix!r}) + " abstract:" + attempt(socket.AF_UNIX, {abstract!r}))
"""

LOOK = """
import os
places = {places!r} + [os.path.expanduser("~")]
seen = [p for p in places if os.path.exists(p) and p != "/tmp"]
raise RuntimeError("look=" + ("SEEN " + " ".join(seen) if seen else "ABSENT"))
"""


# Honest code that a name check used to penalise (getattr in the gradients cell, a local named
# `gradients`, super(GradientTape, self), a scratch cell using tf.GradientTape, %%time on an answer cell)
SCRATCH = ("try:\n    with tf.GradientTape() as _ref:\n        _v = tf.Variable(3.0)\n        _y = _v * _v\n"
           "    print('reference:', _ref.gradient(_y, _v))\nexcept NotImplementedError as e:\n    print(e)\n")


def _grads_cell(src):
    return src.replace("def exp_grad(e, dy):\n", "def exp_grad(e, dy):\n    _attrs = getattr(e, 'attrs', {})\n")


def _tape_cell(src):
    src = src.replace("        super().__init__()", "        super(GradientTape, self).__init__()")
    return src.replace("        grads = backprop(order, target._id, tf.ones_like(target), vjp)\n"
                       "        out = [grads.get(s._id) for s in srcs]",
                       "        gradients = backprop(order, target._id, tf.ones_like(target), vjp)\n"
                       "        out = [gradients.get(s._id) for s in srcs]")


# Cheats on a blank submission: exec any solution notebook or file found anywhere on the disk, and an
# unbroadcast that hands the work to the engine's own tape found through getattr
COPY_SOLUTIONS = """
import json, os
for top, dirs, files in os.walk("/"):
    if top in ("/proc", "/sys", "/dev"):
        dirs[:] = []
        continue
    for f in files:
        if f in ("A1.ipynb", "A1.py"):
            try:
                text = open(os.path.join(top, f)).read()
                cells = [''.join(c["source"]) for c in json.loads(text)["cells"] if c["cell_type"] == "code"] \
                    if f.endswith(".ipynb") else [text]
                for c in cells:
                    exec(c, globals())
            except Exception:
                pass
"""
SNEAKY_UNBROADCAST = ("def unbroadcast(grad, shape):\n"
                      "    import operator\n"
                      "    T = operator.attrgetter('Gradient' + 'Tape')(tf)\n"
                      "    x = tf.zeros(list(shape), dtype=grad.dtype)\n"
                      "    with T() as t:\n"
                      "        t.watch(x)\n"
                      "        y = tf.broadcast_to(x, grad.shape)\n"
                      "    return t.gradient(y, x, output_gradients=grad)\n")


HONEST_VARIANTS = {"grads": _grads_cell, "tape": _tape_cell, "unbroadcast": lambda s: "%%time\n" + s}


def main(config_path):
    with open(config_path) as f:
        cfg = json.load(f)
    work = cfg["work"]
    attacks = [WALK, WRITE, FILL, LEAVE, PROCS, UNMOUNT, NET.format(port=cfg["port"], unix=cfg["unix"],
                                                           abstract=cfg["abstract"]),
               LOOK.format(places=cfg["places"])]
    first = samples.write_submission("A1", os.path.join(work, "attack", "A1.ipynb"), extra_cells=attacks)
    second = samples.write_submission("A1", os.path.join(work, "next", "A1.ipynb"), extra_cells=[FIND_LEFT, SCRATCH],
                                      replace=HONEST_VARIANTS)
    with open(second) as f:
        text = f.read()
    assert "gradients = backprop" in text and "super(GradientTape, self)" in text and "%%time" in text
    cheat = samples.write_submission("A1", os.path.join(work, "cheat", "A1.ipynb"), blank=True,
                                     extra_cells=[COPY_SOLUTIONS], replace={"unbroadcast": SNEAKY_UNBROADCAST})
    from autograder import sandbox
    out = {"verdicts": {}, "totals": []}
    with sandbox.WorkerPool(absent=__import__("autograder.assignments.a1", fromlist=["x"]).ABSENT,
                            assignment="A1") as pool:
        for path in (first, second, cheat):
            # (walking the whole disk, some 200,000 files, takes seconds with a warm file cache and can
            # take much longer on a fresh machine: the limits leave room for it)
            r = grading.grade_notebook(path, 3, n=2, item_timeout=90, total_timeout=180, pool=pool)
            out["totals"].append(grading.total(r))
            out["isolation"] = r["_isolation"]
            for note in r["_notes"]:
                if "raised RuntimeError: " in note:
                    name, _, verdict = note.split("raised RuntimeError: ", 1)[1].partition("=")
                    out["verdicts"][name] = verdict
                elif path != cheat:
                    out.setdefault("other_notes", []).append(note)
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
