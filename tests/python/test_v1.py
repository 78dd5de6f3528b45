# SPDX-License-Identifier: Apache-2.0
"""The Python binding against an ACP v1 agent: the TypeScript-SDK peer's v1 entry point
(tests/peers/ts-agent/agent-v1.mjs), next to the agent.mjs that ACP_TS_AGENT names. The
host sees the same v2-shaped updates and model as with a v2 agent, asks which version was
negotiated, and serves the v1 client methods (fs, terminals) with plain callables or
coroutines.
"""
import asyncio
import os
import tempfile
import unittest

import libacp

NODE = os.environ.get("ACP_NODE", "node")
AGENT_DIR = os.path.dirname(os.environ.get("ACP_TS_AGENT", os.path.join(os.path.dirname(__file__), "..", "peers",
                                                                        "ts-agent", "agent.mjs")))
AGENT_V1 = [NODE, os.path.join(AGENT_DIR, "agent-v1.mjs")]


def last_agent_text(session):
    return [item for item in session.model().items if item.kind == "agent_message"][-1].text


class Terminals:
    """An IDE's terminal panel, as far as the peer's `term` script needs it."""

    def __init__(self):
        self.calls = []

    def create(self, params):
        self.calls.append(("create", params["command"], params.get("args")))
        return "t-1"  # just the id: the binding makes the CreateTerminalResponse

    def output(self, params):
        self.calls.append(("output", params["terminalId"]))
        return {"output": "hi\n", "truncated": False}

    def wait_for_exit(self, params):
        self.calls.append(("wait_for_exit", params["terminalId"]))
        return {"exitCode": 0}

    def kill(self, params):
        self.calls.append(("kill", params["terminalId"]))

    def release(self, params):
        self.calls.append(("release", params["terminalId"]))


