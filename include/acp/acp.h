/* SPDX-License-Identifier: Apache-2.0 */
/* acp/acp.h — the stable C API of libacp (the shared library libacp.so exports exactly
 * this). For C hosts and for other languages through their FFI (Python ctypes, LuaJIT,
 * Rust, Go, C#, Swift). Conventions and the full guide: docs/c-api.md.
 *
 *   acp_client_options options = ACP_CLIENT_OPTIONS_INIT;   (polled mode, events queued)
 *   acp_spawn_options agent = ACP_SPAWN_OPTIONS_INIT;        (or acp_*_options_init())
 *   const char *argv[] = {"my-agent", "--acp", NULL};
 *   acp_client *client;
 *   agent.argv = argv;
 *   if (acp_client_spawn(&client, &agent, &options) < 0) die(acp_error_last());
 *   acp_client_initialize(NULL, client, NULL, NULL);          (result arrives as an event)
 *   for (;;) {
 *       acp_event *event;
 *       poll_readable(acp_client_fd(client), acp_client_timeout_ms(client));
 *       acp_client_run_nowait(client);
 *       while (acp_client_next_event(&event, client) == 0) {
 *           handle(event);                                     (acp_event_type(), _json(), ...)
 *           acp_event_free(event);
 *       }
 *   }
 *   acp_client_free(client);
 *
 * Rules that hold everywhere:
 * - Synchronous calls return 0 (or a count/fd) or a negative ACP_E* code; the message of
 *   the last failure on this thread is acp_error_last().
 * - Complex payloads cross as UTF-8 JSON text in the ACP v2 wire shapes; JSON passed in
 *   is validated before anything is sent. Strings passed in are copied. Strings handed
 *   out are valid until the callback returns or the object they came from is freed.
 * - Asynchronous calls complete exactly once: through their acp_result_cb if one is
 *   given (which also marks the end of its userdata), otherwise as an ACP_EVENT_RESULT.
 * - No callback runs inside the call that caused it; any callback may call any function
 *   except acp_client_free() on its own client, acp_client_close() included.
 * - No C++ exception ever leaves the library.
 * - Constants are C enums (their typedef names end in _t), so FFIs see them. Functions
 *   take and return them as int: the ABI keeps int, whatever size a compiler gives an enum.
 *
 * Foreign-function hosts (LuaJIT ffi.cdef, Python cffi) load acp_cdef.h, installed beside
 * this header: the build makes it from this file (the C preprocessor with ACP_CDEF
 * defined), so it declares exactly what is here, without preprocessor lines.
 */
#ifndef ACP_ACP_H
#define ACP_ACP_H

#ifndef ACP_CDEF
#include <stddef.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#if defined(ACP_CDEF)
#define ACP_API
#elif defined(_WIN32) && defined(ACP_BUILDING_LIBRARY)
#define ACP_API __declspec(dllexport)
#elif defined(_WIN32) && !defined(ACP_STATIC_DEFINE)
#define ACP_API __declspec(dllimport)
#elif defined(__GNUC__)
#define ACP_API __attribute__((visibility("default")))
#else
#define ACP_API
#endif

/* ---- version and errors ------------------------------------------------------------ */

/* "MAJOR.MINOR.PATCH" of the library actually loaded. */
ACP_API const char *acp_version(void);
/* MAJOR of the library actually loaded, as a number. */
ACP_API int acp_version_major(void);

/* What calls return and acp_status.code carries: ACP_OK or a negative ACP_E* code. */
typedef enum acp_error_t {
    ACP_OK = 0,
    ACP_EINVAL = -1,       /* refused before sending: bad argument or JSON */
    ACP_ESPAWN = -2,       /* the agent could not be started */
    ACP_EIO = -3,          /* reading or writing a stream failed */
    ACP_ECLOSED = -4,      /* the connection or the client is closed */
    ACP_ETIMEDOUT = -5,    /* a per-request timeout fired */
    ACP_ECANCELLED = -6,   /* cancelled by this side */
    ACP_ERPC = -7,         /* the agent answered with a JSON-RPC error (see rpc_code) */
    ACP_EPROTOCOL = -8,    /* the agent broke the protocol */
    ACP_EUNSUPPORTED = -9, /* the agent does not offer what was asked for */
    ACP_EINTERNAL = -10,   /* a bug in libacp (or out of memory) */
    ACP_EAGAIN = -11,      /* nothing to return now (no queued event) */
    ACP_ENOTFOUND = -12,   /* no such session, item or request */
    ACP_ESTATE = -13       /* not possible in this mode or state */
} acp_error_t;

/* The message of the last failed call on this thread ("" if none). Valid until the next
 * failing call on this thread. */
ACP_API const char *acp_error_last(void);
/* "ACP_ECLOSED", ... for a code; "ACP_E?" for an unknown one. */
ACP_API const char *acp_error_name(int code);

/* The outcome of an asynchronous call, valid as long as the event carrying it. */
typedef struct acp_status {
    int code;                  /* ACP_OK or ACP_E* */
    const char *message;       /* "" on success */
    int rpc_code;              /* the JSON-RPC error code when code == ACP_ERPC, else 0 */
    const char *rpc_data_json; /* the error's "data" as JSON, "" when none */
} acp_status;

/* ---- objects ------------------------------------------------------------------------- */

typedef struct acp_client acp_client;       /* one connection to one agent */
typedef struct acp_event acp_event;         /* something that happened (see ACP_EVENT_*) */
typedef struct acp_responder acp_responder; /* the answer owed to one agent request */
typedef struct acp_session acp_session;     /* a snapshot of one session's model */
typedef struct acp_item acp_item;           /* a copy of one item of a session's model */

/* Ends a handler's userdata: called once, after the handler's last call (acp_client_set_handler). */
typedef void (*acp_release_cb)(void *userdata);
/* Handlers receive events they do not own: the event is freed when the handler returns. */
typedef void (*acp_event_cb)(const acp_event *event, void *userdata);
/* Completion of one asynchronous call: an ACP_EVENT_RESULT, called exactly once. */
typedef void (*acp_result_cb)(const acp_event *result, void *userdata);

/* ---- creating a client ----------------------------------------------------------------- */

/* Where a client's event loop runs (acp_client_options.mode). */
typedef enum acp_mode_t {
    ACP_MODE_POLLED = 0, /* libacp owns a loop; the host watches acp_client_fd() and calls run_nowait */
    ACP_MODE_THREAD = 1, /* libacp runs its loop on its own thread; callbacks run there */
    ACP_MODE_LOOP = 2    /* the host's uv_loop_t (same libuv as libacp); host thread only */
} acp_mode_t;

/* The severity of a log record (acp_client_options.log_level, acp_event_log_level). */
typedef enum acp_log_level_t {
    ACP_LOG_DEBUG = 0,
    ACP_LOG_INFO = 1,
    ACP_LOG_WARNING = 2,
    ACP_LOG_ERROR = 3
} acp_log_level_t;

/* The ACP version initialize asks for first (acp_client_options.protocol_version). */
typedef enum acp_protocol_t {
    ACP_PROTOCOL_AUTO = 0, /* ask for v2; continue in v1 when the agent answers 1 */
    ACP_PROTOCOL_V1 = 1,   /* send the v1 initialize first (agents known to speak only v1) */
    ACP_PROTOCOL_V2 = 2    /* the same as ACP_PROTOCOL_AUTO */
} acp_protocol_t;

