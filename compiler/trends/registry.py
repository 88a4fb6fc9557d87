"""The trend method registry: a method is one `TrendMethod` subclass, registered by defining it.

A subclass that names itself (``name = "linear"``) is registered by
`TrendMethod.__init_subclass__` the moment Python runs its ``class``
statement, as plotnine's stat classes are by their metaclass: the built-in
methods (`trends.methods`) and a user's own are declared the same way, and a
base class that sets no ``name`` of its own (a shared parent) is not
registered. ``__init_subclass__`` rather than a metaclass or a decorator: it
needs no second step to forget and no metaclass conflicts with a user's own
bases.

The class says everything the rest of chartc asks about a method: its name
and aliases, its parameters (each a trend key with its JSON-Schema fragment),
whether it draws confidence/prediction bands, whether its curve extends past
the data, which variables it takes the logarithm of, the label placeholders
it offers, how it fits (`TrendMethod.fit`) and what a label's placeholders
are worth for a fitted line. Nothing outside `trends` switches on a method's
name: the schema's method enum and parameters, the reference docs, the fit
and the legend all read the registry.

This module imports no numpy (the light ``chartc validate`` reads the
registry to build its schema); a method's ``fit`` imports the numerics when
it runs.

May import: `chartc.errors` and the standard library.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterator, Mapping

from .. import errors
from ..errors import SpecError, did_you_mean

STAGE = "fit"


@dataclass(frozen=True, slots=True)
class Parameter:
    """A method's own trend key (``order``, ``bandwidth``, ``window``).

    ``schema`` is its JSON-Schema fragment as the chart schema shows it:
    ``type``, bounds, ``description`` (plain text), ``examples`` and, when
    the method has one, ``default`` (the value a fit uses when the key is
    absent). Two methods may declare the same key (``order`` for ``poly``
    and ``quad``): the schema keeps the first declaration's fragment.
    """

    name: str
    schema: Mapping[str, Any]

    @property
    def default(self) -> Any:
        """The value a fit uses when the spec leaves the key out (None: no default)."""
        return self.schema.get("default")


@dataclass(frozen=True, slots=True)
class Placeholder:
    """A label placeholder a method offers (``{slope}``), with the sentence the docs print and its value's type."""

    name: str
    description: str
    kind: str = "number"


@dataclass(frozen=True, slots=True)
class Options:
    """What a method's fit gets besides the data.

    ``parameters`` holds every parameter the method declares, the spec's
    value or the parameter's default; ``band`` the kind of band requested
    (a method whose fit changes with it, such as ``loess``, reads it); ``x_name``/``y_name`` are the
    variables as the equation writes them (``x``, ``log10(x)``).
    """

    method: str
    parameters: Mapping[str, Any]
    x_name: str
    y_name: str
    band: str | None = None   # the band the request draws: "confidence", "prediction" or None

    def __getitem__(self, name: str) -> Any:
        return self.parameters[name]


# The most rows a smoother (`loess`, `moving-average`) fits in one group: they run in numpy on every row, at
# ~100 bytes a row (10⁷ rows: ~1 GB, a few seconds); past it they are refused (E639) and the hint names the
# least-squares methods, which fit from sums at any size.
SMOOTHER_MAX_ROWS = 10_000_000

# The most rows an iterative fit (`robust` least squares, `logistic`, `quantile`) takes in one group: each
# iteration is a weighted least-squares pass over every row in numpy (up to 50 for `robust`, 1,000 for
# `quantile`), which the engine's sums cannot replace; past it the fit is refused (E639).
ITERATIVE_MAX_ROWS = 1_000_000

# The least-squares methods' shared keys: a weight per row (weighted least squares, from the engine's sums at
# any size), and a robust fit (iteratively reweighted, in memory).
WEIGHT = Parameter("weight", {
    "type": "string",
    "description": ("A field of weights for weighted least squares (statsmodels' `WLS`): a row of weight ω counts as "
                    "having variance σ²/ω. Weights must be positive; a row without one is left out. R², the "
                    "statistics and the confidence band are WLS's; a `prediction` band is for a new point of "
                    "weight 1."),
    "examples": ["count"]})
