"""The ``gaussian_probability`` claim of every theorem as Coq lemmas about the actual probability.

The claim: P(theta(0) in box) >= lo = 10^log10_lo for theta(0) ~ N(0, sigma^2 I_{3p}), the box being the
sup-norm box of radius r around the base point; in units of sigma (X = theta/sigma ~ N(0, I_{3p})) its
centres are m/sigma and its radius r/sigma, exact rationals, and the file states the standard masses.
The base point has six (value, count) pairs (nine for the staircase): each
block u, v, w has ``at_0`` (1 coordinate) and ``elsewhere`` (p - 1 coordinates), exactly the
kernel's centres (``family_gaussian_centres``, ``slide_gaussian_centres``: value, multiplicity with
u and v merged); the staircase's three-level blocks add ``at_1`` (1 coordinate), and their
``elsewhere`` has p - 2 (``staircase_gaussian_centres``). The file states, over Coq's reals,

    phi x = exp (- x^2 / 2) / sqrt (2 PI),     mass m r = RInt phi (m - r) (m + r)   (Coquelicot),
    box_mass = prod over the (value, count) pairs of (mass m r) ^ count,

and proves ``0 < box_mass`` in full, ``lo' <= box_mass`` with lo' = M / 10 ^ E (or
``ln M - E * ln 10 <= ln box_mass`` when E exceeds :data:`~certify.coq.terms.MAX_LITERAL_DIGITS`)
and ``log10_lo' <= ln box_mass / ln 10``, where lo' and log10_lo' are the certificate's numbers
lowered by what the proof loses (s below, about 3p 10^-15 in logarithms) and rounded down to digits
fixed by s alone (never by comparing the certificate's number with the truth, so that a forged end
past the truth by more than about 5 s is refused by coqc; the lemma names say how many digits).

Proof. The integrator of CoqInterval errs absolutely, so a far tail (a coordinate at -150 has mass
about e^-11175) is first rescaled by the generic lemma

    RInt phi a b = exp (- c^2 / 2) * RInt (fun x => exp ((c^2 - x^2) / 2) / sqrt (2 PI)) a b,

with c the end of [m - r, m + r] nearest 0 (c = 0 when the interval contains 0): the rescaled
integrand is at most 1/sqrt(2 PI) and its integral moderate. ``integral`` proves a short rational L
below it (L chosen here with Arb, a relative 10^-15 below the true value; Coq re-proves it), so
0 < exp (- c^2 / 2) L <= mass m r, hence - c^2 / 2 + ln L <= ln (mass m r). The sum of these
bounds times the counts is the Definition ``gaussian_probability_box_log_bound`` S, and
S <= ln box_mass (logarithm of a product of powers); ``interval`` compares S, a sum of moderate
terms, with ln lo' and log10_lo' ln 10.
"""

from __future__ import annotations

from flint import acb, arb, fmpq

from .lemma import Definition, Lemma, NotExported
from .relations import landmark_lemmas, relation, twin_lemmas
from ..kernel.exact import format_rational
from .terms import MAX_LITERAL_DIGITS, exact_number, number, rational_above, rational_below, real, round_down, round_up
from ..kernel.balls import working_precision

CLAIM = "gaussian_probability"
PHI = "gaussian_probability_phi"
MASS = "gaussian_probability_mass"
BOX = "gaussian_probability_box_mass"
LOG_BOUND = "gaussian_probability_box_log_bound"
RESCALE = "gaussian_probability_rescale"
LN_LOWER = "gaussian_probability_ln_lower"
LN_POW_MULT = "gaussian_probability_ln_pow_mult"
LN_POW = "gaussian_probability_ln_pow"
BOX_LN = "gaussian_probability_box_mass_ln_lower"

#: How far below the rescaled integral (relatively) its rational lower bound L is chosen, and L's digits
#: (L's rounding, at most 10^-17 relatively, stays below the gap). The proof loses about 3p times the gap
#: in ln (the slack s), which fixes the stated digits: 10^-15 gives lo 13 digits at p = 101 (10^-13 gave
#: 11) and 14-15 at p <= 31, for +0.7 s of coqc on slide p = 13's six tails (9.4 s -> 10.1 s for the
#: Gaussian lemmas alone), no measurable change on dead p = 13 (2.4 s -> 2.3 s).
RELATIVE_GAP = fmpq(1, 10 ** 15)
L_DIGITS = 18
#: The integral tactic (measured: about 1 s for a tail at 150 or 200 with a 10^-13 relative gap,
#: 0.1-0.2 s near 0; degree 15 beat 10 and 20 on tails).
INTEGRAL = "integral with (i_prec 80, i_degree 15)"
#: interval on the log bound (a sum of terms up to 2.3e6 at slide p = 101, compared 2^-64 inside).
INTERVAL = "interval with (i_prec 128)"
PRECISION = 256  # bits of the Arb computations that choose L and the weakened ends

