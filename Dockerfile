# The Corral image: the repository built on Debian 12 with the project's own install script, for
# running sweeps on Kubernetes (`corral sweep SPEC --emit-job`, docs/comparing-policies.md).
#   docker build -t corral:dev .
#   docker run --rm corral:dev corral compare examples/compare/gpu-gangs.yaml --variant default \
#     --variant gpu-binpack:config=examples/compare/gpu-most-allocated.yaml
# The repository stays in /corral, the working directory, so that the examples and any sweep file
# added to the image resolve their relative paths as they do in a checkout; the emitted Job runs
# there too.
FROM debian:12

ENV DEBIAN_FRONTEND=noninteractive
WORKDIR /corral
COPY scripts/install-deps.sh scripts/install-deps.sh
# The headless browser is only for the report's tests, which the image does not build.
RUN CORRAL_SKIP_BROWSER=1 ./scripts/install-deps.sh && rm -rf /var/lib/apt/lists/*

COPY . .
RUN cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DCORRAL_BUILD_TESTS=OFF \
    && cmake --build build/release --target corral -j"$(nproc)" \
    && install -m 0755 build/release/tools/corral/corral /usr/local/bin/corral \
    && rm -rf build

CMD ["corral", "--help"]
