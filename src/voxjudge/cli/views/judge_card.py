"""``asr judge-card``: each metric's agreement with people, preferences and ratings."""

from __future__ import annotations

from voxjudge.cli.common import console
from voxjudge.cli.views.shared import render_join_coverage
from voxjudge.plural import counted

MARK_GROUPS = 10  # groups (utterances, references) a difference needs for its ! mark
# a figure over one group has no interval: the bootstrap redraws that group every time
ONE_GROUP = "; a figure over one group has no CI (every resample redraws that one group)"


def _one_group(prefs: dict) -> bool:
    return any(cell.get("groups") == 1 for cells in prefs["by_metric"].values() for cell in cells)


def render_judge_card(s: dict) -> str:
    """``asr judge-card``: one row per metric, preference agreement per certitude and correlation with
    ratings side by side; coverage comes before the figures, partial rows are marked."""
    from voxjudge.cli.tables import Table
    from voxjudge.report.html import correlation_text

    prefs, ratings = s.get("preferences"), s.get("ratings")
    names = [m["name"] for m in s["metrics"]]
    # the figure each row shows: "1 - WER" where the card correlates 1 - the value (as asr score names it)
    shown = {m["name"]: m.get("label", m["name"]) for m in s["metrics"]}
    partial = {n for n in names if s["coverage"][n]["scored"] < s["coverage"][n]["total"]}
    level = f"{100 * s['bootstrap']['confidence']:g}%"
    lines = []
    for n in sorted(partial, key=names.index):
        c = s["coverage"][n]
        lines.append(
            f"partial: {shown[n]} scored {c['scored']} of {c['total']} hypotheses "
            f"({c['total'] - c['scored']} unscored); its figures (*) are over what it scored only"
        )

    def pct(cell: dict, mark: str) -> str:
        if cell["agreement"] is None:
            return "–"
        ci = "" if cell["ci_low"] is None else f" [{100 * cell['ci_low']:.1f}, {100 * cell['ci_high']:.1f}]"
        return f"{100 * cell['agreement']:.1f}{mark}{ci}"

    method = ratings["methods"][0] if ratings else "pearson"

    def corr(cell: dict, mark: str) -> str:
        return correlation_text(cell[method]) + mark if method in cell else correlation_text(cell)

    subsets = list(ratings["by_subset"]) if ratings else []
    t = Table(title=f"Judge card: agreement with people ({level} bootstrap CI)")
    t.add_column("metric")
    t.add_column("coverage", justify="right")
    if prefs:
        for name, n in prefs["levels"].items():
            t.add_column(f"prefer {name} (n={n})", justify="right")
    if ratings:
        t.add_column(f"ratings {method.title()} (n={ratings['by_subset']['all']['items']})", justify="right")
    for n in names:
        c = s["coverage"][n]
        mark = "*" if n in partial else ""
        row = [shown[n], fmt_cover(c["scored"], c["total"])]
        if prefs:  # a metric shown beside the ratings only has no preference cells
            row += (
                [pct(cell, mark) for cell in prefs["by_metric"][n]]
                if n in prefs["by_metric"]
                else [""] * len(prefs["levels"])
            )
        if ratings:
            row.append(corr(ratings["by_subset"]["all"]["by_metric"][n], mark))
        t.add_row(*row)
    raters = (ratings or {}).get("by_subset", {}).get("all", {}).get("raters")
    if raters and "ceiling" in raters and method == "pearson":  # (a Pearson figure: no row in another column)
        t.add_row("raters' ceiling", "", *([""] * len(prefs["levels"]) if prefs else []), f"{raters['ceiling']:.3f}")
    join = (ratings or {}).get("join")
    if join and (cover := render_join_coverage(join, "hypotheses", "the ratings figures cover")):
        lines.insert(0, cover)
    con = console()
    with con.capture() as cap:
        for line in lines:
            con.print(line)
        con.print(t)
        if len(subsets) > 1:
            by = Table(title=f"Ratings by language: {method.title()} ({level} bootstrap CI)")
            by.add_column("metric")
            for sub in subsets[1:]:
                by.add_column(f"{sub} (n={ratings['by_subset'][sub]['items']})", justify="right")
            for n in names:
                mark = "*" if n in partial else ""
                by.add_row(shown[n], *(corr(ratings["by_subset"][sub]["by_metric"][n], mark) for sub in subsets[1:]))
            ceilings = [ratings["by_subset"][sub].get("raters") or {} for sub in subsets[1:]]
            if any("ceiling" in c for c in ceilings) and method == "pearson":
                by.add_row("raters' ceiling", *(f"{c['ceiling']:.3f}" if "ceiling" in c else "" for c in ceilings))
            con.print(by)
        diffs = _card_differences(prefs, ratings, method, subsets, level, shown)
        for table in diffs:
            con.print(table)
        if prefs:
            splits = prefs["human_ties"]
            con.print(
                f"preferences: {prefs['source'] or 'given'}, {counted(prefs['triplets'], 'triplet')} of "
                f"{counted(prefs['groups'], 'reference')}, {counted(prefs['votes'], 'vote')}. prefer = % of "
                "triplets where the metric prefers the hypothesis most people chose, among those whose winning "
                "side got 100% of the votes (unanimous), at least 70%, or any share (all); a tie counts as "
                "disagreement (the metric "
                f"scores both alike, or people split evenly: {counted(splits, 'triplet')} here)"
                + (ONE_GROUP if _one_group(prefs) else "")
            )
        if ratings:
            items = counted(ratings["items"], "rated hypothesis", "rated hypotheses")
            note = f"ratings: {ratings['source'] or 'given'}, {items}"
            if method != "pearson" or len(ratings["methods"]) > 1:
                note += f" ({', '.join(ratings['methods'])} in --json)"
            if raters and "ceiling" in raters and method == "pearson":
                note += (
                    f"; raters' ceiling (for Pearson) = sqrt(split-half reliability) ({raters['raters_per_item'][1]} "
                    f"raters, halves agree at r = {raters['half_r']:.3f} over {raters['splits']} splits)"
                )
            groups, unit = ratings["by_subset"]["all"]["groups"], ratings["bootstrap_unit"]
            what = (
                f"{counted(groups, 'utterance')}, all hypotheses of one together"
                if unit == "utterance"
                else f"{groups} by {unit}"
            )
            one = any(c.get("groups") == 1 for c in ratings["by_subset"].values())
            con.print(f"{note}; CIs resample whole groups ({what}){ONE_GROUP if one else ''}")
        if diffs:
            con.print(
                "differences: the row's metric minus the other, on the items both scored, with a paired CI from "
                "the same resamples; one that excludes 0 (marked !) says the row's metric agrees more (or less) "
                f"with people here, on {MARK_GROUPS} or more groups (fewer have too few distinct resamples to say "
                "it: no mark)"
            )
        con.print(_definitions(s, shown))
    return cap.get().rstrip("\n")


