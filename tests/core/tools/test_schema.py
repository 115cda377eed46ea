"""The schema the model is shown: from annotations and docstrings, without injected params."""

from __future__ import annotations

import inspect
from typing import Literal

import pytest
from pydantic import BaseModel

from app.core.errors import UserError
from app.core.tools import Runtime, Tool, tool


class Address(BaseModel):
    """A postal address."""

    street: str
    city: str


@tool(
    permissions=("crm:write",),
    secret_refs={"token": "crm/api-token"},
    timeout=10,
    requires_approval=True,
)
def update_ticket(
    ticket_id: str,
    status: Literal["open", "closed"],
    token: str,
    runtime: Runtime,
    note: str | None = None,
    priority: int = 3,
) -> dict[str, str]:
    """Update a ticket in the CRM.

    Use it to change a ticket's status.

    Args:
        ticket_id: The ticket, e.g. T-42.
        status (str): The new status;
            closed tickets are archived.
        token: The API token (never shown).
        runtime: Injected.
        note: A note added to the ticket.

    Returns:
        The updated ticket.
    """
    return {"id": ticket_id}


def test_seed_example_schema_has_only_model_parameters() -> None:
    params = update_ticket.spec.parameters
    assert list(params["properties"]) == ["ticket_id", "status", "note", "priority"]
    assert params["required"] == ["ticket_id", "status"]
    assert params["additionalProperties"] is False
    assert "token" not in str(params) and "runtime" not in str(params).lower()


def test_docstring_gives_descriptions() -> None:
    props = update_ticket.spec.parameters["properties"]
    assert props["ticket_id"]["description"] == "The ticket, e.g. T-42."
    assert props["status"]["description"] == "The new status; closed tickets are archived."
    assert props["status"]["enum"] == ["open", "closed"]
    assert "description" not in props["priority"]
    assert props["priority"]["default"] == 3
    assert (
        update_ticket.description
        == "Update a ticket in the CRM.\n\nUse it to change a ticket's status."
    )


def test_tool_keeps_options_and_stays_callable() -> None:
    assert isinstance(update_ticket, Tool)
    assert update_ticket.name == "update_ticket"
    assert update_ticket.permissions == ("crm:write",)
    assert update_ticket.secret_refs == {"token": "crm/api-token"}
    assert update_ticket.timeout == 10
    assert update_ticket.requires_approval is True
    assert update_ticket.runtime_param == "runtime"
    assert update_ticket("T-1", "open", "tok", None) == {"id": "T-1"}  # type: ignore[arg-type]


async def test_bare_decorator_on_async_function() -> None:
    @tool
    async def add(a: int, b: int = 2) -> int:
        """Add two numbers."""
        return a + b

    assert isinstance(add, Tool) and add.is_async
    assert add.spec.name == "add" and add.spec.description == "Add two numbers."
    assert add.spec.parameters["properties"] == {
        "a": {"type": "integer"},
        "b": {"type": "integer", "default": 2},
    }
    assert inspect.iscoroutinefunction(add.fn)
    assert await add(1) == 3


def test_name_and_description_override() -> None:
    @tool(name="lookup-city", description="Find a city.")
    def find(name: str) -> str:
        """Ignored."""
        return name

    assert find.spec.name == "lookup-city"
    assert find.spec.description == "Find a city."


def test_sphinx_and_numpy_docstrings() -> None:
    @tool
    def sphinx(city: str, days: int) -> str:
        """Forecast.

        :param city: The city
            to forecast.
        :param int days: How many days.
        :returns: text
        """
        return city

    @tool
    def numpy(city: str) -> str:
        """Forecast.

        Parameters
        ----------
        city : str
            The city.
        """
        return city

    props = sphinx.spec.parameters["properties"]
    assert props["city"]["description"] == "The city to forecast."
    assert props["days"]["description"] == "How many days."
    assert sphinx.description == "Forecast."
    assert numpy.spec.parameters["properties"]["city"]["description"] == "The city."
    assert numpy.description == "Forecast."


def test_nested_models_and_no_titles() -> None:
    @tool
    def ship(to: Address, express: bool = False) -> str:
        """Ship a parcel."""
        return to.city

    params = ship.spec.parameters
    assert "title" not in params and "title" not in params["properties"]["express"]
    assert params["properties"]["to"] == {"$ref": "#/$defs/Address"}
    assert set(params["$defs"]["Address"]["properties"]) == {"street", "city"}


def test_a_property_named_title_is_kept() -> None:
    @tool
    def note(title: str) -> str:
        """Make a note."""
        return title

    assert note.spec.parameters["properties"] == {"title": {"type": "string"}}


def test_optional_runtime_is_injected_too() -> None:
    @tool
    def where(city: str, rt: Runtime | None = None) -> str:
        """Where."""
        return city

    assert where.runtime_param == "rt"
    assert list(where.spec.parameters["properties"]) == ["city"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"secret_refs": {"key": "svc/key"}}, "not parameters"),
        ({"timeout": 0}, "timeout must be positive"),
        ({"name": "has space"}, "may hold only"),
    ],
)
def test_bad_declarations_fail_at_decoration(options: dict[str, object], message: str) -> None:
    def f(city: str) -> str:
        return city

    with pytest.raises(UserError, match=message):
        tool(**options)(f)  # type: ignore[call-overload]


def test_var_args_are_refused() -> None:
    def f(*cities: str) -> str:
        return ""

    with pytest.raises(UserError, match=r"\*args"):
        tool(f)
