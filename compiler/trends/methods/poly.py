"""The ``poly`` trend (least squares on x⁰ .. x^order) and ``quad``, its order 2 under a name of its own."""

from __future__ import annotations

from ... import errors
from ...errors import SpecError
from ..equations import power, terms
from ..registry import ROBUST, STAGE, WEIGHT, LeastSquares, Options, Parameter


class Poly(LeastSquares):
    """OLS on the powers of x up to `order`, with confidence and prediction bands."""

    name = "poly"
    description = "Ordinary least squares on `x⁰ .. x^order`, coefficients `c0 .. cK`."
    parameters = (Parameter("order", {
        "type": "integer", "description": "Degree of a `poly` fit.", "examples": [2, 3], "minimum": 1}), WEIGHT, ROBUST)
    # The trend key an order too high for the data is blamed on.
    order_key = "order"

    def check(self, options: Options) -> None:
        from ..numerics import is_whole  # numpy: only once a chart is fitted

        self.check_shared(options)
        order = options["order"]
        if not is_whole(order) or order < 1:
            raise SpecError(errors.trend_poly_order(order), ("order",), stage=STAGE,
                            hint=errors.trend_poly_order_hint())

    def degree(self, options: Options) -> int:
        return int(options["order"])

    def check_sums(self, sums, options: Options) -> None:
        order = self.degree(options)
        if order >= sums.distinct:
            raise SpecError(errors.trend_order_too_high(order, sums.distinct), (self.order_key,),
                            stage=STAGE, hint=errors.trend_order_too_high_hint(sums.distinct))

    def model(self, ols, options: Options):
        from .. import numerics  # numpy: only once a chart is fitted

        coef = ols.raw()
        pairs = [(c, power(options.x_name, k)) for k, c in enumerate(coef)]
        return numerics.ols_model(
            ols, numerics.identity, numerics.identity,
            tuple((f"c{k}", float(c)) for k, c in enumerate(coef)),
            f"{options.y_name} = {terms(pairs)}")


class Quad(Poly):
    """``poly`` of order 2; an ``order`` key, if written, must say 2."""

    name = "quad"
    description = "A `poly` of order 2."
    parameters = (Parameter("order", {
        "type": "integer", "description": "2, if given: a `quad` is a `poly` of order 2.", "examples": [2],
        "minimum": 1}), WEIGHT, ROBUST)
    order_key = "method"  # the order comes from the method's name

    def check(self, options: Options) -> None:
        from ..numerics import is_whole  # numpy: only once a chart is fitted

        self.check_shared(options)
        order = options["order"]
        if order is not None and not (is_whole(order) and order == 2):
            raise SpecError(errors.trend_quad_order(order), ("order",), stage=STAGE,
                            hint=errors.trend_quad_order_hint(order))

    def degree(self, options: Options) -> int:
        return 2
