"""Builds a tool's argument model and JSON Schema from its signature and docstring."""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from app.core.errors import UserError
from app.core.tools._docstring import parse_docstring
from app.core.tools.runtime import Runtime

_CONFIG = ConfigDict(extra="forbid", arbitrary_types_allowed=False)


def _is_runtime(annotation: Any) -> bool:
    if annotation is Runtime:
        return True
    if typing.get_origin(annotation) is typing.Annotated:
        return _is_runtime(typing.get_args(annotation)[0])
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return len(args) == 1 and args[0] is Runtime
    return False


def _strip_titles(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {
            k: (
                _strip_titles(v)
                if k != "properties"
                else {p: _strip_titles(s) for p, s in v.items()}
            )
            for k, v in schema.items()
            if k != "title" or not isinstance(v, str)
        }
    if isinstance(schema, list):
        return [_strip_titles(v) for v in schema]
    return schema


class Signature:
    """What the decorator learnt from a function: its argument model and injected params."""

    def __init__(
        self,
        fn: Callable[..., Any],
        name: str,
        secret_refs: Mapping[str, str],
    ) -> None:
        try:
            hints = typing.get_type_hints(fn, include_extras=True)
        except (NameError, TypeError) as exc:
            raise UserError(
                f"tool {name!r}: cannot read the annotations of {fn.__qualname__} ({exc}); "
                "define the types it names at module level"
            ) from None
        summary, docs = parse_docstring(fn.__doc__)
        self.summary = summary
        self.runtime_param: str | None = None
        fields: dict[str, Any] = {}
        params = inspect.signature(fn).parameters
        unknown = set(secret_refs) - set(params)
        if unknown:
            raise UserError(
                f"tool {name!r}: secret_refs names {sorted(unknown)}, which are not parameters "
                f"of {fn.__qualname__}"
            )
        for pname, param in params.items():
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                raise UserError(
                    f"tool {name!r}: *args and **kwargs cannot be described to a model; "
                    f"name each parameter of {fn.__qualname__}"
                )
            annotation = hints.get(pname, Any)
            if _is_runtime(annotation):
                self.runtime_param = pname
                continue
            if pname in secret_refs:
                continue
            default = ... if param.default is param.empty else param.default
            desc = docs.get(pname) or None
            fields[pname] = (annotation, Field(default, description=desc))
        self.model: type[BaseModel] = create_model(
            f"{name}_arguments", __config__=_CONFIG, **fields
        )
        self.arg_names = tuple(fields)

    def json_schema(self) -> dict[str, Any]:
        """The JSON Schema of the arguments the model may pass."""
        schema: dict[str, Any] = _strip_titles(self.model.model_json_schema())
        schema.setdefault("properties", {})
        return schema
