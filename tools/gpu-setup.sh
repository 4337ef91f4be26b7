# gpu-setup.sh: sourced by the GPU check scripts (tools/gpu-*-check.sh) after setting $script (its name,
# for messages) and before their first check. From the repository root, with the script's arguments
# still in "$@": sets tilec (absolute; built with make when no TILEC argument was given), arch
# ($EMU_ARCH, default sm_90), nvcc, tmp (removed at exit) and runner (tools/emu-gpu-runner.c linked
# with libtilert), and failed=0. Exits 2 when one of them cannot be had.
tilec=${1:-build/tilec}
case $tilec in /*) ;; *) tilec=$PWD/$tilec ;; esac
arch=${EMU_ARCH:-sm_90}
if ! nvcc=$(sh tools/find-nvcc.sh); then
	echo "$script: no nvcc (set CUDA_HOME)" >&2
	exit 2
fi
if [ $# -eq 0 ]; then
	make --no-print-directory build/tilec >/dev/null || exit 2
fi
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
runner=$tmp/emu-gpu-runner
${CC:-cc} -std=c11 -Wall -Wextra -O2 -D_POSIX_C_SOURCE=200809L -Iruntime -o "$runner" tools/emu-gpu-runner.c \
	runtime/tilert.c -ldl || exit 2
failed=0
