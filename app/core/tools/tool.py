"""``@tool``: turns a function into a :class:`Tool` a model can call."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Generic, ParamSpec, TypeAlias, TypeVar, overload

from pydantic import BaseModel

from app.core.errors import ParleyError, UserError
from app.core.models.protocol import ToolSpec
from app.core.tools._schema import Signature
from app.core.tools.approvals import ApprovalPreview
from app.core.tools.argument_rules import RuleSpec

__all__ = ["ApprovalPreviewFn", "Tool", "ToolError", "tool"]

P = ParamSpec("P")
R = TypeVar("R")

PreviewResult: TypeAlias = ApprovalPreview | str | None
ApprovalPreviewFn: TypeAlias = Callable[
    [Mapping[str, Any]], PreviewResult | Awaitable[PreviewResult]
]
"""Given a call's validated arguments, describe what it would do (read-only, no side effects).

Returns an :class:`ApprovalPreview`, plain text, or ``None`` for no preview; may be async.
"""


class ToolError(ParleyError):
    """Raise from a tool to fail the call with this sentence; the model reads it as is.

    For failures the tool foresees (a path outside the granted folders, a page too large):
    the model sees ``Tool 'name' failed: <message>`` without an exception type or traceback.
    """


class Tool(Generic[P, R]):
    """A function a model may call, with what Parley must check before calling it.

    Still callable like the function it wraps. ``spec`` is what the model is shown: the
    injected parameters (the ``Runtime`` one and every secret) are not in it.
    """

    def __init__(
        self,
        fn: Callable[P, R],
        *,
        name: str | None = None,
        description: str | None = None,
        permissions: tuple[str, ...] | list[str] = (),
        secret_refs: Mapping[str, str] | None = None,
        timeout: float | None = None,
        requires_approval: bool = False,
        approval_preview: ApprovalPreviewFn | None = None,
        rule: RuleSpec | None = None,
    ) -> None:
        self.fn = fn
        self.name = name or fn.__name__
        if not self.name.replace("_", "").replace("-", "").isalnum():
            raise UserError(f"tool name {self.name!r} may hold only letters, digits, '_' and '-'")
        if timeout is not None and timeout <= 0:
            raise UserError(f"tool {self.name!r}: timeout must be positive, not {timeout}")
        self.permissions = tuple(permissions)
        self.secret_refs: dict[str, str] = dict(secret_refs or {})
        self.timeout = timeout
        self.requires_approval = requires_approval
        self.approval_preview = approval_preview
        self.is_async = inspect.iscoroutinefunction(fn)
        self._signature = Signature(fn, self.name, self.secret_refs)
        self.description = (description or self._signature.summary or self.name).strip()
        if rule is not None and rule.argument not in self._signature.arg_names:
            raise UserError(
                f"tool {self.name!r}: the rule's argument {rule.argument!r} is not one of its "
                "parameters"
            )
        self.rule = rule
        """Which argument decides what a call does, for the rules a dialog may offer
        (``None``: a rule offered for this tool pins every argument)."""
        self.spec = ToolSpec(
            name=self.name,
            description=self.description,
            parameters=self._signature.json_schema(),
        )
        functools.update_wrapper(self, fn)

    @property
    def args_model(self) -> type[BaseModel]:
        """The pydantic model the model's arguments are validated against."""
        return self._signature.model

    @property
    def runtime_param(self) -> str | None:
        """The name of the parameter that receives the ``Runtime``, if any."""
        return self._signature.runtime_param

    @property
    def arg_names(self) -> tuple[str, ...]:
        """The parameters the model fills in, in signature order."""
        return self._signature.arg_names

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        """Call the wrapped function directly, with no checks."""
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"Tool({self.name!r}, permissions={self.permissions!r})"


@overload
def tool(fn: Callable[P, R], /) -> Tool[P, R]: ...


@overload
def tool(
    fn: None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    permissions: tuple[str, ...] | list[str] = (),
    secret_refs: Mapping[str, str] | None = None,
    timeout: float | None = None,
    requires_approval: bool = False,
    approval_preview: ApprovalPreviewFn | None = None,
    rule: RuleSpec | None = None,
) -> Callable[[Callable[P, R]], Tool[P, R]]: ...


def tool(
    fn: Callable[P, R] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    permissions: tuple[str, ...] | list[str] = (),
    secret_refs: Mapping[str, str] | None = None,
    timeout: float | None = None,
    requires_approval: bool = False,
    approval_preview: ApprovalPreviewFn | None = None,
    rule: RuleSpec | None = None,
) -> Tool[P, R] | Callable[[Callable[P, R]], Tool[P, R]]:
    """Make ``fn`` a tool; use bare (``@tool``) or with options (``@tool(timeout=10)``).

    The JSON Schema comes from the annotations; parameter descriptions come from the
    docstring's ``Args:`` section and the tool description from its first paragraph(s).
    ``approval_preview`` (see :data:`ApprovalPreviewFn`) adds a preview of the call's effect
    to its approval request. ``rule`` (a :class:`RuleSpec`) names the argument that decides
    what a call does, so a dialog may offer "always allow inside this folder" on it; without
    one, a rule offered for the tool pins every argument.
    """

    def wrap(f: Callable[P, R]) -> Tool[P, R]:
        return Tool(
            f,
            name=name,
            description=description,
            permissions=permissions,
            secret_refs=secret_refs,
            timeout=timeout,
            requires_approval=requires_approval,
            approval_preview=approval_preview,
            rule=rule,
        )

    return wrap(fn) if fn is not None else wrap
