# SPDX-License-Identifier: Apache-2.0
"""Agents by name: the ACP registry and the user's agents file (docs/agents.md).

    import libacp
    agents = libacp.Catalogue()              # the bundled snapshot + ~/.config/acp/agents.json
    agent = agents.resolve("claude-acp", login_shell=True)
    with libacp.Client(agent["argv"], env=agent["env"], cwd=agent["cwd"] or None) as client:
        ...

    agents = libacp.Catalogue.fetch()        # the registry over https, cached for a day
    print(agents.fetched["source"], agents.fetched["notes"])
    agent = agents.install("some-binary-agent")  # downloads and unpacks a binary build once

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
RESOLVE_NO_INSTALL = 2


class _FetchOptions(ctypes.Structure):
    """acp_registry_fetch_options, version 1; the library fills in its defaults."""
    VERSION = 1
    _fields_ = [("version", ctypes.c_uint), ("url", ctypes.c_char_p), ("cache_file", ctypes.c_char_p),
                ("max_age_seconds", ctypes.c_long), ("ca_file", ctypes.c_char_p), ("timeout_ms", ctypes.c_ulong)]


class _InstallOptions(ctypes.Structure):
    """acp_install_options, version 2; zeros and NULLs are the library's defaults."""
    VERSION = 2
    _fields_ = [("version", ctypes.c_uint), ("ca_file", ctypes.c_char_p), ("max_download_bytes", ctypes.c_size_t),
                ("max_unpacked_bytes", ctypes.c_size_t), ("connect_timeout_ms", ctypes.c_ulong),
                ("cache_dir", ctypes.c_char_p), ("platform", ctypes.c_char_p), ("path", ctypes.c_char_p)]

    @classmethod
    def make(cls, cache_dir: Optional[str], platform: Optional[str], path: Optional[str]) -> "_InstallOptions":
        options = cls()
        _check(lib.acp_install_options_init(ctypes.byref(options), cls.VERSION))
        options.cache_dir = cache_dir.encode() if cache_dir is not None else None
        options.platform = platform.encode() if platform is not None else None
        options.path = path.encode() if path is not None else None
        return options


lib.acp_registry_fetch_options_init.restype = ctypes.c_int
lib.acp_registry_fetch_options_init.argtypes = [ctypes.POINTER(_FetchOptions), ctypes.c_uint]
lib.acp_catalogue_fetch.restype = ctypes.c_int
lib.acp_catalogue_fetch.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p),
                                    ctypes.POINTER(_FetchOptions), ctypes.c_char_p]
lib.acp_install_options_init.restype = ctypes.c_int
lib.acp_install_options_init.argtypes = [ctypes.POINTER(_InstallOptions), ctypes.c_uint]
lib.acp_catalogue_install.restype = ctypes.c_int
lib.acp_catalogue_install.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p, ctypes.c_char_p,
                                      ctypes.c_int, ctypes.POINTER(_InstallOptions)]


def _check(code: int) -> int:
    if code < 0:
        raise error_for(code, native.text(lib.acp_error_last()) or native.text(lib.acp_error_name(code)))
    return code


