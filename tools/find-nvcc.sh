#!/bin/sh
# find-nvcc.sh: prints the path of nvcc, looked for in $CUDA_HOME/bin, $CUDA_PATH/bin, PATH and
# /usr/local/cuda/bin, in that order; exits 1 and prints nothing when there is none.
for dir in ${CUDA_HOME:+"$CUDA_HOME/bin"} ${CUDA_PATH:+"$CUDA_PATH/bin"}; do
	if [ -x "$dir/nvcc" ]; then
		echo "$dir/nvcc"
		exit 0
	fi
done
if nvcc=$(command -v nvcc 2>/dev/null) && [ -n "$nvcc" ]; then
	echo "$nvcc"
	exit 0
fi
if [ -x /usr/local/cuda/bin/nvcc ]; then
	echo /usr/local/cuda/bin/nvcc
	exit 0
fi
exit 1
