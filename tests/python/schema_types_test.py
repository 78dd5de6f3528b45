# SPDX-License-Identifier: Apache-2.0
"""The generated payload classes (libacp.schema_types) without an agent: the committed file
is a fresh generation, members read typed and converted in place, the wire dict stays
whole, and every public function of the package carries type hints. Run by CTest
(python.schema_types); by hand:

    ACP_LIBRARY=build/dev/libacp.so PYTHONPATH=bindings/python python3 tests/python/schema_types_test.py -v
"""
import importlib
import inspect
import json
import os
import pkgutil
import sys
import unittest

import libacp
from libacp import payload, schema_types as types

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import generate_python_types  # noqa: E402


def update_notification(update):
    wire = json.dumps({"sessionId": "s1", "update": update, "_meta": {"k": 1}})
    return payload.typed(payload.loads(wire), types.UpdateSessionNotification)


class SchemaTypesTest(unittest.TestCase):
    def test_the_committed_module_is_a_fresh_generation(self):
        with open(generate_python_types.OUTPUT, encoding="utf-8") as f:
            committed = f.read()
        self.assertEqual(committed, generate_python_types.generate(),
                         "run python3 scripts/generate_python_types.py")

    def test_members_read_typed_and_snake_case_with_the_wire_dict_whole(self):
        params = update_notification({"sessionUpdate": "agent_message_chunk", "messageId": "m1",
                                      "content": {"type": "text", "text": "hi", "newMember": [1]},
                                      "futureField": True})
        self.assertEqual(params.session_id, "s1")
        update = params.update
        self.assertIsInstance(update, types.SessionUpdateAgentMessageChunk)
        self.assertIsInstance(update, types.ContentChunk)
        self.assertEqual(update.session_update, "agent_message_chunk")
        self.assertEqual(update.message_id, "m1")
        self.assertIsInstance(update.content, types.ContentBlockText)
        self.assertEqual(update.content.text, "hi")
        # Converted in place: the same dicts, so the wire tree is one tree.
        self.assertIs(update, params["update"])
        self.assertIs(params.wire, params)
        self.assertIsInstance(params, dict)
        # Members the schema does not name stay on the wire and read untyped.
        self.assertTrue(update.future_field)
        self.assertEqual(update.content.new_member, [1])
        self.assertEqual(json.loads(json.dumps(params))["update"]["content"]["newMember"], [1])
        self.assertEqual(params.meta, {"k": 1})

    def test_an_unknown_variant_reads_as_the_union_base_class(self):
        update = update_notification({"sessionUpdate": "from_the_future", "x": 1}).update
        self.assertIs(type(update), types.SessionUpdate)
        self.assertEqual(update.session_update, "from_the_future")
        self.assertEqual(update.x, 1)

    def test_absent_or_malformed_members(self):
        chunk = update_notification({"sessionUpdate": "agent_message_chunk", "messageId": 7,
                                     "content": {"type": "text", "text": "t"}}).update
        with self.assertRaises(AttributeError):
            chunk.message_id  # required, of the wrong type
        self.assertIsNone(chunk.meta)  # optional, absent
        with self.assertRaises(AttributeError):
            chunk.no_such_field
        tool = update_notification({"sessionUpdate": "tool_call_update", "toolCallId": "t1",
                                    "content": [{"type": "content", "content": {"type": "text", "text": "a"}},
                                                "not an object"]}).update
        self.assertIsInstance(tool, types.SessionUpdateToolCallUpdate)
        # An item of another shape is left out (the schema's skip-invalid-items).
        self.assertEqual([type(c) for c in tool.content], [types.ToolCallContentContent])
        self.assertEqual(tool.content[0].content.text, "a")

    def test_results_and_requests_map_to_their_classes(self):
        self.assertIs(types.RESULTS["session/new"], types.NewSessionResponse)
        self.assertIs(types.RESULTS["initialize"], types.InitializeResponse)
        self.assertIs(types.PARAMS["session/update"], types.UpdateSessionNotification)
        self.assertIs(types.PARAMS["session/request_permission"], types.RequestPermissionRequest)
        request = payload.typed(payload.loads(json.dumps({
            "sessionId": "s1", "title": "Remove a file?",
            "subject": {"type": "tool_call", "toolCall": {"toolCallId": "t1", "title": "rm"}},
            "options": [{"optionId": "o1", "name": "Allow", "kind": "allow_once"}]})), types.RequestPermissionRequest)
        subject = request.subject
        self.assertIsInstance(subject, types.RequestPermissionSubjectToolCall)
        assert isinstance(subject, types.RequestPermissionSubjectToolCall)
        self.assertEqual(subject.tool_call.tool_call_id, "t1")
        self.assertEqual([(o.option_id, o.kind) for o in request.options], [("o1", "allow_once")])

    def test_every_public_function_has_type_hints(self):
        missing = []
        for info in pkgutil.iter_modules(libacp.__path__):
            if info.name.startswith("_") and info.name not in ("_connection", "_requests", "_events", "_responders"):
                continue
            module = importlib.import_module("libacp." + info.name)
            for name, obj in vars(module).items():
                if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                    continue
                functions = [(name, obj)] if inspect.isfunction(obj) else []
                if inspect.isclass(obj):
                    for attr, member in vars(obj).items():
                        if attr.startswith("_") and attr not in ("__init__", "__iter__", "__aiter__", "__await__",
                                                                 "__enter__", "__exit__", "__aenter__", "__aexit__"):
                            continue
                        member = member.fget if isinstance(member, property) else member
                        member = member.__func__ if isinstance(member, (staticmethod, classmethod)) else member
                        if inspect.isfunction(member):
                            functions.append(("%s.%s" % (name, attr), member))
                for label, fn in functions:
                    signature = inspect.signature(fn)
                    unannotated = [p.name for p in signature.parameters.values()
                                   if p.annotation is inspect.Parameter.empty and p.name not in ("self", "cls")]
                    if unannotated or signature.return_annotation is inspect.Signature.empty:
                        missing.append("%s.%s %s" % (module.__name__, label, unannotated))
        self.assertEqual(missing, [])


if __name__ == "__main__":
    unittest.main()
