// SPDX-License-Identifier: Apache-2.0
// The login shell's environment: taken once, bounded by a timeout, never when the host
// gives its own. The shell is /bin/sh with a HOME whose .profile the test writes.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "acp/catalogue.hpp"

using namespace acp;

namespace {

// HOME and SHELL pointed at a scratch home for the test's duration.
struct LoginHome {
    explicit LoginHome(const std::string& profile) {
        char path[] = "/tmp/acp-login-XXXXXX";
        REQUIRE(mkdtemp(path) != nullptr);
        dir = path;
        std::ofstream(dir + "/.profile") << profile;
        REQUIRE(mkdir((dir + "/bin").c_str(), 0700) == 0);
        std::ofstream(dir + "/bin/npx") << "#!/bin/sh\n";
        REQUIRE(chmod((dir + "/bin/npx").c_str(), 0700) == 0);
        save("HOME", old_home);
        save("SHELL", old_shell);
        save("ENV", old_env);
        setenv("HOME", dir.c_str(), 1);
        setenv("SHELL", "/bin/sh", 1);
        unsetenv("ENV");
    }
    ~LoginHome() {
        restore("HOME", old_home);
        restore("SHELL", old_shell);
        restore("ENV", old_env);
        (void)std::system(("rm -rf '" + dir + "'").c_str());
    }
    static void save(const char* name, std::optional<std::string>& out) {
        if (const char* v = std::getenv(name)) out = v;
    }
    static void restore(const char* name, const std::optional<std::string>& value) {
        if (value) {
            setenv(name, value->c_str(), 1);
        } else {
            unsetenv(name);
        }
    }
    std::string runs() const {
        std::ifstream in(dir + "/runs");
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    }

    std::string dir;
    std::optional<std::string> old_home, old_shell, old_env;
};

std::string profile_with_path() {
    return "echo noise from the profile\n"
           "echo run >> \"$HOME/runs\"\n"
           "export PATH=\"$HOME/bin:/usr/bin:/bin\"\n"
           "export ACP_TEST_TOKEN_DIR=/secrets\n"
           "export ACP_TEST_OTHER=x\n";
}

const char* kRegistry = R"({"agents": [{"id": "a", "distribution": {"npx": {"package": "a@1"}}}]})";

}  // namespace

TEST_CASE("login shell: PATH and the named variables come from the user's profile") {
    LoginHome home(profile_with_path());
    auto env = login_shell_environment({"ACP_TEST_TOKEN_DIR"}, std::chrono::seconds(10));
    REQUIRE_MESSAGE(env.ok(), env.status().to_string());
    CHECK(*env == EnvList{{"PATH", home.dir + "/bin:/usr/bin:/bin"}, {"ACP_TEST_TOKEN_DIR", "/secrets"}});
}

TEST_CASE("login shell: resolve finds npx on the login PATH, asks the shell once, and passes PATH on") {
    LoginHome home(profile_with_path());
    auto c = Catalogue::from_registry_json(kRegistry);
    REQUIRE(c.ok());
    ResolveOptions how;
    how.login_shell = true;
    how.login_shell_variables = {"ACP_TEST_TOKEN_DIR"};
    for (int i = 0; i < 2; ++i) {
        auto r = c->resolve("a", how);
        REQUIRE_MESSAGE(r.ok(), r.status().to_string());
        CHECK(r->spawn.argv == std::vector<std::string>{home.dir + "/bin/npx", "-y", "a@1"});
        CHECK(r->spawn.env_set ==
              EnvList{{"PATH", home.dir + "/bin:/usr/bin:/bin"}, {"ACP_TEST_TOKEN_DIR", "/secrets"}});
    }
    CHECK(home.runs() == "run\n");
}

TEST_CASE("login shell: never run when the host gives its own PATH") {
    LoginHome home(profile_with_path());
    auto c = Catalogue::from_registry_json(kRegistry);
    REQUIRE(c.ok());
    ResolveOptions how;
    how.login_shell = true;
    how.path = home.dir + "/bin";
    auto r = c->resolve("a", how);
    REQUIRE(r.ok());
    CHECK(r->spawn.env_set.empty());
    CHECK(home.runs().empty());
}

TEST_CASE("login shell: a shell that hangs is killed at the timeout and resolve goes on without it") {
    LoginHome home("sleep 60\n");
    auto env = login_shell_environment({}, std::chrono::milliseconds(300));
    CHECK(env.status().code() == Errc::timed_out);
    CHECK(env.status().message() == "the login shell /bin/sh did not answer within 300 ms");

    auto c = Catalogue::from_registry_json(kRegistry);
    REQUIRE(c.ok());
    ResolveOptions how;
    how.login_shell = true;
    how.login_shell_timeout = std::chrono::milliseconds(300);
    auto r = c->resolve("a", how);
    // The host's PATH may hold npx or not: the note is in the resolution or in the error.
    std::string said = r.ok() ? (r->notes.empty() ? std::string() : r->notes[0]) : r.status().message();
    CHECK(
        said.find("the login shell's environment is not used: the login shell /bin/sh did not answer within 300 ms") !=
        std::string::npos);
}