/* The versions of the options structs this header describes. */
typedef enum acp_options_version_t {
    ACP_CLIENT_OPTIONS_VERSION = 4, /* 1 ended before protocol_version, 2 before unstable, 3 before session_updates */
    ACP_SPAWN_OPTIONS_VERSION = 1,
    ACP_REMOTE_OPTIONS_VERSION = 1,
    ACP_TOOL_SERVER_OPTIONS_VERSION = 1,
    ACP_REGISTRY_FETCH_OPTIONS_VERSION = 1,
    ACP_INSTALL_OPTIONS_VERSION = 2 /* 1 ended before cache_dir */
} acp_options_version_t;

/* Whether session/update notifications become ACP_EVENT_SESSION_UPDATE events
 * (acp_client_options.session_updates; acp_client_report_updates fixes the choice later). */
typedef enum acp_updates_t {
    ACP_UPDATES_AUTO = 0, /* off while the host follows the model (acp_client_observe_sessions
                             on) with no handler for ACP_EVENT_SESSION_UPDATE, else on:
                             coalesced changes without asking */
    ACP_UPDATES_ON = 1,   /* always: what options of versions 1 to 3 get */
    ACP_UPDATES_OFF = 2   /* never */
} acp_updates_t;

/* How a client runs and what it tells the agent (acp_client_spawn, _adopt, _connect):
 * start from ACP_CLIENT_OPTIONS_INIT or acp_client_options_init(). */
typedef struct acp_client_options {
    unsigned int version;             /* ACP_CLIENT_OPTIONS_VERSION */
    int mode;                         /* ACP_MODE_* */
    void *uv_loop;                    /* ACP_MODE_LOOP: the host's uv_loop_t* */
    const char *client_name;          /* NULL: "libacp" */
    const char *client_version;       /* NULL: the library version */
    unsigned long request_timeout_ms; /* 0: requests never time out */
    size_t max_line_bytes;            /* 0: 32 MiB */
    int queue_events;                 /* nonzero: events without a handler wait in the pull queue */
    int log_level;                    /* ACP_LOG_*: log records below it are not reported */
    int protocol_version;             /* ACP_PROTOCOL_*: what initialize asks for first (docs/v1.md) */
    int unstable;                     /* nonzero: opt in to ACP's unstable surface (acp_client_unstable_call) */
    int session_updates;              /* ACP_UPDATES_*: AUTO (the default) turns update events off
                                         while the host observes the sessions */
} acp_client_options;
#define ACP_CLIENT_OPTIONS_INIT                                                                                     \
    {                                                                                                               \
        ACP_CLIENT_OPTIONS_VERSION, ACP_MODE_POLLED, NULL, NULL, NULL, 0, 0, 1, ACP_LOG_INFO, ACP_PROTOCOL_AUTO, 0, \
            ACP_UPDATES_AUTO                                                                                        \
    }

/* The agent process acp_client_spawn starts: start from ACP_SPAWN_OPTIONS_INIT. */
typedef struct acp_spawn_options {
    unsigned int version;             /* ACP_SPAWN_OPTIONS_VERSION */
    const char *const *argv;          /* NULL-terminated; argv[0] is looked up on PATH, no shell */
    const char *cwd;                  /* NULL: the host's working directory */
    const char *const *env_set;       /* NULL-terminated "NAME=value" entries added to the host's env */
    const char *const *env_unset;     /* NULL-terminated names removed from it */
    unsigned long shutdown_grace_ms;  /* 0: 2000; after stdin is closed, before SIGTERM */
    unsigned long terminate_grace_ms; /* 0: 2000; after SIGTERM, before SIGKILL */
} acp_spawn_options;
#define ACP_SPAWN_OPTIONS_INIT \
    { ACP_SPAWN_OPTIONS_VERSION, NULL, NULL, NULL, NULL, 0, 0 }

/* An agent on the network (docs/remote.md): ws:// and wss:// speak WebSocket, http:// and
 * https:// Streamable HTTP. Certificates and host names are always verified. */
typedef struct acp_remote_options {
    unsigned int version;             /* ACP_REMOTE_OPTIONS_VERSION */
    const char *url;                  /* ws://, wss://, http:// or https:// */
    const char *const *headers;       /* NULL-terminated "Name: value" entries sent with every
                                         request (e.g. "Authorization: Bearer ..."); values are
                                         never logged */
    const char *ca_file;              /* PEM file of CAs to trust; NULL: the system's */
    unsigned long connect_timeout_ms; /* 0: 10000 */
} acp_remote_options;
#define ACP_REMOTE_OPTIONS_INIT \
    { ACP_REMOTE_OPTIONS_VERSION, NULL, NULL, NULL, 0 }

/* The defaults of the _INIT macros, for hosts that cannot use a macro (FFIs): fills the
 * struct of that version (an older, shorter version only up to its last member) and sets
 * its version member. ACP_EINVAL for a NULL struct or a version this library does not know. */
ACP_API int acp_client_options_init(acp_client_options *options, unsigned int version);
/* The same for acp_spawn_options (ACP_SPAWN_OPTIONS_INIT). */
ACP_API int acp_spawn_options_init(acp_spawn_options *options, unsigned int version);
/* The same for acp_remote_options (ACP_REMOTE_OPTIONS_INIT). */
ACP_API int acp_remote_options_init(acp_remote_options *options, unsigned int version);

/* Spawns the agent and connects to it. options may be NULL (ACP_CLIENT_OPTIONS_INIT). */
ACP_API int acp_client_spawn(acp_client **out, const acp_spawn_options *agent, const acp_client_options *options);
/* Connects to an agent on the network. The connection opens in the background; a refused
 * connection, a bad certificate or an HTTP error fails acp_client_initialize with the
 * reason. ACP_EUNSUPPORTED for another scheme, or a libacp built without remote transports. */
ACP_API int acp_client_connect(acp_client **out, const acp_remote_options *agent, const acp_client_options *options);
/* Adopts streams the host opened (the agent's stdout, stdin and optionally stderr, -1 for
 * none); libacp owns and closes them. */
ACP_API int acp_client_adopt(acp_client **out, int read_fd, int write_fd, int stderr_fd,
                             const acp_client_options *options);
/* Closes the connection if still open, waits for the agent to end (at most the shutdown
 * ladder), completes outstanding calls with ACP_ECLOSED, frees queued events, calls
 * every handler's release, and frees the client. Inside one of its own callbacks it
 * frees nothing (ACP_ESTATE in acp_error_last()): close there, free afterwards.
 * Events, responders and sessions taken from it stay valid (answers then fail). */
ACP_API void acp_client_free(acp_client *client);

/* ---- hosting ---------------------------------------------------------------------------- */

/* ACP_MODE_POLLED: a descriptor that becomes readable when the loop has work; watch it
 * for reading, and call acp_client_run_nowait() when it is readable or after
 * acp_client_timeout_ms() elapsed (-1: no timeout). Also call run_nowait after calling
 * into the client (calls post work that the timeout then reports as 0). Windows has no
 * such descriptor (ACP_EUNSUPPORTED): call acp_client_run_once, or use ACP_MODE_THREAD. */
ACP_API int acp_client_fd(const acp_client *client);
/* How long that wait may last, in milliseconds: -1 for no timeout, 0 when work is due now. */
ACP_API int acp_client_timeout_ms(const acp_client *client);
/* Runs what is ready without blocking; handlers run inside. Returns 1 while the loop has
 * work left, 0 when it has none, or a negative code (wrong mode). */
ACP_API int acp_client_run_nowait(acp_client *client);
/* Polled mode only: blocks until something happened or timeout_ms passed (-1: no limit),
 * then runs it. For simple hosts; returns like run_nowait. */
