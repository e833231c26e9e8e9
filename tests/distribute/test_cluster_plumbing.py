"""ClusterSpec, the cluster resolvers, the checks of a malformed TF_CONFIG and tf.distribute.Server, against TF 2.21.

Every case of ``cluster_cases.py`` is evaluated on the engine and compared with
what TF 2.21 gave (``data/tf_cluster.json``, recorded by running the same cases
under TensorFlow): the value's type and repr, or the error's class and message.
"""
import gc
import json
import pathlib
import socket

import pytest

import engine as tf
from cluster_cases import CASES, CLASS_ONLY, ENGINE_CODE, outcome

RECORDED = json.loads((pathlib.Path(__file__).parent / "data" / "tf_cluster.json").read_text())


def test_the_recording_is_tf_2_21_and_covers_every_case():
    assert RECORDED["tensorflow"] == "2.21.0"
    assert sorted(RECORDED["cases"]) == sorted(name for name, _, _ in CASES)


@pytest.mark.parametrize("name,tf_config,code", CASES, ids=[c[0] for c in CASES])
def test_case_behaves_as_tf(name, tf_config, code):
    expected = RECORDED["cases"][name]
    got = outcome(tf, ENGINE_CODE.get(name, code), tf_config)
    if "Server" in code:
        gc.collect()   # the servers the case made are dropped: their ports are freed now
    if name in CLASS_ONLY:
        assert got.get("error") == expected["error"], got
    else:
        assert got == expected


def test_json_errors_are_the_decoders_own(monkeypatch):
    monkeypatch.setenv("TF_CONFIG", '{"cluster": ')
    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()   # nothing is parsed yet
    with pytest.raises(json.JSONDecodeError):
        resolver.cluster_spec()
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": {"worker": ["localhost:1"]},
                                                "task": {"type": "worker", "index": 0}}))
    assert resolver.task_id == 0   # read again at each access: the resolver follows the environment


def test_multi_worker_roles():
    mwu = tf.distribute.multi_worker_util
    cluster = {"chief": ["c:1"], "worker": ["w:1", "w:2"], "ps": ["p:1"]}
    assert mwu.collective_tasks(cluster) == [("chief", 0), ("worker", 0), ("worker", 1)]
    assert [mwu.id_in_cluster(cluster, t, i) for t, i in mwu.collective_tasks(cluster)] == [0, 1, 2]
    assert mwu.worker_count(cluster, "worker") == 3
    assert mwu.is_chief(cluster, "chief", 0) and not mwu.is_chief(cluster, "worker", 0)
    assert mwu.is_chief({"worker": ["w:1", "w:2"]}, "worker", 0)
    assert mwu.collective_leader(cluster, "worker", 1) == "/job:chief/replica:0/task:0"
    assert mwu.coordination_leader(cluster) == "/job:ps/replica:0/task:0"


def _nobody_listens(port):
    """True if a new server could listen on ``port`` (connections closing there, in TIME_WAIT, do not count)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # as gRPC's and TF's servers set it
        probe.bind(("127.0.0.1", port))
        probe.listen()
    return True


def test_server_answers_ping_and_stop_frees_its_port():
    from engine.distribute import server_lib
    server = tf.distribute.Server({"worker": ["localhost:0"]})
    assert server.target == f"grpc://localhost:{server.port}"
    assert server_lib.ping(f"127.0.0.1:{server.port}") == "/job:worker/replica:0/task:0"
    server.stop()
    assert _nobody_listens(server.port)
    with pytest.raises(tf.errors.UnavailableError):
        server_lib.ping(f"127.0.0.1:{server.port}", timeout=2.0)


def test_a_port_another_process_holds_is_tfs_unknown_error():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        with pytest.raises(tf.errors.UnknownError, match="Could not start gRPC server"):
            tf.distribute.Server({"worker": [f"localhost:{s.getsockname()[1]}"]})


def test_join_returns_when_the_server_stops():
    import threading
    server = tf.distribute.Server.create_local_server()
    joined = threading.Event()
    thread = threading.Thread(target=lambda: (server.join(), joined.set()), daemon=True)
    thread.start()
    assert not joined.wait(0.2)
    server.stop()
    assert joined.wait(5)
