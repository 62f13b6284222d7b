#!/usr/bin/env bash
# Installs atenaot under PREFIX (default /usr/local):
#   PREFIX/bin/atenaot                        the CLI (bazel build //:atenaot)
#   PREFIX/bin/atenaot-passes                 the passes on IR text, without LibTorch
#                                             (what atenaot.fx runs; //tools/passes_tool)
#   PREFIX/lib/libatenaot_passes.so           the same passes, loaded into Python by atenaot.fx
#   PREFIX/include/atenaot.h, atenaot_model.h the C ABI
#   PREFIX/lib/libatenaot_runtime.so          the C ABI loader (aot_model_open, ...)
#   the Python package `atenaot`              into PREFIX's dist-packages for this python3
#                                             (or $PYTHON_SITE), needs only the standard library
#
#   bash tools/install.sh [PREFIX]
#
# $ATENAOT (and $ATENAOT_PASSES, $ATENAOT_PASSES_LIB) name already built tools
# to install instead of building them; only those named are installed then.
# Then: `atenaot compile ...` in a shell, `import atenaot` in Python. Uninstall
# by deleting those files (the list is printed). The CLI links LibTorch from
# Debian's libtorch (tools/setup.sh installs it); so does `python3-torch`.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix="${1:-/usr/local}"
py="${PYTHON:-/usr/bin/python3}"; [ -x "$py" ] || py=python3
cc="${CC:-cc}"

if [ -n "${ATENAOT:-}" ]; then
  cli="$ATENAOT"
  passes="${ATENAOT_PASSES:-}"
  passes_lib="${ATENAOT_PASSES_LIB:-}"
else
  bazel build //:atenaot //tools/passes_tool:atenaot-passes //tools/passes_tool:libatenaot_passes.so
  cli="$(bazel info bazel-bin)/atenaot"
  passes="$(bazel info bazel-bin)/tools/passes_tool/atenaot-passes"
  passes_lib="$(bazel info bazel-bin)/tools/passes_tool/libatenaot_passes.so"
fi

# The package goes where this python3 looks for PREFIX's packages (Debian:
# PREFIX/lib/python3.X/dist-packages for /usr/local), else PREFIX/lib/python3.X/site-packages.
site="${PYTHON_SITE:-$("$py" - "$prefix" <<'EOF'
import sys, sysconfig
prefix = sys.argv[1]
for scheme in (sysconfig.get_default_scheme(), "posix_prefix"):
    p = sysconfig.get_path("purelib", scheme, vars={"base": prefix, "platbase": prefix})
    # Debian's posix_local scheme adds /local to the base; use the path as given.
    p = p.replace(prefix + "/local/", prefix + "/") if prefix != "/usr" else p
    if p in sys.path or scheme == "posix_prefix":
        print(p)
        break
EOF
)}"

installed=()
put() {  # put MODE SRC DEST
  install -D -m "$1" "$2" "$3"
  installed+=("$3")
}

put 755 "$cli" "$prefix/bin/atenaot"
if [ -n "$passes" ]; then put 755 "$passes" "$prefix/bin/atenaot-passes"; fi
if [ -n "$passes_lib" ]; then put 755 "$passes_lib" "$prefix/lib/libatenaot_passes.so"; fi
put 644 c_api/atenaot.h "$prefix/include/atenaot.h"
put 644 c_api/atenaot_model.h "$prefix/include/atenaot_model.h"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# Built as `atenaot compile` builds it next to every model.
$cc -std=c99 -O2 -fPIC -shared -Ic_api -o "$tmp/libatenaot_runtime.so" runtime/atenaot_runtime.c -ldl
put 755 "$tmp/libatenaot_runtime.so" "$prefix/lib/libatenaot_runtime.so"
# The package: its files, links resolved (atenaot/_model.py is examples/python/atenaot_model.py).
for f in python/atenaot/*.py; do
  put 644 "$(readlink -f "$f")" "$site/atenaot/$(basename "$f")"
done

printf 'installed:\n'
printf '  %s\n' "${installed[@]}"
if ! "$py" -c 'import sys; sys.exit(0 if sys.argv[1] in sys.path else 1)' "$site"; then
  echo "note: $site is not on $py's sys.path; add it to PYTHONPATH"
fi
case ":$PATH:" in *":$prefix/bin:"*) ;; *) echo "note: $prefix/bin is not on PATH" ;; esac