ACP_API int acp_client_run_once(acp_client *client, int timeout_ms);
/* Readable while the pull queue holds events (every mode): for hosts that wait on many
 * descriptors (asyncio, select) when libacp runs on its own thread. ACP_EUNSUPPORTED on
 * Windows, which has none: pull events after each run, or take them in handlers. */
ACP_API int acp_client_event_fd(const acp_client *client);

/* ---- events -------------------------------------------------------------------------------- */

/* What an event is (acp_event_type) and which of its accessors carry what. */
typedef enum acp_event_type_t {
    ACP_EVENT_RESULT = 1,               /* an asynchronous call completed: status, json, session_id */
    ACP_EVENT_SESSION_UPDATE = 2,       /* json: the session/update params; session_id */
    ACP_EVENT_PERMISSION_REQUEST = 3,   /* json: the request params, options, its tool call; take the responder */
    ACP_EVENT_ELICITATION_REQUEST = 4,  /* json: the request params; take the responder */
    ACP_EVENT_ELICITATION_COMPLETE = 5, /* json: the notification params */
    ACP_EVENT_REQUEST_WITHDRAWN = 6,    /* the agent withdrew a request it made (a tool call: also its session
                                           or the connection ended): request = its responder's id */
    ACP_EVENT_EXT_REQUEST = 7,          /* method, json: params; take the responder (withdrawn:
                                           REQUEST_WITHDRAWN, and libacp answers -32800) */
    ACP_EVENT_EXT_NOTIFICATION = 8,     /* method, json: params */
    ACP_EVENT_UNKNOWN_NOTIFICATION = 9, /* method, json: params (nobody handles it) */
    ACP_EVENT_LOG = 10,                 /* log_level, method = source, text = message */
    ACP_EVENT_TRAFFIC = 11,             /* direction, text = the line */
    ACP_EVENT_CLOSED = 12,              /* status: why the connection ended */
    ACP_EVENT_CLIENT_REQUEST = 13,      /* a v1 agent's fs/ or terminal/ request: method, json: params
                                           (v1 shape), session_id; take the responder */
    ACP_EVENT_SESSION_CHANGED = 14,     /* the session model changed (after acp_client_observe_sessions):
                                           session_id, change, item index, kind, id and appended text */
    ACP_EVENT_TOOL_CALL = 15,           /* the agent called a tool the host offers (acp_tool_server): json =
                                           its arguments (an object, already checked against the tool's input
                                           schema), session_id, acp_event_tool_server/_name; take the responder */
    ACP_EVENT_AUTH_STATUS_UPDATE = 16,  /* unstable (acp_client_options.unstable only): the agent's
                                           auth/status_update; method, json: its params */
    ACP_EVENT_TYPE_COUNT = 17
} acp_event_type_t;

/* What an ACP_EVENT_SESSION_CHANGED says changed (docs/session-model.md, "Events"). */
typedef enum acp_change_t {
    ACP_CHANGE_SESSION_ADDED = 0, /* first sight of the session */
    ACP_CHANGE_SESSION_RESET = 1, /* a full replay began: the session is empty again */
    ACP_CHANGE_SESSION_REMOVED = 2,
    ACP_CHANGE_ITEM_INSERTED = 3, /* item index/kind/id is new */
    ACP_CHANGE_ITEM_CHANGED = 4,  /* item index/kind/id changed in place */
    ACP_CHANGE_STATE = 5,         /* the foreground state differs (acp_event_state) */
    ACP_CHANGE_TURN_ENDED = 6,    /* a real completion, never a replayed or resumed idle state */
    ACP_CHANGE_CONFIG_OPTIONS = 7,
    ACP_CHANGE_COMMANDS = 8,
    ACP_CHANGE_INFO = 9,
    ACP_CHANGE_USAGE = 10,
    ACP_CHANGE_NOTICE_ADDED = 11,
    ACP_CHANGE_REPLAY_ENDED = 12
} acp_change_t;

/* Which way an ACP_EVENT_TRAFFIC line went (acp_event_direction). */
typedef enum acp_direction_t { ACP_DIRECTION_INCOMING = 0, ACP_DIRECTION_OUTGOING = 1 } acp_direction_t;

/* Takes the oldest queued event (only events no handler took are queued, and only with
 * options.queue_events). 0 and *out set, or ACP_EAGAIN when the queue is empty. Never
 * calls back into the host. Free the event with acp_event_free(). */
ACP_API int acp_client_next_event(acp_event **out, acp_client *client);
/* The number of queued events. */
ACP_API int acp_client_pending_events(const acp_client *client);

/* ACP_EVENT_* (0 for a NULL event). */
ACP_API int acp_event_type(const acp_event *event);
/* RESULT: the request id the call returned; PERMISSION/ELICITATION/CLIENT_REQUEST/EXT_REQUEST,
 * TOOL_CALL and REQUEST_WITHDRAWN: the responder's id; 0 otherwise. */
ACP_API unsigned long acp_event_request(const acp_event *event);
/* RESULT and CLOSED: the outcome; otherwise a success status. Never NULL. */
ACP_API const acp_status *acp_event_status(const acp_event *event);
/* The JSON payload (see ACP_EVENT_*; RESULT: the typed response, e.g. InitializeResponse,
 * "null" on failure); never NULL. */
ACP_API const char *acp_event_json(const acp_event *event);
/* The session the event is about, or NULL. RESULT of a call about a session: that session
 * (new_session: the new session's id, also when the call failed: NULL). TOOL_CALL: the
 * session the server was offered to (NULL while its session/new is still pending). */
ACP_API const char *acp_event_session_id(const acp_event *event);
/* RESULT: the method called; EXT_*, CLIENT_REQUEST and UNKNOWN_NOTIFICATION: the method; LOG: the
 * source ("agent-stderr", "transport", "jsonrpc", "client", "session"); NULL otherwise. */
ACP_API const char *acp_event_method(const acp_event *event);
/* LOG: the message; TRAFFIC: the line; NULL otherwise. */
ACP_API const char *acp_event_text(const acp_event *event);
/* LOG: the record's ACP_LOG_* level; 0 otherwise. */
ACP_API int acp_event_log_level(const acp_event *event);
/* TRAFFIC: the line's ACP_DIRECTION_*; 0 otherwise. */
ACP_API int acp_event_direction(const acp_event *event);
/* SESSION_CHANGED: the ACP_CHANGE_*; -1 for other events. */
ACP_API int acp_event_change(const acp_event *event);
/* SESSION_CHANGED about an item: its index in the session's items, ACP_ITEM_* kind and
 * entity id; PERMISSION_REQUEST about a tool call: that tool call (read it with
 * acp_client_item). Index -1 and id NULL for other changes and events. */
ACP_API int acp_event_item_index(const acp_event *event);
/* The item's ACP_ITEM_* kind; ACP_ITEM_UNKNOWN when the event is about no item. */
ACP_API int acp_event_item_kind(const acp_event *event);
/* The item's entity id; NULL when the event is about no item. */
ACP_API const char *acp_event_item_id(const acp_event *event);
/* SESSION_CHANGED caused by a chunk that only appended to the item's text (a message
 * chunk, a terminal output chunk): the UTF-8 text it appended (valid as long as the event;
 * "" for a block without text), its byte size in *size when size is not NULL. NULL (and
 * *size 0) for any other change, which may have replaced the text: read the item again.
 * A host following a streamed reply does work of the chunk's size, not the message's.
 * Coalescing: while such an event waits in the pull queue, the next change of the queue
 * (nothing between) that appends to the same item joins it, its text appended: a host
 * slower than the stream gets one event per pull, not one per chunk, and loses no text.
 * A coalesced event keeps the first event's change (ITEM_INSERTED stays). */