_RESCALE_PROOF = """intros c a b.
  rewrite <- (RInt_scal (V := R_CompleteNormedModule)).
  - apply RInt_ext. intros x _. unfold gaussian_probability_phi.
    change (scal (exp (- c ^ 2 / 2)) (exp ((c ^ 2 - x ^ 2) / 2) / sqrt (2 * PI)))
      with (exp (- c ^ 2 / 2) * (exp ((c ^ 2 - x ^ 2) / 2) / sqrt (2 * PI))).
    unfold Rdiv. rewrite <- Rmult_assoc, <- exp_plus. f_equal. f_equal. field.
  - apply (ex_RInt_continuous (V := R_CompleteNormedModule)). intros z _.
    apply continuity_pt_filterlim. apply derivable_continuous_pt.
    unfold Rdiv. reg."""

_LN_LOWER_PROOF = """intros c L M [H0 H1].
  assert (HL : 0 < L).
  { apply Rmult_lt_reg_l with (exp (- c ^ 2 / 2)); [apply exp_pos | rewrite Rmult_0_r; exact H0]. }
  split; [lra | ].
  rewrite <- (ln_exp (- c ^ 2 / 2)), <- ln_mult by (apply exp_pos || exact HL).
  apply ln_le; assumption."""

_LN_POW_MULT_PROOF = """intros x s y t n [Hx Hs] [Hy Ht]. split.
  - apply Rmult_lt_0_compat; [apply pow_lt | ]; assumption.
  - rewrite ln_mult by (try apply pow_lt; assumption). rewrite ln_pow by assumption.
    apply Rplus_le_compat; [apply Rmult_le_compat_l; [apply pos_INR | exact Hs] | exact Ht]."""

_LN_POW_PROOF = """intros x s n [Hx Hs]. split; [apply pow_lt; assumption | ].
  rewrite ln_pow by assumption. apply Rmult_le_compat_l; [apply pos_INR | exact Hs]."""


def gaussian_lemmas(document: dict) -> list:
    """The Definitions and Lemmas of the ``gaussian_probability`` claim of ``document`` (a parsed
    certificate), or one :class:`NotExported` saying why they cannot be written."""
    if CLAIM not in document.get("claims", {}):
        return []
    try:
        return _lemmas(document)
    except ValueError as error:
        return [NotExported(CLAIM, str(error))]


def initialisation_scale(document: dict) -> fmpq:
    """The certificate's sigma (theta(0) ~ N(0, sigma^2 I_{3p})), > 0 (ValueError otherwise)."""
    sigma = number(document["parameters"]["sigma"], "parameters.sigma")
    if not sigma > 0:
        raise ValueError("sigma is not positive")
    return sigma


def box_coordinates(document: dict) -> list[tuple[str, fmpq, int]]:
    """The (name, value, count) coordinates of the base point in units of sigma (m / sigma, the centre of
    the standardised coordinate): ``u_at_0`` once, ``u_elsewhere`` p - 1 times, and so on for v and w (the
    kernel's Gaussian centres, unmerged). A three-level block (the staircase's, with ``at_1``) has
    ``at_0`` and ``at_1`` once each and ``elsewhere`` p - 2 times."""
    p = int(document["p"])
    point = document["base_point"]
    sigma = initialisation_scale(document)
    out = []
    for block in "uvw":
        three = "at_1" in point[block]
        for part in ("at_0", "at_1", "elsewhere") if three else ("at_0", "elsewhere"):
            count = 1 if part != "elsewhere" else (p - 2 if three else p - 1)
            out.append((f"{block}_{part}", number(point[block][part], f"base_point.{block}.{part}") / sigma, count))
    return out


def rescaling_centre(m: fmpq, r: fmpq) -> fmpq:
    """The end of [m - r, m + r] nearest 0, or 0 if the interval contains 0."""
    if abs(m) <= r:
        return fmpq(0)
    return m - r if m > 0 else m + r


