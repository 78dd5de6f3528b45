# SPDX-License-Identifier: Apache-2.0
"""Agents by name: the ACP registry and the user's agents file (docs/agents.md).

    import libacp
    agents = libacp.Catalogue()              # the bundled snapshot + ~/.config/acp/agents.json
    agent = agents.resolve("claude-acp", login_shell=True)
    with libacp.Client(agent["argv"], env=agent["env"], cwd=agent["cwd"] or None) as client:
        ...

A catalogue never starts anything: resolve() gives the command line, and raises
Unsupported naming what is missing ("npx is not on the PATH (...)").
"""
import ctypes
import json
from typing import Any, Dict, Optional

from . import _native as native
from .errors import error_for

lib = native.lib

RESOLVE_LOGIN_SHELL = 1


def _check(code: int) -> int:
    if code < 0:
        raise error_for(code, native.text(lib.acp_error_last()) or native.text(lib.acp_error_name(code)))
    return code


class Catalogue:
    """registry_json: ACP registry JSON text (None: the snapshot built into libacp).
    user_agents_path: the user's agents file (None: $XDG_CONFIG_HOME/acp/agents.json,
    "": none)."""

    def __init__(self, registry_json: Optional[str] = None, user_agents_path: Optional[str] = None) -> None:
        handle = ctypes.c_void_p()
        _check(lib.acp_catalogue_new(ctypes.byref(handle),
                                     None if registry_json is None else registry_json.encode(),
                                     None if user_agents_path is None else user_agents_path.encode()))
        self._handle: Optional[ctypes.c_void_p] = handle

    def __del__(self) -> None:
        self.close()

    def close(self) -> None:
        if getattr(self, "_handle", None):
            lib.acp_catalogue_free(self._handle)
            self._handle = None

    def list(self) -> Dict[str, Any]:
        """{"default", "problems", "agents": [{"id", "name", "version", "description",
        "icon", "user", "kinds"}]}; names and descriptions are display data."""
        pointer = ctypes.c_void_p()
        _check(lib.acp_catalogue_list_json(ctypes.byref(pointer), self._handle))
        return json.loads(native.take_string(pointer))

    def resolve(self, agent_id: str, login_shell: bool = False) -> Dict[str, Any]:
        """{"id", "kind", "argv", "env", "cwd", "needs_install", "install_dir", "notes"}."""
        pointer = ctypes.c_void_p()
        _check(lib.acp_catalogue_resolve_json(ctypes.byref(pointer), self._handle, agent_id.encode(),
                                              RESOLVE_LOGIN_SHELL if login_shell else 0))
        return json.loads(native.take_string(pointer))
