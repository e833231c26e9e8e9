"""A task for the launcher's tests (``test_launch.py``); it does not import the engine (cheap to start).

``python launch_task.py MODE DIR``: every task prints its pid and its TF_CONFIG task, writes a file in DIR and
waits until every task has (so each has printed before any of them ends the run), then by MODE:

* ``ok``: the main tasks (the chief, else the workers) exit 0; the others (ps, and the workers of a chief-led
  job) serve forever, as a parameter server's ``server.join()`` does, until the launcher stops them;
* ``fail``: worker 1 exits with status 3, the others wait forever;
* ``killed``: worker 1 kills itself with SIGKILL, the others wait forever;
* ``hang``: every task waits forever (the launcher's ``--timeout`` ends it).
"""
import json
import os
import signal
import sys
import time

mode, rendezvous = sys.argv[1], sys.argv[2]
config = json.loads(os.environ["TF_CONFIG"])
task_type, index = config["task"]["type"], config["task"]["index"]
print(f"pid {os.getpid()} task {task_type} {index} of {sorted(config['cluster'])}", flush=True)
print(f"to stderr from {task_type} {index}", file=sys.stderr, flush=True)
with open(os.path.join(rendezvous, f"{task_type}{index}"), "w"):
    pass
tasks = sum(len(addresses) for addresses in config["cluster"].values())
deadline = time.monotonic() + 30
while len(os.listdir(rendezvous)) < tasks and time.monotonic() < deadline:
    time.sleep(0.01)
main_job = "chief" if "chief" in config["cluster"] else "worker"
if mode == "ok" and task_type == main_job:
    sys.exit(0)
if mode == "fail" and (task_type, index) == ("worker", 1):
    sys.exit(3)
if mode == "killed" and (task_type, index) == ("worker", 1):
    os.kill(os.getpid(), signal.SIGKILL)
while True:
    time.sleep(60)
