# The JAX library, {{target}} (every op's XLA FFI handlers). Configure from out/:
#   cmake -S out -B build -DWITH_JAX=ON [-DJAX_PYTHON=/path/to/venv/bin/python] [-DWITH_CUDA=ON]
#   cmake --build build --target {{target}}
# Python loads it with {{package}} (out/jax/{{package}}: put out/jax on sys.path).
include("${CMAKE_CURRENT_SOURCE_DIR}/../cmake/opforge_jax.cmake")
