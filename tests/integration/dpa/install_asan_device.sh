#!/usr/bin/env bash
# install_asan_device.sh CC... - ASan on device code with the INSTALLED library (issue 12).
# Installs flowdpa (no sanitizer) into a temporary prefix, builds asan_user/ as a user
# would, through the installed dpacc and `pkg-config doca-dpa`, with
# -fsanitize=address on host and device code, runs it and lets check_asan_report.py
# check that ASan's report names the kernel's line and flowdpa the doca_dpa_mem_alloc
# call. Exit 77 (skipped) only when the compiler cannot build and run an ASan program.
set -euo pipefail
src=${FLOWDPA_TEST_SOURCE_ROOT:?}
[ $# -ge 1 ] || { echo "usage: $0 CC..."; exit 2; }
cc=("$@")
work=$(mktemp -d /tmp/flowdpa-asan-install-XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
asan=(-fsanitize=address -fno-omit-frame-pointer)

printf 'int main(void) { return 0; }\n' >"$work/probe.c"
if ! "${cc[@]}" "${asan[@]}" "$work/probe.c" -o "$work/probe" >"$work/probe.log" 2>&1 || ! "$work/probe"; then
	echo "ASan cannot build or run a program with ${cc[*]} here:"
	cat "$work/probe.log"
	exit 77
fi

CC="${cc[*]}" meson setup "$work/build" "$src" --prefix="$prefix" -Dtests=false -Db_sanitize=none \
	>"$work/setup.log" 2>&1 || { cat "$work/setup.log"; exit 1; }
ninja -C "$work/build" install >"$work/install.log" 2>&1 || { tail -50 "$work/install.log"; exit 1; }

pcdir=$(dirname "$(find "$prefix" -name doca-dpa.pc | head -n1)")
export PKG_CONFIG_PATH=$pcdir
export PATH=$prefix/bin:$PATH
libdir=$(pkg-config --variable=libdir doca-dpa)
export LD_LIBRARY_PATH=$libdir
# The point of the test: the library itself knows nothing of ASan.
if nm -D "$libdir/libdoca_dpa.so" | grep -q ' U __asan_'; then
	echo "the installed libdoca_dpa.so is ASan-built; this test needs an uninstrumented one"
	exit 1
fi

user=$src/tests/integration/dpa/asan_user
dpacc "$user/overrun_kernel.c" -o "$work/overrun_device.a" -hostcc="${cc[*]}" --app-name=overrun_app \
	-mcpu=nv-dpa-bf3 --devicecc-options="-Wall -Wextra -Werror -O0 -g ${asan[*]}"
# shellcheck disable=SC2046 # pkg-config's flags are words
"${cc[@]}" -std=c17 -Wall -Wextra -Werror -O0 -g "${asan[@]}" -DDOCA_ALLOW_EXPERIMENTAL_API \
	"$user/overrun_host.c" "$work/overrun_device.a" $(pkg-config --cflags --libs doca-dpa) -o "$work/overrun"
python3 "$src/tests/integration/dpa/check_asan_report.py" "$work/overrun" "$user/overrun_kernel.c" \
	"$user/overrun_host.c"