def rescaled_integral(m: fmpq, r: fmpq, c: fmpq) -> arb:
    """Encloses the integral of exp((c^2 - x^2)/2)/sqrt(2 pi) over [m - r, m + r] (Arb, current precision)."""
    c2 = acb(arb(c) ** 2)
    root = (2 * arb.pi()).sqrt()
    value = acb.integral(lambda x, _: ((c2 - x * x) / 2).exp() / root, acb(arb(m - r)), acb(arb(m + r)))
    return value.real


def _lower_rational(value: arb) -> fmpq:
    """A short rational L with 0 < L < value, about RELATIVE_GAP (relatively) below it."""
    lower = rational_below(value, PRECISION)
    if not lower > 0:
        raise ValueError("a rescaled Gaussian integral is not certainly positive")
    return round_down(lower * (1 - RELATIVE_GAP), L_DIGITS)


def _slack_upper(slack: arb) -> fmpq:
    """A short rational s >= the ball ``slack`` (the proof's loss, in logarithms), s > 0."""
    upper = rational_above(slack, PRECISION)
    return round_up(max(upper, fmpq(1, 10 ** 30)), 2)


def _digits_for(relative: fmpq) -> int:
    """The most significant digits k whose rounding unit (relative 10^(1 - k)) is at least ``relative``: the unit
    lies in [relative, 10 relative), so rounding to k digits moves a number by less than 10 ``relative``."""
    k = 1
    while fmpq(10) ** (1 - (k + 1)) >= relative:
        k += 1
    return k


def lowered_log10(log10_lo: fmpq, slack: fmpq) -> tuple[fmpq, int]:
    """(end, digits) stated for the log10 twin: log10_lo - 4 s / ln 10 rounded down to ``digits``
    significant digits, ``digits`` fixed by s and |log10_lo| (never by comparing with the truth), so
    that an honest log10_lo gives a true lemma (the proof loses at most s in ln) and one forged past
    the truth by more than about 5 s / ln 10 gives a false one, which coqc refuses."""
    shift = 4 * slack * fmpq(1000, 2302)  # 4 s / ln 10, with 1000/2302 > 1/ln 10 = 0.43429...
    target = log10_lo - shift
    digits = _digits_for(slack / (abs(target) + 1) / 4)
    return round_down(target, digits), digits


def lowered_lo(text: str, slack: fmpq, what: str = "gaussian_probability.lo") -> tuple[tuple[int, int], int]:
    """((M, E), digits): lo (1 - 4 s), i.e. M' 10^-E', with its mantissa rounded down to ``digits``
    significant digits, ``digits`` fixed by s alone; computed on the mantissa, never expanded (lo
    reaches 10^-981117). An honest lo gives a true lemma; one forged past the truth by more than about
    5 s (relatively) gives a false one."""
    value = exact_number(text, what)
    if value.denominator != 1 or value.numerator <= 0:
        raise ValueError(f"lo = {text[:40]} is not a positive decimal")
    digits = _digits_for(slack)
    mantissa, exponent = fmpq(value.numerator) * (1 - 4 * slack), -value.exp10
    length = len(str(int(mantissa.floor())))
    shift = length - digits  # M' = floor(M (1 - 4 s) / 10^shift), E' = E - shift
    scaled = mantissa / fmpq(10) ** shift if shift >= 0 else mantissa * fmpq(10) ** -shift
    m = int(scaled.floor())
    e = exponent - shift
    while m % 10 == 0 and m:
        m, e = m // 10, e - 1
    if m <= 0:
        raise ValueError("lo is too small to state")
    return (m, e), digits


def coordinate_bounds(coordinates, r: fmpq) -> dict:
    """{m: (c, the rescaled integral, L)} for each distinct centre m of ``coordinates`` ((name, m, count)):
    c the rescaling centre, the integral of :func:`rescaled_integral` (Arb) and its short rational lower bound
    L. Deterministic: the same numbers for every caller at PRECISION bits."""
    out = {}
    with working_precision(PRECISION):
        for _, m, _ in coordinates:
            if m not in out:
                c = rescaling_centre(m, r)
                integral = rescaled_integral(m, r, c)
                out[m] = (c, integral, _lower_rational(integral))
    return out