ROBUST = Parameter("robust", {
    "type": ["boolean", "string"], "enum": [True, False, "huber", "bisquare"],
    "description": ("A robust fit (statsmodels' `RLM`), iteratively reweighted from the least-squares fit: `true` or "
                    "`huber` (Huber's T, t = 1.345), `bisquare` (Tukey's biweight, c = 4.685); the scale is the "
                    "residuals' MAD (median |r| / 0.6745), re-estimated every iteration, until no coefficient moves "
                    "by more than 1e-12 of its size (at most 50 iterations). No bands or fit statistics; fitted in "
                    "memory, up to 1,000,000 rows per group."),
    "examples": [True, "bisquare"], "default": False})

# The placeholders every method offers, with their docs, in the order a hint
# lists them: the statistics, then each method's own, then the rest.
STATISTICS_PLACEHOLDERS = (
    Placeholder("r2", "R² of the fit (None for the smoothers)"),
    Placeholder("adj_r2", "adjusted R²"),
    Placeholder("rse", "residual standard error √(SSR/(n − k − 1))"),
    Placeholder("p", ("p-value: of the slope's t test for a straight line (`linear`, and `log`, `exp`, `pow` in "
                      "their straightened space), of the overall F test for a polynomial; for one slope the two "
                      "are the same")),
    Placeholder("f", "the overall F statistic"),
    Placeholder("slope_ci", "the slope's 95% confidence interval (low, high) of a straight line, e.g. "
                            "`{slope_ci[0]:.2f}`"),
    Placeholder("aic", "Akaike's information criterion, −2·log-likelihood + 2·(k + 1), as statsmodels"),
    Placeholder("bic", "the Bayesian information criterion, −2·log-likelihood + ln(n)·(k + 1), as statsmodels"),
    Placeholder("rmse", "root mean squared residual √(SSR/n) (not `rse`, which divides by n − k − 1)"),
)
COMMON_PLACEHOLDERS = (
    Placeholder("coef", "the coefficients, in order, e.g. `{coef[1]:.2f}`"),
    Placeholder("n", "the number of points fitted"),
    Placeholder("equation", "the fitted equation, e.g. `y = 1.2 + 3.4·x`"),
    Placeholder("method", "the method's name"),
    Placeholder("group", "the `by` group of the line"),
)


class TrendMethod:
    """A trend method: subclass it, set `name`, and it is registered.

    Class attributes:
        name: the ``method`` value a spec writes.
        aliases: other spellings of the same method.
        description: one or two sentences for the schema and the reference.
        parameters: the method's own trend keys.
        placeholders: the label placeholders it offers besides the common ones.
        has_band: whether it draws confidence and prediction bands.
        extrapolates: whether its curve exists past the data's x (False: an
            `extent` wider than the data is cut to it).
        logarithm_of: the variables (``"x"``, ``"y"``) it takes the natural
            log of: their values must be positive, and on a log axis the
            fit is the method that logs the others.
        from_moments: whether it fits from sufficient statistics
            (`LeastSquares`: the engine sums them, so it fits any number of
            rows); False: `fit` gets the values as arrays.
        max_rows: the most rows a method fitted on arrays takes in one group
            (None: no limit); past it the fit is refused (its memory grows
            with the rows).
    """

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    description: ClassVar[str] = ""
    parameters: ClassVar[tuple[Parameter, ...]] = ()
    placeholders: ClassVar[tuple[Placeholder, ...]] = ()
    has_band: ClassVar[bool] = True
    extrapolates: ClassVar[bool] = True
    logarithm_of: ClassVar[frozenset[str]] = frozenset()
    from_moments: ClassVar[bool] = False
    max_rows: ClassVar[int | None] = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "name" in cls.__dict__:  # a shared base class names no method
            register(cls)

    def fits_from_moments(self, options: Options) -> bool:
        """Whether this request fits from sufficient statistics (default: `from_moments`)."""
        return self.from_moments

    def row_limit(self, options: Options) -> int | None:
        """The most rows this request fits in one group (default: `max_rows`)."""
        return self.max_rows

    def draws_band(self, options: Options, kind: str) -> bool:
        """Whether this request can draw a ``confidence`` or ``prediction`` band (default: `has_band`)."""
        return self.has_band

    def check(self, options: Options) -> None:
        """Refuse parameters before any data is read (default: nothing to check).

        Raises:
            SpecError: a bad parameter, its path the parameter's key.
        """

    def fit(self, u, v, options: Options):
        """Fit u (x in fitting space) and v (y): numpy arrays -> a `numerics.Model`.

        Raises:
            SpecError: data or parameters the method cannot fit.
        """
        raise NotImplementedError(f"{type(self).__name__}.fit")

    def label_values(self, coefficients: Mapping[str, float]) -> dict[str, Any]:
        """This method's placeholders' values for a fitted line (default: the coefficients of those names).

        Args:
            coefficients: the line's named coefficients.
        """
        return {p.name: coefficients.get(p.name) for p in self.placeholders}