def _definitions(s: dict, shown: dict[str, str]) -> str:
    """The footnote: what each figure on the card is, and only those on it."""
    names = list(shown)
    parts = []
    flipped = [f"1 - {m['name']}" for m in s["metrics"] if not m["higher_is_better"]]
    if flipped:
        parts.append(
            f"{', '.join(flipped)}: the card correlates 1 - each of these (lower is better for them), as asr score "
            "--human does, so every row reads higher = agrees more with people (preference agreement is the same "
            "either way; --json and --out keep the metric's own name and --out its own values)"
        )
    classic = [n for n in names if n in ("WER", "CER")]
    if classic:
        parts.append(f"{' and '.join(classic)} after '{s['normalization']}' normalization")
    if any(n.startswith("LASER ") for n in names):
        parts.append("LASER = 1 - penalty / reference words, floored at 0")
    if "LASER default" in names:  # its tiers were chosen on people too, not only laser_calibrated
        parts.append(
            "LASER default's tiers are calibrated on people (the shipped calibration: in sample on the shipped "
            "human sets' training halves; with --calibration, that file's)"
        )
    if any(n.startswith("SemDist") for n in names):
        parts.append("SemDist = 1 - cosine of sentence embeddings")
    parts += [_fitted(m, shown[m["name"]]) for m in s["metrics"] if m.get("fitted")]
    return "; ".join(parts)