ACP_API const char *acp_event_appended_text(const acp_event *event, size_t *size);
/* SESSION_CHANGED STATE and TURN_ENDED: the foreground state ("idle", "running",
 * "requires_action" or an unrecognised one) and the idle state's stop reason, or NULL. */
ACP_API const char *acp_event_state(const acp_event *event);
/* The idle state's stop reason ("end_turn", "cancelled", ...), or NULL. */
ACP_API const char *acp_event_stop_reason(const acp_event *event);
/* PERMISSION_REQUEST: the options offered, in order (0 for other events). Id (what
 * acp_responder_select takes), name (the label to show) and kind ("allow_once",
 * "allow_always", "reject_once", "reject_always" or one this version does not know);
 * NULL for an index out of range. */
ACP_API int acp_event_option_count(const acp_event *event);
/* The id of option index, what acp_responder_select takes. */
ACP_API const char *acp_event_option_id(const acp_event *event, int index);
/* The label of option index, to show the user. */
ACP_API const char *acp_event_option_name(const acp_event *event, int index);
/* The kind of option index ("allow_once", ...). */
ACP_API const char *acp_event_option_kind(const acp_event *event, int index);
/* TOOL_CALL: the name of the tool server called (acp_tool_server_new); NULL for other events. */
ACP_API const char *acp_event_tool_server(const acp_event *event);
/* TOOL_CALL: the name of the tool called; NULL for other events. */
ACP_API const char *acp_event_tool_name(const acp_event *event);
/* Moves the event's responder to the caller, who must free it with acp_responder_free()
 * (answering or not). Without this, the request is answered when the event is freed or
 * the handler returns: permission "cancelled", elicitation "cancel", extension and
 * client method -32603, tool call the MCP error -32603.
 * ACP_ENOTFOUND if the event has none (or it was taken). */
ACP_API int acp_event_take_responder(acp_responder **out, const acp_event *event);
/* Frees an event taken from the pull queue (never one a handler received); an untaken
 * responder answers its default first. NULL is allowed. */
ACP_API void acp_event_free(acp_event *event);

/* Registers fn for events of one type (ACP_EVENT_*): they are passed to it instead of
 * being queued. fn NULL unregisters (a release given with it runs at once). The previous
 * handler's release runs (once, after its last call; inside this call when no handler
 * is running); at acp_client_free every handler's release runs. Handlers run on the
 * loop's thread (inside run_nowait, on libacp's thread, or on the host's loop). */
ACP_API int acp_client_set_handler(acp_client *client, int event_type, acp_event_cb fn, void *userdata,
                                   acp_release_cb release);
/* Before initialize: advertise elicitation modes (form, url) and deliver their requests. */
ACP_API int acp_client_enable_elicitation(acp_client *client, int form, int url);
/* Before initialize: accept an agent extension method ("_vendor/x") as
 * ACP_EVENT_EXT_REQUEST (is_request nonzero) or ACP_EVENT_EXT_NOTIFICATION. */
ACP_API int acp_client_add_ext_method(acp_client *client, const char *method, int is_request);
/* Before initialize: serve ACP v1's client methods (v2 has none) as
 * ACP_EVENT_CLIENT_REQUEST. Each is advertised to a v1 agent (clientCapabilities.fs,
 * .terminal) only when enabled; a call again adds to what was enabled. Answer with
 * acp_responder_respond (the method's v1 response, e.g. {"content":"..."}) or
 * acp_responder_fail (e.g. -32002 for a missing file). */
typedef enum acp_client_method_t {
    ACP_CLIENT_METHOD_READ_TEXT_FILE = 1,  /* fs/read_text_file */
    ACP_CLIENT_METHOD_WRITE_TEXT_FILE = 2, /* fs/write_text_file */
    ACP_CLIENT_METHOD_TERMINAL = 4         /* terminal/create, output, wait_for_exit, kill, release */
} acp_client_method_t;
/* methods: ACP_CLIENT_METHOD_* flags, or-ed; ACP_EINVAL for an unknown flag. */
ACP_API int acp_client_serve_client_methods(acp_client *client, unsigned int methods);
/* Before initialize: libacp itself serves fs/read_text_file and/or fs/write_text_file
 * (methods: ACP_CLIENT_METHOD_READ_TEXT_FILE, _WRITE_TEXT_FILE) from disk, for absolute
 * paths that after resolving symlinks and ".." lie inside the cwd or an additional
 * directory this client sent for the session; anything else is answered with a JSON-RPC
 * error. No event is delivered for them. Reads honour line/limit; max_file_bytes bounds
 * what is read and written (0: 16 MiB). See docs/v1.md, "Serving files safely". */
ACP_API int acp_client_serve_confined_files(acp_client *client, unsigned int methods, size_t max_file_bytes);
/* For a host answering fs requests itself: *out receives the real path that path names
 * inside session_id's directories (free with acp_string_free). Refused: ACP_EINVAL
 * (relative, outside, unresolvable) or ACP_ENOTFOUND (a session this client did not open;
 * a file to read that does not exist), with *out_rpc_code (if not NULL) the JSON-RPC code
 * to fail the request with and the reason in acp_error_last(). for_write nonzero: the
 * file (and its directories) may not exist yet. */
ACP_API int acp_client_confine_path(char **out, int *out_rpc_code, acp_client *client, const char *session_id,
                                    const char *path, int for_write);
/* Reports every line in and out as ACP_EVENT_TRAFFIC; redact hides secrets in MCP configs
 * and _meta, both directions (docs/untrusted-agent.md). */
ACP_API int acp_client_observe_traffic(acp_client *client, int enabled, int redact);
/* Reports every change of the session model as ACP_EVENT_SESSION_CHANGED, in order and
 * each before the ACP_EVENT_SESSION_UPDATE that caused it: enough to update a UI row by
 * row (read the item from acp_client_session) without diffing snapshots. A handler runs
 * while the model is being changed: it may read it, but calls that change it (cancel,
 * resume, close_session) belong after it returns. Queued events describe the model as it
 * was then; a later snapshot may be further on. */
ACP_API int acp_client_observe_sessions(acp_client *client, int enabled);
/* Whether session/update notifications become ACP_EVENT_SESSION_UPDATE events, fixing
 * the choice acp_client_options.session_updates left to the client. By default (AUTO) they
 * are on until the host observes the sessions, then off. Off, no update is decoded for the
 * host or re-encoded as JSON, streamed text goes from the agent's line straight into the
 * model, and queued text changes of one item coalesce (ACP_EVENT_SESSION_CHANGED). The
 * model is the same either way. A host that observes the sessions and also wants the
 * updates calls this with 1. */
ACP_API int acp_client_report_updates(acp_client *client, int enabled);
/* Bounds the pull queue. Once the events waiting in it hold more than max_bytes (their
 * JSON and text, coalesced text included), libacp stops reading from the agent, which then
 * waits in its pipe, until the host has pulled the queue down to a quarter of max_bytes.
 * Nothing is dropped: a host that lags costs memory up to the bound, then time. Default
 * 4 MiB; 0: unbounded. A host that never pulls (and has no handler for every event type
 * the agent causes) stalls the agent at the bound, results of its calls included. */
ACP_API int acp_client_set_event_queue_bound(acp_client *client, size_t max_bytes);

/* ---- responders (thread-safe; answer any time later, exactly once) -------------------- */

