#!/usr/bin/env python3
"""Write specs/data/request_traces.parquet: 250,000 generated inference requests (prompt length, time to first token).

More rows than a chart may draw as points (200,000 marks), for the gallery's
density raster (specs/request_density.yaml). Seeded: the same bytes on every run.

    python scripts/build_request_traces.py
"""

from __future__ import annotations

from pathlib import Path

import numpy
import pyarrow
import pyarrow.parquet

OUT = Path(__file__).resolve().parent.parent / "specs" / "data" / "request_traces.parquet"
ROWS = 250_000


def main() -> None:
    rng = numpy.random.default_rng(16)
    # Prompt lengths: mostly chat turns, a tail of long documents, and a cluster at the 8k context limit.
    kind = rng.choice(3, size=ROWS, p=[0.72, 0.23, 0.05])
    tokens = numpy.where(kind == 0, rng.lognormal(5.6, 0.7, ROWS),
                         numpy.where(kind == 1, rng.lognormal(7.6, 0.5, ROWS), rng.normal(8000, 120, ROWS)))
    tokens = numpy.clip(tokens, 8, 8192).round().astype("int32")
    # Time to first token: prefill linear in the prompt, plus queueing (heavier on a busy server).
    busy = rng.random(ROWS) < 0.3
    queue = rng.exponential(numpy.where(busy, 180.0, 25.0))
    ttft = 35 + tokens * 0.055 * rng.lognormal(0, 0.12, ROWS) + queue
    table = pyarrow.table({"prompt_tokens": tokens, "ttft_ms": pyarrow.array(ttft.round(1).astype("float32"))})
    pyarrow.parquet.write_table(table, OUT, compression="zstd", use_dictionary=False, write_statistics=False)


if __name__ == "__main__":
    main()
