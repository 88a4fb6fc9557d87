"""`python -m chartc` is the `chartc` command."""

from .commands.cli import run

if __name__ == "__main__":  # not when a spawned worker process imports this module as __mp_main__
    run()
