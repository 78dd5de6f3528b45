// SPDX-License-Identifier: Apache-2.0
// One prompt with libacp driven from a Qt event loop: the client's loop is a polled
// acp::Runtime, and Qt wakes it. A QSocketNotifier watches the runtime's descriptor, a
// single-shot QTimer stands for its timeout, and every wake-up runs run_nowait() (where
// libacp's callbacks run) and re-arms the timer from timeout_ms(). Nothing blocks:
// initialize, new session and the turn chain through callbacks, and the end of the turn
// quits the application.
//     qt-loop AGENT [ARGS...]      e.g. qt-loop acp-demo-agent
#include <acp/client.hpp>
#include <acp/runtime.hpp>
#include <acp/turn.hpp>

#include <QCoreApplication>
#include <QSocketNotifier>
#include <QTimer>

#include <filesystem>
#include <iostream>

namespace {

// Runs a polled runtime inside Qt's event loop, on the thread that created both.
class RuntimePump {
public:
    explicit RuntimePump(acp::Runtime& runtime) : runtime_(runtime), notifier_(*runtime.fd(), QSocketNotifier::Read) {
        timer_.setSingleShot(true);
        QObject::connect(&notifier_, &QSocketNotifier::activated, [this] { run(); });
        QObject::connect(&timer_, &QTimer::timeout, [this] { run(); });
    }

    // After the host called into the client outside a callback: the call posted work
    // that libacp's loop must run (inside callbacks run() re-arms by itself).
    void wake() { timer_.start(0); }

private:
    void run() {
        (void)runtime_.run_nowait();
        // -1: nothing pending but the descriptor; 0: work is ready (or libuv has watchers
        // to hand to the kernel), so come back at once.
        int timeout = runtime_.timeout_ms().value_or(0);
        if (timeout < 0) {
            timer_.stop();
        } else {
            timer_.start(timeout);
        }
    }

    acp::Runtime& runtime_;
    QSocketNotifier notifier_;
    QTimer timer_;
};

int fail(const acp::Status& why) {
    std::cerr << "error: " << why.to_string() << "\n";
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    if (argc < 2) return std::cerr << "usage: qt-loop AGENT [ARGS...]\n", 2;
    auto created = acp::Runtime::create(acp::HostingMode::polled);
    if (!created) return fail(created.status());
    acp::Runtime& runtime = **created;
    acp::SpawnOptions agent;
    agent.argv.assign(argv + 1, argv + argc);
    auto spawned = acp::Client::spawn(runtime.loop(), agent);
    if (!spawned) return fail(spawned.status());
    std::unique_ptr<acp::Client> client = std::move(*spawned);
    RuntimePump pump(runtime);

    acp::Status failure;
    std::optional<acp::TurnEnd> end;
    auto give_up = [&](const acp::Status& why) {
        failure = why;
        QCoreApplication::exit(1);
    };
    client->on_permission_request(
        [](const acp::v2::RequestPermissionRequest& request, acp::PermissionResponder answer) {
            for (const auto& option : request.options) {
                if (option.kind.value != acp::v2::PermissionOptionKind::allow_once) continue;
                std::cout << "\n[" << request.title << ": " << option.name << "]\n";
                return answer.select(option.optionId);
            }
            answer.cancel();
        });
    auto on_text = [](const acp::TurnText& t) { std::cout << (t.starts_message ? "\n" : "") << t.text << std::flush; };
    auto on_end = [&](acp::Result<acp::TurnEnd> turn) {
        if (!turn) return give_up(turn.status());
        end = std::move(*turn);
        QCoreApplication::exit(0);
    };
    auto on_session = [&](acp::Result<acp::v2::NewSessionResponse> session) {
        if (!session) return give_up(session.status());
        acp::prompt_turn(*client, session->sessionId, "Hello!", on_text, on_end);
    };
    client->initialize([&](acp::Result<acp::v2::InitializeResponse> init) {
        if (!init) return give_up(init.status());
        acp::v2::NewSessionRequest request;
        request.cwd = std::filesystem::current_path().string();
        client->new_session(request, on_session);
    });
    pump.wake();
    QCoreApplication::exec();

    // The client ends on the loop's thread; shutdown runs libacp's loop until the agent
    // has exited and every handle is closed.
    runtime.shutdown([&] { client.reset(); });
    if (!failure.ok()) return fail(failure);
    if (!end) return fail(acp::Status(acp::Errc::internal, "the event loop ended before the turn"));
    std::cout << "\n[turn ended: " << end->stop_reason.value_or("no reason given") << "]\n";
    return end->ended_normally() ? 0 : 1;
}
