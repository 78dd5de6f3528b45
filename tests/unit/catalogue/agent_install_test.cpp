// SPDX-License-Identifier: Apache-2.0
// Installing binary agents: archives made here (python3's tarfile and GNU tar), served as
// file:// URLs, so no test touches the network. Hostile archives are refused with
// nothing left in the cache and nothing written outside it.
#include <dirent.h>
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "acp/catalogue.hpp"
#include "catalogue/sha256.hpp"

using namespace acp;

namespace {

struct Scratch {
    Scratch() {
        char path[] = "/tmp/acp-install-XXXXXX";
        REQUIRE(mkdtemp(path) != nullptr);
        dir = path;
        REQUIRE(mkdir((dir + "/cache").c_str(), 0700) == 0);
    }
    ~Scratch() { (void)std::system(("rm -rf '" + dir + "'").c_str()); }

    // Runs python3 with `code` after `import tarfile, io, sys; d = <dir>` (a missing
    // python3 fails the test).
    void python(const std::string& code) const {
        std::string script = dir + "/make.py";
        std::ofstream(script)
            << "import tarfile, io, os, sys\nd = " << '"' << dir << '"' << "\n"
            << "def add(t, name, data=b'', mode=0o755, kind=tarfile.REGTYPE, link=''):\n"
            << "    i = tarfile.TarInfo(name); i.size = len(data); i.mode = mode; i.type = kind; i.linkname = link\n"
            << "    t.addfile(i, io.BytesIO(data) if data else None)\n"
            << code;
        REQUIRE(std::system(("python3 '" + script + "'").c_str()) == 0);
    }

    // A resolution of "tool" 1.0 for linux-x86_64 whose archive is dir/name.
    Resolution resolution(const std::string& name, const std::string& sha256 = "") const {
        std::string registry =
            R"({"agents": [{"id": "tool", "version": "1.0", "distribution": {"binary": {"linux-x86_64":
            {"archive": "https://example.invalid/a.tar.gz", "cmd": "./bin/agent", "args": ["--acp"])" +
            (sha256.empty() ? std::string() : ", \"sha256\": \"" + sha256 + "\"") + "}}}}]}";
        auto c = Catalogue::from_registry_json(registry);
        REQUIRE(c.ok());
        ResolveOptions how;
        how.path = dir;
        how.platform = "linux-x86_64";
        how.cache_dir = dir + "/cache";
        auto r = c->resolve("tool", how);
        REQUIRE(r.ok());
        Resolution out = r.value();
        out.binary->archive = "file://" + dir + "/" + name;
        return out;
    }

    // What the cache holds after a refused install: the id's version folder and nothing in it.
    std::vector<std::string> cache_leftovers() const {
        std::vector<std::string> names;
        DIR* d = opendir((dir + "/cache/tool/1.0").c_str());
        if (d == nullptr) return names;
        while (dirent* e = readdir(d)) {
            std::string n = e->d_name;
            if (n != "." && n != "..") names.push_back(n);
        }
        closedir(d);
        return names;
    }

    bool exists(const std::string& path) const {
        struct stat st {};
        return lstat(path.c_str(), &st) == 0;
    }

    std::string dir;
};

InstallOptions local() {
    InstallOptions o;
    o.allow_local_urls = true;
    return o;
}

const char* kGood =
    "t = tarfile.open(d + '/good.tar.gz', 'w:gz')\n"
    "add(t, 'bin', kind=tarfile.DIRTYPE)\n"
    "add(t, 'bin/agent', b'#!/bin/sh\\necho installed agent \"$@\"\\n', 0o4755)\n"
    "add(t, 'bin/alias', kind=tarfile.SYMTYPE, link='agent')\n"
    "t.close()\n";

}  // namespace

