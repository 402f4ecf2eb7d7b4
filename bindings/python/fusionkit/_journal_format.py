"""The journal file format (docs/rules/journal-format.md), and nothing else: how a
record is written as a line, and how a journal's bytes are read back. journal.py
journals instances with it; Swift's FusionHost.JournalFile reads and writes the same
lines, and both are held to the vectors in Tests/vectors/journal-format."""
from __future__ import annotations

import json
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._text import strict_loads
from .errors import JournalError

#: The journal format this package writes (the header's "fusionJournal"): 2, each
#: record's CRC going on from the line before's.
FORMAT_VERSION = 2
#: The formats it reads: 1 (each line's CRC its own) and 2.
READABLE_FORMATS = (1, 2)


def whole(value: Any) -> int | None:
    """A whole number however JSON wrote it (docs/rules/journal-format.md: any form that
    reads back as the same value, so 2, 2.0 and 2e0 alike); None for anything else, a
    boolean too (True is an int to Python, not a number to JSON)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer() and -2.0**63 <= value < 2.0**63:
        return int(value)
    return None


def chains(header: Mapping[str, Any]) -> bool:
    """Whether a journal with this header chains its lines' CRCs (format 2 on)."""
    format_ = whole(header.get("fusionJournal", 1))
    return format_ is not None and format_ >= 2


@dataclass(frozen=True, slots=True)
class ParsedJournal:
    """A journal as read: its header, its records, how many bytes of it are good (the
    rest is a torn last line, cut off before appending), and why that line was dropped."""
    header: dict[str, Any]
    records: list[dict[str, Any]]
    good_length: int
    dropped: str | None
    #: The CRC of the last good line, which the next one's goes on from; None in format 1.
    chain: int | None = None


def encode_line(record: Mapping[str, Any], after: int | None = None) -> bytes:
    """A record as its line: compact JSON, a space, a CRC-32 in eight lowercase hex
    digits, a newline. The CRC is of the JSON's bytes, going on from `after` (the line
    before's CRC, in format 2) when given."""
    return line_and_crc(record, after)[0]


def encode_lines(lines: list[Mapping[str, Any]]) -> tuple[bytes, int | None]:
    """A whole journal's lines, the header first: chained in format 2 (each record's CRC
    going on from the line before's), each its own in format 1; and the CRC the next line
    goes on from (None in format 1)."""
    data, chain = b"", None
    for number, line in enumerate(lines):
        encoded, crc = line_and_crc(line, chain)
        data += encoded
        if number == 0 and chains(line) or chain is not None:
            chain = crc
    return data, chain


def line_and_crc(record: Mapping[str, Any], after: int | None = None) -> tuple[bytes, int]:
    """`encode_line`, and the line's CRC (for the next line to go on from)."""
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode()
    crc = zlib.crc32(text, after or 0)
    return text + b" %08x\n" % crc, crc


def parse_journal(data: bytes, path: str) -> ParsedJournal | None:
    """Reads a journal's bytes; None when there are none. A torn last line (no newline,
    or a checksum that does not match) is dropped and said why; a bad line anywhere
    else, a whole last line whose CRC does not go on from the line before it (format 2),
    or a first line that is not a FusionKit journal header of a format this package
    reads, raises JournalError naming `path`."""
    if not data:
        return None
    lines = data.split(b"\n")
    complete = lines[:-1]  # the part after the last newline is torn, or b""
    entries = [(line, True) for line in complete] + ([(lines[-1], False)] if lines[-1] else [])
    values: list[dict[str, Any]] = []
    good = 0
    dropped: str | None = None
    chain: int | None = None  # format 2: the CRC the next line's goes on from
    for number, (line, whole) in enumerate(entries):
        problem = None if whole else "it does not end with a newline"
        value: Any = None
        out_of_place = False
        if problem is None:
            text, _, written = line.rpartition(b" ")
            crc = zlib.crc32(text, chain or 0)
            if len(written) != 8 or not text:
                problem = "it has no checksum"
            elif b"%08x" % crc != written:
                problem = "its checksum does not match"
                # A whole line (its own CRC, or JSON) that does not go on from the one before
                # is no tear, even last: the line before it is missing, moved or changed.
                if chain is not None and (b"%08x" % zlib.crc32(text) == written or _is_json(text)):
                    problem = "its checksum does not match: it was changed, or a line before it was removed, moved or changed"
                    out_of_place = True
            else:
                try:
                    value = strict_loads(text)
                except ValueError as error:
                    problem = f"its checksum matches but it is not JSON: {error}"
                else:
                    if number == 0:
                        _check_header(value, path)  # its format says how the lines after it read
                        chain = crc if chains(value) else None
                    elif chain is not None:
                        chain = crc
        if problem is not None:
            if number != len(entries) - 1 or number == 0 or out_of_place:
                raise JournalError(f"journal {path}: line {number + 1} is damaged ({problem}); "
                                   "the journal is not read rather than read wrong")
            dropped = (f"the last record (line {number + 1}) was torn, most likely by a crash while it was "
                       f"written ({problem}): it is dropped")
            break
        values.append(value)
        good += len(line) + 1
    return ParsedJournal(values[0], values[1:], good, dropped, chain)


def _check_header(header: Any, path: str) -> None:
    if not isinstance(header, dict) or "fusionJournal" not in header:
        raise JournalError(f'journal {path}: it is not a FusionKit journal (its first line has no "fusionJournal")')
    format_ = whole(header["fusionJournal"])
    if format_ is None:
        raise JournalError(f'journal {path}: its "fusionJournal" is {json.dumps(header["fusionJournal"])}, '
                           "not a format number")
    if format_ not in READABLE_FORMATS:
        raise JournalError(f"journal {path}: it is in journal format {format_}; "
                           f"this package reads formats {READABLE_FORMATS[0]} to {READABLE_FORMATS[-1]}")


def _is_json(text: bytes) -> bool:
    try:
        strict_loads(text)
    except ValueError:
        return False
    return True


def read_journal(path: str) -> ParsedJournal | None:
    """The journal at `path`; None when there is none (no file, or an empty one)."""
    try:
        with open(path, "rb") as file:
            data = file.read()
    except FileNotFoundError:
        return None
    return parse_journal(data, path)