/* The id matching the request's event (and a later REQUEST_WITHDRAWN). */
ACP_API unsigned long acp_responder_id(const acp_responder *responder);
/* Permission: the optionId chosen (one of the offered; anything else answers "cancelled"). */
ACP_API int acp_responder_select(acp_responder *responder, const char *option_id);
/* Permission: "cancelled"; elicitation: "cancel". */
ACP_API int acp_responder_cancel(acp_responder *responder);
/* Elicitation: accept with content_json, a JSON object of property values. Content that
 * does not fit the elicitation's schema is answered "cancel" (never a bad answer); the
 * check runs on the loop thread, so it cannot be reported here. */
ACP_API int acp_responder_accept(acp_responder *responder, const char *content_json);
/* Elicitation: "decline". */
ACP_API int acp_responder_decline(acp_responder *responder);
/* Extension request: the result (a JSON object) or a JSON-RPC error. Client method
 * request: the response of its method, validated against the v1 schema (ACP_EINVAL, and
 * the request stays unanswered, when it does not fit), or a JSON-RPC error. */
ACP_API int acp_responder_respond(acp_responder *responder, const char *result_json);
/* Extension or client method request: the JSON-RPC error rpc_code with message (NULL: ""). */
ACP_API int acp_responder_fail(acp_responder *responder, int rpc_code, const char *message);
/* 1 once an answer was given through this handle, 0 otherwise. */
ACP_API int acp_responder_answered(const acp_responder *responder);
/* 1 once the agent withdrew the request (the ACP_EVENT_REQUEST_WITHDRAWN of its id was
 * emitted; for a tool call also when its session or the connection ended), 0 otherwise.
 * An answer given after that goes nowhere. For hosts that work on a request in a thread. */
ACP_API int acp_responder_withdrawn(const acp_responder *responder);
/* Answers with the default (see acp_event_take_responder) if unanswered, then frees. */
ACP_API void acp_responder_free(acp_responder *responder);

/* ---- calls ------------------------------------------------------------------------------------
 * Each returns 0 once the call is under way (out_request, if not NULL, receives its id for
 * acp_client_cancel_request and the result event), or a negative code when refused at
 * once (invalid JSON, closed client). The result's JSON is the response in wire shape. */

ACP_API int acp_client_initialize(unsigned long *out_request, acp_client *client, acp_result_cb done, void *userdata);
/* The agent's InitializeResponse (info, capabilities, authMethods) once initialize
 * succeeded, as JSON. *out must be freed with acp_string_free(). ACP_ESTATE before. */
ACP_API int acp_client_agent_json(char **out, acp_client *client);
/* The ACP version the agent speaks, 2 or 1, once initialize succeeded; 0 before. With a
 * v1 agent, calls, results and updates keep their v2 shapes: libacp translates. */
ACP_API int acp_client_negotiated_version(acp_client *client);
/* A v1 agent's own v1 InitializeResponse (agentCapabilities with loadSession and the
 * sessionCapabilities markers that gate list, resume and close), as JSON; free with
 * acp_string_free(). ACP_ENOTFOUND when the agent speaks v2, ACP_ESTATE before
 * initialize succeeded. */
ACP_API int acp_client_agent_v1_json(char **out, acp_client *client);
/* Frees a string libacp handed out through a char **out. NULL is allowed. */
ACP_API void acp_string_free(char *text);

/* auth/login with method_id, the id of one of the agent's authMethods. */
ACP_API int acp_client_login(unsigned long *out_request, acp_client *client, const char *method_id, acp_result_cb done,
                             void *userdata);
/* auth/logout. */
ACP_API int acp_client_logout(unsigned long *out_request, acp_client *client, acp_result_cb done, void *userdata);

/* request_json: a NewSessionRequest, e.g. {"cwd":"/abs/path","mcpServers":[]} */
ACP_API int acp_client_new_session(unsigned long *out_request, acp_client *client, const char *request_json,
                                   acp_result_cb done, void *userdata);
/* session/new in the directory cwd (absolute), with no MCP servers: no JSON to write. */
ACP_API int acp_client_new_session_cwd(unsigned long *out_request, acp_client *client, const char *cwd,
                                       acp_result_cb done, void *userdata);
/* request_json: a ResumeSessionRequest; with "replayFrom":{"type":"start"} the history is
 * replayed as session updates before the result. */
ACP_API int acp_client_resume_session(unsigned long *out_request, acp_client *client, const char *request_json,
                                      acp_result_cb done, void *userdata);
/* request_json: a ListSessionsRequest (one page), or NULL for {}. */
ACP_API int acp_client_list_sessions(unsigned long *out_request, acp_client *client, const char *request_json,
                                     acp_result_cb done, void *userdata);
/* Every page: the result is a JSON array of SessionInfo. cwd may be NULL. */
ACP_API int acp_client_list_all_sessions(unsigned long *out_request, acp_client *client, const char *cwd,
                                         acp_result_cb done, void *userdata);
/* session/close: the agent ends the session; the tool servers offered to it stop. */
ACP_API int acp_client_close_session(unsigned long *out_request, acp_client *client, const char *session_id,
                                     acp_result_cb done, void *userdata);
/* session/delete: the agent deletes the session; the tool servers offered to it stop. */
ACP_API int acp_client_delete_session(unsigned long *out_request, acp_client *client, const char *session_id,
                                      acp_result_cb done, void *userdata);
/* request_json: a PromptRequest {"sessionId":..., "prompt":[content blocks]}. The result
 * only acknowledges the user message; the turn ends with an idle state update. */
ACP_API int acp_client_prompt(unsigned long *out_request, acp_client *client, const char *request_json,
                              acp_result_cb done, void *userdata);
/* A prompt of one text block. */
ACP_API int acp_client_prompt_text(unsigned long *out_request, acp_client *client, const char *session_id,
                                   const char *text, acp_result_cb done, void *userdata);
/* session/cancel: stops the session's running turn. */
ACP_API int acp_client_cancel(acp_client *client, const char *session_id);
/* request_json: a SetSessionConfigOptionRequest {"sessionId","configId","type"?,"value"}. */
ACP_API int acp_client_set_config_option(unsigned long *out_request, acp_client *client, const char *request_json,
                                         acp_result_cb done, void *userdata);
/* tool_call/cancel: asks the agent to stop one running tool call of the session. */
ACP_API int acp_client_cancel_tool_call(unsigned long *out_request, acp_client *client, const char *session_id,
                                        const char *tool_call_id, acp_result_cb done, void *userdata);
/* terminal/cancel: asks the agent to stop one terminal of the session. */
ACP_API int acp_client_cancel_terminal(unsigned long *out_request, acp_client *client, const char *session_id,
                                       const char *terminal_id, acp_result_cb done, void *userdata);
/* An extension request ("_vendor/x"); params_json a JSON object or NULL. */
ACP_API int acp_client_ext_request(unsigned long *out_request, acp_client *client, const char *method,
                                   const char *params_json, acp_result_cb done, void *userdata);
/* An extension notification ("_vendor/x"), sent before this returns; params_json a JSON
 * object or NULL. ACP_EINVAL for a method without the leading '_', ACP_ECLOSED once closed. */
