"""Record TF 2.21's partitioner answers into ``data/tf_partitioner_cases.json`` (run with a TF venv's python)."""
import json
import pathlib

import tensorflow as tf

P = tf.distribute.experimental.partitioners
PARTITIONERS = {"fixed2": P.FixedShardsPartitioner(2), "fixed5": P.FixedShardsPartitioner(5),
                "min256k_4": P.MinSizePartitioner(256 << 10, 4), "min100_3": P.MinSizePartitioner(100, 3),
                "min1_10": P.MinSizePartitioner(1, 10), "max100": P.MaxSizePartitioner(100),
                "max1000_3": P.MaxSizePartitioner(1000, 3), "max4": P.MaxSizePartitioner(4)}

if __name__ == "__main__":
    cases = []
    for shape in [(10,), (100, 4), (1000, 64), (3, 5), (7,), (1, 8), (4096, 128)]:
        for name, partitioner in PARTITIONERS.items():
            for dtype in ["float32", "int64"]:
                cases.append([list(shape), dtype, name,
                              [int(v) for v in partitioner(tf.TensorShape(shape), tf.as_dtype(dtype))]])
    (pathlib.Path(__file__).parent / "data" / "tf_partitioner_cases.json").write_text(json.dumps(cases))
