"""The oracle's HTTP/1.1 (oracle/wire.py), one function at a time, against the other end of a real socket pair.

The real engine is the peer in every other oracle test; here the test plays
it, to send the framings and the broken answers an engine rarely does.
"""

from __future__ import annotations

import io
import socket
import threading
from collections.abc import Iterator

import pytest

from oracle.wire import BLOCK, BadResponse, Connection


@pytest.fixture()
def pair() -> Iterator[tuple[Connection, socket.socket]]:
    """A client Connection and the socket the test answers it on."""
    ours, theirs = socket.socketpair()
    ours.settimeout(10)
    theirs.settimeout(10)
    connection = Connection(ours, "docker")
    yield connection, theirs
    connection.close()
    theirs.close()


def _received(peer: socket.socket, end: bytes, heads: int = 1) -> bytes:
    """What the client sent, read until it ends with `end` and holds `heads` request heads."""
    data = b""
    while not (data.endswith(end) and data.count(b"\r\n\r\n") >= heads):
        part = peer.recv(BLOCK)
        assert part, f"the client stopped after {data[-200:]!r}"
        data += part
    return data


def test_a_request_carries_its_head_and_a_byte_body(pair) -> None:
    connection, peer = pair
    peer.sendall(b"HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}")
    response = connection.request("POST", "/v1.41/containers/create", {"Content-Type": "application/json"}, b'{"a":1}')
    head, _, body = _received(peer, b'{"a":1}').partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    assert lines[0] == "POST /v1.41/containers/create HTTP/1.1"
    assert {"Host: docker", "Content-Type: application/json", "Content-Length: 7"} <= set(lines[1:])
    assert body == b'{"a":1}'
    assert (response.status, response.reason, response.read()) == (201, "Created", b"{}")


def test_a_stream_body_is_sent_chunked_and_arrives_whole(pair) -> None:
    connection, peer = pair
    content = bytes(range(256)) * 1000  # several blocks
    peer.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
    sent: list[bytes] = []
    reading = threading.Thread(
        target=lambda: sent.append(_received(peer, b"\r\n0\r\n\r\n"))
    )  # more than a socket buffer holds
    reading.start()
    connection.request("POST", "/images/create", {}, io.BytesIO(content))
    reading.join()
    head, _, rest = sent[0].partition(b"\r\n\r\n")
    assert b"Transfer-Encoding: chunked" in head.split(b"\r\n")
    decoded = b""
    while True:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line, 16)
        if size == 0:
            break
        decoded, rest = decoded + rest[:size], rest[size + 2 :]
    assert decoded == content and rest == b"\r\n"


def test_a_request_without_body_says_so_unless_it_is_a_get(pair) -> None:
    connection, peer = pair
    peer.sendall(b"HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK")
    first = connection.request("POST", "/containers/x/start", {})
    assert first.status == 204 and first.complete and first.read() == b""
    second = connection.request("GET", "/_ping", {})
    sent = _received(peer, b"\r\n\r\n", heads=2).split(b"\r\n\r\n")
    assert b"Content-Length: 0" in sent[0] and b"Content-Length" not in sent[1]
    assert second.read() == b"OK" and second.keep_alive


def test_a_chunked_response_is_read_by_size_and_by_line(pair) -> None:
    connection, peer = pair
    peer.sendall(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"5;ext=1\r\nhello\r\n7\r\n world\n\r\nB\r\nsecond line\r\n0\r\nX-Trailer: 1\r\n\r\n"
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\na\nb\n\r\n0\r\n\r\n"
    )
    response = connection.request("GET", "/x", {})
    assert response.read(3) == b"hel" and response.read(6) == b"lo wor"  # across a chunk's end
    assert response.read() == b"ld\nsecond line" and response.complete and response.keep_alive
    assert list(connection.request("GET", "/y", {})) == [b"a", b"b"]


def test_a_body_without_length_lasts_until_the_connection_closes(pair) -> None:
    connection, peer = pair
    peer.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end")
    peer.shutdown(socket.SHUT_WR)
    response = connection.request("GET", "/x", {})
    assert response.read() == b"until the end" and response.complete and not response.keep_alive


def test_connection_close_is_not_kept(pair) -> None:
    connection, peer = pair
    peer.sendall(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx")
    response = connection.request("GET", "/x", {})
    assert response.read() == b"x" and not response.keep_alive


@pytest.mark.parametrize(
    ("answer", "says"),
    [
        (b"", "without answering"),
        (b"SSH-2.0-OpenSSH_9.2\r\n", "not an HTTP/1.1 status line"),
        (b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "not a header"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: ten\r\n\r\n", "not a number"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", "5 bytes early"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "not a chunk size"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n9\r\nabc", "inside a chunk"),
        (b"HTTP/1.1 200 OK\r\nContent-Le", "inside the headers"),
    ],
)
def test_a_broken_answer_is_a_bad_response(pair, answer: bytes, says: str) -> None:
    connection, peer = pair
    peer.sendall(answer)
    peer.shutdown(socket.SHUT_WR)
    with pytest.raises(BadResponse, match=says):
        connection.request("GET", "/x", {}).read()


def test_an_idle_connection_the_peer_closed_is_dropped(pair) -> None:
    connection, peer = pair
    assert not connection.dropped()
    peer.close()
    assert connection.dropped()


def test_a_slow_answer_times_out_on_the_socket(pair) -> None:
    connection, peer = pair
    connection.sock.settimeout(0.2)
    answered = threading.Timer(5, lambda: peer.sendall(b"HTTP/1.1 200 OK\r\n\r\n"))
    answered.start()
    try:
        with pytest.raises(TimeoutError):
            connection.request("POST", "/containers/x/wait", {})
    finally:
        answered.cancel()
