"""FILE and AUTO auto-sharding of pipelines read from files, across 2 MultiWorkerMirroredStrategy worker
processes: what each worker gets, step by step, equals what TF 2.21's workers got
(``data/tf_file_sharding.json``, recorded by ``record_file_sharding.py``).

FILE deals the files out (worker k reads files k, k+N, ...), rebatches each global batch into per-replica
batches and pads a worker that runs out with empty batches; AUTO does the same when the pipeline reads
files, and DATA otherwise. One deliberate difference: with fewer files than workers TF's worker 0 raises
the InvalidArgumentError and the others then lose their collective (UnavailableError); in the engine every
worker raises the InvalidArgumentError.
"""
import json

import pytest

from file_sharding_cases import CASE_NAMES, make_files
from launched import HERE, launch_clusters

TF = json.loads((HERE / "data" / "tf_file_sharding.json").read_text())


@pytest.fixture(scope="module")
def engine_results(tmp_path_factory):
    files = make_files(str(tmp_path_factory.mktemp("files")))
    runs = launch_clusters(tmp_path_factory, "file_sharding_worker.py", sizes=(2,), timeout_s=120,
                           prefix="fileshard", extra_args=[files])
    (status, out, err, out_dir), = runs.values()
    assert status == 0, out + err
    return [json.loads((out_dir / f"worker{k}.json").read_text()) for k in range(2)]


@pytest.mark.parametrize("case", CASE_NAMES)
def test_each_worker_gets_what_tf_gives_it(engine_results, case):
    assert engine_results[0][case] == TF[0][case]
    if isinstance(TF[1][case], str) and TF[1][case].startswith("UnavailableError"):
        assert engine_results[1][case] == TF[0][case]       # the engine's worker 1 raises the real error
    else:
        assert engine_results[1][case] == TF[1][case]


def test_file_sharding_reads_each_file_on_exactly_one_worker(engine_results):
    for case in ("text4_FILE", "listfiles_FILE"):
        lines = [line for worker in engine_results for step in worker[case] for replica in step for line in replica]
        assert sorted(lines) == sorted(f"f{i}-l{j}" for i in range(4 if case == "text4_FILE" else 5) for j in range(3))
