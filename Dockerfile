# The conformance harness as a container image (docs/executable.md): `hook-conformance` is the entrypoint and
# /work the working directory, so a run's reports land in the folder mounted there.
#
#   docker build -t hook-conformance .
#   docker run --rm -v "$PWD:/work" hook-conformance run --target hook-server=ws://host.docker.internal:8080/ …
#   docker run --rm -v "$PWD:/work" --user "$(id -u):$(id -g)" hook-conformance run   # reports owned by you
#
# Two stages: the first builds the project's wheel (which carries the features, steps, scenarios and schemas as
# hook_conformance_suite, setup.py); the second installs only that wheel and its dependencies.
ARG PYTHON_IMAGE=python:3.11-slim

FROM ${PYTHON_IMAGE} AS wheel
WORKDIR /src
COPY . .
RUN python -m pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM ${PYTHON_IMAGE}
# Extras installed with the wheel: fast (uvloop for the reference hook server). Add "load" for the load profile
# (Locust) or "test" for pytest-xdist (`-- -n 4`): docker build --build-arg EXTRAS=fast,load .
ARG EXTRAS=fast
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HOOK_CONFORMANCE_CACHE=/tmp/hook-conformance-cache
COPY --from=wheel /wheels /wheels
RUN wheel="$(ls /wheels/*.whl)" && python -m pip install "${wheel}[${EXTRAS}]" && rm -rf /wheels
WORKDIR /work
ENTRYPOINT ["hook-conformance"]
CMD ["--help"]
