# The JAX library, opforge_jax_ops (every op's XLA FFI handlers). Configure from out/:
#   cmake -S out -B build -DWITH_JAX=ON [-DJAX_PYTHON=/path/to/venv/bin/python] [-DWITH_CUDA=ON]
#   cmake --build build --target opforge_jax_ops
# Python loads it with opforge_jax (out/jax/opforge_jax: put out/jax on sys.path).
include("${CMAKE_CURRENT_SOURCE_DIR}/../cmake/opforge_jax.cmake")
