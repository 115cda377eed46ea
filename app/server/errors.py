"""Errors in OpenAI's shape: ``{"error": {"message", "type", "param", "code"}}``, one
sentence saying what happened and what to do."""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse

__all__ = ["ApiError", "error_body"]


def error_body(message: str, kind: str, code: str, param: str | None = None) -> dict[str, Any]:
    """The JSON body of an error."""
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


class ApiError(Exception):
    """A request the server refuses: its HTTP status, the error the client reads, and the
    headers sent with it (``retry-after``)."""

    def __init__(
        self,
        status: int,
        message: str,
        kind: str,
        code: str,
        param: str | None = None,
        *,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.headers = headers or {}
        self.status = status
        self.message = message
        self.kind = kind
        self.code = code
        self.param = param

    def response(self) -> JSONResponse:
        """The error as the response sent to the client."""
        body = error_body(self.message, self.kind, self.code, self.param)
        return JSONResponse(body, status_code=self.status, headers=self.headers)
