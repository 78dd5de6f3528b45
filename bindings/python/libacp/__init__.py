# SPDX-License-Identifier: Apache-2.0
"""libacp for Python: a client for the Agent Client Protocol over libacp's C API.

    import libacp
    with libacp.Client(["my-agent", "--acp"]) as client:
        client.initialize()
        session = client.new_session(cwd="/home/me/project")
        for update in session.prompt("hello"):
            print(update)

See bindings/python/README.md. The shared library is found through $ACP_LIBRARY or the
system's library path.
"""
from ._native import lib as _lib
from .catalogue import Catalogue
from .client import AsyncClient, Client, Item, PromptTurn, Session, SessionChange, SessionModel
from .payload import Payload
from . import schema_types
from .tools import ToolCall, ToolError, ToolServer
from .errors import (AcpError, AuthRequired, Cancelled, ConnectionClosed, InternalError, InvalidArgument, IoError,
                     NotFound, ProtocolError, RpcError, SpawnFailed, StateError, TimedOut, Unsupported)

__version__ = _lib.acp_version().decode()

__all__ = ["schema_types", "Catalogue", "AsyncClient", "Client", "Item", "Payload", "PromptTurn", "Session", "SessionChange", "SessionModel", "ToolCall", "ToolError",
           "ToolServer", "AcpError", "AuthRequired",
           "Cancelled", "ConnectionClosed", "InternalError", "InvalidArgument", "IoError", "NotFound",
           "ProtocolError", "RpcError", "SpawnFailed", "StateError", "TimedOut", "Unsupported"]
