// SPDX-License-Identifier: Apache-2.0
// The Windows side of the platform layer beside process spawning (lib/platform/windows/):
// path syntax and the fs guard on drive letters, UNC shares, either slash and case,
// random bytes, the user's folders, and the login shell that Windows does not need.
// clang-format off
#include <winsock2.h>  // before windows.h, as libuv's uv.h (through acp/fs_guard.hpp) needs
#include <windows.h>
// clang-format on

#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include "acp/catalogue.hpp"
#include "acp/fs_guard.hpp"
#include "platform/login_shell.hpp"
#include "platform/native_path.hpp"
#include "platform/random_bytes.hpp"
#include "platform/user_dirs.hpp"

namespace {

using namespace acp::detail;

// A fresh folder under the user's temporary folder, removed with what the test made in it.
struct TempFolder {
    std::string path;
    TempFolder() {
        char base[MAX_PATH + 1];
        REQUIRE(::GetTempPathA(sizeof base, base) > 0);
        for (unsigned attempt = ::GetCurrentProcessId();; ++attempt) {
            path = std::string(base) + "acp-guard-" + std::to_string(attempt);
            if (::CreateDirectoryA(path.c_str(), nullptr)) break;
            REQUIRE(::GetLastError() == ERROR_ALREADY_EXISTS);
        }
        REQUIRE(::CreateDirectoryA((path + "\\Project").c_str(), nullptr));
        HANDLE file = ::CreateFileA((path + "\\Project\\notes.txt").c_str(), GENERIC_WRITE, 0, nullptr, CREATE_NEW,
                                    FILE_ATTRIBUTE_NORMAL, nullptr);
        REQUIRE(file != INVALID_HANDLE_VALUE);
        ::CloseHandle(file);
        file = ::CreateFileA((path + "\\secret.txt").c_str(), GENERIC_WRITE, 0, nullptr, CREATE_NEW,
                             FILE_ATTRIBUTE_NORMAL, nullptr);
        REQUIRE(file != INVALID_HANDLE_VALUE);
        ::CloseHandle(file);
    }
    ~TempFolder() {
        ::DeleteFileA((path + "\\Project\\notes.txt").c_str());
        ::DeleteFileA((path + "\\secret.txt").c_str());
        ::RemoveDirectoryA((path + "\\Project").c_str());
        ::RemoveDirectoryA(path.c_str());
    }
};

std::string upper(std::string text) {
    for (char& c : text) {
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    }
    return text;
}

std::string forward_slashes(std::string text) {
    for (char& c : text) {
        if (c == '\\') c = '/';
    }
    return text;
}

}  // namespace

TEST_CASE("windows paths: drive letters and UNC shares are absolute, device and drive-relative paths are not") {
    CHECK(is_native_absolute("C:\\Users\\me"));
    CHECK(is_native_absolute("c:/Users/me"));
    CHECK(is_native_absolute("\\\\server\\share\\file.txt"));
    CHECK(is_native_absolute("//server/share"));
    CHECK_FALSE(is_native_absolute("C:relative"));
    CHECK_FALSE(is_native_absolute("\\rooted\\no\\drive"));
    CHECK_FALSE(is_native_absolute("relative\\path"));
    CHECK_FALSE(is_native_absolute("\\\\?\\C:\\Windows"));
    CHECK_FALSE(is_native_absolute("\\\\.\\pipe\\name"));
    CHECK_FALSE(is_native_absolute("\\\\server"));
    CHECK_FALSE(is_native_absolute("C:\\file.txt:stream"));
    CHECK(root_length("C:\\x\\y") == 3);
    CHECK(root_length("\\\\server\\share\\x") == std::strlen("\\\\server\\share"));
}

TEST_CASE("windows paths: inside a root ignores case and slash direction, never a sibling with the same prefix") {
    CHECK(path_is_inside("C:\\Proj\\src\\a.c", "c:\\proj"));
    CHECK(path_is_inside("C:/proj/src", "C:\\proj\\"));
    CHECK(path_is_inside("C:\\proj", "C:\\proj"));
    CHECK(path_is_inside("C:\\anything", "C:\\"));
    CHECK_FALSE(path_is_inside("C:\\project\\a.c", "C:\\proj"));
    CHECK_FALSE(path_is_inside("D:\\proj\\a.c", "C:\\proj"));
    CHECK_FALSE(path_is_inside("C:\\", "C:\\proj"));
}

