"""What rerunning an incomplete run would change, and what would change it otherwise.

A rerun helps only items that never got an answer: calls that failed (a server error, a server
that could not be reached) and items a stop left unasked. An item whose answer came back unusable
(invalid JSON, a schema violation, an answer the evaluator's check refused, even after the
repair request) has that answer cached under the same key: rerunning the same command sends no
request for it and gets the same answer again. Without the cache it is asked again, but the same
prompt at the same settings mostly gets the same answer (temperature 0). What changes the outcome
then is a different model, a different prompt (a setting such as the LMRE demonstration seed) or
sampling. The advice names settings in API terms; the CLI words them as its flags.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from voxjudge.errors import fill_settings

FAILED = "failed"  # no answer obtained: a rerun asks again
ANSWERED = "answered"  # answered unusably: the answer is cached, a rerun gets it again
NOT_ASKED = "not asked"  # a stop (cost limit, unreachable server) came first: a rerun asks

# How the settings the advice names read in API terms.
API_WORDING = {
    "judge": "the judge spec",
    "no_cache": "cache=None",
    "temperature": "temperature",
    "sampling_seed": "the request seed",
    "draw_seed": "the demonstration draw's seed",
}


def reason_key(reason: str) -> str:
    """The tally key of an unscored item's reason: what happened to it, first words only. A
    repair whose own call failed counts as a failed call (the repair is not cached)."""
    if reason.startswith("not asked"):
        return NOT_ASKED
    if "call failed" in reason:
        return "call failed"
    return reason.split(":")[0]


def reason_kind(reason: str) -> str:
    """``FAILED``, ``ANSWERED`` or ``NOT_ASKED`` for a reason or a tally key (``reason_key``;
    evaluators may prefix it, e.g. "pairs with call failed")."""
    text = reason.lower()
    if NOT_ASKED in text:
        return NOT_ASKED
    if "call failed" in text or "gave up after" in text or "cannot reach" in text:
        return FAILED
    return ANSWERED


def kinds_of(reasons: Mapping[str, int]) -> dict[str, int]:
    """A tally of reasons (or reason keys) -> counts per kind."""
    out: dict[str, int] = {}
    for reason, n in reasons.items():
        kind = reason_kind(reason)
        out[kind] = out.get(kind, 0) + n
    return out


@dataclass(frozen=True)
class Advice:
    """A message that names settings as ``{name}``; ``str()`` reads in API terms, ``worded``
    with another vocabulary (the CLI's flags)."""

    template: str
    options: dict[str, str] = field(default_factory=dict)

    def worded(self, names: Mapping[str, str]) -> str:
        return fill_settings(self.template, self.options, names)

    def __str__(self) -> str:
        return self.worded({})


def rerun_advice(
    kinds: Mapping[str, int],
    *,
    cached: bool,
    varies: Sequence[str] = (),
    sampled: bool = False,
    unreachable: bool = False,
) -> Advice | None:
    """What to do about an incomplete run, given its unscored ``kinds`` (``kinds_of``).

    ``cached``: the run read and wrote the response cache. ``varies``: settings of this run that
    change the requests (e.g. ``("draw_seed",)`` for the LMRE demonstrations, ``("temperature",
    "sampling_seed")``). ``sampled``: the answers were sampled (temperature above 0), so asking
    again without the cache can give other answers. ``unreachable``: the run stopped because the
    server could not be reached. None when nothing is unscored."""
    failed = kinds.get(FAILED, 0) + kinds.get(NOT_ASKED, 0)
    answered = kinds.get(ANSWERED, 0)
    if not failed and not answered:
        return None
    parts = []
    if failed:
        rerun = "Once the server answers, rerun" if unreachable else "Rerun"
        if cached:
            parts.append(f"{rerun} the same command to resume: answers already received come from the cache.")
        else:
            parts.append(f"{rerun} the same command to ask again (without the cache every request is sent again).")
    if answered:
        n = f"{answered} of them" if failed else ("All of them" if answered > 1 else "It")
        again = (
            "they are cached, so rerunning the same command sends no request for them and gets the same answers"
            if cached
            else "asked again at the same settings, "
            + ("a sampled model may answer otherwise" if sampled else "the model mostly answers the same")
        )
        changes = ["another model ({judge})"] + [f"a different {{{v}}}" for v in varies if v != "temperature"]
        if "temperature" in varies:
            changes.append("sampling ({temperature} above 0)")
        if cached:
            changes.append("{no_cache} (which helps only if the server's answers vary)")
        parts.append(
            f"{n} got an answer that could not be used (invalid or refused by the checks): {again}. "
            f"What would change them: {_either(changes)}."
        )
    names = {"judge", "no_cache", *varies}
    return Advice(" ".join(parts), {k: v for k, v in API_WORDING.items() if k in names})


def _either(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]