class LeastSquares(TrendMethod):
    """A method fitted by least squares on a polynomial in x (or ln x) to y (or ln y), from sufficient statistics.

    The sums (`trends.moments`) are computed by the engine for a chart's rows,
    or from arrays by `fit`; a subclass says its `degree` and turns the fit
    into a `numerics.Model` (`model`). Its `logarithm_of` is what the sums take
    the log of. Not registered itself: it names no method.
    """

    from_moments = True
    parameters = (WEIGHT,)

    def degree(self, options: Options) -> int:
        """The polynomial's degree (checked by `check` before any data is read)."""
        return 1

    def robust(self, options: Options) -> str | None:
        """The robust norm a request asks for (``huber``, ``bisquare``), or None for least squares."""
        value = options.parameters.get("robust")
        return "huber" if value is True else value or None

    def fits_from_moments(self, options: Options) -> bool:
        return self.robust(options) is None

    def draws_band(self, options: Options, kind: str) -> bool:
        return self.robust(options) is None

    def row_limit(self, options: Options) -> int | None:
        return None if self.robust(options) is None else ITERATIVE_MAX_ROWS

    def check_shared(self, options: Options) -> None:
        """Refuse a bad ``robust`` or ``weight``, or both at once (every least-squares method's `check` calls it).

        Raises:
            SpecError: at the key.
        """
        robust = options.parameters.get("robust")
        if robust not in (None, True, False, "huber", "bisquare"):
            raise SpecError(errors.trend_parameter_choice("robust", robust, (True, False, "huber", "bisquare")),
                            ("robust",), stage=STAGE)
        weight = options.parameters.get("weight")
        if weight is not None and not isinstance(weight, str):
            raise SpecError(errors.trend_weight_field(weight), ("weight",), stage=STAGE)
        if weight is not None and self.robust(options) is not None:
            raise SpecError(errors.trend_robust_weighted(), ("weight",), stage=STAGE,
                            hint=errors.trend_robust_weighted_hint())

    def check(self, options: Options) -> None:
        self.check_shared(options)

    def fit(self, u, v, options: Options, weights=None):
        """Fit from the sums of arrays (`moments.sums_from_arrays`), or robustly (`robust.fit_robust`)."""
        from .moments import sums_from_arrays

        sums = sums_from_arrays(u, v, u, v, self.degree(options),
                                log_x="x" in self.logarithm_of, log_y="y" in self.logarithm_of, weights=weights)
        norm = self.robust(options)
        if norm is None:
            return self.fit_sums(sums, options)
        from . import robust  # the methods that take `robust` (linear, poly) take no logarithm

        self.check_sums(sums, options)
        basis, beta = robust.fit_robust(u, v, self.degree(options), norm)
        return robust.without_statistics(self.model(basis.ols(beta, len(u)), options))

    def fit_sums(self, sums, options: Options):
        """Fit from a group's `moments.Sums` -> a `numerics.Model`.

        Raises:
            SpecError: values ≤ 0 where the method takes a logarithm; fewer
                distinct x than the polynomial needs; sums past double
                precision (values near its limits).
        """
        from . import numerics
        from .moments import solve

        for channel, name in (("x", "u"), ("y", "v")):
            if channel in self.logarithm_of:
                numerics.refuse_nonpositive(sums.nonpositive[name], sums.n, channel, options.method)
        if sums.nonpositive.get("weight"):
            raise SpecError(errors.trend_weight_nonpositive(sums.nonpositive["weight"], sums.n), ("weight",),
                            stage=STAGE, hint=errors.trend_weight_nonpositive_hint())
        self.check_sums(sums, options)
        try:
            ols = solve(sums)
        except FloatingPointError:
            raise SpecError(errors.trend_not_finite(options.method), (), stage=STAGE,
                            hint=errors.trend_not_finite_hint()) from None
        return self.model(ols, options)

    def check_sums(self, sums, options: Options) -> None:
        """Refuse data the fit cannot take, from its sums (default: nothing to check).

        Raises:
            SpecError: at the key to blame.
        """

    def model(self, ols, options: Options):
        """The fitted `numerics.Ols` as a `numerics.Model`: coefficients, equation, curve and band."""
        raise NotImplementedError(f"{type(self).__name__}.model")


