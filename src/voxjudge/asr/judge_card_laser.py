"""How the judge card runs its LASER judges: a scorer that scores hypotheses with a judge by spec
through the one LASER entry (``run_laser``; the texts of each value of a lang column together, the
offline judges sharing what the embedder was sent), the options each judge takes from the card's,
and the dry run: what the card's judges would send and cost, nothing sent. The card's statistics
are ``voxjudge.asr.judge_card``'s, which takes the scorer (``laser_scorer`` by default).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

# (spec, references, hypotheses[, langs=]) -> (LASER per hypothesis, None when unscored; run details);
# ``langs`` (a code or None per text) is passed when the ratings have a lang column
LaserScorer = Callable[[str, Sequence[str], Sequence[str]], tuple[list[float | None], dict[str, Any]]]


def laser_scorer(options=None, progress=None) -> LaserScorer:
    """Score hypotheses with a LASER judge by spec through the one LASER entry (``run_laser``):
    offline judges in this process, LLM specs built from ``options.llm`` and closed after their
    run. ``options``: a ``LaserOptions`` (its ``calibration``, best a ``CalibrationFile`` read once,
    goes to the judges that take one: default and ``model:``); ``progress`` as ``run_laser`` takes it."""
    from dataclasses import replace

    from voxjudge.asr.laser import LaserOptions, is_offline, run_laser

    options = options or LaserOptions()
    shared = _shared_embeddings(options)

    def one(spec: str, refs, hyps, lang: str | None, names=None):
        ids = list(names) if names is not None else [f"h{k + 1}" for k in range(len(refs))]
        opts = judge_options(spec, shared if is_offline(spec) else options)
        opts = replace(opts, lang=opts.lang or lang)
        result = run_laser(refs, hyps, ids, judge=spec, options=opts, progress=progress)
        details = {
            k: result.summary[k]
            for k in (
                *("llm", "usage", "stopped", "laser_calibrated_model", "calibration", "calibration_sha256"),
                *("embedder", "embedder_server", "lang", "lang_decided"),
            )
            if result.summary.get(k) is not None
        }
        fitted = result.settings.get("laser_calibrated_model")
        meaning = result.settings.get("embedder", "none") != "none"
        details["figures"] = {
            "laser_calibrated": [u.laser_calibrated for u in result.utterances] if fitted else None,
            "semdist": [u.semdist for u in result.utterances] if meaning else None,
        }
        return [u.laser for u in result.utterances], details

    def run(
        spec: str,
        refs: Sequence[str],
        hyps: Sequence[str],
        langs: Sequence[str | None] | None = None,
        names: Sequence[str] | None = None,
    ):
        """``langs``: a lang column, one code (or None) per text; texts of one code are scored
        together in it (``--lang`` overrides), those without one as one input. ``names``: what
        each text is called in messages (``card_names``; default h1, h2, ...)."""
        if langs is None or (options is not None and options.lang):
            return one(spec, refs, hyps, None, names)
        from voxjudge.asr.laser.profiles import canonical

        groups: dict[str | None, list[int]] = {}
        for k, code in enumerate(langs):  # 'EN' and 'en-US' are English, scored with 'en'
            groups.setdefault(canonical(code) if code else None, []).append(k)
        values: list[float | None] = [None] * len(refs)
        figures: dict[str, list | None] = {"laser_calibrated": [None] * len(refs), "semdist": [None] * len(refs)}
        runs: dict[str, dict[str, Any]] = {}
        for code, rows in sorted(groups.items(), key=lambda kv: (kv[0] is None, kv[0] or "")):
            named = [names[k] for k in rows] if names is not None else None
            got, found = one(spec, [refs[k] for k in rows], [hyps[k] for k in rows], code, named)
            for k, v in zip(rows, got):
                values[k] = v
            for name, column in found.pop("figures").items():
                if column is None:
                    figures[name] = None
                elif figures[name] is not None:
                    for k, v in zip(rows, column):
                        figures[name][k] = v  # type: ignore[index]
            if code:
                found["lang_decided"] = "lang column"
            n = f"{len(rows)} text" + ("s" if len(rows) != 1 else "")
            runs[f"{found.get('lang', code)} ({'lang column' if code else 'detected'}; {n})"] = found
        if len(runs) == 1:
            return values, {**next(iter(runs.values())), "figures": figures}
        # one judge, so one calibration, one model of laser_calibrated and one embedder; the accounting
        # stays per language
        one_run = next(iter(runs.values())).items()
        shared = {
            k: v
            for k, v in one_run
            if k in ("laser_calibrated_model", "calibration", "calibration_sha256", "embedder", "embedder_server")
        }
        by_lang = {k: {n: v for n, v in r.items() if n not in shared} for k, r in runs.items()}
        return values, {**shared, "by_lang": by_lang, "figures": figures}

    run.takes_names = True  # type: ignore[attr-defined]  # (a scorer of the caller's may not)
    return run


def _shared_embeddings(options):
    """``options`` whose embedder, without a cache (``--no-cache``), keeps what it embedded for the
    card's other offline judges in a store of the card's own, deleted with it: every offline judge
    embeds the same texts, and the card sends each once (as its dry run counts them)."""
    if not options.embedder or options.llm.use_cache:
        return options
    import tempfile
    from dataclasses import replace
    from pathlib import Path

    store = tempfile.TemporaryDirectory(prefix="voxjudge-card-")  # removed when the scorer goes
    llm = replace(options.llm, use_cache=True, cache=Path(store.name) / "embeddings.sqlite")
    shared = replace(options, llm=llm)
    object.__setattr__(shared, "_store", store)  # lives as long as the options that name it
    return shared


def judge_options(spec: str, options):
    """The card's ``LaserOptions`` as the judge ``spec`` takes them: the embedder and a calibration
    serve the offline judges (an LLM judge reads the meaning itself and has no tiers to calibrate;
    the rules judge keeps the rubric's own), the LLM judges' server is none of the offline ones'."""
    from dataclasses import replace

    from voxjudge.asr.laser import is_offline

    if not is_offline(spec):
        options = replace(options, embedder=None)
    elif options.llm.base_url is not None:
        options = replace(options, llm=replace(options.llm, base_url=None))
    if spec == "rules" or not is_offline(spec):
        options = replace(options, calibration=None)
    return options


def dry_run(texts: Sequence[tuple[str, str]] = (), judges: Sequence[str] = (), options=None) -> dict[str, Any]:
    """What a card would send and cost, nothing sent: each LLM judge's requests (``Judge.estimate``)
    and, with an embedder, what it would be sent for SemDist (the estimate of the first offline
    judge's run: the others find the texts in the cache). ``texts``: the card's (reference,
    hypothesis) pairs, each once, as the card scores them (``judge_card.unique_texts``). Every
    judge's run is checked as the real card checks it, offline judges first (a calibration with no
    model for the embedder refuses)."""
    from dataclasses import replace

    from voxjudge.asr.laser import LaserOptions, is_offline, run_laser

    options = replace(options or LaserOptions(), dry_run=True)
    keys = list(texts)
    refs, hyps = [k[0] for k in keys], [k[1] for k in keys]
    ids = [f"h{k + 1}" for k in range(len(keys))]
    estimates = {
        spec: run_laser(refs, hyps, ids, judge=spec, options=judge_options(spec, options)).estimate
        for spec in sorted(judges, key=lambda spec: not is_offline(spec))
    }
    out: dict[str, Any] = {
        "hypotheses": len(keys),
        "judges": {spec: estimates[spec] for spec in judges if not is_offline(spec)},
    }
    if options.embedder:
        offline = [spec for spec in judges if is_offline(spec)]
        out["embedder"] = (
            estimates[offline[0]]["embedder"]
            if offline
            else {"embedder": options.embedder, "requests": 0, "note": "nothing to send: no offline judge on the card"}
        )
    elif not out["judges"]:
        out["note"] = "nothing to send: every judge on the card runs on this machine and no embedder is given"
    return out
