"""chartc's version, in one place: the package, the wheel and every provenance block read it here."""

__version__ = "0.1.0"
