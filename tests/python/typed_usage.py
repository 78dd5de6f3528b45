# SPDX-License-Identifier: Apache-2.0
"""A host using the public API with the types it declares; never run, only type-checked
(python.mypy): a type a host relies on that changes or disappears fails the test."""
from typing import List, Optional

import libacp
from libacp import schema_types as types


def follow(client: libacp.Client) -> Optional[str]:
    agent: types.InitializeResponse = client.initialize()
    version: int = agent.protocol_version
    session: libacp.Session = client.new_session(cwd="/tmp")
    infos: List[types.SessionInfo] = client.list_sessions()
    titles = [info.title for info in infos]

    def on_permission(request: types.RequestPermissionRequest) -> str:
        return request.options[0].option_id

    def on_update(params: types.UpdateSessionNotification) -> None:
        update: types.SessionUpdate = params.update
        if isinstance(update, types.SessionUpdateAgentMessageChunk):
            content = update.content
            if isinstance(content, types.ContentBlockText):
                text: str = content.text
                print(text, update.message_id)

    client.on_permission = on_permission
    client.on_update = on_update
    client.on_session_change = lambda change: print(change.appended)
    for update in session.prompt("hello"):
        kind: str = update.session_update
        print(kind, version, titles)
    model: libacp.SessionModel = session.model()
    print(len(model.items))
    return session.prompt("again").wait()


async def follow_async(client: libacp.AsyncClient) -> Optional[str]:
    agent: types.InitializeResponse = await client.initialize()
    session: libacp.Session = await client.new_session(cwd="/tmp")
    async for update in session.prompt("hello"):
        print(update.session_update, agent.capabilities)
    return await session.prompt("again")


def start_by_name(agents: libacp.Catalogue, name: str, ca_file: Optional[str]) -> libacp.Client:
    agent = agents.install(name, ca_file=ca_file, max_unpacked_bytes=1 << 30)
    argv: List[str] = agent["argv"]
    return libacp.Client(argv, env=agent["env"], cwd=agent["cwd"] or None)
