"""What a claim's check expects, in words for the claims table (e.g. ``change < -0.2``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pderepro.evaluation.claims_intervals import filter_text

_OPERATORS = {"below": "<", "at_most": "<=", "above": ">", "at_least": ">="}


def expected_text(check: Mapping[str, Any]) -> str:
    """What the claim expects, for people (e.g. ``change < -0.2``)."""
    kind, column = check["kind"], check["column"]
    if kind == "threshold":
        text = f"{column} {_OPERATORS[check['direction']]} {check['threshold']:g}"
    elif kind == "ratio":
        columns = "/".join(column) if isinstance(column, list) else column
        text = f"max/min of {columns} <= {check['factor']:g}"
    else:
        op = "<" if check["lower_is_better"] else ">"
        margin = float(check.get("margin", 0.0))
        scale = f"{1 - margin if check['lower_is_better'] else 1 + margin:g} x " if margin else ""
        if "than_column" in check:
            other = f"its {check['than_column']}"
        elif check["than"] == "all_other":
            other = "every other row"
        else:
            other = filter_text(check["than"])
        value = f"|{column} - {check['target']:g}|" if "target" in check else column
        mean = "mean " if check.get("aggregate") == "mean" else ""
        text = f"{mean}{value} of {filter_text(check['better'])} {op} {scale}{other}"
        if check.get("exclude"):
            text += f" (not {filter_text(check['exclude'])})"
        if isinstance(check.get("reference"), Mapping):
            text += f", which beats reference {filter_text(check['reference'])}"
    if check.get("noise_floor"):
        text += f", ± noise floor of {filter_text(check['noise_floor'])}"
    if check.get("rows"):
        text += f" where {filter_text(check['rows'])}"
    for_each = check.get("for_each")
    if for_each:
        text += f", each {', '.join([for_each] if isinstance(for_each, str) else for_each)}"
    return text
