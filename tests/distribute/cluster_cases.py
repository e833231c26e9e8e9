"""The cluster-plumbing cases whose TF 2.21 behaviour ``data/tf_cluster.json`` records.

Each case is an expression on ``tf`` (TensorFlow when recording, the engine when
testing), evaluated with ``TF_CONFIG`` set to the case's value (unset: None).
The outcome is the value's type name and ``repr`` (ports replaced by ``PORT``),
or the exception's class and message.

Record (needs TensorFlow, e.g. a scratch venv; never a dependency of the project)::

    /tmp/tfvenv/bin/python tests/distribute/cluster_cases.py > tests/distribute/data/tf_cluster.json

``ENGINE_CODE`` replaces a case's expression on the engine side where the engine
reaches the same check through another door (a strategy the engine does not
have yet: the same checks, in ``multi_worker_util``).
"""
import json
import os
import re
import sys

W2 = {"worker": ["localhost:1111", "localhost:2222"]}
W2PS = {"worker": ["localhost:1111", "localhost:2222"], "ps": ["localhost:3333"]}


def _cfg(cluster=None, task=None, **extra):
    d = {}
    if cluster is not None:
        d["cluster"] = cluster
    if task is not None:
        d["task"] = task
    d.update(extra)
    return json.dumps(d)


