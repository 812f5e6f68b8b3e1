"""certify.render: certified digits, bounds, derivations as text and LaTeX."""

from decimal import Decimal, localcontext

from hypothesis import given, strategies as st

from certify.render.derivations import derivation_latex, derivation_text, latex_escape
from certify.render.numbers import certified_digits, display, latex_exact
from certify.symbolic import derivation


@given(st.decimals(min_value=Decimal("-1e6"), max_value=Decimal("1e6"), places=12, allow_nan=False),
       st.decimals(min_value=Decimal("0"), max_value=Decimal("1e-3"), places=15, allow_nan=False))
def test_certified_digits_are_shared_by_both_ends(centre, width):
    lo, hi = format(centre, "f"), format(centre + width, "f")
    digits, exponent = certified_digits(lo, hi)
    if not digits:
        return
    with localcontext() as context:
        context.prec = 80
        for end in (Decimal(lo), Decimal(hi)):
            shown = format(abs(end).scaleb(-exponent), ".70f")
            assert shown.startswith(digits.lstrip("-")), (lo, hi, digits)


def test_certified_digits_examples():
    assert certified_digits("45.9932965048", "45.9932965049") == ("45.993296504", 0)
    assert certified_digits("1.8200560403e561", "1.8200560405e561")[1] == 561
    assert display({"lo": "0.999", "hi": "1.001"}, "latex") == r"\in [0.999, 1.001]"
    # 2197/124 = 17.717741...: six digits, down and up
    assert display({"lo": "2197/124"}) == ">= 17.7177" and display({"hi": "2197/124"}) == "<= 17.7178"
    assert display({"lo": "5.8996875316e-35"}, "latex") == r"\ge 5.89968\times 10^{-35}"
    assert latex_exact("-3/4") == r"-\frac{3}{4}" and latex_exact("20.5") == "20.5"


def test_escape_covers_latex_specials():
    assert latex_escape("a_b ^ {x} & 50% <= |y|") == (r"a\_b \textasciicircum{} \{x\} \& 50\% \textless{}= "
                                                      r"\textbar{}y\textbar{}")


def test_derivation_renderings():
    d = derivation("transversality")
    text = derivation_text(d)
    assert "(2.7)" in text and "equals the paper's form" in text and "because" in text
    latex = derivation_latex(d)
    assert r"\begin{align*}" in latex and r"\checkmark" in latex and "2 of 2 comparisons" in latex
    long = derivation_latex(derivation("balance", 5), limit=3)
    assert "more steps" in long and "certify derive balance --p 5" in long