TEST_CASE("sha256: the FIPS 180-4 examples") {
    detail::Sha256 empty;
    CHECK(empty.hex_digest() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    detail::Sha256 abc;
    abc.update(reinterpret_cast<const unsigned char*>("abc"), 3);
    CHECK(abc.hex_digest() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    std::string two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    detail::Sha256 long_one;
    long_one.update(reinterpret_cast<const unsigned char*>(two_blocks.data()), two_blocks.size());
    CHECK(long_one.hex_digest() == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST_CASE("install: a good archive with its sha256 installs, and its agent runs") {
    Scratch s;
    s.python(kGood);
    auto digest = detail::sha256_file(s.dir + "/good.tar.gz");
    REQUIRE(digest.ok());
    Resolution r = s.resolution("good.tar.gz", *digest);
    REQUIRE(r.needs_install);
    Status installed = install_binary(r, local());
    REQUIRE_MESSAGE(installed.ok(), installed.to_string());
    std::string agent = s.dir + "/cache/tool/1.0/linux-x86_64/bin/agent";
    struct stat st {};
    REQUIRE(stat(agent.c_str(), &st) == 0);
    CHECK((st.st_mode & 07000) == 0);  // no set-id bit from the archive
    CHECK(s.cache_leftovers() == std::vector<std::string>{"linux-x86_64"});
    CHECK(std::system(("'" + agent + "' --acp > '" + s.dir + "/out'").c_str()) == 0);
    std::ifstream out(s.dir + "/out");
    std::stringstream text;
    text << out.rdbuf();
    CHECK(text.str() == "installed agent --acp\n");

    Resolution again = s.resolution("good.tar.gz");
    CHECK_FALSE(again.needs_install);
    CHECK(again.spawn.argv == std::vector<std::string>{agent, "--acp"});
}

TEST_CASE("install: a wrong sha256 is refused and nothing stays in the cache") {
    Scratch s;
    s.python(kGood);
    Status st = install_binary(s.resolution("good.tar.gz", std::string(64, '0')), local());
    CHECK(st.code() == Errc::invalid_argument);
    CHECK(st.message().find("the registry says 0000") != std::string::npos);
    CHECK(s.cache_leftovers().empty());
}

TEST_CASE("install: hostile archives are refused with nothing written outside the cache") {
    Scratch s;
    std::string outside = s.dir + "/outside";
    s.python(
        "def make(name, build):\n"
        "    t = tarfile.open(d + '/' + name, 'w:gz'); build(t); t.close()\n"
        "make('slip.tgz', lambda t: add(t, 'bin/../../../outside', b'x'))\n"
        "make('absolute.tgz', lambda t: add(t, d + '/outside', b'x'))\n"
        "make('link-out.tgz', lambda t: add(t, 'bin/l', kind=tarfile.SYMTYPE, link='../../../outside'))\n"
        "make('link-abs.tgz', lambda t: add(t, 'l', kind=tarfile.SYMTYPE, link='/etc'))\n"
        "def through(t):\n"
        "    add(t, 'l', kind=tarfile.SYMTYPE, link='.')\n"
        "    add(t, 'l/agent', b'x')\n"
        "make('through-link.tgz', through)\n"
        "make('hardlink.tgz', lambda t: add(t, 'h', kind=tarfile.LNKTYPE, link='/etc/passwd'))\n"
        "make('device.tgz', lambda t: add(t, 'dev', kind=tarfile.CHRTYPE))\n"
        "make('fifo.tgz', lambda t: add(t, 'fifo', kind=tarfile.FIFOTYPE))\n"
        "open(d + '/not-an-archive', 'wb').write(b'plain text, not an archive')\n");
    struct Case {
        const char* archive;
        const char* says;
    };
    for (const Case& c :
         {Case{"slip.tgz", "a path out of its folder"}, Case{"absolute.tgz", "a path out of its folder"},
          Case{"link-out.tgz", "a link out of its folder"}, Case{"link-abs.tgz", "a link out of its folder"},
          Case{"through-link.tgz", "writes through a non-folder"}, Case{"hardlink.tgz", "a hard link"},
          Case{"device.tgz", "a device, FIFO or socket"}, Case{"fifo.tgz", "a device, FIFO or socket"},
          Case{"not-an-archive", "archive"}}) {
        CAPTURE(c.archive);
        Status st = install_binary(s.resolution(c.archive), local());
        CHECK(st.code() == Errc::invalid_argument);
        CHECK(st.message().find(c.says) != std::string::npos);
        CHECK(s.cache_leftovers().empty());
        CHECK_FALSE(s.exists(outside));
    }
}

TEST_CASE("install: a 10 GB sparse member is refused by its size, not written") {
    Scratch s;
    // GNU tar stores the holes, so the archive is tiny; python3 cannot make sparse members.
    std::string make = "cd '" + s.dir +
                       "' && mkdir -p src/bin && truncate -s 10G src/bin/agent && "
                       "tar -S -czf sparse.tgz -C src bin && rm -rf src";
    REQUIRE(std::system(make.c_str()) == 0);
    Status st = install_binary(s.resolution("sparse.tgz"), local());
    CHECK(st.code() == Errc::invalid_argument);
    CHECK(st.message() == "the archive unpacks to more than 2147483648 bytes");
    CHECK(s.cache_leftovers().empty());
}

TEST_CASE("install: only https unless local URLs are allowed, and a download bound holds") {
    Scratch s;
    s.python(kGood);
    Status plain = install_binary(s.resolution("good.tar.gz"));
    CHECK(plain.code() == Errc::invalid_argument);
    CHECK(plain.message() == "the archive URL is not https: file://" + s.dir + "/good.tar.gz");
    InstallOptions tiny = local();
    tiny.max_download_bytes = 16;
    Status large = install_binary(s.resolution("good.tar.gz"), tiny);
    CHECK(large.message() == "the archive is larger than 16 bytes");
    CHECK(s.cache_leftovers().empty());
    Status missing = install_binary(s.resolution("absent.tgz"), local());
    CHECK(missing.code() == Errc::io_error);
}
