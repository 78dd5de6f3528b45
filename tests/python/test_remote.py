# SPDX-License-Identifier: Apache-2.0
"""The Python binding against an agent on the network: the TypeScript-SDK peer served by the
SDK's own server side (tests/peers/ts-agent/server.mjs) over WebSocket and Streamable HTTP.
Needs a libacp built with remote transports (ACP_WITH_REMOTE, the default)."""
import asyncio
import json
import os
import subprocess
import unittest

import libacp

NODE = os.environ.get("ACP_NODE", "node")
AGENT = os.environ.get("ACP_TS_AGENT", os.path.join(os.path.dirname(__file__), "..", "peers", "ts-agent",
                                                     "agent.mjs"))
SERVER = os.path.join(os.path.dirname(os.path.abspath(AGENT)), "server.mjs")


class Server:
    """server.mjs on an ephemeral loopback port; ends with its stdin."""

    def __init__(self, *flags):
        self.process = subprocess.Popen([NODE, SERVER, "--port=0"] + list(flags), stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.urls = json.loads(self.process.stdout.readline())
        self.process.stdout.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.process.terminate()
        self.process.wait()


def permission_turn(client):
    client.initialize()
    session = client.new_session(cwd="/tmp")
    client.on_permission = lambda request: "allow-once"
    assert session.prompt("permission").wait() == "end_turn"
    return [(item.kind, item.text) for item in session.model().items]


class RemoteClientTest(unittest.TestCase):
    def test_websocket_and_http_give_the_model_stdio_gives(self):
        with libacp.Client([NODE, AGENT]) as client:
            expected = permission_turn(client)
        self.assertIn(("agent_message", "Permission granted (allow-once); the command ran."), expected)
        with Server() as server:
            for scheme in ("ws", "http"):
                with libacp.Client(url=server.urls[scheme]) as client:
                    self.assertEqual(permission_turn(client), expected, scheme)

    def test_a_missing_token_is_an_error_and_the_right_one_connects(self):
        with Server("--require-token=py-token") as server:
            for scheme in ("ws", "http"):
                with libacp.Client(url=server.urls[scheme]) as client:
                    with self.assertRaises(libacp.AcpError) as refused:
                        client.initialize()
                    self.assertIn("401", str(refused.exception))
                with libacp.Client(url=server.urls[scheme], headers={"Authorization": "Bearer py-token"}) as client:
                    self.assertEqual(client.initialize()["info"]["name"], "libacp-ts-peer")

    def test_async_client_over_http(self):
        async def main(url):
            async with libacp.AsyncClient(url=url) as client:
                await client.initialize()
                session = await client.new_session(cwd="/tmp")
                self.assertEqual(await session.prompt("hello"), "end_turn")
                return session.model().items[-1].text

        with Server() as server:
            self.assertEqual(asyncio.run(main(server.urls["http"])), "Hello, world!")

    def test_an_unsupported_scheme_is_refused_at_once(self):
        with self.assertRaises(libacp.AcpError):
            libacp.Client(url="ftp://127.0.0.1/acp")


if __name__ == "__main__":
    unittest.main()
