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


def _type_hints(fn: Callable[..., Any], name: str) -> dict[str, Any]:
    """The annotations of tool ``name``'s function ``fn``, resolved."""
    try:
        return typing.get_type_hints(fn, include_extras=True)
    except (NameError, TypeError) as exc:
        raise UserError(
            f"tool {name!r}: cannot read the annotations of {fn.__qualname__} ({exc}); "
            "define the types it names at module level"
        ) from None


def _check_secret_refs(
    fn: Callable[..., Any],
    name: str,
    secret_refs: Mapping[str, str],
    params: Mapping[str, inspect.Parameter],
) -> None:
    """Refuse ``secret_refs`` that name no parameter of ``fn``."""
    unknown = set(secret_refs) - set(params)
    if unknown:
        raise UserError(
            f"tool {name!r}: secret_refs names {sorted(unknown)}, which are not parameters "
            f"of {fn.__qualname__}"
        )


def _check_named(fn: Callable[..., Any], name: str, param: inspect.Parameter) -> None:
    """Refuse ``*args`` and ``**kwargs``, which no schema can describe."""
    if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
        raise UserError(
            f"tool {name!r}: *args and **kwargs cannot be described to a model; "
            f"name each parameter of {fn.__qualname__}"
        )


def _field(param: inspect.Parameter, annotation: Any, description: str | None) -> tuple[Any, Any]:
    """The argument model's field for ``param``: its type, default and description."""
    default = ... if param.default is param.empty else param.default
    return (annotation, Field(default, description=description))


class Signature:
    """What the decorator learnt from a function: its argument model and injected params."""

    def __init__(
        self,
        fn: Callable[..., Any],
        name: str,
        secret_refs: Mapping[str, str],
    ) -> None:
        hints = _type_hints(fn, name)
        summary, docs = parse_docstring(fn.__doc__)
        self.summary = summary
        self.runtime_param: str | None = None
        params = inspect.signature(fn).parameters
        _check_secret_refs(fn, name, secret_refs, params)
        fields: dict[str, Any] = {}
        for pname, param in params.items():
            _check_named(fn, name, param)
            annotation = hints.get(pname, Any)
            if _is_runtime(annotation):
                self.runtime_param = pname
            elif pname not in secret_refs:
                fields[pname] = _field(param, annotation, docs.get(pname) or None)
        self.model: type[BaseModel] = create_model(
            f"{name}_arguments", __config__=_CONFIG, **fields
        )
        self.arg_names = tuple(fields)

    def json_schema(self) -> dict[str, Any]:
        """The JSON Schema of the arguments the model may pass."""
        schema: dict[str, Any] = _strip_titles(self.model.model_json_schema())
        schema.setdefault("properties", {})
        return schema