class Catalogue:
    """registry_json: ACP registry JSON text (None: the snapshot built into libacp).
    user_agents_path: the user's agents file (None: $XDG_CONFIG_HOME/acp/agents.json,
    "": none)."""

    def __init__(self, registry_json: Optional[str] = None, user_agents_path: Optional[str] = None, *,
                 _handle: Optional[ctypes.c_void_p] = None) -> None:
        # How fetch() got the registry: {"source": "network"|"cache"|"bundled",
        # "age_seconds", "notes"}; None for a catalogue made from JSON.
        self.fetched: Optional[Dict[str, Any]] = None
        if _handle is not None:
            self._handle: Optional[ctypes.c_void_p] = _handle
            return
        handle = ctypes.c_void_p()
        _check(lib.acp_catalogue_new(ctypes.byref(handle),
                                     None if registry_json is None else registry_json.encode(),
                                     None if user_agents_path is None else user_agents_path.encode()))
        self._handle = handle

    @classmethod
    def fetch(cls, url: Optional[str] = None, *, cache_file: Optional[str] = None,
              max_age_seconds: Optional[int] = None, ca_file: Optional[str] = None, timeout_ms: int = 0,
              user_agents_path: Optional[str] = None) -> "Catalogue":
        """The ACP registry fetched over https (url: https:// only; None: the ACP registry's),
        kept in cache_file (None: $XDG_CACHE_HOME/acp/registry.json) and taken from there
        while younger than max_age_seconds (None: a day; 0: always fetch). A failed fetch
        falls back to the cache of any age, then to the bundled snapshot: .fetched says
        which and why. Blocks for the fetch."""
        options = _FetchOptions()
        _check(lib.acp_registry_fetch_options_init(ctypes.byref(options), _FetchOptions.VERSION))
        if url is not None:
            options.url = url.encode()
        if cache_file is not None:
            options.cache_file = cache_file.encode()
        if max_age_seconds is not None:
            options.max_age_seconds = max_age_seconds
        if ca_file is not None:
            options.ca_file = ca_file.encode()
        options.timeout_ms = timeout_ms
        handle, info = ctypes.c_void_p(), ctypes.c_void_p()
        _check(lib.acp_catalogue_fetch(ctypes.byref(handle), ctypes.byref(info), ctypes.byref(options),
                                       None if user_agents_path is None else user_agents_path.encode()))
        catalogue = cls(_handle=handle)
        catalogue.fetched = json.loads(native.take_string(info))
        return catalogue

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

    def resolve(self, agent_id: str, login_shell: bool = False, *, cache_dir: Optional[str] = None,
                platform: Optional[str] = None, path: Optional[str] = None) -> Dict[str, Any]:
        """{"id", "kind", "argv", "env", "cwd", "needs_install", "install_dir", "notes"}.
        cache_dir: where binary agents are unpacked (None: $XDG_CACHE_HOME/acp/agents);
        platform: the registry's platform target ("linux-aarch64"; None: this machine's);
        path: the PATH to look the command up on (None: the host's, or the login shell's)."""
        pointer = ctypes.c_void_p()
        flags = RESOLVE_LOGIN_SHELL if login_shell else 0
        options = _InstallOptions.make(cache_dir, platform, path)
        _check(lib.acp_catalogue_install(ctypes.byref(pointer), self._handle, agent_id.encode(),
                                         flags | RESOLVE_NO_INSTALL, ctypes.byref(options)))
        return json.loads(native.take_string(pointer))

    def install(self, agent_id: str, login_shell: bool = False, *, ca_file: Optional[str] = None,
                max_download_bytes: int = 0, max_unpacked_bytes: int = 0, connect_timeout_ms: int = 0,
                cache_dir: Optional[str] = None, platform: Optional[str] = None,
                path: Optional[str] = None) -> Dict[str, Any]:
        """resolve(), and when that is a binary build still to be installed, its archive
        downloaded over https (ca_file: a PEM file of CAs to trust instead of the system's),
        checked against the registry's sha256 and unpacked into the per-user cache
        ($XDG_CACHE_HOME/acp/agents). Answers as resolve() does, with needs_install False.
        Raises InvalidArgument for a refused archive (a wrong sha256, a path out of its
        folder, too large; nothing is left in the cache), IoError for a failed download,
        Unsupported without ACP_WITH_REMOTE. Blocks for the download (zeros: the defaults,
        512 MiB, 2 GiB, 30 s). cache_dir, platform and path as for resolve()."""
        options = _InstallOptions.make(cache_dir, platform, path)
        if ca_file is not None:
            options.ca_file = ca_file.encode()
        options.max_download_bytes = max_download_bytes
        options.max_unpacked_bytes = max_unpacked_bytes
        options.connect_timeout_ms = connect_timeout_ms
        pointer = ctypes.c_void_p()
        _check(lib.acp_catalogue_install(ctypes.byref(pointer), self._handle, agent_id.encode(),
                                         RESOLVE_LOGIN_SHELL if login_shell else 0, ctypes.byref(options)))
        return json.loads(native.take_string(pointer))
