// SPDX-License-Identifier: Apache-2.0
// Adopted descriptors on Windows (lib/transport/fd_transport.cpp): C runtime descriptors
// of pipe HANDLEs the host made itself (_open_osfhandle), here ordinary anonymous pipes,
// which are not overlapped (libuv reads them on a thread of its own).
// libuv's header first: it brings winsock2.h, which must come before windows.h.
#include <uv.h>

#include <windows.h>

#include <fcntl.h>
#include <io.h>

#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "transport/fd_transport.hpp"

namespace {

class Events final : public acp::detail::TransportEvents {
public:
    void on_transport_data(char* data, std::size_t size) override { received.append(data, size); }
    void on_transport_closed(const acp::Status& why) override { closed = why; }

    std::string received;
    std::optional<acp::Status> closed;
};

}  // namespace

TEST_CASE("fd transport: descriptors of the host's own pipe HANDLEs carry bytes both ways and end at EOF") {
    HANDLE agent_reads = nullptr;  // the agent's stdin: the transport writes the other end
    HANDLE to_agent = nullptr;
    HANDLE from_agent = nullptr;  // the agent's stdout: the transport reads this end
    HANDLE agent_writes = nullptr;
    REQUIRE(::CreatePipe(&agent_reads, &to_agent, nullptr, 0));
    REQUIRE(::CreatePipe(&from_agent, &agent_writes, nullptr, 0));
    acp::AdoptedFds fds;
    fds.read_fd = ::_open_osfhandle(reinterpret_cast<intptr_t>(from_agent), _O_RDONLY | _O_BINARY);
    fds.write_fd = ::_open_osfhandle(reinterpret_cast<intptr_t>(to_agent), _O_WRONLY | _O_BINARY);
    REQUIRE(fds.read_fd >= 0);
    REQUIRE(fds.write_fd >= 0);

    uv_loop_t loop;
    uv_loop_init(&loop);
    {
        Events events;
        auto transport = acp::detail::FdTransport::adopt(&loop, fds, acp::detail::Logger());
        REQUIRE(transport.ok());
        (*transport)->start(&events);

        (*transport)->write("{\"id\":1}\n", acp::detail::WriteCause::host);
        std::string to_read;
        while (to_read.size() < 9) {
            uv_run(&loop, UV_RUN_NOWAIT);
            DWORD available = 0;
            REQUIRE(::PeekNamedPipe(agent_reads, nullptr, 0, nullptr, &available, nullptr));
            if (available == 0) {
                ::Sleep(1);
                continue;
            }
            char buffer[64];
            DWORD got = 0;
            REQUIRE(::ReadFile(agent_reads, buffer, sizeof buffer, &got, nullptr));
            to_read.append(buffer, got);
        }
        CHECK(to_read == "{\"id\":1}\n");

        DWORD written = 0;
        REQUIRE(::WriteFile(agent_writes, "{\"id\":1,\"result\":{}}\n", 21, &written, nullptr));
        ::CloseHandle(agent_writes);  // the agent ends its output
        while (!events.closed) uv_run(&loop, UV_RUN_ONCE);
        CHECK(events.received == "{\"id\":1,\"result\":{}}\n");
        CHECK(events.closed->code() == acp::Errc::connection_closed);
        CHECK(events.closed->message() == "the agent closed the connection");
    }
    uv_run(&loop, UV_RUN_DEFAULT);
    CHECK(uv_loop_close(&loop) == 0);
    ::CloseHandle(agent_reads);
}