ACP_API int acp_client_ext_notify(acp_client *client, const char *method, const char *params_json);
/* ACP's unstable surface (CLIENT-GUIDE 4.14; docs/unstable.md), with the opt-in
 * acp_client_options.unstable only: method is one of "session/fork", "session/archive",
 * "session/unarchive", "session/status", "session/set_title", "auth/status",
 * "providers/list", "providers/set", "providers/disable", or "session/new",
 * "session/resume", "session/list" with their unstable members (systemPrompt, archived);
 * params_json its request (NULL: {}). A call the agent did not advertise, or any without
 * the opt-in, fails with ACP_EUNSUPPORTED before anything is sent; providers/disable of a
 * provider the agent lists as required is refused. The result is the response in wire
 * shape; a fork's new session joins the model and names the result. Which calls the agent
 * offers: acp_client_unstable_offer. */
ACP_API int acp_client_unstable_call(unsigned long *out_request, acp_client *client, const char *method,
                                     const char *params_json, acp_result_cb done, void *userdata);
/* What the agent offers of the unstable surface, as a JSON object of booleans: fork,
 * archive, status, title, systemPrompt, systemPromptOverride, authStatus, providers (all
 * false without the opt-in). Free with acp_string_free. ACP_ESTATE before initialize. */
ACP_API int acp_client_unstable_offer(char **out, acp_client *client);
/* Withdraws an outstanding prompt or extension request ($/cancel_request). Its result is
 * still the agent's real answer: ACP_ECANCELLED when the withdrawal took effect (-32800),
 * or the normal result when the agent had already done the work. Other calls complete on
 * their own (0 is returned all the same). */
ACP_API int acp_client_cancel_request(acp_client *client, unsigned long request);

/* ---- editor tools: MCP servers the host offers (docs/tools.md) --------------------------
 * A tool server is a name and tools, each with a JSON Schema for its input. Offered with
 * a session's setup (acp_client_new_session_with_tools, _resume_session_with_tools), it is
 * served over the first MCP transport the agent advertised (MCP over ACP, loopback HTTP,
 * the stdio bridge) until the session is closed, deleted or resumed with other tools, or
 * the connection ends. Each call of a tool arrives as an ACP_EVENT_TOOL_CALL whose
 * responder the host answers at once or later, from any thread:
 *
 *   acp_tool_server *editor;
 *   acp_tool_server_new(&editor, "editor", NULL);
 *   acp_tool_server_add_tool(editor, "current_selection", "Current selection",
 *                            "The text selected in the editor", NULL, NULL, NULL);
 *   acp_client_new_session_with_tools(&request, client, "{\"cwd\":\"/src\"}", &editor, 1, NULL, NULL);
 *   acp_tool_server_free(editor);                         (the setup keeps what it needs)
 *   ... on ACP_EVENT_TOOL_CALL: acp_event_take_responder(&r, event);
 *       acp_responder_tool_text(r, selection); acp_responder_free(r);
 *
 * The agent is untrusted: arguments that do not fit the input schema, oversized messages
 * and calls past the bound in flight are answered with an MCP error and never become
 * events. */
typedef struct acp_tool_server acp_tool_server;

/* Start from ACP_TOOL_SERVER_OPTIONS_INIT or acp_tool_server_options_init(). */
typedef struct acp_tool_server_options {
    unsigned int version;        /* ACP_TOOL_SERVER_OPTIONS_VERSION */
    const char *server_version;  /* NULL: "1.0.0" (MCP serverInfo.version) */
    size_t max_concurrent_calls; /* 0: 64; calls in flight per session, more are refused */
    size_t max_message_bytes;    /* 0: 1 MiB; a larger MCP message is refused unparsed */
} acp_tool_server_options;
#define ACP_TOOL_SERVER_OPTIONS_INIT \
    { ACP_TOOL_SERVER_OPTIONS_VERSION, NULL, 0, 0 }
/* The defaults of ACP_TOOL_SERVER_OPTIONS_INIT, as acp_client_options_init does. */
ACP_API int acp_tool_server_options_init(acp_tool_server_options *options, unsigned int version);

/* name: what the agent sees as the server's name (e.g. "editor"), not empty. options may
 * be NULL (ACP_TOOL_SERVER_OPTIONS_INIT). Thread-safe; not tied to a client: one server
 * may be offered to many sessions of many clients. */
ACP_API int acp_tool_server_new(acp_tool_server **out, const char *name, const acp_tool_server_options *options);
/* Adds a tool. name: 1..128 of [A-Za-z0-9_.-], unique in the server. title, description:
 * NULL for none. input_schema_json: a JSON Schema object for the arguments, NULL for
 * {"type":"object"} (no input); checked on every call (type, properties, required,
 * additionalProperties, enum, const, items, minItems/maxItems, minLength/maxLength,
 * minimum/maximum). output_schema_json: NULL, or an object schema that structured answers
 * must match. annotations_json: NULL, or MCP ToolAnnotations ({"readOnlyHint":true}),
 * passed as given. ACP_EINVAL (nothing added) for a bad or duplicate name or JSON that is
 * not an object. A tool added after the server was offered is offered from the next setup
 * on. */
ACP_API int acp_tool_server_add_tool(acp_tool_server *server, const char *name, const char *title,
                                     const char *description, const char *input_schema_json,
                                     const char *output_schema_json, const char *annotations_json);
/* The number of tools added so far. */
ACP_API int acp_tool_server_tool_count(const acp_tool_server *server);
/* Sessions it was offered to keep serving it. */
ACP_API void acp_tool_server_free(acp_tool_server *server);

/* acp_client_new_session and acp_client_resume_session (v1: session/load) with the host's
 * tool servers (count of them; servers may be freed once the call returned): their entries
 * are added to the request's mcpServers (which may be left out) and the whole list is
 * checked before sending. ACP_EINVAL at once for a NULL server or two with one name. When
 * the agent advertised no MCP transport libacp serves, nothing is sent and the result is
 * ACP_EUNSUPPORTED, naming what the agent supports. A resume's servers replace the
 * session's earlier ones (none: dropped). */
ACP_API int acp_client_new_session_with_tools(unsigned long *out_request, acp_client *client, const char *request_json,
                                              acp_tool_server *const *servers, size_t count, acp_result_cb done,
                                              void *userdata);
/* The same for acp_client_resume_session. */
ACP_API int acp_client_resume_session_with_tools(unsigned long *out_request, acp_client *client,
                                                 const char *request_json, acp_tool_server *const *servers,
                                                 size_t count, acp_result_cb done, void *userdata);
/* session/fork, session/new or session/resume of the unstable surface with the host's tool
 * servers, served for the new, resumed or forked session as by
 * acp_client_new_session_with_tools. */
ACP_API int acp_client_unstable_call_with_tools(unsigned long *out_request, acp_client *client, const char *method,
                                                const char *params_json, acp_tool_server *const *servers, size_t count,
                                                acp_result_cb done, void *userdata);

/* Answers to an ACP_EVENT_TOOL_CALL's responder (exactly one of text, structured, error,
 * result; ACP_ESTATE for a second, or for a responder of another request):
 * - text: the result content [{"type":"text","text":text}];
 * - structured: structuredContent, a JSON object (its JSON text also as the text content);
 *   ACP_EINVAL (and the call stays unanswered) when it is not an object or does not match
 *   the tool's output schema;
 * - error: the tool failed; a result with isError true and the message as its text, which
 *   the model sees;
 * - result: a whole MCP CallToolResult as JSON; ACP_EINVAL when not an object.
 * An answer after the call was withdrawn (acp_responder_withdrawn) returns 0 and goes
 * nowhere. A responder freed unanswered answers the MCP error -32603. */
