# SPDX-License-Identifier: Apache-2.0
"""A minimal PEP 517 build backend: the libacp package is pure Python, so a wheel is a
zip of libacp/ plus its metadata. Standard library only, so pip needs no index.

Given a built libacp.so (config setting `libacp=PATH`, or run as a script), the wheel
carries it inside the package (libacp/libacp.so) and is tagged for this platform, so
`pip install` of that wheel alone gives a working `import libacp`:

    python3 bindings/python/_build/backend.py --library build/dev/libacp.so --out DIR
    pip install --no-index DIR/libacp-*.whl
"""
import argparse
import base64
import hashlib
import os
import sysconfig
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
            "Requires-Python: >=3.8\nDescription-Content-Type: text/markdown\n\n%s" % (NAME, _version(), readme))


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (path, digest, len(data))


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


# The file name the package looks for beside itself (libacp/_native.py).
BUNDLED_LIBRARY = "libacp.so"


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    library = (config_settings or {}).get("libacp")
    version = _version()
    dist_info = "%s-%s.dist-info" % (NAME, version)
    # A wheel holding the shared library is for this platform only.
    tag = TAG if not library else "py3-none-" + sysconfig.get_platform().replace("-", "_").replace(".", "_")
    filename = "%s-%s-%s.whl" % (NAME, version, tag)
    files = []
    for root, _, names in os.walk(os.path.join(HERE, NAME)):
        for name in sorted(names):
            if name.endswith(".py"):
                full = os.path.join(root, name)
                files.append((os.path.relpath(full, HERE).replace(os.sep, "/"), open(full, "rb").read()))
    if library:
        with open(library, "rb") as f:
            files.append((NAME + "/" + BUNDLED_LIBRARY, f.read()))
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
    return filename


def main():
    parser = argparse.ArgumentParser(description="Builds the libacp wheel with a libacp.so inside.")
    parser.add_argument("--library", required=True, help="the built shared library (libacp.so)")
    parser.add_argument("--out", required=True, help="the directory the wheel goes to")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    print(os.path.join(args.out, build_wheel(args.out, {"libacp": os.path.abspath(args.library)})))


if __name__ == "__main__":
    main()
