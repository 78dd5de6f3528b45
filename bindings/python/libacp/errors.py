# SPDX-License-Identifier: Apache-2.0
"""Exceptions raised by libacp, one class per C error code (ACP_E*)."""
from typing import Any, Optional


class AcpError(Exception):
    """A failure reported by libacp. code is the ACP_E* value; for agent errors,
    rpc_code and rpc_data hold the JSON-RPC error's code and data (parsed JSON or None)."""

    code = -10

    def __init__(self, message: Optional[str], code: Optional[int] = None, rpc_code: int = 0,
                 rpc_data: Any = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message
        self.rpc_code = rpc_code
        self.rpc_data = rpc_data


class InvalidArgument(AcpError):
    """Refused before anything was sent: the input breaks a rule (bad JSON, ...)."""
    code = -1


class SpawnFailed(AcpError):
    code = -2


class IoError(AcpError):
    code = -3


class ConnectionClosed(AcpError):
    """The connection ended: the agent exited, or the client was closed."""
    code = -4


class TimedOut(AcpError):
    code = -5


class Cancelled(AcpError):
    code = -6


class RpcError(AcpError):
    """The agent answered with a JSON-RPC error (rpc_code, rpc_data)."""
    code = -7


class AuthRequired(RpcError):
    """The agent wants a login first (-32000): see Client.agent["authMethods"]."""


class ProtocolError(AcpError):
    code = -8


class Unsupported(AcpError):
    code = -9


class InternalError(AcpError):
    code = -10


class NotFound(AcpError):
    code = -12


class StateError(AcpError):
    code = -13


_BY_CODE = {cls.code: cls for cls in (InvalidArgument, SpawnFailed, IoError, ConnectionClosed, TimedOut, Cancelled,
                                      RpcError, ProtocolError, Unsupported, InternalError, NotFound, StateError)}


def error_for(code: int, message: Optional[str], rpc_code: int = 0, rpc_data: Any = None) -> AcpError:
    """The exception for an ACP_E* code."""
    if code == RpcError.code and rpc_code == -32000:
        return AuthRequired(message, code, rpc_code, rpc_data)
    return _BY_CODE.get(code, AcpError)(message, code, rpc_code, rpc_data)


def check(code: int) -> int:
    """Raises the exception for a negative return code of a synchronous C call."""
    if code < 0:
        from . import _native as native  # errors stays importable without the library
        raise error_for(code, native.text(native.lib.acp_error_last()) or native.text(native.lib.acp_error_name(code)))
    return code