@dataclass
class _Registry:
    methods: dict[str, type[TrendMethod]] = field(default_factory=dict)   # name -> class, in definition order
    version: int = 0    # bumped by every change: what the composed schema was built from


_REGISTRY = _Registry()


def register(cls: type[TrendMethod]) -> type[TrendMethod]:
    """Register a method class (done by defining a subclass; a later class of the same name replaces it).

    Returns:
        The class.

    Raises:
        ValueError: the name or an alias already names another method.
    """
    others = {spelling: name for name, other in _REGISTRY.methods.items() if name != cls.name
              for spelling in (name, *other.aliases)}
    clash = [spelling for spelling in (cls.name, *cls.aliases) if spelling in others]
    if clash:
        raise ValueError(f"trend method {cls.name!r}: {clash[0]!r} already names {others[clash[0]]!r}")
    _REGISTRY.methods[cls.name] = cls
    _REGISTRY.version += 1
    return cls


def unregister(name: str) -> None:
    """Forget a method (a test's own, once it is done)."""
    del _REGISTRY.methods[name]
    _REGISTRY.version += 1


def snapshot() -> dict[str, type[TrendMethod]]:
    """The registered methods, to hand back to `restore` (tests register their own in between)."""
    return registered()


def restore(saved: Mapping[str, type[TrendMethod]]) -> None:
    """Register exactly the methods of a `snapshot` again."""
    _REGISTRY.methods.clear()
    _REGISTRY.methods.update(saved)
    _REGISTRY.version += 1


def version() -> int:
    """A number that changes whenever a method is registered or removed."""
    return _REGISTRY.version


def method_names() -> tuple[str, ...]:
    """Every registered method's name, in registration order."""
    return tuple(_REGISTRY.methods)


def spellings() -> tuple[str, ...]:
    """Every name a spec may write: the names, then the aliases."""
    return (*_REGISTRY.methods, *(a for cls in _REGISTRY.methods.values() for a in cls.aliases))


def methods() -> Iterator[TrendMethod]:
    """An instance of every registered method, in registration order."""
    return (cls() for cls in _REGISTRY.methods.values())


def find_method(name: Any) -> TrendMethod:
    """The method a spec's ``method`` names (its name or an alias).

    Raises:
        SpecError: no method has that name (path ``("method",)``, with a did-you-mean).
    """
    if isinstance(name, str):
        if name in _REGISTRY.methods:
            return _REGISTRY.methods[name]()
        for cls in _REGISTRY.methods.values():
            if name in cls.aliases:
                return cls()
    raise SpecError(errors.trend_unknown_method(name, spellings()), ("method",), stage=STAGE,
                    hint=did_you_mean(str(name), spellings()))


def band_methods() -> tuple[str, ...]:
    """The methods that draw confidence and prediction bands."""
    return tuple(name for name, cls in _REGISTRY.methods.items() if cls.has_band)


def label_placeholders() -> tuple[str, ...]:
    """Every placeholder a label may name, in the order a hint lists them."""
    own = [p.name for cls in _REGISTRY.methods.values() for p in cls.placeholders]
    names = [p.name for p in STATISTICS_PLACEHOLDERS] + own + [p.name for p in COMMON_PLACEHOLDERS]
    return tuple(dict.fromkeys(names))


def parameters() -> dict[str, Parameter]:
    """Every method parameter by key (the first declaration of a key shared by several methods)."""
    found: dict[str, Parameter] = {}
    for cls in _REGISTRY.methods.values():
        for parameter in cls.parameters:
            found.setdefault(parameter.name, parameter)
    return found


def methods_using(key: str) -> tuple[str, ...]:
    """The methods that declare a parameter."""
    return tuple(name for name, cls in _REGISTRY.methods.items() if any(p.name == key for p in cls.parameters))


def linearising(logged: frozenset[str]) -> str:
    """The first registered method that takes the log of exactly `logged` (the hint on a log axis)."""
    return next(name for name, cls in _REGISTRY.methods.items() if cls.logarithm_of == logged)



def registered() -> dict[str, type[TrendMethod]]:
    """Name -> class of every registered method, in registration order (a copy)."""
    return dict(_REGISTRY.methods)
