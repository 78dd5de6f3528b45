# SPDX-License-Identifier: Apache-2.0
"""The Python binding against a real agent process: the TypeScript-SDK peer
(tests/peers/ts-agent). Run by CTest (python.binding) with ACP_LIBRARY, PYTHONPATH,
ACP_NODE and ACP_TS_AGENT set; by hand:

    ACP_LIBRARY=build/dev/libacp.so PYTHONPATH=bindings/python ACP_NODE=node \
    ACP_TS_AGENT=tests/peers/ts-agent/agent.mjs python3 -m unittest discover -s tests/python -v
"""
import asyncio
import gc
import os
import select
import shutil
import sys
import tempfile
import textwrap
import time
import unittest
import weakref

import libacp

NODE = os.environ.get("ACP_NODE", "node")
AGENT = os.environ.get("ACP_TS_AGENT", os.path.join(os.path.dirname(__file__), "..", "peers", "ts-agent",
                                                     "agent.mjs"))


def agent(*flags):
    return [NODE, AGENT] + list(flags)


def process_alive(pid):
    """True while the process exists and is not a zombie (an exited child not reaped yet)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


class SyncClientTest(unittest.TestCase):
    def test_a_permission_round_trip_runs_a_whole_turn_and_fills_the_model(self):
        with libacp.Client(agent()) as client:
            info = client.initialize()
            self.assertEqual(info["info"]["name"], "libacp-ts-peer")
            self.assertEqual(client.agent["protocolVersion"], 2)
            session = client.new_session(cwd="/tmp")
            asked = []

            def permission(request):
                asked.append(request)
                return "allow-once"
            client.on_permission = permission
            kinds = [update["sessionUpdate"] for update in session.prompt("permission")]
            self.assertEqual(len(asked), 1)
            self.assertEqual(asked[0]["sessionId"], session.id)
            self.assertIn("tool_call_update", kinds)
            self.assertEqual(kinds[-1], "state_update")
            model = session.model()
            self.assertTrue(model.is_idle)
            self.assertEqual(model.stop_reason, "end_turn")
            tool = [item for item in model.items if item.kind == "tool_call"][0]
            self.assertEqual((tool.id, tool.status, tool.title), ("tc1", "completed", "Run rm -rf build"))
            self.assertEqual(model.items[-1].text, "Permission granted (allow-once); the command ran.")
            self.assertEqual(client.session_ids(), [session.id])

    def test_sessions_are_listed_page_by_page_or_all_at_once(self):
        with libacp.Client(agent("--page-size=2")) as client:
            client.initialize()
            ids = [client.new_session(cwd="/tmp").id for _ in range(3)]
            first = client.list_sessions_page()
            self.assertEqual([info["sessionId"] for info in first["sessions"]], ids[:2])
            second = client.list_sessions_page(cursor=first["nextCursor"])
            self.assertEqual([info["sessionId"] for info in second["sessions"]], ids[2:])
            self.assertNotIn("nextCursor", second)
            self.assertEqual([info["sessionId"] for info in client.list_sessions()], ids)
            self.assertEqual(client.list_sessions_page(cwd="/elsewhere")["sessions"], [])

    def test_errors_are_typed_exceptions(self):
        with libacp.Client(agent()) as client:
            with self.assertRaises(libacp.InvalidArgument):
                client.new_session(cwd="/tmp")  # before initialize (CLIENT-MUST-20)
            client.initialize()
            with self.assertRaises(libacp.InvalidArgument):
                client.new_session(cwd="relative/path")  # CLIENT-MUST-38, refused locally
            with self.assertRaises(libacp.RpcError) as caught:
                client.prompt("no-such-session", "hello").wait()
            self.assertEqual(caught.exception.rpc_code, -32002)
            with self.assertRaises(libacp.NotFound):
                client.model("no-such-session")

    def test_auth_required_is_its_own_exception(self):
        with libacp.Client(agent("--auth-required")) as client:
            client.initialize()
            with self.assertRaises(libacp.AuthRequired):
                client.new_session(cwd="/tmp")
            client.login("test-login")
            self.assertTrue(client.new_session(cwd="/tmp").id.startswith("sess-"))

    def test_a_python_exception_in_a_handler_is_reported_and_the_client_keeps_working(self):
        with libacp.Client(agent()) as client:
            client.initialize()
            session = client.new_session(cwd="/tmp")
            reported = []
            client.on_handler_error = reported.append

            def broken(request):
                raise RuntimeError("the dialog crashed")
            client.on_permission = broken
            # The request is answered "cancelled", never approved.
            self.assertEqual(session.prompt("permission").wait(), "cancelled")
            self.assertEqual(len(reported), 1)
            self.assertIsInstance(reported[0], RuntimeError)
            client.on_update = lambda update: 1 / 0
            self.assertEqual(session.prompt("hello").wait(), "end_turn")
            self.assertTrue(all(isinstance(e, ZeroDivisionError) for e in reported[1:]))
            self.assertGreater(len(reported), 1)
            self.assertEqual(session.model().items[-1].text, "Hello, world!")

    def test_a_handler_object_collected_while_the_agent_talks_is_harmless(self):
        with libacp.Client(agent("--slow-ticks=30", "--slow-ms=5")) as client:
            client.initialize()
            session = client.new_session(cwd="/tmp")

            class Panel:
                seen = 0

                def render(self, update):
                    self.seen += 1
            panel = Panel()
            gone = weakref.ref(panel)
            client.on_update = panel.render
            updates = 0
            for _ in session.prompt("slow"):
                updates += 1
                if updates == 3:
                    client.on_update = None
                    del panel
                    gc.collect()
                    self.assertIsNone(gone())  # the client dropped its reference
            self.assertGreater(updates, 30)

    def test_a_client_collected_mid_turn_ends_its_agent(self):
        with tempfile.TemporaryDirectory() as scratch:
            pid_file = os.path.join(scratch, "agent.pid")
            client = libacp.Client(agent("--slow-ticks=100", "--slow-ms=20", "--pid-file=" + pid_file))
            client.initialize()
            with open(pid_file) as f:
                pid = int(f.read())
            self.assertTrue(process_alive(pid))
            session = client.new_session(cwd="/tmp")
            turn = session.prompt("slow")
            next(iter(turn))
            del session, turn, client
            gc.collect()  # frees the C client: close, shutdown ladder, no crash
            # The agent is gone: its stdin closed, then the shutdown ladder (2 s + 2 s at
            # most); the guard is only there so a broken build fails instead of hanging.
            deadline = time.monotonic() + 30
            while process_alive(pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            self.assertFalse(process_alive(pid), "the agent outlived its collected client")

    def test_closing_from_inside_a_callback(self):
        client = libacp.Client(agent("--slow-ticks=50", "--slow-ms=10"))
        client.initialize()
        session = client.new_session(cwd="/tmp")

        def close_on_first_tick(update):
            if update["update"]["sessionUpdate"] == "agent_message_chunk":
                client.close()
                client.close()  # idempotent
        client.on_update = close_on_first_tick
        with self.assertRaises(libacp.ConnectionClosed):
            session.prompt("slow").wait()
        self.assertTrue(client.closed)
        with self.assertRaises(libacp.ConnectionClosed):
            session.prompt("hello")
        client.close_and_wait()

    def test_host_json_is_checked_before_sending(self):
        # Issue 27: a member the protocol gates (unstable systemPrompt) cannot slip through
        # as an unknown member, and a path that is not UTF-8 never reaches the wire.
        with libacp.Client(agent()) as client:
            client.initialize()
            with self.assertRaises(libacp.InvalidArgument) as caught:
                client.new_session(cwd="/tmp", systemPrompt={"mode": "append",
                                                             "content": [{"type": "text", "text": "be brief"}]})
            self.assertIn("systemPrompt", str(caught.exception))
            with self.assertRaises(libacp.InvalidArgument) as caught:
                client.new_session(cwd=os.fsdecode(b"/tmp/caf\xe9"))
            self.assertIn("UTF-8", str(caught.exception))
            client.new_session(cwd="/tmp/caf\u00e9")  # UTF-8 text is fine

    def test_a_request_and_a_turn_are_cancelled(self):
        with libacp.Client(agent("--slow-ticks=200", "--slow-ms=10")) as client:
            client.initialize()
            session = client.new_session(cwd="/tmp")
            running = session.prompt("slow")
            next(iter(running))
            held = session.prompt("hello")  # the agent holds it while the first turn runs
            client.cancel_request(held.request)
            with self.assertRaises(libacp.Cancelled):
                held.wait()
            running.cancel()
            self.assertEqual(running.wait(), "cancelled")
            tool = [item for item in session.model().items if item.kind == "tool_call"][0]
            self.assertEqual(tool.status, "cancelled")

    def test_a_cancellable_tool_call_is_cancelled_and_the_turn_goes_on(self):
        with libacp.Client(agent("--slow-ticks=200", "--slow-ms=10")) as client:
            client.initialize()
            session = client.new_session(cwd="/tmp")
            running = session.prompt("slow")
            tool_id = None
            for update in running:
                if update["sessionUpdate"] == "tool_call_update" and (update.get("capabilities") or {}).get("cancel") is not None:
                    tool_id = update["toolCallId"]
                    break
            self.assertIsNotNone(tool_id)
            session.cancel_tool_call(tool_id)
            for update in running:
                if update.get("toolCallId") == tool_id and update.get("status") == "cancelled":
                    break
            tool = [item for item in session.model().items if item.kind == "tool_call"][0]
            self.assertEqual(tool.status, "cancelled")
            self.assertFalse(session.model().is_idle)  # only the tool call ended
            # Nothing to cancel any more: refused before sending (CLIENT-MUST-36).
            with self.assertRaises(libacp.InvalidArgument):
                session.cancel_tool_call(tool_id)
            with self.assertRaises(libacp.InvalidArgument):
                session.cancel_terminal("no-such-terminal")
            running.cancel()
            self.assertEqual(running.wait(), "cancelled")

    def test_form_elicitation_is_accepted_and_the_traffic_observed(self):
        with libacp.Client(agent()) as client:
            client.enable_elicitation(form=True)
            client.observe_traffic()
            lines = []
            client.on_traffic = lambda direction, line: lines.append((direction, line))
            client.on_elicitation = lambda request: {"name": "x", "count": 2}
            info = client.initialize()
            session = client.new_session(cwd="/tmp")
            self.assertEqual(session.prompt("elicit-form").wait(), "end_turn")
            self.assertEqual(session.model().items[-1].text, 'Form result: accept {"count":2,"name":"x"}')
            self.assertIn('"elicitation":{"form":{}}', [line for d, line in lines if d == "out"][0])
            self.assertTrue(any(d == "in" and "elicitation/create" in line for d, line in lines))
            self.assertEqual(info["info"]["name"], "libacp-ts-peer")

    def test_resume_with_replay_rebuilds_the_same_model_in_a_new_client(self):
        state = tempfile.mkdtemp(prefix="acp-py-state-")
        try:
            with libacp.Client(agent("--state-dir=" + state)) as first:
                first.initialize()
                session = first.new_session(cwd="/tmp")
                first.on_permission = lambda request: "allow-always"
                session.prompt("permission").wait()
                session.prompt("tool").wait()
                live = session.model()
            with libacp.Client(agent("--state-dir=" + state)) as second:
                second.initialize()
                self.assertIn(session.id, [info["sessionId"] for info in second.list_sessions()])
                resumed = second.resume_session(session.id, cwd="/tmp", replay=True)
                replayed = resumed.model()
            self.assertEqual(replayed.json, live.json)
            self.assertEqual(replayed.title, "Edit hello.txt")
            self.assertEqual(replayed.usage["used"], 1234)
            terminal = [item for item in replayed.items if item.kind == "terminal"][0]
            self.assertEqual(terminal.text, "$ make check\r\nbuild: \u2713 ok\r\n")
        finally:
            shutil.rmtree(state)

    def test_session_changes_arrive_row_by_row_and_a_replay_is_not_a_completion(self):
        state = tempfile.mkdtemp(prefix="acp-py-state-")
        try:
            with libacp.Client(agent("--state-dir=" + state)) as first:
                first.initialize()
                self.assertIsNone(first.agent_v1)  # a v2 agent
                session = first.new_session(cwd="/tmp")
                changes = []
                first.on_session_change = changes.append
                first.observe_sessions()
                first.on_permission = lambda request: "allow-once"
                session.prompt("permission").wait()
                model = session.model()
                # A UI that applies only the changes holds the same rows as the snapshot.
                rows = {}
                for change in changes:
                    if change.type == "item_inserted":
                        self.assertNotIn(change.index, rows)
                        rows[change.index] = (change.kind, change.id)
                    elif change.type == "item_changed":
                        self.assertEqual(rows[change.index], (change.kind, change.id))
                self.assertEqual([rows[i] for i in range(len(rows))], [(item.kind, item.id) for item in model.items])
                self.assertEqual([c.type for c in changes].count("turn_ended"), 1)
            with libacp.Client(agent("--state-dir=" + state)) as second:
                second.initialize()
                changes = []
                second.on_session_change = changes.append
                second.observe_sessions()
                second.resume_session(session.id, cwd="/tmp", replay=True)
                types = [c.type for c in changes]
                # CLIENT-MUST-58: the replayed idle state is no completion.
                self.assertNotIn("turn_ended", types)
                self.assertEqual(types[-1], "replay_ended")
                self.assertEqual(types.count("item_inserted"), len(model.items))
        finally:
            shutil.rmtree(state)

    def test_a_reply_is_followed_by_appended_text_and_items_are_read_one_at_a_time(self):
        with libacp.Client(agent()) as client:
            client.initialize()
            session = client.new_session(cwd="/tmp")
            self.assertTrue(session.id.startswith("sess-"))  # from the result's session id accessor
            followed = {}
            rereads = []

            def follow(change):
                if change.type not in ("item_inserted", "item_changed"):
                    return
                if change.appended is not None:
                    followed[change.index] = ("" if change.type == "item_inserted" else followed[change.index]) + \
                        change.appended
                else:
                    rereads.append(change.index)
                    followed[change.index] = client.item(session.id, change.index).text
            client.on_session_change = follow
            client.observe_sessions()
            client.on_permission = lambda request: "allow_always"  # an option kind picks that option
            self.assertEqual(session.prompt("permission").wait(), "end_turn")
            self.assertEqual(session.prompt("tool").wait(), "end_turn")
            self.assertTrue(rereads)  # the tool turn's agent_message upsert replaces a message
            count = client.item_count(session.id)
            self.assertEqual(count, len(session.model().items))
            for index in range(count):
                item = client.item(session.id, index)
                if item.text is not None:
                    self.assertEqual(followed[index], item.text)
            self.assertEqual([i.text for i in session.model().items if i.kind == "agent_message"][1],
                             "Permission granted (allow-always); the command ran.")
            terminal = [i for i in session.model().items if i.kind == "terminal"][0]
            self.assertEqual(client.find_item(session.id, "terminal", terminal.id).text, "$ make check\r\nbuild: \u2713 ok\r\n")
            tool = client.find_item(session.id, "tool_call", "tc2")
            self.assertEqual((tool.title, tool.status, tool.data["toolKind"]), ("Edit hello.txt", "completed", "edit"))
            with self.assertRaises(libacp.NotFound):
                client.item(session.id, count)

    def test_a_host_slower_than_the_stream_gets_coalesced_changes_and_every_byte(self):
        with libacp.Client(agent()) as client:
            client.initialize()
            session = client.new_session(cwd="/tmp")
            client.report_updates(False)
            updates = []
            client.on_update = updates.append
            followed, appends, others, first_seen = {}, {}, set(), []

            def follow(change):
                if change.type not in ("item_inserted", "item_changed"):
                    return
                if change.index not in first_seen:
                    first_seen.append(change.index)
                if change.appended is not None:
                    appends[change.index] = appends.get(change.index, 0) + 1
                    followed[change.index] = followed.get(change.index, "") + change.appended
                else:
                    others.add(change.index)  # re-read now, it would be ahead of the queue
            client.on_session_change = follow
            turn = session.prompt("tool")
            # The loop runs the whole turn while Python handles nothing (a host far slower
            # than the stream): what queued meanwhile reaches Python coalesced.
            lib, handle = libacp._native.lib, client._handle
            deadline = time.monotonic() + 30
            while not (client.model(session.id).stop_reason and client.model(session.id).is_idle):
                self.assertLess(time.monotonic(), deadline)
                select.select([lib.acp_client_fd(handle)], [], [], 0.05)
                lib.acp_client_run_nowait(handle)
            self.assertEqual(turn.wait(), "end_turn")
            self.assertEqual(updates, [])  # no update events, and none decoded for Python
            items = session.model().items
            for index, item in enumerate(items):
                if index not in others:  # built from appended text alone: exactly the model's
                    self.assertEqual(followed[index], item.text)
            self.assertEqual(first_seen, sorted(first_seen))  # items in the order they came
            self.assertEqual(len(first_seen), len(items))
            m1 = [i for i, item in enumerate(items) if item.id == "m1"][0]
            terminal = [i for i, item in enumerate(items) if item.kind == "terminal"][0]
            self.assertEqual(followed[m1], "Let me edit hello.txt.")
            self.assertEqual(appends[m1], 1)  # two chunks, one change
            self.assertEqual(appends[terminal], 1)  # two output chunks splitting a character, one change
            self.assertEqual(followed[terminal], "build: \u2713 ok\r\n")

    def test_a_host_that_only_waits_for_its_turns_follows_the_model_without_update_events(self):
        # The README's way, with no setting: observe the sessions, follow on_session_change,
        # wait for the turn. Nobody can see an update event, so none is made (fast by default).
        with libacp.Client(agent()) as client:
            client.initialize()
            session = client.new_session(cwd="/tmp")
            client.observe_sessions()
            followed = {}

            def follow(change):
                if change.type in ("item_inserted", "item_changed"):
                    text = change.appended if change.appended is not None else \
                        client.item(session.id, change.index).text
                    if change.appended is not None and change.type == "item_changed":
                        text = followed.get(change.index, "") + text
                    followed[change.index] = text
            client.on_session_change = follow
            self.assertEqual(session.prompt("tool").wait(), "end_turn")
            self.assertFalse(client._updates_reported)
            for index, item in enumerate(session.model().items):
                if item.text is not None and item.kind == "agent_message":
                    self.assertEqual(followed[index], item.text)
            # A turn iterated, or an on_update handler, brings the update events back.
            kinds = [update.session_update for update in session.prompt("hello")]
            self.assertEqual(kinds[-1], "state_update")
            self.assertIn("agent_message_chunk", kinds)

    def test_payloads_read_as_snake_case_attributes_and_stay_wire_dicts(self):
        with libacp.Client(agent()) as client:
            client.initialize()
            self.assertEqual(client.agent.protocol_version, 2)
            session = client.new_session(cwd="/tmp")
            updates = list(session.prompt("hello"))
            chunk = [u for u in updates if u["sessionUpdate"] == "agent_message_chunk"][0]
            self.assertIsInstance(chunk, dict)
            self.assertEqual(chunk.content.text, chunk["content"]["text"])
            self.assertIn("session_update", dir(chunk))
            with self.assertRaises(AttributeError):
                chunk.no_such_field
            # The payloads are the schema's classes (libacp.schema_types), the wire dicts too.
            types = libacp.schema_types
            self.assertIsInstance(client.agent, types.InitializeResponse)
            self.assertIsInstance(client.agent.info, types.Implementation)
            self.assertIsInstance(session.response, types.NewSessionResponse)
            self.assertIsInstance(chunk, types.SessionUpdateAgentMessageChunk)
            self.assertIsInstance(chunk.content, types.ContentBlockText)
            self.assertIs(chunk.wire, chunk)
            self.assertIsInstance(updates[-1], types.SessionUpdateStateUpdate)
            requests, params = [], []
            client.on_permission = lambda request: requests.append(request) or "allow_once"
            client.on_update = params.append
            self.assertEqual(session.prompt("permission").wait(), "end_turn")
            self.assertIsInstance(requests[0], types.RequestPermissionRequest)
            self.assertEqual(requests[0].title, requests[0]["title"])
            self.assertEqual([o.option_id for o in requests[0].options],
                             [o["optionId"] for o in requests[0]["options"]])
            self.assertTrue(all(isinstance(p, types.UpdateSessionNotification) for p in params))
            self.assertEqual({p.session_id for p in params}, {session.id})

    def test_config_options_and_extension_methods_both_ways(self):
        with libacp.Client(agent()) as client:
            client.add_ext_handler("_test/ping", lambda params: {"pong": params["n"] + 1})
            client.accept_ext_notification("_test/notice")
            notes = []
            client.on_notification = lambda method, params: notes.append((method, params["text"]))
            client.initialize()
            session = client.new_session(cwd="/tmp")
            self.assertEqual(client.ext_request("_test/echo", {"a": 1}), {"a": 1})
            self.assertEqual(session.prompt("ext").wait(), "end_turn")
            self.assertEqual(session.model().items[-1].text, 'ext result: {"pong":2}')
            self.assertEqual(notes, [("_test/notice", "hello from the agent")])
            options = session.set_config_option("model", "model-b")["configOptions"]
            self.assertIn("effort", [option["configId"] for option in options])
            self.assertEqual(len(session.model().config_options), 3)


class AsyncClientTest(unittest.TestCase):
    def test_an_async_client_dropped_mid_turn_is_collected(self):
        async def main():
            client = libacp.AsyncClient(agent("--slow-ticks=100", "--slow-ms=20"))
            await client.initialize()
            session = await client.new_session(cwd="/tmp")
            turn = session.prompt("slow")
            async for _ in turn:
                break
            gone = weakref.ref(client)
            del session, turn, client
            gc.collect()
            # asyncio finalizes the abandoned `async for` on its next turn (aclose).
            await asyncio.sleep(0.01)
            gc.collect()
            # Neither the loop's reader nor its timer keeps it: freed, its agent closed.
            self.assertIsNone(gone())
            await asyncio.sleep(0.05)  # the loop runs on without the descriptor
        asyncio.run(main())

    def test_updates_arrive_as_an_async_iterator_with_a_coroutine_permission_handler(self):
        async def main():
            async with libacp.AsyncClient(agent()) as client:
                await client.initialize()
                session = await client.new_session(cwd="/tmp")

                async def ask(request):
                    await asyncio.sleep(0.01)  # a dialog that takes its time
                    return "reject-once"
                client.on_permission = ask
                kinds = []
                async for update in session.prompt("permission"):
                    kinds.append(update["sessionUpdate"])
                self.assertIn("tool_call_update", kinds)
                model = session.model()
                self.assertEqual(model.items[-1].text, "Permission rejected (reject-once); the command was skipped.")
                # Other coroutines run while a turn streams: the loop is never blocked.
                ticks = []

                async def ticker():
                    while True:
                        ticks.append(1)
                        await asyncio.sleep(0)
                task = asyncio.ensure_future(ticker())
                self.assertEqual(await session.prompt("hello"), "end_turn")
                task.cancel()
                self.assertGreater(len(ticks), 0)
        asyncio.run(main())

    def test_cancelling_a_turn_and_closing_inside_a_handler(self):
        async def main():
            client = libacp.AsyncClient(agent("--slow-ticks=100", "--slow-ms=10"))
            await client.initialize()
            session = await client.new_session(cwd="/tmp")
            turn = session.prompt("slow")
            seen = 0
            async for update in turn:
                seen += 1
                if seen == 3:
                    turn.cancel()
            self.assertEqual(turn.stop_reason, "cancelled")
            client.on_update = lambda update: client.close()
            with self.assertRaises(libacp.ConnectionClosed):
                await session.prompt("slow")
            await client.aclose()
        asyncio.run(main())

    def test_an_extension_request_the_agent_withdraws_cancels_its_handler(self):
        # A stub v2 agent: it asks _test/slow, withdraws it half a second later, and reports
        # the answer it got back in a _test/answer notification.
        stub = textwrap.dedent("""
            import json, sys, time
            def send(message):
                sys.stdout.write(json.dumps(message) + "\\n")
                sys.stdout.flush()
            init = json.loads(sys.stdin.readline())
            send({"jsonrpc": "2.0", "id": init["id"], "result": {"protocolVersion": 2,
                  "info": {"name": "stub", "version": "1"}, "capabilities": {}}})
            send({"jsonrpc": "2.0", "id": "x1", "method": "_test/slow", "params": {}})
            time.sleep(0.5)
            send({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": "x1"}})
            answer = json.loads(sys.stdin.readline())
            send({"jsonrpc": "2.0", "method": "_test/answer", "params": answer})
            sys.stdin.read()
        """)

        async def main():
            async with libacp.AsyncClient([sys.executable, "-c", stub]) as client:
                cancelled = asyncio.Event()

                async def slow(params):
                    try:
                        await asyncio.sleep(60)
                    except asyncio.CancelledError:
                        cancelled.set()
                        raise
                    return {"late": True}
                client.add_ext_handler("_test/slow", slow)
                client.accept_ext_notification("_test/answer")
                answers = []
                client.on_notification = lambda method, params: answers.append(params)
                await client.initialize()
                await asyncio.wait_for(cancelled.wait(), 30)
                while not answers:
                    await asyncio.sleep(0.01)
                self.assertEqual(answers[0]["id"], "x1")
                self.assertEqual(answers[0]["error"]["code"], -32800)
        asyncio.run(main())

    def test_stop_pressed_again_hastens_the_shutdown_past_its_graces(self):
        # An agent that reads no stdin and ignores SIGTERM, with graces no test waits out:
        # only hasten_close can end it: it closes, then terminates, then kills the tree.
        stubborn = ["sh", "-c", 'trap "" TERM; exec sleep 600']

        async def main():
            client = libacp.AsyncClient(stubborn, shutdown_grace=600, terminate_grace=600)
            endings = []
            client.on_closed = endings.append
            client.hasten_close()  # not closing yet: this is close(), stdin closed
            await asyncio.sleep(0.2)
            self.assertEqual(endings, [])
            client.hasten_close()  # SIGTERM: ignored
            await asyncio.sleep(0.2)
            self.assertEqual(endings, [])
            client.hasten_close()  # SIGKILL to the tree
            await asyncio.wait_for(client.aclose(), 60)
            self.assertEqual(len(endings), 1)
            self.assertIn("killed by signal 9", str(endings[0]))
            client.hasten_close()  # freed: nothing
        asyncio.run(main())


if __name__ == "__main__":
    unittest.main()
