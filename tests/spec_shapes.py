"""The ICPC Contest API's objects that pass-fail contests add, as JSON schemas written for these tests from
the text of the CCS specs (JSON_Format.md: Contest, Judgement Type, Award, Scoreboard), strict (no
property the spec does not define), as `check-api.sh -s`'s checks are. `check-api.sh` itself, with the
spec's own schemas, is run by hand (docs/serve.md)."""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator

RELTIME = {"type": "string", "pattern": r"^-?[0-9]+:[0-5][0-9]:[0-5][0-9](\.[0-9]{3})?$"}
POSITIVE_RELTIME = {"type": "string", "pattern": r"^[0-9]+:[0-5][0-9]:[0-5][0-9](\.[0-9]{3})?$"}
TIME = {
    "type": "string",
    "pattern": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{3})?(Z|[+-][0-9]{2}(:?[0-9]{2})?)$",
}
ID = {"type": "string", "pattern": r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$"}


def _object(required: list[str], properties: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"type": "object", "required": required, "properties": properties, "additionalProperties": False, **more}


CONTEST = _object(
    ["id", "name", "duration", "scoreboard_type", "penalty_time"],
    {
        "id": ID,
        "name": {"type": "string"},
        "formal_name": {"type": "string"},
        "start_time": {"oneOf": [TIME, {"type": "null"}]},
        "duration": POSITIVE_RELTIME,
        "scoreboard_freeze_duration": POSITIVE_RELTIME,
        "scoreboard_thaw_time": {"oneOf": [TIME, {"type": "null"}]},
        "scoreboard_type": {"const": "pass-fail"},
        "penalty_time": POSITIVE_RELTIME,  # required iff pass-fail
    },
)

# penalty: required iff the contest has a penalty_time
JUDGEMENT_TYPES = {
    "type": "array",
    "items": _object(
        ["id", "name", "penalty", "solved"],
        {"id": ID, "name": {"type": "string"}, "penalty": {"type": "boolean"}, "solved": {"type": "boolean"}},
    ),
}

AWARDS = {
    "type": "array",
    "items": _object(
        ["id", "citation"],
        {
            "id": ID,
            "citation": {"type": "string"},
            "team_ids": {"oneOf": [{"type": "array", "items": ID}, {"type": "null"}]},
        },
    ),
}

STATE_KEYS = ("started", "frozen", "ended", "thawed", "finalized", "end_of_updates")
STATE = _object(list(STATE_KEYS), {k: {"oneOf": [TIME, {"type": "null"}]} for k in STATE_KEYS})

_PROBLEM = _object(
    ["problem_id", "num_judged", "num_pending", "solved"],
    {
        "problem_id": ID,
        "num_judged": {"type": "integer", "minimum": 0},
        "num_pending": {"type": "integer", "minimum": 0},
        "solved": {"type": "boolean"},
        "time": POSITIVE_RELTIME,  # minutes into the contest of the solve: required iff solved
    },
    **{
        "if": {"properties": {"solved": {"const": True}}},
        "then": {"required": ["time"]},
        "else": {"not": {"required": ["time"]}},
    },
)
_SCORE = _object(
    ["num_solved", "total_time", "time"],
    {
        "num_solved": {"type": "integer", "minimum": 0},
        "total_time": RELTIME,
        "time": {"oneOf": [POSITIVE_RELTIME, {"type": "null"}]},  # the last improvement: null iff nothing solved
    },
    **{
        "if": {"properties": {"num_solved": {"const": 0}}},
        "then": {"properties": {"time": {"type": "null"}}},
        "else": {"properties": {"time": POSITIVE_RELTIME}},
    },
)
SCOREBOARD = _object(
    ["time", "contest_time", "state", "rows"],
    {
        "time": TIME,
        "contest_time": RELTIME,
        "state": STATE,
        "rows": {
            "type": "array",
            "items": _object(
                ["rank", "team_id", "score"],
                {
                    "rank": {"type": "integer", "minimum": 1},
                    "team_id": ID,
                    "score": _SCORE,
                    "problems": {"type": "array", "items": _PROBLEM},
                },
            ),
        },
    },
)


_COMMAND = {"oneOf": [_object(["command"], {"command": {"type": "string"}, "args": {"type": "string"},
                                          "version": {"type": "string"}, "version_command": {"type": "string"}}),
                      {"type": "null"}]}  # fmt: skip
# json-schema/language.json (strict): DOMjudge's time_factor is not the spec's
LANGUAGE = _object(
    ["id", "name", "entry_point_required", "extensions"],
    {
        "id": ID,
        "name": {"type": "string"},
        "entry_point_required": {"type": "boolean"},
        "entry_point_name": {"type": ["string", "null"]},
        "extensions": {"type": "array", "uniqueItems": True, "items": {"type": "string"}},
        "compiler": _COMMAND,
        "runner": _COMMAND,
    },
)
LANGUAGES = {"type": "array", "items": LANGUAGE}

# A file reference (JSON_Format.md "File reference"; json-schema/common.json "fileref"), strict
FILEREF = _object(
    ["href", "filename", "mime"],
    {"href": {"type": "string"}, "filename": {"type": "string"}, "mime": {"type": "string"},
     "hash": {"type": "string"}},
)  # fmt: skip
FILEREFS = {"oneOf": [{"type": "array", "uniqueItems": True, "items": FILEREF}, {"type": "null"}]}
_PROBLEM_PROPERTIES: dict[str, Any] = {
    "id": ID,
    "uuid": {"type": ["string", "null"]},
    "label": {"type": "string"},
    "name": {"type": "string"},
    "ordinal": {"type": "integer"},
    "rgb": {"type": ["string", "null"], "pattern": "^#[A-Fa-f0-9]{3}([A-Fa-f0-9]{3})?$"},
    "color": {"type": ["string", "null"]},
    "time_limit": {"type": "number", "minimum": 0},
    "memory_limit": {"type": "integer", "minimum": 0},
    "output_limit": {"type": "integer", "minimum": 0},
    "code_limit": {"type": "integer", "minimum": 0},
    "test_data_count": {"type": "integer", "minimum": 0},
    "max_score": {"type": "number"},
    "package": FILEREFS,
    "statement": FILEREFS,
}
_PROBLEM_REQUIRED = ["id", "label", "name", "ordinal", "test_data_count"]
# json-schema/problem.json (strict): no `attachments` there yet
PROBLEM_SCHEMA = _object(_PROBLEM_REQUIRED, _PROBLEM_PROPERTIES)
# JSON_Format.md's problem: with `attachments`
PROBLEM = _object(_PROBLEM_REQUIRED, {**_PROBLEM_PROPERTIES, "attachments": FILEREFS})


def errors(schema: dict[str, Any], doc: Any) -> list[str]:
    """What is wrong with ``doc`` (empty: valid)."""
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in Draft202012Validator(schema).iter_errors(doc)
    ]