def _slack(coordinates, bounds: dict) -> fmpq:
    """s >= ln P - LOG_BOUND: what replacing each coordinate's rescaled integral by L loses, summed with the
    counts (a short rational above the ball)."""
    with working_precision(PRECISION):
        return _slack_upper(sum((k * (bounds[m][1].log() - arb(bounds[m][2]).log()) for _, m, k in coordinates),
                                arb(0)))


def box_slack(document: dict) -> fmpq:
    """The slack s of the certificate's box-mass proof (:func:`_slack`): a bound stated from the proved
    LOG_BOUND must sit about 4 s below the truth (:func:`lowered_log10`, :func:`lowered_lo`)."""
    r = number(document["radius"], "radius") / initialisation_scale(document)
    coordinates = box_coordinates(document)
    return _slack(coordinates, coordinate_bounds(coordinates, r))


def _mass_lower_lemma(name: str, claim: str, m: fmpq, r: fmpq, c: fmpq, L: fmpq, note: str) -> Lemma:
    """0 < exp(-c^2/2) L <= mass m r (c the end of [m - r, m + r] nearest 0, L below the rescaled integral):
    the rescaling (RESCALE) and ``integral``."""
    return Lemma(name, claim, f"0 < exp (- {real(c)} ^ 2 / 2) * {real(L)} <= {MASS} {real(m)} {real(r)}",
                 f"split.\n  - apply Rmult_lt_0_compat; [apply exp_pos | lra].\n"
                 f"  - unfold {MASS}. rewrite ({RESCALE} {real(c)}).\n"
                 f"    apply Rmult_le_compat_l; [apply Rlt_le, exp_pos | {INTEGRAL}].", note)


def _log_bound_items(factors, log_bound: str, box: str, box_ln: str, claim: str, notes: tuple[str, str],
                     definition_claim: str = "") -> list:
    """The Definition ``log_bound`` = sum over ``factors`` ((mass lemma name, c, L, count)) of count (-c^2/2 + ln L),
    and the Lemma ``box_ln``: 0 < ``box`` and ``log_bound`` <= ln ``box`` (the logarithm of a product of powers);
    ``notes`` are their comments."""
    steps = [f"apply {LN_POW_MULT}; [exact ({LN_LOWER} _ _ _ {name}) | ]." for name, _, _, _ in factors[:-1]]
    steps.append(f"apply {LN_POW}; exact ({LN_LOWER} _ _ _ {factors[-1][0]}).")
    return [Definition(log_bound, " + (".join(f"INR {k} * (- {real(c)} ^ 2 / 2 + ln {real(L)})"
                                               for _, c, L, k in factors) + ")" * (len(factors) - 1), "R",
                       notes[0], claim=definition_claim),
            Lemma(box_ln, claim, f"0 < {box} /\\ {log_bound} <= ln {box}",
                  f"unfold {log_bound}, {box}.\n  " + "\n  ".join(steps), notes[1])]


#: The widened box B+ of docs/staircase.md, section 11.14 (the region bound of the (1, 2) records): its Coq names
WIDE_CLAIM = "region_probability"
WIDE_BOX = "region_probability_widened_box_mass"
WIDE_LOG_BOUND = "region_probability_widened_box_log_bound"
WIDE_BOX_LN = "region_probability_widened_box_mass_ln_lower"
#: the coordinates B+ widens: u(i) and v(i), i >= 2, the three-level blocks' ``elsewhere``
TAIL_COORDINATES = ("u_elsewhere", "v_elsewhere")


def widened_coordinates(document: dict, depth: fmpq,
                        w_extra: fmpq = fmpq(0)) -> list[tuple[str, fmpq, fmpq, int]]:
    """(name, centre, radius, count) of the widened box B+ in units of sigma: the box's coordinates
    (:func:`box_coordinates`, radius r/sigma; ``w_elsewhere`` (r + w_extra)/sigma, twin_above's box letting the
    w(j), j >= 2, move r + g), except that each tail coordinate (TAIL_COORDINATES), centred at m = c/sigma, covers
    [m - r/sigma - depth, m + r/sigma]: centre m - depth/2, radius r/sigma + depth/2 (``depth`` in units of
    sigma)."""
    sigma = initialisation_scale(document)
    r = number(document["radius"], "radius") / sigma
    if not r > 0 or not depth > 0 or not w_extra >= 0:
        raise ValueError("the radius or the widening is not positive")
    return [(name, m - depth / 2, r + depth / 2, k) if name in TAIL_COORDINATES
            else (name, m, r + w_extra / sigma, k) if name == "w_elsewhere" else (name, m, r, k)
            for name, m, k in box_coordinates(document)]


