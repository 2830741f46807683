"""Build ZIP archives in memory, including the malformed kinds an oracle must refuse.

Everything is generated from code so a reader can see exactly what each
archive contains; no binary fixture can rot or hide something.
"""

from __future__ import annotations

import hashlib
import io
import stat
import struct
import zipfile
from collections.abc import Mapping


def _info(name: str, mode: int | None) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    if mode is None:
        info.create_system = 0  # made on Windows: no Unix mode bits at all
        info.external_attr = 0x20  # MS-DOS "archive" attribute
    else:
        info.create_system = 3
        info.external_attr = mode << 16
    return info


def zip_bytes(files: Mapping[str, str | bytes], *, windows: bool = False, links: dict[str, str] | None = None) -> bytes:
    """A ZIP of `files` (name -> content); `links` adds symlink entries (name -> target)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in files.items():
            archive.writestr(_info(name, None if windows else stat.S_IFREG | 0o600), content)
        for name, target in (links or {}).items():
            archive.writestr(_info(name, stat.S_IFLNK | 0o777), target)
    return buffer.getvalue()


def incompressible(size: int, seed: str = "calibration") -> bytes:
    """Deterministic bytes that deflate cannot shrink (a hash chain)."""
    out = bytearray()
    block = seed.encode()
    while len(out) < size:
        block = hashlib.sha256(block).digest()
        out += block
    return bytes(out[:size])


def lying_size_zip(files: dict[str, str | bytes], liar: str, claimed: int) -> bytes:
    """A ZIP whose entry `liar` declares `claimed` uncompressed bytes in both headers while holding more.

    The CRC stays that of the real content, so only a reader that counts the
    bytes it actually inflates notices the lie.
    """
    data = bytearray(zip_bytes(files))
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as archive:
        info = archive.getinfo(liar)
        central = archive.start_dir
    struct.pack_into("<I", data, info.header_offset + 22, claimed)  # local header: uncompressed size
    while True:  # walk the central directory to the liar's record
        assert data[central : central + 4] == b"PK\x01\x02", "central directory not where zipfile said"
        name_len, extra_len, comment_len = struct.unpack_from("<HHH", data, central + 28)
        if data[central + 46 : central + 46 + name_len].decode() == liar:
            struct.pack_into("<I", data, central + 24, claimed)
            return bytes(data)
        central += 46 + name_len + extra_len + comment_len
