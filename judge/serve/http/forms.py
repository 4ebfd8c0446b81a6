"""multipart/form-data bodies: the pages' forms and the API's DOMjudge-style submission (docs/serve.md,
"DOMjudge compatibility"). A form is read from a body already read within its limit, with bounded fields
and files; a malformed one is a 400."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping
from dataclasses import dataclass

import anyio
from starlette.datastructures import Headers, UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import ClientDisconnect, Request

from judge.serve.model.errors import Refused

MULTIPART = "multipart/form-data"
JSON = "application/json"


@dataclass(frozen=True)
class FormFile:
    """A file a form uploaded."""

    filename: str
    data: bytes


@dataclass(frozen=True)
class Form:
    """A form's fields (the last value of each name) and its files, in the order sent, with their field's
    name (several may share one, as DOMjudge's ``code[]``)."""

    fields: Mapping[str, str]
    files: tuple[tuple[str, FormFile], ...]

    def file_map(self) -> dict[str, FormFile]:
        """One file per field (the last): what a page's form has."""
        return dict(self.files)


CLOSE = {"Connection": "close"}  # a refusal sent before the body was read: the rest of it is not waited for


@dataclass(frozen=True)
class BodyDeadlines:
    """How long a request body may take to arrive, from the first byte asked to the last (issue 43): a body
    that dribbles in holds its connection and what it sent so far. Later: a 408, the connection closed.
    Fixed (no option): a page's form or a submission is at most a few hundred KiB."""

    seconds: float = 30.0  # every body but a package's
    package_seconds: float = 300.0  # a package version's zip (admins only; up to 64 MiB: about 220 KiB/s)


DEADLINES = BodyDeadlines()


async def read_body(request: Request, limit: int, seconds: float) -> bytes:
    """The request's body, at most ``limit`` bytes (else a 413, before reading more than that), within
    ``seconds`` (else a 408). Both close the connection (``CLOSE``): the rest is not read."""
    declared = request.headers.get("content-length", "")
    too_big = f"the request body is larger than {limit // 1024} KiB"
    if declared.isdigit() and int(declared) > limit:
        raise Refused(413, too_big, CLOSE)
    chunks, total = [], 0
    try:
        with anyio.fail_after(seconds):
            async for chunk in request.stream():
                total += len(chunk)
                if total > limit:
                    raise Refused(413, too_big, CLOSE)
                chunks.append(chunk)
    except TimeoutError:
        raise Refused(408, f"the request body did not arrive within {seconds:g} s", CLOSE) from None
    except ClientDisconnect:  # a client that gave up (a timeout under load): one line, not a traceback
        raise Refused(400, "the client closed the connection before its request body arrived") from None
    return b"".join(chunks)


async def parse_form(headers: Headers, body: bytes, *, max_files: int, max_fields: int, limit: int) -> Form:
    """The form in ``body`` (read already, within ``limit``). Raises Refused (400 malformed, 413 too large)."""

    async def stream() -> AsyncGenerator[bytes, None]:
        yield body
        yield b""

    parser = MultiPartParser(headers, stream(), max_files=max_files, max_fields=max_fields, max_part_size=limit)
    try:
        form = await parser.parse()
    except MultiPartException as exc:
        raise Refused(400, f"a malformed form: {exc.message}") from None
    try:
        fields: dict[str, str] = {}
        files: list[tuple[str, FormFile]] = []
        for key, value in form.multi_items():
            if isinstance(value, UploadFile):
                data = await value.read(limit + 1)
                if len(data) > limit:
                    raise Refused(413, f"the file is larger than {limit // 1024} KiB")
                if value.filename:
                    files.append((key, FormFile(value.filename, data)))
            else:
                fields[key] = value
        return Form(fields, tuple(files))
    finally:
        await form.close()