def _widened_bounds(coordinates) -> dict:
    """{(m, r): (c, the rescaled integral, L)} for each distinct interval of ``coordinates`` (as
    :func:`coordinate_bounds`, one radius per interval)."""
    out = {}
    with working_precision(PRECISION):
        for _, m, r, _ in coordinates:
            if (m, r) not in out:
                c = rescaling_centre(m, r)
                integral = rescaled_integral(m, r, c)
                out[m, r] = (c, integral, _lower_rational(integral))
    return out


def widened_box_slack(document: dict, depth: fmpq, w_extra: fmpq = fmpq(0)) -> fmpq:
    """The slack s of the widened box's mass proof (as :func:`box_slack`)."""
    coordinates = widened_coordinates(document, depth, w_extra)
    bounds = _widened_bounds(coordinates)
    with working_precision(PRECISION):
        return _slack_upper(sum((k * (bounds[m, r][1].log() - arb(bounds[m, r][2]).log())
                                 for _, m, r, k in coordinates), arb(0)))


def widened_box_lemmas(document: dict, depth: fmpq, w_extra: fmpq = fmpq(0)) -> list:
    """The Definitions and Lemmas of the widened box's mass (docs/staircase.md, section 11.14): WIDE_BOX, the
    product of the standard masses of B+'s coordinate intervals (:func:`widened_coordinates`), and WIDE_BOX_LN,
    0 < WIDE_BOX /\\ WIDE_LOG_BOUND <= ln WIDE_BOX, proved as the box's (:func:`_lemmas`), whose per-coordinate
    lemmas it reuses for the coordinates B+ does not widen. Needs the gaussian_probability lemmas in the file."""
    coordinates = widened_coordinates(document, depth, w_extra)
    sigma = initialisation_scale(document)
    items: list = [Definition(
        WIDE_BOX, " * (".join(f"{MASS} {real(m)} {real(r)} ^ {k}" for _, m, r, k in coordinates)
        + ")" * (len(coordinates) - 1), "R",
        f"P(theta(0) in B+) for theta(0) ~ N(0, sigma^2 I_{{3p}}), sigma = {format_rational(sigma)}: the box's "
        f"coordinate masses in units of sigma, each tail coordinate u(i), v(i) (i >= 2) widened down by {depth}"
        + (f" and each w(j) (j >= 2) moving {format_rational(w_extra / sigma)} farther" if w_extra else "")
        + " (docs/staircase.md, section 11.14), block by block: "
        + ", ".join(f"{name} ({k})" for name, _, _, k in coordinates), claim=WIDE_CLAIM)]
    box_names: dict = {}  # the box's own lemmas, named by the first coordinate of each centre (as _lemmas names them)
    for name, m, _ in box_coordinates(document):
        box_names.setdefault(m, f"{CLAIM}_{name}_mass_lower")
    box_r = number(document["radius"], "radius") / sigma
    names = {(m, r): box_names[m] for name, m, r, _ in coordinates if name not in TAIL_COORDINATES and r == box_r}
    with working_precision(PRECISION):
        bounds = _widened_bounds(coordinates)
        for name, m, r, _ in coordinates:
            if (m, r) in names:
                continue
            c, _, L = bounds[m, r]
            names[m, r] = f"{WIDE_CLAIM}_{name}_widened_mass_lower"  # a tail, or w(j) widened by g
            items.append(_mass_lower_lemma(
                names[m, r], WIDE_CLAIM, m, r, c, L,
                f"the Gaussian mass of the widened coordinate {name.replace('_', ' ', 1)}, [m - r, m + r] with m = {m}, "
                f"r = {r}, is at least exp(-c^2/2) L, c = {c} its end nearest 0 ({RESCALE})"))
    factors = [(names[m, r], bounds[m, r][0], bounds[m, r][2], k) for _, m, r, k in coordinates]
    return items + _log_bound_items(
        factors, WIDE_LOG_BOUND, WIDE_BOX, WIDE_BOX_LN, WIDE_CLAIM,
        ("a lower bound of ln widened_box_mass: each coordinate's mass replaced by its proved lower bound",
         "the widened box's mass is a product of independent one-dimensional Gaussian masses: the sum of the "
         "logarithms of the coordinates' lower bounds"), definition_claim=WIDE_CLAIM)