CS = "tf.train.ClusterSpec"
MWMS = "tf.distribute.MultiWorkerMirroredStrategy()"
CASES = [
    # --- tf.train.ClusterSpec -------------------------------------------------------------------
    ("cs_repr", None, f"repr({CS}({W2PS!r}))"),
    ("cs_as_dict", None, f"{CS}({W2PS!r}).as_dict()"),
    ("cs_jobs", None, f"{CS}({W2PS!r}).jobs"),
    ("cs_num_tasks", None, f"{CS}({W2PS!r}).num_tasks('worker')"),
    ("cs_num_tasks_missing", None, f"{CS}({W2PS!r}).num_tasks('chief')"),
    ("cs_task_indices", None, f"{CS}({W2PS!r}).task_indices('worker')"),
    ("cs_task_indices_missing", None, f"{CS}({W2PS!r}).task_indices('chief')"),
    ("cs_task_address", None, f"{CS}({W2PS!r}).task_address('worker', 1)"),
    ("cs_task_address_bad_index", None, f"{CS}({W2PS!r}).task_address('worker', 5)"),
    ("cs_task_address_bad_job", None, f"{CS}({W2PS!r}).task_address('chief', 0)"),
    ("cs_job_tasks", None, f"{CS}({W2PS!r}).job_tasks('worker')"),
    ("cs_job_tasks_missing", None, f"{CS}({W2PS!r}).job_tasks('chief')"),
    ("cs_eq", None, f"{CS}({W2PS!r}) == {CS}({W2PS!r})"),
    ("cs_eq_list_dict", None, f"{CS}({W2PS!r}) == {W2PS!r}"),
    ("cs_eq_index_dict", None, f"{CS}({W2!r}) == {{'worker': {{0: 'localhost:1111', 1: 'localhost:2222'}}}}"),
    ("cs_ne", None, f"{CS}({W2PS!r}) != {CS}({W2!r})"),
    ("cs_bool", None, f"bool({CS}({W2!r}))"),
    ("cs_bool_empty", None, f"bool({CS}({{}}))"),
    ("cs_bool_empty_job", None, f"bool({CS}({{'worker': []}}))"),
    ("cs_empty", None, f"({CS}({{}}).as_dict(), {CS}({{}}).jobs)"),
    ("cs_empty_job", None, f"{CS}({{'worker': []}}).as_dict()"),
    ("cs_copy", None, f"({CS}({CS}({W2PS!r})).jobs, {CS}({CS}({W2PS!r})).as_dict())"),
    ("cs_from_cluster_def", None, f"{CS}({CS}({W2PS!r}).as_cluster_def()).as_dict()"),
    ("cs_cluster_def_text", None, f"str({CS}({W2PS!r}).as_cluster_def())"),
    ("cs_sparse", None, f"{CS}({{'worker': {{1: 'a:1', 3: 'b:2'}}}}).as_dict()"),
    ("cs_sparse_num_tasks", None, f"{CS}({{'worker': {{1: 'a:1', 3: 'b:2'}}}}).num_tasks('worker')"),
    ("cs_sparse_indices", None, f"{CS}({{'worker': {{3: 'b:2', 1: 'a:1'}}}}).task_indices('worker')"),
    ("cs_sparse_missing", None, f"{CS}({{'worker': {{1: 'a:1', 3: 'b:2'}}}}).task_address('worker', 0)"),
    ("cs_sparse_job_tasks", None, f"{CS}({{'worker': {{1: 'a:1', 3: 'b:2'}}}}).job_tasks('worker')"),
    ("cs_dense_dict", None, f"{CS}({{'worker': {{1: 'x:1', 0: 'y:1'}}}}).as_dict()"),
    ("cs_string_indices", None, f"{CS}({{'worker': {{'1': 'a:1'}}}}).task_indices('worker')"),
    ("cs_tuple", None, f"{CS}({{'worker': ('a:1', 'b:2')}}).as_dict()"),
    ("cs_job_order", None, f"({CS}({{'b': ['x:1'], 'a': ['y:1']}}).jobs, repr({CS}({{'b': ['x:1'], 'a': ['y:1']}})))"),
    ("cs_not_a_dict", None, f"{CS}(['a:1'])"),
    ("cs_tasks_not_a_list", None, f"{CS}({{'worker': 'a:1'}})"),
    ("cs_tasks_int", None, f"{CS}({{'worker': 3}})"),
    ("cs_job_name_int", None, f"{CS}({{1: ['a:1']}})"),
    ("cs_address_int", None, f"{CS}({{'worker': [1]}})"),
    ("cs_unhashable", None, f"hash({CS}({W2!r}))"),
    # --- TFConfigClusterResolver --------------------------------------------------------------------
    ("tfc_unset", None, "(lambda r: (r.cluster_spec(), r.task_type, r.task_id, r.rpc_layer, r.environment, "
                        "r.master(), dict(r.num_accelerators())))"
                        "(tf.distribute.cluster_resolver.TFConfigClusterResolver())"),
    ("tfc_full", _cfg(W2PS, {"type": "worker", "index": 1}, rpc_layer="grpc"),
     "(lambda r: (r.cluster_spec(), r.task_type, r.task_id, r.rpc_layer, r.environment, r.master(), "
     "r.master('worker', 0), r.master('ps', 0, rpc_layer='http'), dict(r.num_accelerators())))"
     "(tf.distribute.cluster_resolver.TFConfigClusterResolver())"),
    ("tfc_no_rpc_layer", _cfg(W2, {"type": "worker", "index": 0}),
     "(lambda r: (r.master(), r.master('worker', 1), r.master('worker', 1, rpc_layer='grpc')))"
     "(tf.distribute.cluster_resolver.TFConfigClusterResolver())"),
    ("tfc_one_task", _cfg({"worker": ["localhost:1111"]}, {"type": "worker", "index": 0}),
     "tf.distribute.cluster_resolver.TFConfigClusterResolver().master()"),
    ("tfc_session_master", _cfg(W2, {"type": "worker", "index": 0}, session_master="host:9"),
     "tf.distribute.cluster_resolver.TFConfigClusterResolver().master('worker', 1)"),
    ("tfc_string_index", _cfg(W2, {"type": "worker", "index": "1"}),
     "(lambda r: (r.task_type, r.task_id))(tf.distribute.cluster_resolver.TFConfigClusterResolver())"),
    ("tfc_overrides", _cfg(W2, {"type": "worker", "index": 1}),
     "(lambda r: (r.task_type, r.task_id, r.rpc_layer, r.environment))(tf.distribute.cluster_resolver."
     "TFConfigClusterResolver(task_type='chief', task_id='0', rpc_layer='grpc', environment='google'))"),
    ("tfc_bad_json_cluster_spec", "{", "tf.distribute.cluster_resolver.TFConfigClusterResolver().cluster_spec()"),
    ("tfc_bad_json_task_type", "{", "tf.distribute.cluster_resolver.TFConfigClusterResolver().task_type"),
    ("tfc_bad_json_task_id", '{"task": {"type": "worker", "index": 0}', "tf.distribute.cluster_resolver."
                                                                     "TFConfigClusterResolver().task_id"),
    ("tfc_bad_json_construct", "{", "type(tf.distribute.cluster_resolver.TFConfigClusterResolver()).__name__"),
    ("tfc_bad_json_environment", "{", "tf.distribute.cluster_resolver.TFConfigClusterResolver().environment"),
    ("tfc_empty_string", "", "tf.distribute.cluster_resolver.TFConfigClusterResolver().cluster_spec()"),
    ("tfc_json_list", "[1]", "(lambda r: (r.cluster_spec(), r.task_type))(tf.distribute.cluster_resolver."
                             "TFConfigClusterResolver())"),
    ("tfc_json_number", "3", "tf.distribute.cluster_resolver.TFConfigClusterResolver().cluster_spec()"),
    ("tfc_tasks_not_a_list", _cfg({"worker": "localhost:1"}, {"type": "worker", "index": 0}),
     "tf.distribute.cluster_resolver.TFConfigClusterResolver().cluster_spec()"),
    # --- SimpleClusterResolver, UnionResolver ---------------------------------------------------------
    ("simple", None, f"(lambda r: (r.cluster_spec(), r.master(), r.master('worker', 0), "
                     f"r.master('worker', 0, rpc_layer='http'), r.environment, r.num_accelerators(), r.task_type, "
                     f"r.task_id, r.rpc_layer))(tf.distribute.cluster_resolver.SimpleClusterResolver({CS}({W2!r}), "
                     f"task_type='worker', task_id=1, rpc_layer='grpc', num_accelerators={{'GPU': 2}}))"),
    ("simple_defaults", None, f"(lambda r: (r.master(), r.environment, r.num_accelerators(), r.task_type, "
                              f"r.task_id, r.rpc_layer))(tf.distribute.cluster_resolver.SimpleClusterResolver("
                              f"{CS}({W2!r}), master='host:1'))"),
    ("simple_not_a_cluster_spec", None, f"tf.distribute.cluster_resolver.SimpleClusterResolver({W2!r})"),
    ("simple_master_not_str", None, f"tf.distribute.cluster_resolver.SimpleClusterResolver({CS}({W2!r}), master=3)"),
    ("resolver_abstract", None, "tf.distribute.cluster_resolver.ClusterResolver()"),
    ("union", None, f"(lambda S: tf.distribute.cluster_resolver.UnionResolver(S({CS}({W2!r}), task_type='worker', "
                    f"task_id=0), S({CS}({{'ps': ['localhost:3333'], 'worker': ['localhost:4444']}}))))("
                    f"tf.distribute.cluster_resolver.SimpleClusterResolver).cluster_spec()"),
    ("union_lists", None, f"(lambda S: tf.distribute.cluster_resolver.UnionResolver(S({CS}({{'w': {{0: 'a:1'}}}})), "
                          f"S({CS}({{'w': {{0: 'b:1'}}}}))))(tf.distribute.cluster_resolver.SimpleClusterResolver)"
                          f".cluster_spec()"),
    ("union_duplicate", None, f"(lambda S: tf.distribute.cluster_resolver.UnionResolver("
                              f"S({CS}({{'w': {{1: 'a:1'}}}})), S({CS}({{'w': {{1: 'b:1'}}}}))))"
                              f"(tf.distribute.cluster_resolver.SimpleClusterResolver).cluster_spec()"),
    ("union_empty", None, "tf.distribute.cluster_resolver.UnionResolver()"),
    # --- a strategy refusing a malformed cluster -------------------------------------------------------
    ("mwms_index_out_of_range", _cfg(W2, {"type": "worker", "index": 2}), MWMS),
    ("mwms_type_not_in_cluster", _cfg(W2, {"type": "chief", "index": 0}), MWMS),
    ("mwms_ps_not_in_cluster", _cfg(W2, {"type": "ps", "index": 0}), MWMS),
    ("mwms_ps_task", _cfg(W2PS, {"type": "ps", "index": 0}), MWMS),
    ("mwms_unknown_type", _cfg(W2, {"type": "boss", "index": 0}), MWMS),
    ("mwms_unknown_job", _cfg(dict(W2, boss=["localhost:3"]), {"type": "worker", "index": 0}),
     MWMS),
    ("mwms_no_task", _cfg(W2), MWMS),
    ("mwms_no_index", _cfg(W2, {"type": "worker"}), MWMS),
    ("mwms_two_chiefs", _cfg({"chief": ["localhost:1", "localhost:2"]}, {"type": "chief", "index": 0}),
     MWMS),
    ("mwms_negative_index", _cfg(W2, {"type": "worker", "index": -1}), MWMS),
    ("mwms_bad_json", "{", MWMS),
    ("ps_no_ps", _cfg({"worker": ["localhost:1"], "chief": ["localhost:3"]}, {"type": "chief", "index": 0}),
     "tf.distribute.experimental.ParameterServerStrategy(tf.distribute.cluster_resolver.TFConfigClusterResolver())"),
    ("ps_no_worker", _cfg({"ps": ["localhost:1"], "chief": ["localhost:3"]}, {"type": "chief", "index": 0}),
     "tf.distribute.experimental.ParameterServerStrategy(tf.distribute.cluster_resolver.TFConfigClusterResolver())"),
    ("ps_index_out_of_range", _cfg({"ps": ["localhost:1"], "worker": ["localhost:2"], "chief": ["localhost:3"]},
                                   {"type": "worker", "index": 3}),
     "tf.distribute.experimental.ParameterServerStrategy(tf.distribute.cluster_resolver.TFConfigClusterResolver())"),
    ("ps_type_not_in_cluster", _cfg({"ps": ["localhost:1"], "worker": ["localhost:2"]}, {"type": "chief", "index": 0}),
     "tf.distribute.experimental.ParameterServerStrategy(tf.distribute.cluster_resolver.TFConfigClusterResolver())"),
    ("ps_empty_cluster", "{}",
     "tf.distribute.experimental.ParameterServerStrategy(tf.distribute.cluster_resolver.TFConfigClusterResolver())"),
    ("ps_bad_json", "{",
     "tf.distribute.experimental.ParameterServerStrategy(tf.distribute.cluster_resolver.TFConfigClusterResolver())"),
    # --- MultiWorkerMirroredStrategy's arguments, CommunicationOptions -----------------------------------
    ("mwms_local", None, "(lambda s: (s.num_replicas_in_sync, s.extended.worker_devices, s.extended.should_checkpoint,"
                         " s.extended.experimental_between_graph))(tf.distribute.MultiWorkerMirroredStrategy())"),
    ("mwms_bad_options", None, "tf.distribute.MultiWorkerMirroredStrategy(communication_options=3)"),
    ("mwms_bad_resolver", None, "tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=3)"),
    ("co_str", None, "str(tf.distribute.experimental.CommunicationOptions(bytes_per_pack=50, timeout_seconds=1.5, "
                     "implementation='ring'))"),
    ("co_defaults", None, "(lambda o: (o.bytes_per_pack, o.timeout_seconds, o.implementation))"
                          "(tf.distribute.experimental.CommunicationOptions())"),
    ("co_negative_pack", None, "tf.distribute.experimental.CommunicationOptions(bytes_per_pack=-1)"),
    ("co_bad_implementation", None, "tf.distribute.experimental.CommunicationOptions(implementation=3)"),
    ("co_unknown_implementation", None, "tf.distribute.experimental.CommunicationOptions(implementation='fast')"),
    ("co_merge", None, "str(tf.distribute.experimental.CommunicationOptions(bytes_per_pack=1).merge("
                       "tf.distribute.experimental.CommunicationOptions(timeout_seconds=2.0, implementation='NCCL')))"),
    ("co_alias", None, "tf.distribute.experimental.CollectiveCommunication.RING"),
    # --- tf.distribute.Server -----------------------------------------------------------------------
    ("server_local", None, "(lambda s: (s.target, str(s.server_def)))(tf.distribute.Server.create_local_server())"),
    ("server_not_started", None, "(lambda s: (s.target, s.server_def.job_name, s.server_def.task_index, "
                                 "s.server_def.protocol))"
                                 "(tf.distribute.Server({'worker': ['localhost:0']}, start=False))"),
    ("server_start_twice", None, "(lambda s: (s.start(), s.start()))"
                                 "(tf.distribute.Server({'worker': ['localhost:0']}))"),
    ("server_sparse_task", None, "tf.distribute.Server({'worker': {3: 'localhost:0'}}).server_def.task_index"),
    ("server_which_task", None, "tf.distribute.Server({'worker': ['localhost:0', 'localhost:0']})"),
    ("server_which_job", None, "tf.distribute.Server({'a': ['localhost:0'], 'b': ['localhost:0']})"),
    ("server_not_a_cluster", None, "tf.distribute.Server(3)"),
    ("server_job_not_in_cluster", None, f"tf.distribute.Server({CS}({W2!r}), job_name='ps', task_index=0)"),
    ("server_task_not_in_job", None, f"tf.distribute.Server({CS}({W2!r}), job_name='worker', task_index=7)"),
    ("server_protocol", None, "tf.distribute.Server({'worker': ['localhost:0']}, protocol='http')"),
]

