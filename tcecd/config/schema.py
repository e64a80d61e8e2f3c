"""The JSON Schema of an event config file, for editors (``tcecd schema``).

Generated from the pydantic models, then adjusted to describe the *file*
rather than the resolved :class:`~tcecd.config.event.EventConfig`: internal
fields are dropped, ``engines`` items may be a name, a ``{ref: ...}`` mapping
or an inline definition, ``mqtt`` may be ``embedded`` or a URL, and a
tablebase ``path`` may be one directory. Pure.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import textwrap
from typing import Any

from pydantic import BaseModel, TypeAdapter

from tcecd.config.engines import EngineConfig
from tcecd.config.event import EventConfig
from tcecd.config.load import EngineRef
from tcecd.config.section import Section

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
_INTERNAL = ("source", "mqtt_password", "mqtt_operator_passwords")
#: An engine entry's own limits (a kibitzer's entry takes none).
_LIMITS = ("tc", "nodes", "depth", "movetime_ms")


def event_json_schema() -> dict[str, Any]:
    """The event config file's JSON Schema (draft 2020-12) as a dict."""
    schema: dict[str, Any] = EventConfig.model_json_schema(mode="validation")
    defs: dict[str, Any] = schema.setdefault("$defs", {})
    _describe_fields(schema, defs)
    for name in _INTERNAL:
        schema["properties"].pop(name, None)
        if name in schema.get("required", []):
            schema["required"].remove(name)

    # engines: a definition name or path, a reference with overrides, or inline.
    for model in (EngineRef, EngineConfig):
        sub = TypeAdapter(model).json_schema(ref_template="#/$defs/{model}")
        for key, value in sub.pop("$defs", {}).items():
            defs.setdefault(key, value)
        defs[model.__name__] = sub
    schema["properties"]["engines"] = {
        "title": "Engines",
        "description": "At least two engines with distinct names: a definition name "
        "(engines/<name>.yaml), a path to a YAML definition or an executable, a "
        "{ref: ..., name, options, rating} mapping, or an inline definition.",
        "type": "array",
        "minItems": 2,
        "items": {
            "anyOf": [
                {"type": "string", "minLength": 1},
                {"$ref": "#/$defs/EngineRef"},
                {"$ref": "#/$defs/EngineConfig"},
            ]
        },
    }

    # kibitzers: an engines item (no limits of its own) with board and nice beside its keys.
    kib = defs.pop("KibitzerConfig")["properties"]
    own = {name: kib[name] for name in ("board", "nice")}
    forms: list[dict[str, Any]] = [{"type": "string", "minLength": 1}]
    for model in (EngineRef, EngineConfig):
        sub = dict(defs[model.__name__])
        props = {k: v for k, v in sub["properties"].items() if k not in _LIMITS}
        forms.append({**sub, "title": f"Kibitzer{model.__name__}",
                      "properties": {**props, **own}})
    kibitzers = schema["properties"]["kibitzers"]
    kibitzers.pop("default", None)
    schema["properties"]["kibitzers"] = {
        "title": "Kibitzers",
        "description": kibitzers.get("description", ""),
        "type": "array",
        "items": {"anyOf": forms},
        "default": [],
    }

    mqtt = schema["properties"]["mqtt"]
    mqtt["anyOf"] = [
        {"$ref": "#/$defs/MqttConfig"},
        {"const": "embedded", "description": "a private broker on a free port"},
        {"type": "string", "pattern": "^mqtts?://", "description": "a broker URL"},
        {"type": "null"},
    ]
    tables = defs["TablebaseAdjudication"]["properties"]["path"]
    tables["anyOf"] = [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]
    tables.pop("type", None)
    tables.pop("items", None)

    return {
        "$schema": SCHEMA_DIALECT,
        "title": "tcecd event config",
        "description": "One YAML file describing a TCEC-style Swiss engine event "
        "(see docs/config.md).",
        **{k: v for k, v in schema.items() if k not in ("title", "description")},
    }


def _sections() -> list[type[BaseModel]]:
    """Every config section model (the subclasses of ``Section``, at any depth)."""
    found: list[type[BaseModel]] = []
    todo: list[type[BaseModel]] = [Section]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in found:
                found.append(sub)
                todo.append(sub)
    return found


def _attribute_docstrings(model: type[BaseModel]) -> dict[str, str]:
    """The docstring written right below each field of ``model``'s class body
    (PEP 257's "attribute docstrings"), cleaned as :func:`inspect.cleandoc`
    does: what pydantic's ``use_attribute_docstrings`` reads, read here only
    when a schema is asked for."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(model)))
    body = tree.body[0].body if isinstance(tree.body[0], ast.ClassDef) else []
    out: dict[str, str] = {}
    for node, after in itertools.pairwise(body):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            out[node.target.id] = inspect.cleandoc(after.value.value)
    return out


def _describe_fields(schema: dict[str, Any], defs: dict[str, Any]) -> None:
    """Each section field's docstring as its description, where the field has
    none of its own (``Field(description=...)`` wins, as in pydantic)."""
    for model in _sections():
        target = schema if model is EventConfig else defs.get(model.__name__)
        if target is None:
            continue  # not reachable from EventConfig
        properties = target.get("properties", {})
        for name, text in _attribute_docstrings(model).items():
            field = model.model_fields.get(name)
            if field is None:
                continue
            prop = properties.get(field.alias or name)
            if prop is not None and "description" not in prop:
                prop["description"] = text
