# SPDX-License-Identifier: Apache-2.0
"""A small PEP 517 build backend: a wheel is a zip of libacp/ (with py.typed), the licence
and the metadata, plus the shared library libacp.so inside the package, so that the
installed wheel alone gives a working `import libacp`. Standard library only, so pip needs
no index. Where the library comes from (config setting `libacp`):

    pip install bindings/python                         builds libacp.so with CMake from this
                                                        source tree (needs what building libacp
                                                        needs: scripts/install-deps.sh --build)
    pip install bindings/python -C build-dir=DIR        the same in DIR, kept for the next install
                                                        (a configured build tree is only brought
                                                        up to date: e.g. build/)
    pip install bindings/python -C libacp=PATH          bundles the built PATH
    pip install bindings/python -C libacp=system        no library inside: the package loads the
                                                        system's (libacp0, or `cmake --install`)

Anything missing fails the install, saying what to do, never the import. As a script:

    python3 bindings/python/_build/backend.py --library build/dev/libacp.so --out DIR
"""
import argparse
import base64
import ctypes.util
import hashlib
import os
import shutil
import subprocess
import sysconfig
import tempfile
import zipfile

NAME = "libacp"
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TAG = "py3-none-any"


def _version():
    with open(os.path.join(HERE, "pyproject.toml"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("version"):
                return line.split("=", 1)[1].strip().strip('"')
    raise RuntimeError("no version in pyproject.toml")


def _metadata():
    with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: Agent Client Protocol client on libacp's C API\n"
            "License: Apache-2.0\nClassifier: License :: OSI Approved :: Apache Software License\n"
            "License-File: LICENSE\nRequires-Python: >=3.8\nDescription-Content-Type: text/markdown\n\n%s" % (NAME, _version(), readme))


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (path, digest, len(data))


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


# The file name the package looks for beside itself (libacp/_native.py).
BUNDLED_LIBRARY = "libacp.so"


class BuildError(Exception):
    """Why no wheel can be made, and what to do about it."""


def _license():
    for path in (os.path.join(HERE, "LICENSE"), os.path.join(HERE, "..", "..", "LICENSE")):
        if os.path.isfile(path):
            with open(path, "rb") as f:
                return f.read()
    raise BuildError("the LICENSE file is missing (neither in %s nor two levels up)" % HERE)


def _build_library_with_cmake(build):
    """Builds libacp.so in `build` from the source tree around this package (configures
    it first unless it is a configured build tree); returns the library's path."""
    source = os.path.normpath(os.path.join(HERE, "..", ".."))
    how = ("install libacp (Debian: the libacp0 package, or `cmake --install`) and run "
           "`pip install bindings/python -C libacp=system`, or build it and pass -C libacp=PATH/libacp.so")
    if not os.path.isfile(os.path.join(source, "CMakeLists.txt")) or not os.path.isdir(os.path.join(source, "lib")):
        raise BuildError("libacp's source tree is not around %s, so libacp.so cannot be built: %s" % (HERE, how))
    cmake = shutil.which("cmake")
    if cmake is None:
        raise BuildError("cmake is not installed, so libacp.so cannot be built (scripts/install-deps.sh --build "
                         "installs what building it needs); or %s" % how)
    configure = [cmake, "-S", source, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DACP_BUILD_TESTS=OFF",
                 "-DACP_BUILD_SAMPLES=OFF", "-DACP_BUILD_BENCHMARKS=OFF", "-DACP_BUILD_EXAMPLES=OFF"]
    if shutil.which("ninja"):
        configure += ["-G", "Ninja"]
    steps = [] if os.path.isfile(os.path.join(build, "CMakeCache.txt")) else [configure]
    for step in steps + [[cmake, "--build", build, "--target", "acp_shared"]]:
        result = subprocess.run(step, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if result.returncode != 0:
            raise BuildError("building libacp.so failed (%s):\n%s\n(what building libacp needs: "
                             "scripts/install-deps.sh --build; or %s)" % (" ".join(step), result.stdout[-4000:], how))
    library = os.path.join(build, BUNDLED_LIBRARY)
    if not os.path.isfile(library):
        raise BuildError("the CMake build made no %s" % library)
    return library


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    """The metadata alone, so that pip does not build the library twice."""
    dist_info = "%s-%s.dist-info" % (NAME, _version())
    os.makedirs(os.path.join(metadata_directory, dist_info), exist_ok=True)
    with open(os.path.join(metadata_directory, dist_info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata())
    return dist_info


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    setting = (config_settings or {}).get("libacp")
    if setting == "system":
        if ctypes.util.find_library("acp") is None:
            raise BuildError("-C libacp=system, but no libacp is installed (Debian: apt install libacp0)")
        return _build_wheel(wheel_directory, None)
    if setting:
        if not os.path.isfile(setting):
            raise BuildError("-C libacp=%s: no such file" % setting)
        return _build_wheel(wheel_directory, setting)
    build_dir = (config_settings or {}).get("build-dir")
    if build_dir:
        return _build_wheel(wheel_directory, _build_library_with_cmake(os.path.abspath(build_dir)))
    scratch = tempfile.mkdtemp(prefix="libacp-wheel-")
    try:
        return _build_wheel(wheel_directory, _build_library_with_cmake(os.path.join(scratch, "build")))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _build_wheel(wheel_directory, library):
    version = _version()
    dist_info = "%s-%s.dist-info" % (NAME, version)
    # A wheel holding the shared library is for this platform only.
    tag = TAG if not library else "py3-none-" + sysconfig.get_platform().replace("-", "_").replace(".", "_")
    filename = "%s-%s-%s.whl" % (NAME, version, tag)
    files = []
    for root, _, names in os.walk(os.path.join(HERE, NAME)):
        for name in sorted(names):
            if name.endswith(".py") or name == "py.typed":
                full = os.path.join(root, name)
                files.append((os.path.relpath(full, HERE).replace(os.sep, "/"), open(full, "rb").read()))
    if library:
        with open(library, "rb") as f:
            files.append((NAME + "/" + BUNDLED_LIBRARY, f.read()))
    files.append((dist_info + "/LICENSE", _license()))
    files.append((dist_info + "/METADATA", _metadata().encode()))
    files.append((dist_info + "/WHEEL", ("Wheel-Version: 1.0\nGenerator: libacp-backend\nRoot-Is-Purelib: %s\n"
                                         "Tag: %s\n" % ("false" if library else "true", tag)).encode()))
    record = [_record_line(path, data) for path, data in files] + [dist_info + "/RECORD,,"]
    files.append((dist_info + "/RECORD", ("\n".join(record) + "\n").encode()))
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, data in files:
            info = zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (0o755 if path.endswith(".so") else 0o644) << 16
            wheel.writestr(info, data)
    return filename


def build_sdist(sdist_directory, config_settings=None):
    import tarfile
    base = "%s-%s" % (NAME, _version())
    filename = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz") as tar:
        for entry in ("pyproject.toml", "README.md", "_build", NAME):
            tar.add(os.path.join(HERE, entry), arcname=base + "/" + entry,
                    filter=lambda info: None if "__pycache__" in info.name else info)
        license_path = os.path.join(HERE, "..", "..", "LICENSE")
        tar.add(license_path, arcname=base + "/LICENSE")
    return filename


def main():
    parser = argparse.ArgumentParser(description="Builds the libacp wheel with a libacp.so inside.")
    parser.add_argument("--library", required=True, help="the built shared library (libacp.so)")
    parser.add_argument("--out", required=True, help="the directory the wheel goes to")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    print(os.path.join(args.out, _build_wheel(args.out, os.path.abspath(args.library))))


if __name__ == "__main__":
    main()