_PS_CHECK = ("tf.distribute.multi_worker_util.validate_parameter_server_cluster("
             "tf.distribute.cluster_resolver.TFConfigClusterResolver())")
# the engine's door to the same checks while it has no ParameterServerStrategy
ENGINE_CODE = {name: _PS_CHECK for name, _, code in CASES if "ParameterServerStrategy" in code}
# only the error class is compared: TF's message has a protocol buffer's debug text, or Python's own wording
CLASS_ONLY = {"server_protocol", "resolver_abstract"}


def normalize(text):
    return re.sub(r"localhost:\d{2,}", "localhost:PORT", text)


def outcome(tf, code, tf_config):
    saved = os.environ.pop("TF_CONFIG", None)
    if tf_config is not None:
        os.environ["TF_CONFIG"] = tf_config
    try:
        value = eval(code, {"tf": tf})  # noqa: S307  (the cases above, nothing else)
        return {"type": type(value).__name__, "repr": normalize(repr(value))}
    except BaseException as error:  # noqa: B902
        return {"error": type(error).__name__, "message": normalize(str(error))}
    finally:
        os.environ.pop("TF_CONFIG", None)
        if saved is not None:
            os.environ["TF_CONFIG"] = saved


def _tensorflow():
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import tensorflow as tf
    return tf


def record():
    """Every case's outcome under TensorFlow, as JSON on stdout.

    A strategy configures TF's runtime once per process, so each strategy case
    runs in a fresh interpreter (``cluster_cases.py --one NAME``).
    """
    import subprocess
    tf = _tensorflow()
    out = {"tensorflow": tf.__version__, "cases": {}}
    for name, tf_config, code in CASES:
        if "Strategy" in code:
            done = subprocess.run([sys.executable, __file__, "--one", name], capture_output=True, text=True,
                                  timeout=300, check=True)
            out["cases"][name] = json.loads(done.stdout.strip().splitlines()[-1])
        else:
            out["cases"][name] = outcome(tf, code, tf_config)
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        case = {c[0]: c for c in CASES}[sys.argv[2]]
        print(json.dumps(outcome(_tensorflow(), case[2], case[1])))
    else:
        record()