TEST_CASE("windows paths: names Windows would rewrite or treat as devices are not plain") {
    CHECK(is_plain_name("notes.txt"));
    CHECK(is_plain_name("console.log"));
    CHECK_FALSE(is_plain_name(".."));
    CHECK_FALSE(is_plain_name("NUL"));
    CHECK_FALSE(is_plain_name("nul.txt"));
    CHECK_FALSE(is_plain_name("COM1"));
    CHECK_FALSE(is_plain_name("lpt9.log"));
    CHECK_FALSE(is_plain_name("trailing."));
    CHECK_FALSE(is_plain_name("trailing "));
    CHECK_FALSE(is_plain_name("file:stream"));
}

TEST_CASE("fs guard on windows: paths inside are served in any case and slash, escapes are refused") {
    TempFolder temp;
    const std::string project = temp.path + "\\Project";
    acp::SessionRoots roots;
    roots.cwd = project;

    auto inside = acp::confine_path(roots, upper(project) + "\\NOTES.TXT", acp::PathUse::read);
    REQUIRE(inside);
    CHECK(upper(*inside) == upper(project + "\\notes.txt"));
    CHECK(acp::confine_path(roots, forward_slashes(project) + "/notes.txt", acp::PathUse::read));

    auto created = acp::confine_path(roots, project + "\\new\\deeper\\file.txt", acp::PathUse::write);
    REQUIRE(created);
    CHECK(upper(*created) == upper(project + "\\new\\deeper\\file.txt"));
    CHECK_FALSE(acp::confine_path(roots, project + "\\new\\file.txt", acp::PathUse::read));

    // `..` out (Windows takes `..` off the text before it looks at the disk, so through a
    // missing folder too), a sibling with the same prefix, a device, a stream, a relative
    // path, a device path that skips Windows' own checks.
    CHECK_FALSE(acp::confine_path(roots, project + "\\..\\secret.txt", acp::PathUse::read));
    CHECK_FALSE(acp::confine_path(roots, project + "/../secret.txt", acp::PathUse::read));
    CHECK_FALSE(acp::confine_path(roots, project + "\\missing\\..\\..\\secret.txt", acp::PathUse::write));
    CHECK_FALSE(acp::confine_path(roots, temp.path + "\\secret.txt", acp::PathUse::read));
    CHECK_FALSE(acp::confine_path(roots, temp.path + "\\ProjectX\\a.txt", acp::PathUse::write));
    CHECK_FALSE(acp::confine_path(roots, project + "\\NUL", acp::PathUse::write));
    CHECK_FALSE(acp::confine_path(roots, project + "\\notes.txt:hidden", acp::PathUse::write));
    CHECK_FALSE(acp::confine_path(roots, "Project\\notes.txt", acp::PathUse::read));
    CHECK_FALSE(acp::confine_path(roots, "\\\\?\\" + project + "\\notes.txt", acp::PathUse::read));
}

TEST_CASE("windows platform: random bytes come from the system and differ between calls") {
    unsigned char first[64] = {};
    unsigned char second[64] = {};
    REQUIRE(fill_random(first, sizeof first));
    REQUIRE(fill_random(second, sizeof second));
    CHECK(std::memcmp(first, second, sizeof first) != 0);
}

TEST_CASE("windows platform: the user's folders are absolute paths under the profile, joined with backslashes") {
    const std::string config = user_config_dir();
    const std::string cache = user_cache_dir();
    CHECK(is_native_absolute(config));
    CHECK(is_native_absolute(cache));
    CHECK(acp::user_agents_path() == config + "\\acp\\agents.json");
    CHECK(acp::registry_cache_path() == cache + "\\acp\\registry.json");
}

TEST_CASE("windows platform: there is no login shell to ask, and the answer says why") {
    auto env = run_login_shell(std::chrono::seconds(1));
    REQUIRE_FALSE(env);
    CHECK(env.status().code() == acp::Errc::unsupported);
    CHECK(env.status().message().find("not needed on Windows") != std::string::npos);
}