ACP_API int acp_responder_tool_text(acp_responder *responder, const char *text);
/* The structured answer (see above). */
ACP_API int acp_responder_tool_structured(acp_responder *responder, const char *structured_json);
/* The error answer (see above). */
ACP_API int acp_responder_tool_error(acp_responder *responder, const char *message);
/* The whole CallToolResult answer (see above). */
ACP_API int acp_responder_tool_result(acp_responder *responder, const char *call_tool_result_json);
/* notifications/progress for the call before its answer, when the agent asked for progress
 * (else nothing is sent; 0 all the same). total <= 0: unknown; message may be NULL.
 * ACP_ESTATE once answered. */
ACP_API int acp_responder_tool_progress(acp_responder *responder, double progress, double total, const char *message);

/* Closes the connection (stdin, then the shutdown ladder); ACP_EVENT_CLOSED follows.
 * Asynchronous, idempotent, legal inside any callback. Later calls fail with ACP_ECLOSED. */
ACP_API int acp_client_close(acp_client *client);
/* A host's "stop the agent" pressed again: acp_client_close() if it was not called, and
 * after it the shutdown ladder's next step now instead of after its grace: terminate
 * (SIGTERM, or CTRL_BREAK_EVENT on Windows), then kill the agent's whole tree. Nothing more
 * once the agent is gone, or for a remote or adopted agent. Legal inside any callback. */
ACP_API int acp_client_hasten_close(acp_client *client);
/* 1 once the client is closing or closed (and for NULL), 0 while it is open. */
ACP_API int acp_client_is_closed(const acp_client *client);

/* ---- the session model ---------------------------------------------------------------------- */

/* The kind of an item of a session's model (docs/session-model.md). */
typedef enum acp_item_kind_t {
    ACP_ITEM_USER_MESSAGE = 0,
    ACP_ITEM_AGENT_MESSAGE = 1,
    ACP_ITEM_AGENT_THOUGHT = 2,
    ACP_ITEM_TOOL_CALL = 3,
    ACP_ITEM_PLAN = 4,
    ACP_ITEM_TERMINAL = 5,
    ACP_ITEM_COMPACTION = 6,
    ACP_ITEM_UNKNOWN = 7,
    ACP_ITEM_SUBAGENT = 8,       /* unstable subagent_update: a child session */
    ACP_ITEM_SESSION_MESSAGE = 9 /* unstable session_message(_chunk) */
} acp_item_kind_t;

/* A consistent snapshot of one session's model (thread-safe to read, immutable).
 * ACP_ENOTFOUND if the client holds no such session. */
ACP_API int acp_client_session(acp_session **out, acp_client *client, const char *session_id);
/* The ids of every session the model holds, as a JSON array. Free with acp_string_free. */
ACP_API int acp_client_session_ids(char **out, acp_client *client);
/* Frees the snapshot; the strings read from it go with it. NULL is allowed. */
ACP_API void acp_session_free(acp_session *session);

/* The session's id. The strings below are valid until the snapshot is freed. */
ACP_API const char *acp_session_id(const acp_session *session);
/* The canonical JSON dump (docs/session-model.md). */
ACP_API const char *acp_session_json(const acp_session *session);
/* "idle", "running", "requires_action" or an unrecognised state. */
ACP_API const char *acp_session_state(const acp_session *session);
/* The last idle state's stop reason, or NULL. */
ACP_API const char *acp_session_stop_reason(const acp_session *session);
ACP_API const char *acp_session_title(const acp_session *session); /* or NULL */
/* 0 and the context window figures, or ACP_ENOTFOUND when not reported. */
ACP_API int acp_session_usage(const acp_session *session, double *used, double *size);
/* The session's config options as a JSON array of SessionConfigOption, or NULL when not
 * reported. */
ACP_API const char *acp_session_config_options_json(const acp_session *session);
/* Its commands as a JSON array of AvailableCommand, or NULL when not reported. */
ACP_API const char *acp_session_commands_json(const acp_session *session);

/* The number of items in the snapshot; their indexes run from 0. */
ACP_API int acp_session_item_count(const acp_session *session);
/* ACP_ITEM_*, or ACP_ENOTFOUND for an index out of range (likewise below: NULL). */
ACP_API int acp_session_item_kind(const acp_session *session, int index);
/* The entity id (messageId, toolCallId, terminalId, planId, ...). */
ACP_API const char *acp_session_item_id(const acp_session *session, int index);
/* Messages: their text blocks concatenated; terminals: the output text; else NULL. */
ACP_API const char *acp_session_item_text(const acp_session *session, int index);
/* Tool calls: the title (NULL when none). */
ACP_API const char *acp_session_item_title(const acp_session *session, int index);
/* Tool calls and compactions: the status ("pending", "completed", ...); else NULL. */
ACP_API const char *acp_session_item_status(const acp_session *session, int index);
/* The item as in the canonical dump. */
ACP_API const char *acp_session_item_json(const acp_session *session, int index);

/* ---- one item, without a snapshot --------------------------------------------------------
 * A copy of one item of the live model, costing that item's size (a snapshot costs the
 * whole session's). Immutable, thread-safe to read, freed with acp_item_free. */

/* The number of items the session holds, or ACP_ENOTFOUND. */
ACP_API int acp_client_item_count(acp_client *client, const char *session_id);
/* By index (an item never moves, so the index of an ACP_EVENT_SESSION_CHANGED stays good)
 * or by ACP_ITEM_* kind and entity id. ACP_ENOTFOUND for no such session or item. */
ACP_API int acp_client_item(acp_item **out, acp_client *client, const char *session_id, int index);
/* The same by ACP_ITEM_* kind (not ACP_ITEM_UNKNOWN) and entity id. */
ACP_API int acp_client_find_item(acp_item **out, acp_client *client, const char *session_id, int kind,
                                 const char *item_id);
/* Frees the copy; the strings read from it go with it. NULL is allowed. */
ACP_API void acp_item_free(acp_item *item);

/* The item's index in its session. The strings below are valid until the copy is freed. */
ACP_API int acp_item_index(const acp_item *item);
ACP_API int acp_item_kind(const acp_item *item); /* ACP_ITEM_* */
/* The entity id (messageId, toolCallId, ...; an unknown item's sessionUpdate tag). */
ACP_API const char *acp_item_id(const acp_item *item);
/* Messages: their text blocks concatenated; terminals: the output text; else NULL. The
 * byte size goes to *size when size is not NULL (the text may hold NUL characters). */
ACP_API const char *acp_item_text(const acp_item *item, size_t *size);
/* Tool calls: the title; NULL when none (and for other kinds). */
ACP_API const char *acp_item_title(const acp_item *item);
/* Tool calls and compactions: the status ("pending", "in_progress", "completed", ...). */
ACP_API const char *acp_item_status(const acp_item *item);
/* Tool calls: the tool kind ("read", "edit", "execute", ..., "other"). */
ACP_API const char *acp_item_tool_kind(const acp_item *item);
/* Content blocks (messages, tool calls) or summary blocks (compactions): their number,
 * and one as JSON (a ContentBlock, or a ToolCallContent for tool calls). */
ACP_API int acp_item_content_count(const acp_item *item);
/* Block index as JSON; NULL (ACP_ENOTFOUND) for an index out of range. */
ACP_API const char *acp_item_content_json(const acp_item *item, int index);
/* One member of the item's canonical dump as JSON ("rawInput", "locations", "command",
 * "exitStatus", "plan", ...; docs/session-model.md), or NULL when it has no such member. */
ACP_API const char *acp_item_field_json(const acp_item *item, const char *name);
/* The whole item as in the canonical dump. */
ACP_API const char *acp_item_json(const acp_item *item);

/* ---- agents by name (docs/agents.md) ------------------------------------------------ */

