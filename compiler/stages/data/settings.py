"""Where a chart's data runs: the Spark settings a project file gives, and the failure to start an engine.

A module of its own so that the engine (`engine.connect`) and the Spark backend (`spark`) both read
it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Local mode's default: two worker threads.
DEFAULT_MASTER = "local[2]"
# The SQL function of a double's text as Python's `repr` writes it ('0.1', '1e+20', 'nan', '-inf'), on each engine.
DOUBLE_TEXT = "double_text"


@dataclass(frozen=True)
class SparkSettings:
    """Where Spark runs, from the project file's ``[spark]`` table (never from a spec).

    Attributes:
        master: a master URL (``local[2]``, ``spark://host:7077``, ``yarn``).
        remote: a Spark Connect URL (``sc://host:15002``); wins over `master`.
        conf: more Spark settings, as (``spark.*`` key, text value) pairs.
        origin: the project file and the key that chose them (for a diagnostic's place), or None.
    """

    master: str = DEFAULT_MASTER
    remote: str | None = None
    conf: tuple = field(default_factory=tuple)
    origin: tuple | None = field(default=None, compare=False)


class EngineUnavailable(Exception):
    """No engine to run on: pyspark not installed, no Java, or the cluster cannot be reached (args[0]: why)."""
