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

#: The journal format this package reads and writes (the header's "fusionJournal").
FORMAT_VERSION = 1


@dataclass(frozen=True, slots=True)
class ParsedJournal:
    """A journal as read: its header, its records, how many bytes of it are good (the
    rest is a torn last line, cut off before appending), and why that line was dropped."""
    header: dict[str, Any]
    records: list[dict[str, Any]]
    good_length: int
    dropped: str | None


def encode_line(record: Mapping[str, Any]) -> bytes:
    """A record as its line: compact JSON, a space, the CRC-32 of the JSON's bytes in
    eight lowercase hex digits, a newline."""
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode()
    return text + b" %08x\n" % zlib.crc32(text)


def parse_journal(data: bytes, path: str) -> ParsedJournal | None:
    """Reads a journal's bytes; None when there are none. A torn last line (no newline,
    or a checksum that does not match) is dropped and said why; a bad line anywhere
    else, or a first line that is not a FusionKit journal header of this format, raises
    JournalError naming `path`."""
    if not data:
        return None
    lines = data.split(b"\n")
    complete = lines[:-1]  # the part after the last newline is torn, or b""
    entries = [(line, True) for line in complete] + ([(lines[-1], False)] if lines[-1] else [])
    values: list[dict[str, Any]] = []
    good = 0
    dropped: str | None = None
    for number, (line, whole) in enumerate(entries):
        problem = None if whole else "it does not end with a newline"
        value: Any = None
        if problem is None:
            text, _, written = line.rpartition(b" ")
            if len(written) != 8 or not text:
                problem = "it has no checksum"
            elif b"%08x" % zlib.crc32(text) != written:
                problem = "its checksum does not match"
            else:
                try:
                    value = strict_loads(text)
                except ValueError as error:
                    problem = f"its checksum matches but it is not JSON: {error}"
        if problem is not None:
            if number != len(entries) - 1 or number == 0:
                raise JournalError(f"journal {path}: line {number + 1} is damaged ({problem}); "
                                   "the journal is not read rather than read wrong")
            dropped = (f"the last record (line {number + 1}) was torn, most likely by a crash while it was "
                       f"written ({problem}): it is dropped")
            break
        values.append(value)
        good += len(line) + 1
    header = values[0]
    if not isinstance(header, dict) or "fusionJournal" not in header:
        raise JournalError(f'journal {path}: it is not a FusionKit journal (its first line has no "fusionJournal")')
    if header["fusionJournal"] != FORMAT_VERSION:
        raise JournalError(f"journal {path}: it is in journal format {header['fusionJournal']}; "
                           f"this package reads format {FORMAT_VERSION}")
    return ParsedJournal(header, values[1:], good, dropped)


def read_journal(path: str) -> ParsedJournal | None:
    """The journal at `path`; None when there is none (no file, or an empty one)."""
    try:
        with open(path, "rb") as file:
            data = file.read()
    except FileNotFoundError:
        return None
    return parse_journal(data, path)