/* The ACP registry and the user's named agents, resolved to what starts an agent. A
 * catalogue never starts a process: the host fills acp_spawn_options from the answer. */
typedef struct acp_catalogue acp_catalogue;

/* registry_json: ACP registry JSON (registry.json's format), or NULL for the snapshot
 * built into libacp. user_agents_path: the user's agents file, NULL for the default
 * ($XDG_CONFIG_HOME/acp/agents.json), "" for none; a file that does not exist is fine.
 * ACP_EINVAL when the registry or the agents file is unusable, naming the problem. */
ACP_API int acp_catalogue_new(acp_catalogue **out, const char *registry_json, const char *user_agents_path);
/* Frees the catalogue. NULL is allowed. */
ACP_API void acp_catalogue_free(acp_catalogue *catalogue);
/* The agents as JSON: {"default": name or null, "problems": [...], "agents": [{"id",
 * "name", "version", "description", "icon", "user": bool, "kinds": ["npx", "uvx",
 * "binary"]}]}; registry text is display data (control characters already replaced).
 * Free with acp_string_free. */
ACP_API int acp_catalogue_list_json(char **out, const acp_catalogue *catalogue);

/* Flags of acp_catalogue_resolve_json and acp_catalogue_install, or-ed. */
typedef enum acp_resolve_flags_t {
    ACP_RESOLVE_LOGIN_SHELL = 1, /* take PATH from the user's login shell (once per catalogue) */
    ACP_RESOLVE_NO_INSTALL = 2   /* acp_catalogue_install: resolve with its options only, download nothing */
} acp_resolve_flags_t;

/* Resolves an agent id to {"id", "kind": "user"|"npx"|"uvx"|"binary", "argv": [...],
 * "env": {"NAME": "value"} (to add to the host's), "cwd": "" or a path,
 * "needs_install": bool, "install_dir", "notes": [...]}. ACP_EUNSUPPORTED when it cannot
 * run here (the message says what is missing: "npx is not on the PATH (...)"),
 * ACP_EINVAL for an unknown id. Free with acp_string_free. */
ACP_API int acp_catalogue_resolve_json(char **out, acp_catalogue *catalogue, const char *id, int flags);

/* Where acp_catalogue_fetch gets the registry: start from ACP_REGISTRY_FETCH_OPTIONS_INIT
 * or acp_registry_fetch_options_init(). */
typedef struct acp_registry_fetch_options {
    unsigned int version;     /* ACP_REGISTRY_FETCH_OPTIONS_VERSION */
    const char *url;          /* https:// only; NULL: the ACP registry's latest registry.json */
    const char *cache_file;   /* NULL: $XDG_CACHE_HOME/acp/registry.json; its mtime is its age */
    long max_age_seconds;     /* a cached copy younger than this is used without fetching
                                 (0: always fetch); the INIT value is 86400 */
    const char *ca_file;      /* PEM file of CAs to trust; NULL: the system's */
    unsigned long timeout_ms; /* 0: 30000, for the whole fetch */
} acp_registry_fetch_options;
#define ACP_REGISTRY_FETCH_OPTIONS_INIT \
    { ACP_REGISTRY_FETCH_OPTIONS_VERSION, NULL, NULL, 86400L, NULL, 0 }
/* Fills options with the defaults of that version (ACP_REGISTRY_FETCH_OPTIONS_VERSION):
 * ACP_OK, or ACP_EINVAL for NULL or an unknown version. */
ACP_API int acp_registry_fetch_options_init(acp_registry_fetch_options *options, unsigned int version);

/* A catalogue of the ACP registry fetched over https (libcurl, loaded on first use), kept
 * in the cache file; the cached copy while it is younger than max_age_seconds. A failed
 * fetch (no network, not https, a bad certificate, not a registry, over 4 MiB) is not an
 * error: the cached copy of any age is used, else the snapshot built into libacp.
 * info_json (NULL if not wanted) says which: {"source": "network"|"cache"|"bundled",
 * "age_seconds": n (of the cached copy), "notes": [why it is not the network's]}; free it
 * with acp_string_free. options may be NULL (ACP_REGISTRY_FETCH_OPTIONS_INIT);
 * user_agents_path as for acp_catalogue_new. Blocks the calling thread for the fetch.
 * ACP_EINVAL for bad options or an unusable agents file. */
ACP_API int acp_catalogue_fetch(acp_catalogue **out, char **info_json, const acp_registry_fetch_options *options,
                                const char *user_agents_path);

/* How acp_catalogue_install downloads and unpacks a binary build: start from
 * ACP_INSTALL_OPTIONS_INIT or acp_install_options_init(). */
typedef struct acp_install_options {
    unsigned int version;             /* ACP_INSTALL_OPTIONS_VERSION */
    const char *ca_file;              /* PEM file of CAs to trust; NULL: the system's */
    size_t max_download_bytes;        /* 0: 512 MiB; a larger archive is refused */
    size_t max_unpacked_bytes;        /* 0: 2 GiB, sparse members at their full size */
    unsigned long connect_timeout_ms; /* 0: 30000 */
    /* Version 2. */
    const char *cache_dir; /* where binary agents are unpacked; NULL: $XDG_CACHE_HOME/acp/agents */
    const char *platform;  /* the registry's platform target to pick a build for ("linux-aarch64");
                              NULL: this machine's */
    const char *path;      /* the PATH the agent's command is looked up on, instead of the host's or
                              (ACP_RESOLVE_LOGIN_SHELL) the login shell's; NULL: theirs */
} acp_install_options;
#define ACP_INSTALL_OPTIONS_INIT \
    { ACP_INSTALL_OPTIONS_VERSION, NULL, 0, 0, 0, NULL, NULL, NULL }
/* Fills options with the defaults of that version (ACP_INSTALL_OPTIONS_VERSION): ACP_OK,
 * or ACP_EINVAL for NULL or an unknown version. */
ACP_API int acp_install_options_init(acp_install_options *options, unsigned int version);

/* Resolves id as acp_catalogue_resolve_json does (flags: ACP_RESOLVE_*) and, when the
 * answer is a binary build still to be installed, installs it: the archive is downloaded
 * over https only (libcurl, loaded on first use), checked against the registry's sha256,
 * and unpacked (libarchive) into the per-user cache ($XDG_CACHE_HOME/acp/agents), refusing
 * absolute paths, "..", links out of its folder, devices and archives that unpack past
 * max_unpacked_bytes; a refused archive leaves nothing in the cache. *out is the same JSON
 * as acp_catalogue_resolve_json's, now with "needs_install": false, ready for
 * acp_client_spawn; an answer that needs no install (npx, uvx, a user agent, a build
 * installed before) is given as it is. options may be NULL (ACP_INSTALL_OPTIONS_INIT).
 * With ACP_RESOLVE_NO_INSTALL nothing is downloaded: the resolution as the options'
 * cache_dir, platform and path make it (is it installed there yet?), which
 * acp_catalogue_resolve_json cannot be told. Blocks the calling thread for the download. ACP_EINVAL for an unknown id,
 * bad options or a refused archive (a wrong sha256, a hostile path: the message says which), ACP_EIO for a failed
 * download, ACP_EUNSUPPORTED when it cannot run here or libacp was built without ACP_WITH_REMOTE. Free *out with
 * acp_string_free. */
ACP_API int acp_catalogue_install(char **out, acp_catalogue *catalogue, const char *id, int flags,
                                  const acp_install_options *options);

#ifdef __cplusplus
}
#endif

#endif /* ACP_ACP_H */
