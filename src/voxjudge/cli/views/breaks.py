"""``breaks score``: LMRE acceptance and correlations, multi-reference beside single."""

from __future__ import annotations

from voxjudge.cli.common import console, fmt_rate


def render_breaks_summary(s: dict) -> str:
    """Every metric, multi-reference beside its single-reference baseline, one row each."""
    from voxjudge.cli.tables import Table

    def corr(c: dict | None) -> str:
        return f"{c['estimate']:+.3f} [{c['ci_low']:+.3f}, {c['ci_high']:+.3f}]" if c else "–"

    def rate(value: float | None) -> str:
        return "–" if value is None else fmt_rate(value)

    con = console()
    with con.capture() as cap:
        cover = s.get("coverage") or {}
        from voxjudge.breaks.summary import coverage_lines

        for line in coverage_lines(cover):
            con.print(line, markup=False)
        partial = "PARTIAL, " if cover.get("partial") else ""
        t = Table(
            title=f"LMRE ({partial}{s['n']} of {cover.get('hypotheses', s['n'])} hypotheses scored; the single "
            f"reference covers {s['single_n']})"
        )
        level = f"{100 * (s.get('bootstrap') or {}).get('confidence', 0.95):g}% CI"
        if cover.get("human") and cover["human"]["partial"]:
            level += f", n={cover['rated']}"  # the correlations cover fewer hypotheses than the acceptance
        for col in ("metric", "references", "n", "theta", "acceptance", f"Pearson ({level})", f"Spearman ({level})"):
            t.add_column(col, justify="left" if col in ("metric", "references") else "right")
        for m in s["metrics"].values():
            t.add_row(
                m["similarity"], "multi", str(s["n"]), f"> {m['theta']:g}", rate(m["acceptance"]),
                corr(m["pearson"]), corr(m["spearman"]),
            )  # fmt: skip
            t.add_row(
                "", "single", str(s["single_n"]), "", rate(m["single_acceptance"]),
                corr(m["single_pearson"]), corr(m["single_spearman"]),
            )  # fmt: skip
        con.print(t)
        for m in s["metrics"].values():  # a metric without correlations says why
            if m.get("agreement_undefined"):
                con.print(f"{m['similarity']}: {m['agreement_undefined']}", markup=False)
        first = next(iter(s["metrics"].values()), None)
        if first and first.get("acceptance_by_group"):
            g = Table(title="Acceptance by human score (multi / single reference)")
            for col in ("human score", "n", "n single", *s["metrics"]):
                g.add_column(col, justify="right")
            by_metric = [m["acceptance_by_group"] for m in s["metrics"].values()]
            for k, row in enumerate(first["acceptance_by_group"]):
                cells = [f"{rate(rows[k]['rate'])} / {rate(rows[k]['single_rate'])}" for rows in by_metric]
                g.add_row(str(row["group"]), str(row["n"]), str(row["single_n"]), *cells)
            con.print(g)
    return cap.get().rstrip("\n")
