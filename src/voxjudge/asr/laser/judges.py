"""The offline pair judges by name: ``default`` (rules + what was learned from people: the evidence
calibration per language, ``models/evidence.json``, and the Hindi pair model where the pair is
Hindi), ``rules`` (pure rules with the rubric's default tiers) and ``model:PATH`` (rules + the
calibration + a pair model you trained). LLM judges are built elsewhere (``llm_judges.py``)."""

from __future__ import annotations

from voxjudge.asr.laser.calibration_file import conventions_source
from voxjudge.asr.laser.learned import hybrid_labeler, load_model, shipped_model_path
from voxjudge.asr.laser.phonetics import prefetch_items
from voxjudge.asr.laser.rubric import LaserRubric
from voxjudge.asr.laser.rules import Label, classify
from voxjudge.errors import InputError

DEFAULT = "default"


def rules_labeler_for(rubric: LaserRubric | None = None, calibrations: dict | None = None):
    """The rules judge under ``rubric``'s annotator conventions (the shipped rubric's by default),
    with learned evidence calibrations when given."""
    conv = conventions_source(rubric, calibrations) if (rubric is not None or calibrations) else (lambda lang: None)

    def label(items) -> list[Label]:
        prefetch_items(items)
        return [classify(pair, lang, conv(lang)) for _, pair, lang in items]

    return label


def is_offline(spec: str | None) -> bool:
    """Whether the judge ``spec`` runs on this machine with no model server: ``default`` (also
    None), ``rules`` and ``model:PATH``. Any other spec (``openai/<model>``, ``fake/<script>`` ...)
    is an LLM judge."""
    return spec in (None, DEFAULT, "rules") or str(spec).startswith("model:")


def _calibration(given):
    """The calibration file a run uses: ``given`` (a ``calibration.CalibrationFile`` read by the
    caller) or the shipped one; None for a trimmed install without it."""
    from voxjudge.asr.laser.calibration_file import read_file, shipped_path

    if given is not None:
        return given
    return read_file() if shipped_path().is_file() else None


def people_model(spec: str | None, embedder: str | None, calibration=None):
    """The model of ``laser_calibrated`` for an offline judge that has the learned calibration (the
    default and ``model:`` judges; None for ``rules``) and the run's embedder spec (None: none),
    from ``calibration`` (a ``CalibrationFile``; None: the shipped one). An embedder the calibration
    was not fitted with has no model: ``InputError`` offering the ``rules`` judge (SemDist without
    ``laser_calibrated``), never the model of another embedder."""
    from voxjudge.asr.laser.people import model_for

    if spec == "rules":
        return None
    cal = _calibration(calibration)
    if cal is None:
        return None
    found = model_for(cal.people, embedder)
    if found is None and not embedder and calibration is not None:
        raise InputError(
            f"{cal.describe()}: has no laser_calibrated model without an embedder (its models: "
            f"{', '.join(sorted(cal.people)) or 'no model at all'}); give {{embedder}} SPEC as it was fitted",
            options={"embedder": "embedder="},
        )
    if found is None and embedder:
        from voxjudge.llm.embed_registry import DEFAULT as DEFAULT_EMBEDDER  # (an offline run loads no llm/)

        default = (DEFAULT_EMBEDDER, f"{DEFAULT_EMBEDDER}?prefix=query")  # what `default` opens (e5's own prefix)
        fitted = [f"{k} (that is, default)" if k in default else k for k in sorted(cal.people) if k != "none"]
        hint = ", or {embedder} with one the file has a model for" if fitted else ""
        raise InputError(
            f"laser_calibrated has no model fitted with the embedder {embedder} (the calibration "
            f"{cal.describe()} has {'models for: ' + ', '.join(fitted) if fitted else 'no model with an embedder'}); "
            f"for SemDist with it, use {{judge}} rules (no laser_calibrated), a {{calibration}} file fitted with "
            f"it{hint}",
            options={"embedder": "embedder=", "judge": "judge=", "calibration": "calibration="},
        )
    return found


def check_embedder(spec: str | None, embedder, calibration=None) -> None:
    """``people_model``'s check, and the server's: a model fitted with an embedding server's
    vectors applies to that server's only (a model of the same name elsewhere may be another
    model). Called with the open embedder, before any text is sent."""
    found = people_model(spec, embedder.spec, calibration)
    server = embedder.endpoint()
    if found is not None and found.server is not None and found.server != server:
        raise InputError(
            f"laser_calibrated's model for {embedder.spec} in {_calibration(calibration).describe()} was fitted "
            f"with the server at {found.server}, and this run's is {server or 'in-process'}: a model of that name "
            "elsewhere may be another model. Fit a calibration with this one, or use {judge} rules (SemDist, "
            "no laser_calibrated)",
            options={"judge": "judge="},
        )


def offline_labeler(spec: str | None, rubric: LaserRubric, *, allow_rubric_mismatch: bool = False, calibration=None):
    """(labeler, description) for an offline judge spec; the default and ``model:`` judges use the
    tiers of ``calibration`` (a ``CalibrationFile``; None: the shipped one)."""
    if spec == "rules":
        if calibration is not None:
            raise InputError(
                "{calibration} goes with the default and model: judges; the rules judge uses the rubric's "
                "default tiers",
                options={"calibration": "calibration="},
            )
        return rules_labeler_for(rubric), "rules"
    # the model the user named is checked first, then the calibration (both against the rubric)
    path = shipped_model_path("hi") if spec in (None, DEFAULT) else str(spec)[len("model:") :]
    model = load_model(path, rubric, allow_rubric_mismatch=allow_rubric_mismatch) if path is not None else None
    found = _calibration(calibration)
    if found is not None and found.rubric_sha256 != rubric.sha256 and not allow_rubric_mismatch:
        raise InputError(
            f"{found.describe()}: calibration was fitted under rubric {found.rubric_sha256}, this run uses "
            f"rubric {rubric.sha256}; refit it on ratings with 'voxjudge asr train' or pass {{allow_rubric_mismatch}}",
            options={"allow_rubric_mismatch": "allow_rubric_mismatch=True"},
        )
    cals = found.tiers if found is not None else None
    learned = " + evidence calibration learned from ratings and preferences" if cals else ""
    if model is None:  # a trimmed install without the shipped model: the rules still work
        return rules_labeler_for(rubric, cals), "rules" + learned
    named = "" if spec in (None, DEFAULT) else f" {path}"
    return hybrid_labeler(model, rubric, cals), f"rules + learned model{named} ({model.lang}){learned}"
