#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A hostile remote ACP agent: Streamable HTTP and WebSocket, written by hand on sockets.

    python3 tests/peers/hostile_remote/server.py --mode=NAME [--bytes=N] [--count=N] [--record=FILE]

Python's standard library only, so every byte on the wire is chosen here. It listens on
127.0.0.1 (ephemeral port; both transports on one port, path /acp), prints one JSON line
    {"http":"http://127.0.0.1:P/acp","ws":"ws://127.0.0.1:P/acp","other":"http://127.0.0.1:Q/acp"}
("other" is a second listener standing for another host: a redirect may point there and
must never be followed), then exits when its standard input reaches EOF.

Underneath, a minimal well-behaved agent answers initialize, session/new (ids s-1, s-2, ...)
and refuses other requests with -32601; over HTTP every answer goes on the connection's
event stream. The --mode makes it misbehave in one way (see MODES). --record=FILE appends
one JSON line per request head received: {"listener":"main"|"other","method":..,"path":..,
"headers":[[name,value],...]} (values as latin-1 text).
"""

import argparse
import base64
import gzip
import hashlib
import json
import os
import queue
import socket
import socketserver
import struct
import sys
import threading
import zlib

MODES = {
    # HTTP
    "plain": "well behaved (HTTP and WebSocket)",
    "sse-endless-data": "connection stream: one 'data:' line of --bytes bytes, then the events",
    "sse-endless-comment": "connection stream: one comment line of --bytes bytes",
    "sse-endless-field": "connection stream: one field name of --bytes bytes",
    "sse-bad-utf8": "connection stream: events with invalid UTF-8, NUL and ESC bytes first",
    "session-id-crlf": "session/new answers a session id holding CR LF and a forged header",
    "session-id-every-answer": "every answer but initialize's names a new session (z-1, z-2, ...)",
    "cookie-flood": "initialize sets cookie affinity=1 (later POSTs without it get 400); every later "
                    "POST's answer sets 50 new cookies of 4000 bytes",
    "conn-id-huge": "initialize's Acp-Connection-Id is --bytes bytes long",
    "conn-id-ctl": "initialize's Acp-Connection-Id holds a bare CR and a forged header",
    "many-headers": "initialize's answer carries --count junk headers",
    "error-body-huge": "the first POST after initialize gets HTTP 500 with a --bytes body",
    "init-error-body-huge": "initialize gets HTTP 500 with a --bytes body",
    "init-endless-body": "initialize's answer (200, with a connection id) is a body that never ends",
    "post-endless-body": "every POST after initialize gets 202 with a body that never ends",
    "stream-refused-endless": "the connection's event stream is refused (500) with a body that never ends",
    "redirect-file": "initialize gets 302 to file:///etc/passwd",
    "redirect-host": "initialize gets 307 to the 'other' listener",
    "gzip-bomb": "the connection stream claims gzip and starts with a gzip bomb",
    "terminal-login": "initialize offers a terminal auth method (to any client); session/new needs a login (-32000)",
    "echo-headers": "echoes the request's headers: in a broken message, then in a 500 and a 401 body "
                    "to session/new (HTTP) or as the close reason (WS)",
    # WebSocket
    "ws-fragmented": "every message in 1-byte frames",
    "ws-huge": "after initialize, one text message of --bytes bytes in a single frame",
    "ws-binary": "after initialize, binary frames (garbage, then JSON)",
    "ws-reserved-opcode": "after initialize, a frame with the reserved opcode 3",
    "ws-close-escape": "after initialize, a close frame whose reason holds terminal escapes",
    "ws-ping-flood": "after initialize, --count pings of 125 bytes",
    "ws-no-close-ack": "never answers a close frame and never closes the socket (records 'eof' when the client does)",
    "ws-no-read": "after initialize, never reads again (the client's writes back up)",
    "ws-flood-requests": "after initialize, requests for a method nobody serves as fast as it can, and never "
                         "reads again (the client's answers back up)",
    "ws-upgrade-200": "answers the upgrade with 200 and a body",
}

INIT_RESULT = {"protocolVersion": 2, "info": {"name": "hostile", "version": "1"},
               "capabilities": {"session": {"prompt": {}}}}
PATH = "/acp"
CHUNK = 64 * 1024

args = None
record_lock = threading.Lock()
state_lock = threading.Lock()
streams = {}  # HTTP connection id -> queue of messages for its event stream
session_counter = [0]
first_post_failed = [False]


def record(listener, method, path, headers):
    if not args.record:
        return
    line = json.dumps({"listener": listener, "method": method, "path": path,
                       "headers": [[n, v] for n, v in headers]})
    with record_lock, open(args.record, "a", encoding="utf-8") as out:
        out.write(line + "\n")


def record_event(name):
    if args.record:
        with record_lock, open(args.record, "a", encoding="utf-8") as out:
            out.write(json.dumps({"event": name}) + "\n")


def agent_answer(message):
    """The well-behaved agent: the answer to one JSON-RPC message, or None."""
    if not isinstance(message, dict) or "method" not in message or "id" not in message:
        return None
    method = message["method"]
    if method == "initialize":
        result = INIT_RESULT
        if args.mode == "terminal-login":
            result = dict(INIT_RESULT, authMethods=[{"type": "terminal", "methodId": "tty-login",
                                                     "name": "Terminal login", "args": ["--login"]}])
        return {"jsonrpc": "2.0", "id": message["id"], "result": result}
    if method == "session/new" and args.mode == "terminal-login":
        return {"jsonrpc": "2.0", "id": message["id"],
                "error": {"code": -32000, "message": "Authentication required"}}
    if method == "session/new":
        with state_lock:
            session_counter[0] += 1
            sid = "s-%d" % session_counter[0]
        if args.mode == "session-id-crlf":
            sid += "\r\nX-Evil: 1"
        return {"jsonrpc": "2.0", "id": message["id"], "result": {"sessionId": sid}}
    if args.mode == "session-id-every-answer":
        with state_lock:
            session_counter[0] += 1
            sid = "z-%d" % session_counter[0]
        return {"jsonrpc": "2.0", "id": message["id"], "result": {"sessionId": sid}}
    return {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "Method not found"}}


def headers_text(headers):
    return "".join("%s: %s\n" % (n, v) for n, v in headers)


# --- HTTP ------------------------------------------------------------------------------

def send_response(sock, status, reason, headers, body=b""):
    head = "HTTP/1.1 %d %s\r\n" % (status, reason)
    for name, value in headers:
        head += "%s: %s\r\n" % (name, value)
    head += "Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body)
    sock.sendall(head.encode("latin-1"))
    for at in range(0, len(body), CHUNK):
        sock.sendall(body[at:at + CHUNK])


def send_endless(sock, status_line, headers):
    """A response without a length whose body goes on until the client hangs up."""
    head = status_line + "\r\n" + "".join("%s: %s\r\n" % h for h in headers) + "Connection: close\r\n\r\n"
    sock.sendall(head.encode("latin-1"))
    block = b"z" * CHUNK
    while True:
        sock.sendall(block)


def junk(size, byte=b"a"):
    """Yields size bytes of byte, a chunk at a time (nothing that big is ever held)."""
    block = byte * CHUNK
    while size > 0:
        n = min(size, CHUNK)
        yield block[:n]
        size -= n


def sse_event(message):
    return ("data: " + json.dumps(message) + "\n\n").encode("utf-8")


def serve_event_stream(sock, headers):
    conn_id = dict((n.lower(), v) for n, v in headers).get("acp-connection-id", "")
    session = dict((n.lower(), v) for n, v in headers).get("acp-session-id")
    if args.mode == "stream-refused-endless" and session is None:
        send_endless(sock, "HTTP/1.1 500 Internal Server Error", [("Content-Type", "text/plain")])
    extra = [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")]
    if args.mode == "gzip-bomb" and session is None:
        extra.append(("Content-Encoding", "gzip"))
    sock.sendall(("HTTP/1.1 200 OK\r\n" + "".join("%s: %s\r\n" % h for h in extra) +
                  "Connection: close\r\n\r\n").encode("latin-1"))
    if session is not None:
        # A session's stream: kept open, nothing on it (answers use the connection's).
        while sock.recv(4096):
            pass
        return
    mode = args.mode
    if mode == "sse-endless-data":
        sock.sendall(b"data: ")
        for block in junk(args.bytes):
            sock.sendall(block)
        sock.sendall(b"\n\n")
    elif mode == "sse-endless-comment":
        sock.sendall(b":")
        for block in junk(args.bytes):
            sock.sendall(block)
        sock.sendall(b"\n")
    elif mode == "sse-endless-field":
        for block in junk(args.bytes, b"x"):
            sock.sendall(block)
        sock.sendall(b"\n\n")
    elif mode == "sse-bad-utf8":
        update = '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":' \
                 '{"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"%s"}}}}'
        for text in (b"bad \xff\xfe utf8", b"nul \x00 byte", b"\xed\xa0\x80 surrogate", b"\xc0\xaf overlong"):
            sock.sendall(b"data: " + (update % "X").encode().replace(b"X", text) + b"\n\n")
        sock.sendall(b"data: \x1b]0;owned\x07\x1b[2J\x00\xff not json\n\n")
    elif mode == "gzip-bomb":
        # 100 MiB of a data line, then an event nobody may see, compressed to ~100 KiB.
        packer = zlib.compressobj(9, zlib.DEFLATED, 31)
        sock.sendall(packer.compress(b"data: "))
        for block in junk(100 * 1024 * 1024):
            piece = packer.compress(block)
            if piece:
                sock.sendall(piece)
        sock.sendall(packer.compress(b"\n\n" + sse_event({"jsonrpc": "2.0", "method": "x/decompressed"})))
        sock.sendall(packer.flush())
        sock.sendall(b"\n\n")
    elif mode == "echo-headers":
        sock.sendall(b"data: " + headers_text(headers).replace("\n", " | ").encode("latin-1") + b"\n\n")
    q = streams.setdefault(conn_id, queue.Queue())
    while True:
        message = q.get()
        if message is None:
            return
        sock.sendall(sse_event(message))


def handle_post(sock, headers, body):
    lower = dict((n.lower(), v) for n, v in headers)
    try:
        message = json.loads(body)
    except ValueError:
        send_response(sock, 400, "Bad Request", [], b"not json")
        return
    mode = args.mode
    if isinstance(message, dict) and message.get("method") == "initialize":
        if mode == "init-error-body-huge":
            head = "HTTP/1.1 500 Internal Server Error\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % args.bytes
            sock.sendall(head.encode())
            for block in junk(args.bytes, b"E"):
                sock.sendall(block)
            return
        if mode == "init-endless-body":
            send_endless(sock, "HTTP/1.1 200 OK", [("Content-Type", "application/json"), ("Acp-Connection-Id", "c-1")])
            return
        if mode == "redirect-file":
            send_response(sock, 302, "Found", [("Location", "file:///etc/passwd")])
            return
        if mode == "redirect-host":
            send_response(sock, 307, "Temporary Redirect", [("Location", args.other_url)])
            return
        conn_id = "c-%d" % threading.get_ident()
        if mode == "conn-id-huge":
            conn_id = "c" * args.bytes
        elif mode == "conn-id-ctl":
            conn_id = "c-1\rX-Evil: 1"
        streams.setdefault(conn_id, queue.Queue())
        extra = [("Content-Type", "application/json"), ("Acp-Connection-Id", conn_id)]
        if mode == "cookie-flood":
            extra.append(("Set-Cookie", "affinity=1; Path=/"))
        if mode == "many-headers":
            # Sent a batch at a time: --count may be millions.
            body = json.dumps(agent_answer(message)).encode()
            head = "HTTP/1.1 200 OK\r\n" + "".join("%s: %s\r\n" % h for h in extra)
            sock.sendall(head.encode("latin-1"))
            for start in range(0, args.count, 1000):
                sock.sendall("".join("X-Junk-%d: %s\r\n" % (i, "v" * 40)
                                     for i in range(start, min(start + 1000, args.count))).encode())
            sock.sendall(("Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body)).encode() + body)
            return
        send_response(sock, 200, "OK", extra, json.dumps(agent_answer(message)).encode())
        return
    if mode == "error-body-huge" and not first_post_failed[0]:
        first_post_failed[0] = True
        head = "HTTP/1.1 500 Internal Server Error\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % args.bytes
        sock.sendall(head.encode())
        for block in junk(args.bytes, b"\xff"):
            sock.sendall(block)
        return
    if mode == "echo-headers" and isinstance(message, dict) and message.get("method") == "session/new":
        # The first time a 500 (its body becomes the error's data), then a 401 (it closes).
        status = (401, "Unauthorized") if first_post_failed[0] else (500, "Internal Server Error")
        first_post_failed[0] = True
        send_response(sock, status[0], status[1], [], ("you sent: " + headers_text(headers)).encode("latin-1"))
        return
    if mode == "cookie-flood" and "affinity=1" not in lower.get("cookie", ""):
        send_response(sock, 400, "Bad Request", [], b"missing affinity cookie")
        return
    answer = agent_answer(message)
    if answer is not None:
        streams.setdefault(lower.get("acp-connection-id", ""), queue.Queue()).put(answer)
    if mode == "post-endless-body":
        send_endless(sock, "HTTP/1.1 202 Accepted", [])
        return
    cookies = []
    if mode == "cookie-flood":
        with state_lock:
            session_counter[0] += 1
            batch = session_counter[0]
        cookies = [("Set-Cookie", "k%d_%d=%s; Path=/" % (batch, i, "v" * 4000)) for i in range(50)]
    send_response(sock, 202, "Accepted", cookies)


# --- WebSocket -------------------------------------------------------------------------

def ws_frame(opcode, payload, fin=True):
    head = bytes([(0x80 if fin else 0) | opcode])
    n = len(payload)
    if n < 126:
        head += bytes([n])
    elif n < 65536:
        head += bytes([126]) + struct.pack(">H", n)
    else:
        head += bytes([127]) + struct.pack(">Q", n)
    return head + payload


def recv_exact(sock, n):
    data = b""
    while len(data) < n:
        piece = sock.recv(n - len(data))
        if not piece:
            raise ConnectionError("closed")
        data += piece
    return data


def read_ws_frame(sock):
    b0, b1 = recv_exact(sock, 2)
    n = b1 & 0x7F
    if n == 126:
        n = struct.unpack(">H", recv_exact(sock, 2))[0]
    elif n == 127:
        n = struct.unpack(">Q", recv_exact(sock, 8))[0]
    mask = recv_exact(sock, 4) if b1 & 0x80 else b"\0\0\0\0"
    payload = bytearray(recv_exact(sock, n))
    for i in range(len(payload)):
        payload[i] ^= mask[i % 4]
    return b0 & 0x0F, bytes(payload)


class WsPeer:
    def __init__(self, sock, headers):
        self.sock = sock
        self.headers = headers
        self.lock = threading.Lock()

    def send_raw(self, data):
        with self.lock:
            self.sock.sendall(data)

    def send_message(self, text):
        payload = text.encode("utf-8") if isinstance(text, str) else text
        if args.mode == "ws-fragmented":
            with self.lock:
                for i in range(len(payload)):
                    opcode = 0x1 if i == 0 else 0x0
                    self.sock.sendall(ws_frame(opcode, payload[i:i + 1], fin=i == len(payload) - 1))
            return
        self.send_raw(ws_frame(0x1, payload))

    def after_initialize(self):
        mode = args.mode
        if mode == "ws-huge":
            text_head = ws_frame(0x1, b"")[:1] + bytes([127]) + struct.pack(">Q", args.bytes)
            with self.lock:
                self.sock.sendall(text_head)
                for block in junk(args.bytes):
                    self.sock.sendall(block)
            self.send_message(json.dumps({"jsonrpc": "2.0", "method": "x/flood_done"}))
        elif mode == "ws-binary":
            self.send_raw(ws_frame(0x2, b"\x00\xff\x1b[2J garbage"))
            self.send_raw(ws_frame(0x2, b'{"jsonrpc":"2.0","method":"x/binary"}'))
        elif mode == "ws-reserved-opcode":
            self.send_raw(ws_frame(0x3, b"what is this"))
        elif mode == "ws-close-escape":
            reason = "\x1b]0;owned\x07\x1b[31m" + headers_text(self.headers).replace("\n", " ")
            self.send_raw(ws_frame(0x8, struct.pack(">H", 4000) + reason.encode("latin-1")[:120]))
        elif mode == "ws-ping-flood":
            ping = ws_frame(0x9, b"p" * 125)
            for _ in range(args.count // 64):
                self.send_raw(ping * 64)
            self.send_message(json.dumps({"jsonrpc": "2.0", "method": "x/flood_done"}))
        elif mode == "ws-flood-requests":
            next_id = 0
            try:
                while True:
                    block = []
                    for _ in range(256):
                        next_id += 1
                        request = {"jsonrpc": "2.0", "id": next_id, "method": "x/flood", "params": {}}
                        block.append(ws_frame(0x1, json.dumps(request).encode("utf-8")))
                    self.send_raw(b"".join(block))
            except OSError:
                return  # the client is gone
        elif mode == "echo-headers":
            self.send_message(headers_text(self.headers).replace("\n", " | ").encode("latin-1"))
            reason = headers_text(self.headers).replace("\n", " ").encode("latin-1")[:120]
            self.send_raw(ws_frame(0x8, struct.pack(">H", 4001) + reason))

    def run(self):
        pieces = []
        while True:
            try:
                opcode, payload = read_ws_frame(self.sock)
            except (ConnectionError, OSError):
                return
            if opcode == 0x8:
                if args.mode == "ws-no-close-ack":
                    continue  # no answer, socket stays open
                try:
                    self.send_raw(ws_frame(0x8, payload[:2]))
                except OSError:
                    pass
                return
            if opcode == 0x9:
                self.send_raw(ws_frame(0xA, payload))
                continue
            if opcode in (0x1, 0x2, 0x0):
                pieces.append(payload)
                # Client frames are whole messages here (libwebsockets sends them unfragmented).
                text = b"".join(pieces)
                pieces = []
                try:
                    message = json.loads(text)
                except ValueError:
                    continue
                answer = agent_answer(message)
                if answer is not None:
                    self.send_message(json.dumps(answer))
                if isinstance(message, dict) and message.get("method") == "initialize":
                    threading.Thread(target=self.after_initialize, daemon=True).start()
                    if args.mode in ("ws-no-read", "ws-flood-requests"):
                        threading.Event().wait()  # the socket is never read again


def serve_websocket(sock, headers):
    lower = dict((n.lower(), v) for n, v in headers)
    if args.mode == "ws-upgrade-200":
        send_response(sock, 200, "OK", [("Content-Type", "text/plain")], b"no websocket here\x1b[2J")
        return
    accept = base64.b64encode(hashlib.sha1(
        (lower.get("sec-websocket-key", "") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest()).decode()
    sock.sendall(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  "Sec-WebSocket-Accept: %s\r\n\r\n" % accept).encode())
    WsPeer(sock, headers).run()
    if args.mode == "ws-no-close-ack":
        while True:  # hold the socket open until the client gives up on it
            try:
                if not sock.recv(4096):
                    break
            except OSError:
                break
        record_event("eof")


# --- the listeners ---------------------------------------------------------------------

def read_head(sock):
    data = b""
    while b"\r\n\r\n" not in data:
        piece = sock.recv(4096)
        if not piece or len(data) > 1024 * 1024:
            return None, b""
        data += piece
    head, rest = data.split(b"\r\n\r\n", 1)
    return head.decode("latin-1"), rest


class Handler(socketserver.BaseRequestHandler):
    listener = "main"

    def handle(self):
        sock = self.request
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            head, rest = read_head(sock)
            if head is None:
                return
            lines = head.split("\r\n")
            method, path = lines[0].split(" ")[:2]
            headers = [tuple(part.strip() for part in line.split(":", 1)) for line in lines[1:] if ":" in line]
            record(self.listener, method, path, headers)
            if self.listener != "main":
                send_response(sock, 200, "OK", [], b"the other host")
                return
            lower = dict((n.lower(), v) for n, v in headers)
            if lower.get("upgrade", "").lower() == "websocket":
                serve_websocket(sock, headers)
                return
            if method == "GET":
                serve_event_stream(sock, headers)
                return
            if method == "DELETE":
                send_response(sock, 200, "OK", [])
                return
            length = int(lower.get("content-length", "0"))
            body = rest + (recv_exact(sock, length - len(rest)) if length > len(rest) else b"")
            handle_post(sock, headers, body)
        except (ConnectionError, OSError):
            pass


class OtherHandler(Handler):
    listener = "other"


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    global args
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", default="plain", choices=sorted(MODES))
    parser.add_argument("--bytes", type=int, default=1024 * 1024)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--record", default="")
    args = parser.parse_args()
    main_server = Server(("127.0.0.1", 0), Handler)
    other_server = Server(("127.0.0.1", 0), OtherHandler)
    port = main_server.server_address[1]
    args.other_url = "http://127.0.0.1:%d%s" % (other_server.server_address[1], PATH)
    for server in (main_server, other_server):
        threading.Thread(target=server.serve_forever, daemon=True).start()
    print(json.dumps({"http": "http://127.0.0.1:%d%s" % (port, PATH), "ws": "ws://127.0.0.1:%d%s" % (port, PATH),
                      "other": args.other_url}), flush=True)
    while sys.stdin.buffer.read(4096):
        pass
    os._exit(0)


if __name__ == "__main__":
    main()