class V1AgentTest(unittest.TestCase):
    def test_negotiated_down_with_the_same_model_and_fs_served_by_the_host(self):
        with libacp.Client(AGENT_V1, name="libacp-python-v1") as client:
            self.assertEqual(client.negotiated_version, 0)
            files = {"/tmp/in.txt": "hello"}
            written = {}

            def write(params):
                written[params["path"]] = params["content"]
            client.serve_files(read=lambda params: files[params["path"]], write=write)
            client.initialize()
            # CLIENT-MUST-23: the agent answered 1, the connection goes on in v1.
            self.assertEqual(client.negotiated_version, 1)
            self.assertEqual(client.agent["protocolVersion"], 1)
            # The v1 answer itself: the markers that gate load, list, resume and close.
            self.assertTrue(client.agent_v1["agentCapabilities"]["loadSession"])
            self.assertIn("list", client.agent_v1["agentCapabilities"]["sessionCapabilities"])
            session = client.new_session(cwd="/tmp")

            kinds = [update["sessionUpdate"] for update in session.prompt("caps")]
            self.assertEqual(kinds[-1], "state_update")  # the v1 prompt response, lifted
            said = last_agent_text(session)
            self.assertIn('"fs":{"readTextFile":true,"writeTextFile":true}', said)
            self.assertIn('"terminal":false', said)  # no terminals served: none advertised
            self.assertIn("libacp-python-v1", said)

            session.prompt("fs").wait()
            self.assertEqual(written, {"/tmp/out.txt": "olleh"})
            self.assertEqual(last_agent_text(session), "read 5 chars, wrote them reversed")

            # A v1 tool call becomes a v2 tool call item; the turn ends idle with its reason.
            session.prompt("work").wait()
            model = session.model()
            self.assertTrue(model.is_idle)
            self.assertEqual(model.stop_reason, "end_turn")
            self.assertIn("tool_call", [item.kind for item in model.items])
            self.assertEqual(client.handler_errors, [])

    def test_libacp_serves_files_confined_to_the_session_directories(self):
        with tempfile.TemporaryDirectory() as scratch:
            base = os.path.realpath(scratch)
            project = os.path.join(base, "project")
            os.mkdir(project)
            with open(os.path.join(project, "in.txt"), "w") as f:
                f.write("world")
            with open(os.path.join(base, "secret.txt"), "w") as f:
                f.write("secret")
            os.symlink(os.path.join(base, "secret.txt"), os.path.join(project, "link-out"))
            with libacp.Client(AGENT_V1) as client:
                client.serve_confined_files()
                client.initialize()
                session = client.new_session(cwd=project)
                session.prompt("fs").wait()
                self.assertEqual(last_agent_text(session), "read 5 chars, wrote them reversed")
                with open(os.path.join(project, "out.txt")) as f:
                    self.assertEqual(f.read(), "dlrow")
                # The check alone, for a host that serves files from its own buffers.
                inside = os.path.join(project, "in.txt")
                self.assertEqual(client.confine_path(session.id, inside), inside)
                for outside in (project + "/../secret.txt", project + "/link-out", "in.txt", inside + "\0x"):
                    with self.assertRaises(libacp.InvalidArgument, msg=outside) as refused:
                        client.confine_path(session.id, outside)
                    self.assertEqual(refused.exception.rpc_code, -32602)
                with self.assertRaises(libacp.NotFound) as foreign:
                    client.confine_path("not-mine", inside)
                self.assertEqual(foreign.exception.rpc_code, -32002)
                self.assertEqual(client.handler_errors, [])

    def test_a_missing_file_and_a_bad_answer_reach_the_agent_as_errors(self):
        with libacp.Client(AGENT_V1) as client:
            answers = iter([{"content": 42}])  # not a ReadTextFileResponse

            def read(params):
                answer = next(answers, None)
                if answer is None:
                    raise FileNotFoundError(params["path"])
                return answer
            client.serve_files(read=read, write=lambda params: None)
            client.on_handler_error = lambda error: None
            client.initialize()
            session = client.new_session(cwd="/tmp")
            with self.assertRaises(libacp.RpcError):
                session.prompt("fs").wait()  # the agent's script fails on the refused read
            self.assertEqual(len(client.handler_errors), 1)
            self.assertIn("fs/read_text_file", str(client.handler_errors[0]))
            with self.assertRaises(libacp.RpcError):
                session.prompt("fs").wait()
            self.assertIsInstance(client.handler_errors[1], FileNotFoundError)
            # The client keeps working.
            session.prompt("hello").wait()
            self.assertEqual(last_agent_text(session), "Hello, world!")

    def test_terminals_served_by_an_object_and_protocol_version_1_first(self):
        terminals = Terminals()
        with libacp.Client(AGENT_V1, protocol_version=1) as client:
            sent = []
            client.on_traffic = lambda direction, line: sent.append(line) if direction == "out" else None
            client.observe_traffic()
            client.serve_terminals(terminals)
            client.initialize()
            self.assertEqual(client.negotiated_version, 1)
            self.assertEqual(len([line for line in sent if '"method":"initialize"' in line]), 1)
            session = client.new_session(cwd="/tmp")
            session.prompt("term").wait()
            self.assertEqual([call[0] for call in terminals.calls], ["create", "wait_for_exit", "output", "release"])
            self.assertEqual(terminals.calls[0], ("create", "echo", ["hi"]))
            self.assertEqual(last_agent_text(session), 'terminal said "hi\\n", exit 0')
            tool = [item for item in session.model().items if item.kind == "tool_call"][0]
            self.assertEqual(tool.status, "completed")
            # The host's terminal shows in the model, from what the object answered.
            terminal = [item for item in session.model().items if item.kind == "terminal"][0]
            self.assertEqual((terminal.id, terminal.text), ("t-1", "hi\n"))
            self.assertEqual(terminal.data["exitStatus"]["exitCode"], 0)
        with self.assertRaises(TypeError):
            libacp.Client(AGENT_V1).serve_terminals(object())
        with self.assertRaises(ValueError):
            libacp.Client(AGENT_V1, protocol_version=3)

    def test_async_client_serves_files_with_coroutines(self):
        async def main():
            async with libacp.AsyncClient(AGENT_V1) as client:
                async def read(params):
                    await asyncio.sleep(0.01)  # an editor buffer fetched asynchronously
                    return "abc"
                written = []

                async def write(params):
                    written.append(params["content"])
                client.serve_files(read=read, write=write)
                await client.initialize()
                self.assertEqual(client.negotiated_version, 1)
                session = await client.new_session(cwd="/tmp")
                await session.prompt("fs")
                self.assertEqual(written, ["cba"])
        asyncio.run(main())


if __name__ == "__main__":
    unittest.main()
