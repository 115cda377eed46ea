"""One registry per place that turns content blocks into something, keyed by the block's ``type``.

Each place that renders blocks (the chat's HTML, an attachment's description, the Markdown
export, each provider's request format) declares one :class:`BlockRenderers` at module level and
registers a function for every member of :data:`~app.core.state.message_block.ContentBlock`, or
says with :meth:`BlockRenderers.ignore` that it deliberately leaves a type out. :meth:`missing`
lists the members a place has neither, so a test can hold every place total over the union: a
new block type is then either rendered everywhere or named, place by place, by that test.
"""

from __future__ import annotations

import operator
import types
from collections.abc import Callable, Iterable
from functools import reduce
from typing import Annotated, Any, Generic, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel

from app.core.state.message_block import ContentBlock

__all__ = ["BlockRenderers", "NoRenderer", "block_types", "coverage_gaps", "union_with"]

Ctx = TypeVar("Ctx")
Out = TypeVar("Out")
B = TypeVar("B", bound=BaseModel)


class NoRenderer(LookupError):
    """A block reached a place that has no renderer for its type."""


def block_types(union: object = ContentBlock) -> dict[str, type[BaseModel]]:
    """Each member of a union of block classes (``Annotated`` or not) by its ``type`` literal,
    in the union's order."""
    if get_origin(union) is Annotated:
        union = get_args(union)[0]
    members = get_args(union) if get_origin(union) in (Union, types.UnionType) else (union,)
    found: dict[str, type[BaseModel]] = {}
    for member in members:
        if not (isinstance(member, type) and issubclass(member, BaseModel)):
            raise TypeError(f"{member!r} is not a block class")
        field = member.model_fields.get("type")
        literals = get_args(field.annotation) if field is not None else ()
        if not literals:
            raise TypeError(f"{member.__name__} has no literal 'type' field")
        for literal in literals:
            found[str(literal)] = member
    return found


def union_with(*extra: type[BaseModel], union: object = ContentBlock) -> object:
    """``union``'s members and the block classes ``extra``, as one union (e.g. to check the
    places against a block type not yet in :data:`ContentBlock`)."""
    members = [*dict.fromkeys(block_types(union).values()), *extra]
    return reduce(operator.or_, members)


class BlockRenderers(Generic[Ctx, Out]):
    """The renderers of one place: a function per block ``type``, called with the block and the
    place's context ``Ctx``, returning ``Out``."""

    def __init__(self, place: str) -> None:
        self.place = place
        self._renderers: dict[str, Callable[[Any, Ctx], Out]] = {}
        self._ignored: dict[str, str] = {}

    def register(self, *kinds: str) -> Callable[[Callable[[B, Ctx], Out]], Callable[[B, Ctx], Out]]:
        """A decorator that makes its function this place's renderer of the blocks whose
        ``type`` is one of ``kinds``; a type may have only one."""

        def add(render: Callable[[B, Ctx], Out]) -> Callable[[B, Ctx], Out]:
            for kind in kinds:
                if kind in self._renderers:
                    raise ValueError(f"{self.place} already renders {kind!r} blocks")
                self._renderers[kind] = render
            return render

        return add

    def ignore(self, *kinds: str, because: str, value: Out) -> None:
        """Say that this place deliberately makes nothing of ``kinds`` (``because`` says why):
        rendering one returns ``value``."""

        def nothing(block: BaseModel, ctx: Ctx) -> Out:
            return value

        self.register(*kinds)(nothing)
        for kind in kinds:
            self._ignored[kind] = because

    def render(self, block: BaseModel, ctx: Ctx) -> Out:
        """What this place makes of ``block`` (dispatched on ``block.type``)."""
        kind = str(getattr(block, "type", ""))
        render = self._renderers.get(kind)
        if render is None:
            raise NoRenderer(f"{self.place} has no renderer for {kind!r} blocks.")
        return render(block, ctx)

    def covers(self, kind: str) -> bool:
        """Whether ``kind`` has a renderer here, or is ignored on purpose."""
        return kind in self._renderers

    def ignored(self) -> dict[str, str]:
        """The types this place ignores on purpose, each with the reason given."""
        return dict(self._ignored)

    def missing(self, union: object = ContentBlock) -> list[str]:
        """The ``type`` of each member of ``union`` this place neither renders nor ignores."""
        return [kind for kind in block_types(union) if not self.covers(kind)]

    def copy(self) -> BlockRenderers[Ctx, Out]:
        """A registry with the same renderers, to add to without changing this one."""
        twin: BlockRenderers[Ctx, Out] = BlockRenderers(self.place)
        twin._renderers = dict(self._renderers)
        twin._ignored = dict(self._ignored)
        return twin

    def __repr__(self) -> str:
        return f"BlockRenderers({self.place!r}, {sorted(self._renderers)})"


def coverage_gaps(
    registries: Iterable[BlockRenderers[Any, Any]], union: object = ContentBlock
) -> dict[str, list[str]]:
    """Each place among ``registries`` that lacks a member of ``union``, with the types it
    lacks (empty when every place is total)."""
    gaps = {r.place: r.missing(union) for r in registries}
    return {place: kinds for place, kinds in gaps.items() if kinds}