def _fitted(m: dict, shown: str) -> str:
    """What a row fitted to people is: laser_calibrated, its model, and the calibration it came
    from (a file given with --calibration: its name and the start of its sha256, as asr score names it)."""
    if not m.get("calibration_sha256"):
        return (
            f"{shown} = laser_calibrated, {m['fitted']} (on the shipped human sets it is in sample: their "
            "training halves made it)"
        )
    return (
        f"{shown} = laser_calibrated, {m['fitted']}, from calibration {m['calibration']} (sha256 "
        f"{m['calibration_sha256'][:12]}; in sample on the data it was fitted on)"
    )


def _card_differences(
    prefs: dict | None,
    ratings: dict | None,
    method: str,
    subsets: list[str],
    level: str,
    shown: dict[str, str] | None = None,
):
    """The judge card's paired differences, one row per pair of metrics: a table with a column per
    preference level, one with a column per ratings subset (the headline correlation). ``shown``:
    each metric's label on the card (a label with a minus in it is bracketed)."""
    from voxjudge.cli.tables import Table

    def named(n: str) -> str:
        text = (shown or {}).get(n, n)
        return f"({text})" if " - " in text else text

    def text(d: dict, scale: float, digits: int, groups: int) -> str:
        if d["difference"] is None:
            return "–"
        low, high = d["ci_low"], d["ci_high"]
        # a handful of groups has a handful of distinct resamples: an interval off 0 there says nothing
        sure = low is not None and (low > 0 or high < 0) and groups >= MARK_GROUPS
        ci = "" if low is None else f" [{scale * low:+.{digits}f}, {scale * high:+.{digits}f}]"
        return f"{scale * d['difference']:+.{digits}f}{ci}{' !' if sure else ''}"

    parts: list[tuple[str, dict[str, list[dict]], float, int]] = []
    if prefs and prefs.get("differences"):
        parts.append(("preferences, agreement in points", {"prefer": prefs["differences"]}, 100, 1))
    if ratings:
        by = {
            sub: [d for d in ratings["by_subset"][sub].get("differences", []) if d["method"] == method]
            for sub in subsets
        }
        if any(by.values()):
            parts.append((f"ratings, {method.title()}", by, 1, 3))
    tables = []
    for title, by_column, scale, digits in parts:
        cells: dict[tuple[str, str], dict[str, str]] = {}
        columns: list[str] = []
        for name, found in by_column.items():
            for d in found:
                column = f"{name} {d['level']}" if "level" in d else name
                columns += [column] if column not in columns else []
                # the groups the bootstrap resampled for this cell (reference groups, utterances), not its items
                groups = d["groups"] if "groups" in d else ratings["by_subset"][name]["groups"]
                cells.setdefault((d["a"], d["b"]), {})[column] = text(d, scale, digits, groups)
        t = Table(title=f"Differences, {title} ({level} paired bootstrap CI)")
        t.add_column("metric pair")
        for column in columns:
            t.add_column(column, justify="right")
        for (a, b), row in cells.items():
            t.add_row(f"{named(a)} - {named(b)}", *(row.get(c, "–") for c in columns))
        tables.append(t)
    return tables


def fmt_cover(scored: int, total: int) -> str:
    return "100%" if scored == total else f"{100 * scored / total:.1f}%"
