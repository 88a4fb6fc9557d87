"""The local Spark the `spark` tests run on works here: it reads a Parquet file and aggregates it as DuckDB does.

Both engines read one Parquet file of generated training-run rows (written by pyarrow, with nulls) and run the
same SQL text; Spark's answer must be DuckDB's, integers exactly and averages to 12 significant digits (the two
add the doubles in different orders). Steps and losses are distinct, so `min_by`/`max_by` have one answer.
"""

from __future__ import annotations

import math
from datetime import datetime, timezone

import numpy as np
import pytest

pytestmark = pytest.mark.spark

ROWS = 20_000
RUNS = ("adam", "lion", "muon", "sgd", "sophia")
# One query, valid in both dialects: a count with and without nulls, an integer sum, and the step of the lowest
# and highest loss per run (min_by/max_by skip rows whose loss is null in both engines).
QUERY = """
SELECT run,
       COUNT(*) AS n_rows,
       COUNT(loss) AS n_loss,
       SUM(tokens) AS tokens,
       MIN(loss) AS best_loss,
       MIN_BY(step, loss) AS best_step,
       MAX_BY(step, loss) AS worst_step,
       AVG(loss) AS mean_loss
FROM runs
WHERE tokens % 3 <> 0
GROUP BY run
ORDER BY run
"""


@pytest.fixture(scope="module")
def runs_parquet(tmp_path_factory):
    """20,000 rows over 5 runs: distinct steps, distinct losses with 1 in 20 null, int64 token counts."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(16)
    loss = rng.random(ROWS) * 4.0
    assert len(np.unique(loss)) == ROWS  # no ties, so min_by/max_by are defined
    table = pa.table({
        "run": pa.array(rng.choice(RUNS, ROWS)),
        "step": pa.array(rng.permutation(ROWS), pa.int64()),
        "loss": pa.array(loss, mask=rng.random(ROWS) < 0.05),
        "tokens": pa.array(rng.integers(0, 2**40, ROWS), pa.int64()),
    })
    path = tmp_path_factory.mktemp("spark-data") / "runs.parquet"
    pq.write_table(table, path, row_group_size=4096)  # several row groups: Spark splits the scan across tasks
    return path


def test_spark_aggregates_a_parquet_file_as_duckdb_does(spark_session, runs_parquet):
    import duckdb

    spark_session.read.parquet(str(runs_parquet)).createOrReplaceTempView("runs")
    spark_rows = [tuple(row) for row in spark_session.sql(QUERY).collect()]

    with duckdb.connect() as con:
        con.execute(f"CREATE VIEW runs AS SELECT * FROM read_parquet('{runs_parquet.as_posix()}')")
        duckdb_rows = con.execute(QUERY).fetchall()

    assert [row[0] for row in spark_rows] == list(RUNS)
    assert sum(row[1] for row in spark_rows) > ROWS // 2  # the filter keeps about two rows in three, not none
    for spark_row, duckdb_row in zip(spark_rows, duckdb_rows):
        assert spark_row[:7] == duckdb_row[:7]
        assert math.isclose(spark_row[7], duckdb_row[7], rel_tol=1e-12)


def test_the_session_runs_on_two_local_cores_in_utc_without_a_ui(spark_session):
    context = spark_session.sparkContext
    assert (context.master, context.defaultParallelism) == ("local[2]", 2)
    assert context.uiWebUrl is None
    assert spark_session.conf.get("spark.sql.shuffle.partitions") == "2"
    # A timestamp without a zone reads as UTC, whatever the machine's zone.
    (epoch,) = spark_session.sql("SELECT unix_timestamp(TIMESTAMP '2024-03-10 12:00:00')").first()
    assert epoch == datetime(2024, 3, 10, 12, tzinfo=timezone.utc).timestamp()