def _lemmas(document: dict) -> list:
    claims = document["claims"]
    stated = claims[CLAIM]
    # the lemmas below state lo and log10_lo below the box mass (and its log10): the relation's directions
    rel = relation(document, CLAIM)
    if [rel.direction(key) for key in rel.keys()] != ["below", "below"] or rel.keys() != ("lo", "log10_lo"):
        raise ValueError("gaussian_probability: its relation is not a lower bound with a log10 twin")
    log10_lo = number(stated["log10_lo"], "gaussian_probability.log10_lo")
    sigma = initialisation_scale(document)
    r = number(document["radius"], "radius") / sigma  # the radius in units of sigma
    if not r > 0:
        raise ValueError("the radius is not positive")
    coordinates = box_coordinates(document)
    hypotheses = next((name for name in ("single_active_gate", "region_box") if name in claims), None)
    why = (f"every point of the box satisfies the theorem's hypotheses by its other claims ({hypotheses} etc.)"
           if hypotheses else "every point of the box satisfies the theorem's hypotheses by its other claims")
    independence = ("the box mass is a product of independent one-dimensional Gaussian masses "
                    "(independence of the coordinates of N(0, I_{3p}))")

    items: list = [
        Definition(PHI, "fun x => exp (- x ^ 2 / 2) / sqrt (2 * PI)", "R -> R",
                   "phi, the standard normal density"),
        Definition(MASS, f"fun m r => RInt {PHI} (m - r) (m + r)", "R -> R -> R",
                   "P(|X - m| <= r) for X ~ N(0, 1): the Gaussian mass of one coordinate of the box"),
        Definition(BOX, " * (".join(f"{MASS} {real(m)} {real(r)} ^ {k}" for _, m, k in coordinates)
                   + ")" * (len(coordinates) - 1), "R",
                   f"P(theta(0) in box) for theta(0) ~ N(0, sigma^2 I_{{3p}}), sigma = {format_rational(sigma)}: "
                   "the standard-normal masses of the coordinates of the box around the base point in units of "
                   "sigma (centre m/sigma, radius r/sigma), "
                   + ("block by block: " + ", ".join(f"{name} ({k})" for name, _, k in coordinates)
                      if len(coordinates) > 6 else "blocks u, v, w, each at_0 (1 coordinate) and elsewhere (p - 1)")),
        Lemma(RESCALE, CLAIM,
              f"forall c a b, RInt {PHI} a b = exp (- c ^ 2 / 2) * "
              "RInt (fun x => exp ((c ^ 2 - x ^ 2) / 2) / sqrt (2 * PI)) a b",
              _RESCALE_PROOF,
              "a Gaussian integral rescaled by its value's order exp(-c^2/2), so that far tails are "
              "integrated with a moderate integrand"),
        Lemma(LN_LOWER, CLAIM,
              "forall c L M, 0 < exp (- c ^ 2 / 2) * L <= M -> 0 < M /\\ - c ^ 2 / 2 + ln L <= ln M",
              _LN_LOWER_PROOF, "the logarithm of a coordinate's lower bound exp(-c^2/2) L"),
        Lemma(LN_POW_MULT, CLAIM,
              "forall x s y t n, 0 < x /\\ s <= ln x -> 0 < y /\\ t <= ln y -> "
              "0 < x ^ n * y /\\ INR n * s + t <= ln (x ^ n * y)",
              _LN_POW_MULT_PROOF, "the logarithm of a product of powers of positive numbers"),
        Lemma(LN_POW, CLAIM, "forall x s n, 0 < x /\\ s <= ln x -> 0 < x ^ n /\\ INR n * s <= ln (x ^ n)",
              _LN_POW_PROOF, "the logarithm of a power of a positive number"),
    ]

    with working_precision(PRECISION):
        bounds = coordinate_bounds(coordinates, r)
        by_value: dict = {}  # value -> (lemma name, c, L)
        rescaled_by_value: dict = {}  # value -> the rescaled integral (Arb), to measure the proof's loss
        for name, m, _ in coordinates:
            if m in by_value:
                continue
            c, rescaled_by_value[m], L = bounds[m]
            lemma_name = f"{CLAIM}_{name}_mass_lower"
            items.append(_mass_lower_lemma(
                lemma_name, CLAIM, m, r, c, L,
                f"the Gaussian mass of a coordinate at {m} (the base point's {name.replace('_', ' ', 1)}) "
                f"is at least exp(-c^2/2) L, c = {c} the end of [m - r, m + r] nearest 0: the rescaled "
                f"integral ({RESCALE}) is at least L"))
            by_value[m] = (lemma_name, c, L)

        # S = sum k (- c^2/2 + ln L) as a Definition, and 0 < box mass /\ S <= ln box mass
        factors = [(*by_value[m], k) for _, m, k in coordinates]
        items += _log_bound_items(
            factors, LOG_BOUND, BOX, BOX_LN, CLAIM,
            ("a lower bound of ln box_mass: each coordinate's mass replaced by its proved lower bound exp(-c^2/2) L",
             f"{independence}: the sum of the logarithms of the coordinates' lower bounds"))
        items.append(Lemma(f"{CLAIM}_positive", CLAIM, f"0 < {BOX}", f"exact (proj1 {BOX_LN}).",
                           f"{independence}, each positive; so P(theta(0) in box) > 0; {why}"))

        # what S proves, with every number exact
        # the proof's loss s >= ln P - S: each coordinate's L sits RELATIVE_GAP below its integral. The
        # stated ends are the certificate's moved down by 4 s and rounded to digits fixed by s, so the
        # digits never depend on how close the certificate's own end is to the truth.
        slack = _slack(coordinates, bounds)
        (mantissa, exponent), lo_digits = lowered_lo(stated["lo"], slack)
        suffix = f"_{lo_digits}_digits"
        statement_of = (f"P(theta(0) in box) >= lo = {stated['lo']}, here lowered by a relative 4 s = "
                        f"{format_rational(4 * slack)} (what the integrals lose) and rounded down to {lo_digits} "
                        "significant digits")
        if exponent < 0:
            raise ValueError("lo >= 1")
        if exponent <= MAX_LITERAL_DIGITS:
            written = f"{mantissa} / 10 ^ {exponent}"
            items.append(Lemma(
                f"{CLAIM}_lo{suffix}", CLAIM, f"{written} <= {BOX}",
                f"destruct {BOX_LN} as [Hpos Hln].\n"
                f"  destruct (Rle_or_lt ({written}) {BOX}) as [H | H]; [exact H | exfalso].\n"
                f"  apply ln_increasing in H; [ | exact Hpos].\n"
                f"  assert (ln ({written}) <= {LOG_BOUND}) by (unfold {LOG_BOUND}; {INTERVAL}).\n"
                f"  lra.",
                f"{independence}; {statement_of}; {why}", lo_digits))
        else:
            items.append(Lemma(
                f"{CLAIM}_lo{suffix}", CLAIM, f"ln {mantissa} - {exponent} * ln 10 <= ln {BOX}",
                f"apply Rle_trans with {LOG_BOUND}; [unfold {LOG_BOUND}; {INTERVAL} | exact (proj2 {BOX_LN})].",
                f"{independence}; {statement_of} = {mantissa} 10^-{exponent}, in logarithms "
                f"(its literal is too long for Coq); {why}", lo_digits))

        log10_end, log10_digits = lowered_log10(log10_lo, slack)
        suffix = f"_{log10_digits}_digits"
        statement_of = (f"log10 P(theta(0) in box) >= log10_lo = {stated['log10_lo']}, here lowered by "
                        f"4 s / ln 10 and rounded down to {log10_digits} significant digits")
        items.append(Lemma(
            f"{CLAIM}_log10_lo{suffix}", CLAIM, f"{real(log10_end)} <= ln {BOX} / ln 10",
            f"apply Rle_trans with ({LOG_BOUND} / ln 10); [unfold {LOG_BOUND}; {INTERVAL} | ].\n"
            f"  unfold Rdiv. apply Rmult_le_compat_r; [{INTERVAL} | exact (proj2 {BOX_LN})].",
            f"{independence}; {statement_of}; {why}", log10_digits))
    # the landmark and the twin pair first: quick, and a forged pair fails before any integral
    return landmark_lemmas(document, CLAIM, "lo") + twin_lemmas(document, CLAIM) + items
